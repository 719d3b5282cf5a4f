/**
 * The stand-in's RequestContext, as Excel.run hands one to the add-in: the workbook (selection, worksheets, tables,
 * calculation) seen through one batch, and the batch's sync.
 */
"use strict";
const { createBatch } = require("./batch");
const { createRanges } = require("./range");
const { createTableObjects } = require("./table-objects");
const { createWorksheets } = require("./worksheet");

/** A fresh context over the workbook `state` (`model`: its cells and tables). */
function makeContext(state, model) {
  const batch = createBatch(state);
  const { loads, charge, apply, loadable, nullObject } = batch;
  // Each proxy module reaches the others through `objects`, filled before any proxy is made.
  const objects = {};
  Object.assign(
    objects,
    createRanges(state, model, batch, objects),
    createWorksheets(state, model, batch, objects),
    createTableObjects(state, model, batch, objects),
  );
  const { range, worksheet, tableCollection } = objects;
  const { sheetNameOf, sheetCells } = model;
  const ctx = {};

  /** workbook.getSelectedRanges(): a RangeAreas with areaCount, address ("Sheet1!A1:A5,Sheet1!C1:C5") and areas.items. */
  function rangeAreas() {
    const boxes = state.areas.map((a) => range(state.activeSheet, a.r, a.c, a.rows, a.cols));
    const ra = {
      __get_areaCount: () => boxes.length,
      __get_address: () => boxes.map((b) => b.__get_address()).join(","),
      areas: {
        __loaded: false,
        load(names) {
          const list = (typeof names === "string" ? names.split(",") : names || [])
            .map((n) => n.trim().replace(/^items\//, ""))
            .filter(Boolean);
          for (const b of boxes) b.load(list);
          // items become readable at the next sync, like any loaded property.
          loads.push({ __pending: new Set(["items"]), __loaded: { add: () => (this.__loaded = true) } });
          return this;
        },
        get items() {
          if (!this.__loaded) throw new Error("PropertyNotLoaded: areas.items was read before load() and sync()");
          return boxes;
        },
      },
    };
    return loadable(ra, ["areaCount", "address"]);
  }

  ctx.workbook = {
    getSelectedRange: () => {
      // Excel: "If there are multiple ranges selected, this method will throw an error" (at the sync).
      if (state.areas.length > 1)
        batch.fail(
          new Error(
            "InvalidSelection: the current selection is invalid for this operation (several areas are selected)",
          ),
        );
      return range(state.activeSheet, state.selection.r, state.selection.c, state.selection.rows, state.selection.cols);
    },
    getSelectedRanges: () => rangeAreas(),
    get tables() {
      return tableCollection(null);
    },
    getActiveCell: () => range(state.activeSheet, state.selection.r, state.selection.c, 1, 1),
    worksheets: {
      getItem: (key) => {
        const name = sheetNameOf(key);
        if (name === null) throw new Error(`ItemNotFound: worksheet ${key}`);
        return worksheet(name);
      },
      getItemOrNullObject: (key) => {
        const name = sheetNameOf(key);
        return name === null ? nullObject() : worksheet(name);
      },
      add: (name) => {
        if (state.sheets.has(name))
          batch.fail(new Error(`ItemAlreadyExists: a worksheet named ${name} already exists`));
        charge(name);
        apply(() => sheetCells(name));
        return worksheet(name);
      },
      getActiveWorksheet: () => worksheet(state.activeSheet),
      // load("items/name") then sync: the names as they are at the sync (read live here).
      load: () => undefined,
      get items() {
        return [...state.sheets.keys()].map((n) => ({ name: n }));
      },
    },
    application: {
      calculate: (type) => {
        state.stats.calculations++;
        state.lastCalculation = type;
      },
    },
  };
  ctx.__pendingWrites = batch.pendingWrites;
  ctx.sync = batch.sync;
  return ctx;
}

module.exports = { makeContext };
