/**
 * Excel.Range in the stand-in: a box of cells read and written through the batch (values, formulas, number formats,
 * fills and fonts, each checked against the box's size and charged to the request), with the ranges Excel derives
 * from one (used range, CurrentRegion, a cell, a row, the tables over it) and what loading its grids costs.
 */
"use strict";
const { colLetters, isBlank } = require("./address");
const { RESPONSE_LIMIT } = require("./batch");

const GROUPED = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 0 });

/** Ranges of the workbook `state` (`model`: its cells and tables) for one batch; `objects` gives its other proxies. */
function createRanges(state, model, batch, objects) {
  const { sheetCells, cellIn, writeValue, hiddenSet, usedBox, currentRegion, tablesOver } = model;
  const { charge, apply, loadable, collection, nullObject, missing } = batch;
  const worksheet = (name) => objects.worksheet(name);
  const tableObject = (t) => objects.tableObject(t);

  function range(sheet, r, c, rows, cols) {
    // Plain loops over the sheet's rows, looked up once: these run for every cell of every range read or written.
    const grid = (fn) => {
      const cells = sheetCells(sheet);
      const out = new Array(rows);
      for (let i = 0; i < rows; i++) {
        const line = cells.row(r + i);
        const row = new Array(cols);
        for (let j = 0; j < cols; j++) row[j] = fn(line === undefined ? undefined : line[c + j], i, j);
        out[i] = row;
      }
      return out;
    };
    // Each cell of the box, made when missing, given to `fn`: a write's loop, with the sheet looked up once.
    const eachCell = (fn) => {
      const cells = sheetCells(sheet);
      for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) fn(cellIn(cells, r + i, c + j), i, j);
    };
    const valuesNow = () => grid((cell) => (cell ? cell.value : ""));
    // The values a sync loaded, kept from the sync's count of the response (which reads every one of them) for the first
    // read after it, while no cell has changed since: one pass over the box instead of two.
    let loaded = null;
    const checkDims = (v, what) => {
      if (!Array.isArray(v) || v.length !== rows || v.some((row) => !Array.isArray(row) || row.length !== cols)) {
        throw new Error(`InvalidArgument: ${what} must be ${rows}x${cols} for ${rg.__get_address()}`);
      }
    };
    const rg = {
      __get_address: () =>
        `${sheet}!${colLetters(c)}${r + 1}${rows * cols > 1 ? `:${colLetters(c + cols - 1)}${r + rows}` : ""}`,
      __get_rowIndex: () => r,
      __get_columnIndex: () => c,
      __get_rowCount: () => rows,
      __get_columnCount: () => cols,
      __get_values: () => {
        const kept = loaded;
        loaded = null;
        const same = kept && kept.cells === sheetCells(sheet) && kept.edits === kept.cells.edits;
        return same ? kept.values : valuesNow();
      },
      __set_values: (v) => {
        checkDims(v, "values");
        charge(v);
        apply(() => eachCell((cell, i, j) => writeValue(cell, v[i][j])));
      },
      __get_formulas: () => grid((cell) => (cell && cell.formula ? cell.formula : cell ? cell.value : "")),
      __set_formulas: (v) => {
        checkDims(v, "formulas");
        charge(v);
        apply(() =>
          eachCell((cell, i, j) => {
            const val = v[i][j];
            if (typeof val === "string" && val.startsWith("=")) {
              cell.formula = val;
              cell.value = "#FORMULA";
              cell.prefixed = false;
            } else writeValue(cell, val);
          }),
        );
      },
      clear() {
        apply(() => {
          const cells = sheetCells(sheet);
          const inside = [];
          cells.forEachAt((_cell, rr, cc) => {
            if (rr >= r && rr < r + rows && cc >= c && cc < c + cols) inside.push(rr, cc);
          });
          for (let i = 0; i < inside.length; i += 2) cells.deleteAt(inside[i], inside[i + 1]);
        });
      },
      /** Delete the range's cells, shifting the cells below it (in its columns) up: Excel's range.delete("Up"). */
      delete(shift) {
        if (shift !== "Up") throw new Error(`stand-in: delete(${shift}) is not modelled`);
        apply(() => {
          sheetCells(sheet).moveAll((rr, cc) => {
            const inCols = cc >= c && cc < c + cols;
            if (inCols && rr >= r && rr < r + rows) return null;
            return [inCols && rr >= r + rows ? rr - rows : rr, cc];
          });
        });
      },
      __get_numberFormat: () => grid((cell) => (cell ? cell.numberFormat : "General")),
      // Range.text, the text each cell shows (with a computer's United Kingdom separators): modelled for text, whole
      // numbers under General and numbers under "#,##0"; any other number format throws rather than guess.
      __get_text: () =>
        grid((cell) => {
          const v = cell ? cell.value : "";
          if (typeof v !== "number") return String(v);
          const format = cell.numberFormat;
          if (format === "#,##0") return GROUPED.format(v);
          if (format === "General" && Number.isInteger(v) && Math.abs(v) < 1e11) return String(v);
          throw new Error(`stand-in: the text of ${v} under "${format}" is not modelled`);
        }),
      __set_numberFormat: (v) => {
        checkDims(v, "numberFormat");
        charge(v);
        apply(() => eachCell((cell, i, j) => (cell.numberFormat = v[i][j])));
      },
      worksheet: worksheet(sheet),
      format: {
        fill: {
          set color(v) {
            charge(v);
            apply(() => eachCell((cell) => (cell.fill = v)));
          },
        },
        font: {
          set color(v) {
            charge(v);
            apply(() => eachCell((cell) => (cell.font = v)));
          },
          set bold(v) {
            charge(v);
            apply(() => eachCell((cell) => (cell.bold = !!v)));
          },
        },
        set columnWidth(v) {
          charge(v);
        },
        autofitColumns() {},
      },
      setCellProperties(props) {
        checkDims(props, "cellProperties");
        charge(props);
        apply(() =>
          eachCell((cell, i, j) => {
            const p = props[i][j];
            if (p && p.format && p.format.fill && p.format.fill.color) cell.fill = p.format.fill.color;
            if (p && p.format && p.format.font && p.format.font.color) cell.font = p.format.font.color;
          }),
        );
      },
      getSurroundingRegion() {
        const b = currentRegion(sheet, { r, c, rows, cols });
        return range(sheet, b.r, b.c, b.rows, b.cols);
      },
      getUsedRange() {
        const b = usedBox(sheet);
        if (!b) return range(sheet, r, c, 1, 1);
        const r0 = Math.max(r, b.r),
          c0 = Math.max(c, b.c);
        const r1 = Math.min(r + rows - 1, b.r + b.rows - 1),
          c1 = Math.min(c + cols - 1, b.c + b.cols - 1);
        return range(sheet, r0, c0, Math.max(1, r1 - r0 + 1), Math.max(1, c1 - c0 + 1));
      },
      getUsedRangeOrNullObject(_valuesOnly) {
        const b = usedBox(sheet);
        const r0 = b ? Math.max(r, b.r) : 0,
          c0 = b ? Math.max(c, b.c) : 0;
        const r1 = b ? Math.min(r + rows - 1, b.r + b.rows - 1) : -1,
          c1 = b ? Math.min(c + cols - 1, b.c + b.cols - 1) : -1;
        if (!b || r1 < r0 || c1 < c0) return nullObject();
        const used = range(sheet, r0, c0, r1 - r0 + 1, c1 - c0 + 1);
        used.isNullObject = false;
        return used;
      },
      getCell: (i, j) => range(sheet, r + i, c + j, 1, 1),
      getRow: (i) => range(sheet, r + i, c, 1, cols),
      // Range.rowHidden (ExcelApi 1.2): true when every row is hidden, false when none is, null when some are.
      __get_rowHidden: () => {
        const hidden = hiddenSet(sheet);
        let n = 0;
        for (let i = 0; i < rows; i++) if (hidden.has(r + i)) n++;
        return n === 0 ? false : n === rows ? true : null;
      },
      /** Range.getTables (ExcelApi 1.9): a TableScopedCollection, top to bottom then left to right. */
      getTables(fullyContained) {
        const list = () => tablesOver(sheet, { r, c, rows, cols }, !!fullyContained);
        return collection(() => list().map(tableObject), {
          getFirst: () => (list()[0] ? tableObject(list()[0]) : missing(`a table in ${rg.__get_address()}`)),
          getItem: (key) => {
            const t = list().find((x) => x.name.toLowerCase() === String(key).toLowerCase());
            return t ? tableObject(t) : missing(`table ${key}`);
          },
          getItemOrNullObject: (key) => {
            const t = list().find((x) => x.name.toLowerCase() === String(key).toLowerCase());
            return t ? tableObject(t) : nullObject();
          },
        });
      },
      select() {
        state.activeSheet = sheet;
        state.selection = { r, c, rows, cols };
        state.areas = [state.selection];
      },
    };
    // What loading `values` costs in the response: at least `"",` a cell, plus the text of the cells that hold something.
    const valuesBytes = () => {
      let n = rows * cols * 3;
      const cells = sheetCells(sheet);
      if (n <= RESPONSE_LIMIT) {
        // A box whose response can fit: its own cells, read once for the count and kept for the read that follows.
        const values = valuesNow();
        // The text of the cells that hold something: the box's JSON (one native pass, where a JSON.stringify a cell
        // was most of a read's cost) less its brackets and commas and what its blanks take there ("" or null).
        let blanks = 0;
        for (const row of values)
          for (const v of row)
            if (v === "") blanks += 2;
            else if (v === null || v === undefined) blanks += 4;
        n += JSON.stringify(values).length - (rows * cols + 2 * rows + 1) - blanks;
        loaded = { values, cells, edits: cells.edits };
        return n;
      }
      // Too many cells for any response: counted over the sheet's cells, never over millions of empty ones.
      cells.forEachAt((cell, rr, cc) => {
        if (isBlank(cell)) return;
        if (rr >= r && rr < r + rows && cc >= c && cc < c + cols) n += JSON.stringify(cell.value).length;
      });
      return n;
    };
    // Any other grid loaded (a format or a formula a cell) is in the same response, as Excel on the web counts it: at
    // least `"",` a cell, so a box too large for any response is refused without building its grid.
    const gridBytes = (read) => {
      const least = rows * cols * 3;
      if (least > RESPONSE_LIMIT) return least;
      try {
        return Math.max(least, JSON.stringify(read()).length);
      } catch {
        // A text the stand-in does not model (it throws when read): at least the values' size.
        return valuesBytes();
      }
    };
    const GRIDS = {
      values: valuesBytes,
      formulas: () => gridBytes(rg.__get_formulas),
      numberFormat: () => gridBytes(rg.__get_numberFormat),
      text: () => gridBytes(rg.__get_text),
    };
    /** What the loaded grids of the range (`pending`: the properties loaded) cost in the response. */
    rg.__responseBytes = (pending) => {
      let n = 0;
      for (const p of pending) if (GRIDS[p]) n += GRIDS[p]();
      return n;
    };
    return loadable(rg, [
      "address",
      "rowIndex",
      "columnIndex",
      "rowCount",
      "columnCount",
      "values",
      "formulas",
      "numberFormat",
      "text",
      "rowHidden",
    ]);
  }

  return { range };
}

module.exports = { createRanges };
