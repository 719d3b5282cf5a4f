/**
 * Excel.Worksheet in the stand-in: a sheet's ranges (by address or indexes, its used range), its tables, frozen rows
 * and charts, as one batch sees them.
 */
"use strict";
const { MAX_COLS, MAX_ROWS, parseAddress } = require("./address");

/** Worksheets of the workbook `state` (`model`: its cells) for one batch; `objects` gives its other proxies. */
function createWorksheets(state, model, batch, objects) {
  const { usedBox } = model;
  const { charge, apply, loadable, nullObject } = batch;
  const range = (sheet, r, c, rows, cols) => objects.range(sheet, r, c, rows, cols);
  const tableCollection = (sheet) => objects.tableCollection(sheet);

  function chartsOf(sheet) {
    if (!state.charts.has(sheet)) state.charts.set(sheet, []);
    return state.charts.get(sheet);
  }
  function chartObject(sheet, entry) {
    return {
      isNullObject: false,
      load() {
        return this;
      },
      set name(v) {
        charge(v);
        apply(() => (entry.name = v));
      },
      get name() {
        return entry.name;
      },
      title: {
        set text(v) {
          charge(v);
          apply(() => (entry.title = v));
        },
      },
      legend: {
        set position(v) {
          apply(() => (entry.legend = v));
        },
      },
      setPosition(start, end) {
        charge(start);
        apply(() => (entry.position = [start, end]));
      },
      setData(source, seriesBy) {
        charge(source.__get_address());
        apply(() => Object.assign(entry, { source: source.__get_address(), seriesBy: seriesBy || "Auto" }));
      },
      delete() {
        apply(() =>
          state.charts.set(
            sheet,
            chartsOf(sheet).filter((x) => x !== entry),
          ),
        );
      },
    };
  }

  function worksheet(name) {
    const ws = {
      isNullObject: false,
      __get_name: () => name,
      __get_id: () => state.sheetIds.get(name),
      getRangeByIndexes: (r, c, rows, cols) => range(name, r, c, rows, cols),
      getRange: (address) => {
        if (address === undefined) return range(name, 0, 0, MAX_ROWS, MAX_COLS);
        const a = parseAddress(address);
        return range(name, a.r, a.c, a.rows, a.cols);
      },
      freezePanes: {
        freezeRows: (n) => {
          charge(n);
          apply(() => state.frozenRows.set(name, n));
        },
      },
      charts: {
        add: (type, source, seriesBy) => {
          const entry = { name: "", type, source: source.__get_address(), seriesBy: seriesBy || "Auto", title: "" };
          charge(entry);
          apply(() => chartsOf(name).push(entry));
          return chartObject(name, entry);
        },
        getItemOrNullObject: (chartName) => {
          const entry = chartsOf(name).find((x) => x.name === chartName);
          return entry ? chartObject(name, entry) : nullObject();
        },
      },
      getUsedRange: () => {
        const b = usedBox(name) || { r: 0, c: 0, rows: 1, cols: 1 };
        return range(name, b.r, b.c, b.rows, b.cols);
      },
      getUsedRangeOrNullObject: () => {
        const b = usedBox(name);
        if (!b) return nullObject();
        const used = range(name, b.r, b.c, b.rows, b.cols);
        used.isNullObject = false;
        return used;
      },
      activate: () => {
        state.activeSheet = name;
      },
    };
    Object.defineProperty(ws, "tables", { get: () => tableCollection(name) });
    return loadable(ws, ["name", "id"]);
  }

  return { worksheet };
}

module.exports = { createWorksheets };
