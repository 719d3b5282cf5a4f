/**
 * A stand-in for the Excel object model (and the Office, CustomFunctions and OfficeRuntime globals) for tests and the
 * write benchmark: cells with values, formulas, number formats and colours; load/sync rules; Excel on the web's 5 MB limit;
 * Excel Tables (ListObjects: a named range with a header row, columns named by their header cells, filters, sort, growth
 * when the user types next to one), as Microsoft documents them (docs/excel.md lists the pages).
 * In Node, require() it and call createStandIn(). A page is given the stand-in's files as one script that installs the
 * globals (test/helpers/excel-standin.ts, STANDIN_SCRIPT): the e2e tests serve it in place of office.js.
 * The parts: address.js (A1 addresses), cells.js (sheets and cells), tables.js (Excel Tables), context.js with
 * batch.js, range.js, worksheet.js and table-objects.js (what Excel.run hands the add-in), office-globals.js and
 * settings.js (Excel, CustomFunctions, Office), storage.js (OfficeRuntime.storage), user-actions.js and inspect.js
 * (what a test does to the workbook and reads of it).
 */
"use strict";
const { colLetters, parseAddress } = require("./address");
const { createCells } = require("./cells");
const { inspection } = require("./inspect");
const { createOfficeGlobals } = require("./office-globals");
const { createSettings } = require("./settings");
const { createOfficeRuntime } = require("./storage");
const { createTables } = require("./tables");
const { userActions } = require("./user-actions");

/** A fresh workbook with one empty Sheet1, or the workbook api.dump() saved (`options.restore`, its text or object). */
function createStandIn(options) {
  const opts = options || {};
  const restored = opts.restore ? (typeof opts.restore === "string" ? JSON.parse(opts.restore) : opts.restore) : null;
  const state = {
    sheets: new Map(),
    activeSheet: "Sheet1",
    selection: { r: 0, c: 0, rows: 1, cols: 1 },
    /** Every area of the selection (Ctrl+click makes several); selection is the first. */
    areas: [{ r: 0, c: 0, rows: 1, cols: 1 }],
    stats: { syncs: 0, requests: 0, maxRequestBytes: 0, maxResponseBytes: 0, totalBytes: 0, calculations: 0 },
    /** True while the user is typing in a cell: Excel then refuses every sync (see api.setCellEditMode). */
    cellEditMode: false,
    /** Rows hidden (by a filter or by hand), per sheet: see api.hideRows. */
    hiddenRows: new Map(),
    customFunctions: {},
    partitionKey: opts.partitionKey || "",
    /** Charts per sheet: { name, type, source (address), seriesBy, title, position }. */
    charts: new Map(),
    /** Rows frozen at the top, per sheet. */
    frozenRows: new Map(),
    sheetIds: new Map(),
  };
  const cells = createCells(state, restored);
  const saved = createSettings(state, restored);
  // A new workbook has one empty Sheet1; a saved one opens with exactly its sheets, on the sheet it was saved on.
  const names = [...state.sheets.keys()];
  if (names.length === 0) cells.sheetCells("Sheet1");
  else state.activeSheet = names.includes(restored.activeSheet) ? restored.activeSheet : names[0];
  const model = { ...cells, ...createTables(state, cells, restored) };
  const { Excel, CustomFunctions, Office, actions } = createOfficeGlobals(state, model, saved);
  const OfficeRuntime = createOfficeRuntime();
  const api = { state, actions, ...userActions(state, model), ...inspection(state, model) };
  return { Excel, Office, CustomFunctions, OfficeRuntime, api };
}

function install(root) {
  const s = createStandIn(root.__standInOptions);
  root.Excel = s.Excel;
  root.Office = s.Office;
  root.CustomFunctions = s.CustomFunctions;
  root.OfficeRuntime = s.OfficeRuntime;
  root.__excelStandIn = s.api;
}

module.exports = { createStandIn, install, parseAddress, colLetters };
