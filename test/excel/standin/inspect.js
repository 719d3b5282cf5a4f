/**
 * What a test reads of the stand-in's workbook to assert on it: cells with their formats, tables, hidden and frozen
 * rows, charts, sheet names, formulas as a formula engine takes them, the add-in's request counts, and the workbook
 * as saved (to open it again).
 */
"use strict";
const { colLetters, parseAddress } = require("./address");

/** Reads of the workbook `state` (`model`: its cells and tables). */
function inspection(state, model) {
  const { hiddenSet, cellAt, usedBox, tableHeaders } = model;
  return {
    /** Every table as it stands: name, sheet, 0-based top-left, size (header row included) and column names. */
    tables() {
      return state.tables.map((t) => ({
        name: t.name,
        sheet: t.sheet,
        r: t.r,
        c: t.c,
        rows: t.rows,
        cols: t.cols,
        headers: tableHeaders(t),
      }));
    },
    /** Rows hidden on a sheet (0-based), by a filter or by hand. */
    hiddenRows(sheet) {
      return [...hiddenSet(sheet)].sort((x, y) => x - y);
    },
    /** Everything about a block of cells, for assertions. */
    read(sheet, address) {
      const a = parseAddress(address);
      const out = { values: [], formulas: [], fills: [], fonts: [], numberFormats: [], prefixed: [] };
      for (let i = 0; i < a.rows; i++) {
        const v = [],
          f = [],
          fi = [],
          fo = [],
          nf = [],
          p = [];
        for (let j = 0; j < a.cols; j++) {
          const cell = cellAt(sheet, a.r + i, a.c + j);
          v.push(cell ? cell.value : "");
          f.push(cell && cell.formula ? cell.formula : null);
          fi.push(cell ? cell.fill : null);
          fo.push(cell ? cell.font : null);
          nf.push(cell ? cell.numberFormat : "General");
          p.push(cell ? cell.prefixed : false);
        }
        out.values.push(v);
        out.formulas.push(f);
        out.fills.push(fi);
        out.fonts.push(fo);
        out.numberFormats.push(nf);
        out.prefixed.push(p);
      }
      return out;
    },
    resetStats() {
      state.stats = {
        syncs: 0,
        requests: 0,
        maxRequestBytes: 0,
        maxResponseBytes: 0,
        totalBytes: 0,
        calculations: 0,
      };
    },
    colLetters,
    /**
     * The workbook as saved (its sheets in order, the active one, cells, saved settings, startup behavior), to open it
     * again: createStandIn({ restore }).
     */
    dump() {
      return JSON.stringify({
        sheets: [...state.sheets].map(([name, cells]) => [name, [...cells]]),
        activeSheet: state.activeSheet,
        sheetIds: [...state.sheetIds],
        settings: state.savedSettings,
        startupBehavior: state.startupBehavior,
        tables: state.tables.map((t) => ({
          ...t,
          filters: [...t.filters].map(([k, v]) => [k, [...v]]),
          hiddenByFilter: [...t.hiddenByFilter],
        })),
      });
    },
    /** Sheet names, in creation order. */
    sheetNames() {
      return [...state.sheets.keys()];
    },
    /** Every cell of a sheet from A1 as its source: the formula when there is one, else the value (for a formula engine). */
    sourceGrid(sheet) {
      const b = usedBox(sheet);
      if (!b) return [];
      const out = [];
      for (let i = 0; i <= b.r + b.rows - 1; i++) {
        const line = [];
        for (let j = 0; j <= b.c + b.cols - 1; j++) {
          const cell = cellAt(sheet, i, j);
          line.push(cell ? (cell.formula ? cell.formula : cell.value) : "");
        }
        out.push(line);
      }
      return out;
    },
    charts(sheet) {
      return (state.charts.get(sheet) || []).map((x) => ({ ...x }));
    },
    frozenRows(sheet) {
      return state.frozenRows.get(sheet) || 0;
    },
  };
}

module.exports = { inspection };
