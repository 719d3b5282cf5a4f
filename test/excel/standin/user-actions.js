/**
 * What a test does to the stand-in's workbook as the user would in Excel, outside any add-in batch: seed and type
 * values, select, insert and delete rows and columns, hide rows, rename a sheet, sort and filter a table, and start or
 * end typing in a cell.
 */
"use strict";
const { parseAddress } = require("./address");

/** The user's actions on the workbook `state` (`model`: its cells and tables). */
function userActions(state, model) {
  const { sheetCells, hiddenSet, ensureCell, writeValue } = model;
  const { tableHeaders, findTable, applyFilters, sortTable, expandTablesFor } = model;
  return {
    /** Put a 2D block of values at an A1 address of a sheet (created if needed); numbers stay numbers. */
    seed(sheet, address, values) {
      const a = parseAddress(address);
      values.forEach((row, i) =>
        row.forEach((v, j) => {
          const cell = ensureCell(sheet, a.r + i, a.c + j);
          cell.value = v;
        }),
      );
    },
    /** Select a range; "A2:A5,C2:C5" selects several areas, as Ctrl+click does. */
    select(sheet, address) {
      const boxes = address.split(",").map((part) => {
        const a = parseAddress(part.trim());
        return { r: a.r, c: a.c, rows: a.rows, cols: a.cols };
      });
      sheetCells(sheet);
      state.activeSheet = sheet;
      state.selection = boxes[0];
      state.areas = boxes;
    },
    /** Insert whole columns before a 0-based column index, shifting cells right, as Excel's Insert > Sheet Columns does. */
    insertColumns(sheet, before, count) {
      sheetCells(sheet).moveAll((r, c) => [r, c >= before ? c + count : c]);
      for (const t of state.tables) {
        if (t.sheet !== sheet) continue;
        if (before <= t.c) t.c += count;
        else if (before < t.c + t.cols) {
          t.cols += count;
          for (let j = 0; j < count; j++)
            writeValue(ensureCell(sheet, t.r, before + j), "Column" + (before - t.c + j + 1));
        }
      }
    },
    /** Hide (a filter, or Hide Rows) or show rows: `count` rows from the 0-based row `first`. */
    hideRows(sheet, first, count, hide) {
      const set = hiddenSet(sheet);
      for (let i = 0; i < count; i++) hide === false ? set.delete(first + i) : set.add(first + i);
    },
    /**
     * Rename a sheet, as the user does on its tab: its cells, Tables, charts, hidden and frozen rows go with it, and
     * its Worksheet.id stays. A held Worksheet object is not followed: get the sheet again, as after any sync.
     */
    renameSheet(from, to) {
      if (!state.sheets.has(from)) throw new Error(`ItemNotFound: worksheet ${from}`);
      if (state.sheets.has(to)) throw new Error(`ItemAlreadyExists: a worksheet named ${to} already exists`);
      const move = (m) => {
        if (!m.has(from)) return;
        const v = m.get(from);
        m.delete(from);
        m.set(to, v);
      };
      for (const m of [state.sheets, state.sheetIds, state.hiddenRows, state.charts, state.frozenRows]) move(m);
      for (const t of state.tables) if (t.sheet === from) t.sheet = to;
      if (state.activeSheet === from) state.activeSheet = to;
    },
    /** Insert whole rows before a 0-based row index, shifting cells (and hidden rows) down, as Insert > Sheet Rows does. */
    insertRows(sheet, before, count) {
      sheetCells(sheet).moveAll((r, c) => [r >= before ? r + count : r, c]);
      const hidden = hiddenSet(sheet);
      const h = [...hidden].map((r) => (r >= before ? r + count : r));
      hidden.clear();
      h.forEach((r) => hidden.add(r));
      for (const t of state.tables) {
        if (t.sheet !== sheet) continue;
        t.hiddenByFilter = new Set([...t.hiddenByFilter].map((r) => (r >= before ? r + count : r)));
        if (before <= t.r) t.r += count;
        else if (before < t.r + t.rows) t.rows += count;
      }
    },
    /** Delete whole rows, shifting the rows below up, as Delete > Sheet Rows does. */
    deleteRows(sheet, first, count) {
      sheetCells(sheet).moveAll((r, c) =>
        r < first || r >= first + count ? [r >= first + count ? r - count : r, c] : null,
      );
      for (const t of state.tables) {
        if (t.sheet !== sheet) continue;
        if (first <= t.r && first + count > t.r)
          throw new Error("stand-in: deleting a table's header row is not modelled");
        if (first + count <= t.r) t.r -= count;
        else if (first < t.r + t.rows) t.rows -= Math.min(count, t.r + t.rows - first);
      }
    },
    /**
     * Reorder rows as Sort does: row `first + i` gets what row `first + order[i]` held. Only the columns
     * [firstCol, firstCol + colCount) move when given (a sort of part of the table); else whole rows.
     */
    reorderRows(sheet, first, order, firstCol, colCount) {
      const cells = sheetCells(sheet);
      const inCols = (c) => firstCol === undefined || (c >= firstCol && c < firstCol + colCount);
      const taken = [];
      cells.forEachAt((cell, r, c) => {
        if (r >= first && r < first + order.length && inCols(c)) taken.push([r, c, cell]);
      });
      for (const [r, c] of taken) cells.deleteAt(r, c);
      // Where each row goes, looked up once a row rather than searched for once a cell.
      const dest = new Map();
      order.forEach((from, i) => dest.has(from) || dest.set(from, i));
      for (const [r, c, cell] of taken) cells.setAt(first + dest.get(r - first), c, cell);
    },
    /**
     * The user types values at an address (one cell or a block), as typing does: text is read as Excel reads it, and a
     * value typed right below or right of a table makes that row or column the table's (AutoCorrect's default).
     */
    type(sheet, address, values) {
      const a = parseAddress(address);
      values.forEach((row, i) => row.forEach((v, j) => writeValue(ensureCell(sheet, a.r + i, a.c + j), v)));
      expandTablesFor(sheet);
    },
    /** The user sorts a table by one of its columns (Data > Sort, or the header's filter button). */
    sortTable(name, column, ascending) {
      const t = findTable(name);
      const key = tableHeaders(t).findIndex((h) => h.toLowerCase() === String(column).toLowerCase());
      if (key < 0) throw new Error(`stand-in: no column ${column} in table ${name}`);
      sortTable(t, [{ key, ascending: ascending !== false }]);
      applyFilters(t);
    },
    /** The user filters a table's column to these values (null clears that column's filter). */
    filterTable(name, column, values) {
      const t = findTable(name);
      const key = tableHeaders(t).findIndex((h) => h.toLowerCase() === String(column).toLowerCase());
      if (key < 0) throw new Error(`stand-in: no column ${column} in table ${name}`);
      if (values === null) t.filters.delete(key);
      else t.filters.set(key, new Set(values.map((v) => String(v))));
      applyFilters(t);
    },
    /** The user starts (true) or ends (false) typing in a cell; while on, every sync fails as Excel's does. */
    setCellEditMode(on) {
      state.cellEditMode = !!on;
    },
  };
}

module.exports = { userActions };
