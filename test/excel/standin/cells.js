/**
 * The Excel stand-in's sheets and cells: each sheet's cells by row and column (read as a Map of "row,column" keys), its
 * id, the rows hidden on it, a value written as Excel reads typed text, and what is worked out over a whole sheet (its
 * used range, Excel's CurrentRegion).
 */
"use strict";
const { excelSerial, isBlank, keyRC } = require("./address");

/** The cells of `state.sheets` (and its sheet ids), with the sheets of a saved workbook (`restored`) put back. */
function createCells(state, restored) {
  /**
   * Every change to a sheet's cells bumps its CellMap's `edits`, so what is derived from the whole sheet (its used range)
   * is worked out once per change of that sheet rather than on every read, and a write to one sheet leaves what was
   * worked out for the others: a sheet's cells are a CellMap, and a cell is changed only through ensureCell (or cellIn)
   * just before it is written, or moved with set and delete.
   *
   * A CellMap reads as a Map of "row,column" keys, but holds each row's cells in an array by column: a range finds each
   * of its cells by two numbers, where making and hashing a key for every cell read or written was most of what a
   * range cost. Whole-sheet passes (the used range, moving cells) go row by row, then left to right.
   */
  class CellMap {
    constructor(entries) {
      this.edits = 0;
      this.size = 0;
      /** Row index -> the row's cells by column index (holes where there is none). */
      this.rows = new Map();
      if (entries) for (const [k, v] of entries) this.set(k, v);
    }
    /** The cells of row `r` by column, or undefined when the row has none. */
    row(r) {
      return this.rows.get(r);
    }
    at(r, c) {
      const line = this.rows.get(r);
      return line === undefined ? undefined : line[c];
    }
    setAt(r, c, v) {
      let line = this.rows.get(r);
      if (line === undefined) this.rows.set(r, (line = []));
      if (line[c] === undefined) this.size++;
      line[c] = v;
      this.edits++;
      return this;
    }
    deleteAt(r, c) {
      this.edits++;
      const line = this.rows.get(r);
      if (line === undefined || line[c] === undefined) return false;
      line[c] = undefined;
      this.size--;
      return true;
    }
    get(k) {
      const [r, c] = keyRC(k);
      return this.at(r, c);
    }
    has(k) {
      return this.get(k) !== undefined;
    }
    set(k, v) {
      const [r, c] = keyRC(k);
      return this.setAt(r, c, v);
    }
    delete(k) {
      const [r, c] = keyRC(k);
      return this.deleteAt(r, c);
    }
    clear() {
      this.rows.clear();
      this.size = 0;
      this.edits++;
    }
    /**
     * Every cell moved to the [row, column] that `to(row, column)` gives, or dropped where it gives null: how inserting
     * and deleting rows, columns or cells shifts a sheet, all cells read before any is put in its new place.
     */
    moveAll(to) {
      const moved = [];
      this.forEachAt((cell, r, c) => {
        const at = to(r, c);
        if (at) moved.push(at[0], at[1], cell);
      });
      this.clear();
      for (let i = 0; i < moved.length; i += 3) this.setAt(moved[i], moved[i + 1], moved[i + 2]);
    }
    /** fn(cell, row, column) for every cell, without making its key. */
    forEachAt(fn) {
      for (const [r, line] of this.rows)
        for (let c = 0; c < line.length; c++) if (line[c] !== undefined) fn(line[c], r, c);
    }
    forEach(fn) {
      this.forEachAt((cell, r, c) => fn(cell, r + "," + c, this));
    }
    *entries() {
      for (const [r, line] of this.rows)
        for (let c = 0; c < line.length; c++) if (line[c] !== undefined) yield [r + "," + c, line[c]];
    }
    *keys() {
      for (const [k] of this.entries()) yield k;
    }
    *values() {
      for (const [, v] of this.entries()) yield v;
    }
    [Symbol.iterator]() {
      return this.entries();
    }
  }
  /**
   * Worksheet.id: "a value that uniquely identifies the worksheet in a given workbook", which "remains the same even
   * when the worksheet is renamed or moved" (ExcelApi 1.1). Excel's are GUIDs in braces; made in order here.
   */
  let sheetSeq = 0;
  const newSheetId = () => `{${(++sheetSeq).toString(16).toUpperCase().padStart(8, "0")}-0001-0000-0000-000000000000}`;
  function sheetCells(name) {
    if (!state.sheets.has(name)) state.sheets.set(name, new CellMap());
    if (!state.sheetIds.has(name)) state.sheetIds.set(name, newSheetId());
    return state.sheets.get(name);
  }
  /** WorksheetCollection.getItem(key): "the name or ID of the worksheet". */
  function sheetNameOf(key) {
    if (state.sheets.has(key)) return key;
    for (const [name, id] of state.sheetIds) if (id === key && state.sheets.has(name)) return name;
    return null;
  }
  if (restored) {
    for (const [name, cells] of restored.sheets) state.sheets.set(name, new CellMap(cells));
    for (const [name, id] of restored.sheetIds || []) state.sheetIds.set(name, id);
    sheetSeq = state.sheetIds.size;
  }

  function hiddenSet(sheet) {
    if (!state.hiddenRows.has(sheet)) state.hiddenRows.set(sheet, new Set());
    return state.hiddenRows.get(sheet);
  }
  function cellAt(sheet, r, c) {
    return sheetCells(sheet).at(r, c);
  }
  function ensureCell(sheet, r, c) {
    return cellIn(sheetCells(sheet), r, c);
  }
  /** ensureCell on a sheet's cells already looked up: a range's writes look their sheet up once, not once a cell. */
  function cellIn(cells, r, c) {
    cells.edits++;
    let cell = cells.at(r, c);
    if (!cell) {
      cell = {
        value: "",
        formula: null,
        numberFormat: "General",
        fill: null,
        font: null,
        bold: false,
        prefixed: false,
      };
      cells.setAt(r, c, cell);
    }
    return cell;
  }
  function writeValue(cell, v) {
    cell.formula = null;
    cell.prefixed = false;
    if (typeof v === "string") {
      if (v.startsWith("'")) {
        cell.value = v.slice(1);
        cell.prefixed = true;
        return;
      }
      if (cell.numberFormat !== "@") {
        if (/^[=+\-@]/.test(v) && v.length > 1 && !/^[+-]?\d+(\.\d+)?$/.test(v)) {
          // What Excel does with such text: it becomes a formula.
          cell.formula = v.startsWith("=") ? v : "=" + v.slice(v.startsWith("@") ? 1 : 0);
          cell.value = "#FORMULA";
          return;
        }
        if (/^-?\d+(\.\d+)?$/.test(v.trim()) && v.trim().length < 16) {
          cell.value = Number(v);
          return;
        }
        if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
          cell.value = excelSerial(v);
          return;
        }
      }
      cell.value = v;
      return;
    }
    cell.value = v === null || v === undefined ? "" : v;
  }

  /** Bounding box of the used cells of a sheet, worked out again only after a cell of that sheet changed. */
  const usedBoxes = new WeakMap();
  function usedBox(sheet) {
    const cells = sheetCells(sheet);
    const known = usedBoxes.get(cells);
    if (known && known.edits === cells.edits) return known.box && { ...known.box };
    const box = scanUsedBox(sheet);
    usedBoxes.set(cells, { edits: cells.edits, box });
    return box && { ...box };
  }
  function scanUsedBox(sheet) {
    let r0 = Infinity,
      c0 = Infinity,
      r1 = -1,
      c1 = -1;
    sheetCells(sheet).forEachAt((cell, r, c) => {
      if (isBlank(cell)) return;
      if (r < r0) r0 = r;
      if (r > r1) r1 = r;
      if (c < c0) c0 = c;
      if (c > c1) c1 = c;
    });
    return r1 < 0 ? null : { r: r0, c: c0, rows: r1 - r0 + 1, cols: c1 - c0 + 1 };
  }

  /**
   * Excel's CurrentRegion: grow the box while any cell bordering it (diagonals included) is non-empty. Done over the
   * used cells rather than the box's border, so a 20,000-row table takes one pass instead of 20,000 border scans.
   */
  function currentRegion(sheet, box) {
    let r0 = box.r,
      c0 = box.c,
      r1 = box.r + box.rows - 1,
      c1 = box.c + box.cols - 1;
    const used = [];
    sheetCells(sheet).forEachAt((cell, r, c) => {
      if (!isBlank(cell)) used.push([r, c]);
    });
    for (let grew = true; grew;) {
      grew = false;
      for (const [rr, cc] of used) {
        const near = rr >= r0 - 1 && rr <= r1 + 1 && cc >= c0 - 1 && cc <= c1 + 1;
        if (!near || (rr >= r0 && rr <= r1 && cc >= c0 && cc <= c1)) continue;
        r0 = Math.min(r0, rr);
        r1 = Math.max(r1, rr);
        c0 = Math.min(c0, cc);
        c1 = Math.max(c1, cc);
        grew = true;
      }
    }
    return { r: r0, c: c0, rows: r1 - r0 + 1, cols: c1 - c0 + 1 };
  }

  return {
    sheetCells,
    sheetNameOf,
    hiddenSet,
    cellAt,
    ensureCell,
    cellIn,
    writeValue,
    usedBox,
    currentRegion,
  };
}

module.exports = { createCells };
