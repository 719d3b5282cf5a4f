/**
 * Excel Tables (ListObjects) in the stand-in, as Microsoft documents them: a named box with a header row whose cells
 * name its columns; columns and rows added with the cells beside them shifted; value filters hiding rows; sort moving
 * only the table's own cells; and a table taking in what the user types right below or right of it.
 * A table is { id, name, sheet, r, c, rows (header row included), cols, filters: Map(column -> allowed texts) }.
 */
"use strict";
const { isBlank } = require("./address");

/** The tables of `state.tables` over the sheets of `cells`, with the tables of a saved workbook (`restored`) put back. */
function createTables(state, cells, restored) {
  const { sheetCells, hiddenSet, cellAt, ensureCell, writeValue } = cells;
  state.tables = [];
  state.tableSeq = 0;
  if (restored) {
    for (const t of restored.tables || [])
      state.tables.push({
        ...t,
        filters: new Map((t.filters || []).map(([k, v]) => [k, new Set(v)])),
        hiddenByFilter: new Set(t.hiddenByFilter || []),
      });
    state.tableSeq = state.tables.reduce((m, t) => Math.max(m, t.id), 0);
  }
  const cellText = (cell) => (isBlank(cell) ? "" : String(cell.value));
  /** A Table's column names are its header cells (Excel keeps them in step both ways). */
  function tableHeaders(t) {
    return Array.from({ length: t.cols }, (_, j) => cellText(cellAt(t.sheet, t.r, t.c + j)));
  }
  function findTable(key) {
    const k = String(key).toLowerCase();
    return state.tables.find((t) => t.name.toLowerCase() === k || String(t.id) === String(key));
  }
  const overlaps = (t, box) =>
    box.r < t.r + t.rows && t.r < box.r + box.rows && box.c < t.c + t.cols && t.c < box.c + box.cols;
  const inside = (t, box) =>
    t.r >= box.r && t.c >= box.c && t.r + t.rows <= box.r + box.rows && t.c + t.cols <= box.c + box.cols;
  /** Range.getTables: the tables a range overlaps (or holds whole), top to bottom, then left to right. */
  function tablesOver(sheet, box, fullyContained) {
    return state.tables
      .filter((t) => t.sheet === sheet && (fullyContained ? inside(t, box) : overlaps(t, box)))
      .sort((a, b) => a.r - b.r || a.c - b.c);
  }
  /** Why a table name is refused (Excel: starts with a letter, _ or \, no spaces, not a cell address, unique), or "". */
  function tableNameProblem(name, self) {
    if (!/^[A-Za-z_\\][A-Za-z0-9_.\\]*$/.test(name) || /^[A-Za-z]{1,3}\d+$/.test(name) || /^[RrCc]$/.test(name))
      return `InvalidArgument: "${name}" is not a valid table name`;
    const other = findTable(name);
    if (other && other !== self) return `InvalidArgument: a table named ${name} already exists`;
    return "";
  }
  function newTable(sheet, box) {
    const seq = state.tableSeq + 1;
    let n = seq;
    while (findTable("Table" + n)) n++;
    return {
      id: seq,
      name: "Table" + n,
      sheet,
      r: box.r,
      c: box.c,
      rows: Math.max(2, box.rows),
      cols: box.cols,
      filters: new Map(),
      hiddenByFilter: new Set(),
    };
  }
  function placeTable(t) {
    state.tableSeq = Math.max(state.tableSeq, t.id);
    state.tables.push(t);
    // Blank header cells get Excel's names (Column1, Column2...).
    tableHeaders(t).forEach((h, j) => {
      if (h === "") writeValue(ensureCell(t.sheet, t.r, t.c + j), "Column" + (j + 1));
    });
  }
  /** Hides the rows the table's filters leave out (and shows again those they no longer do). */
  function applyFilters(t) {
    const hidden = hiddenSet(t.sheet);
    for (const row of t.hiddenByFilter) hidden.delete(row);
    t.hiddenByFilter = new Set();
    for (let i = 1; i < t.rows; i++) {
      const row = t.r + i;
      const shown = [...t.filters].every(([j, allowed]) => allowed.has(cellText(cellAt(t.sheet, row, t.c + j))));
      if (!shown) {
        hidden.add(row);
        t.hiddenByFilter.add(row);
      }
    }
  }
  /** Moves cells in rows [r0, r0 + rows) from column `col` on right by `count` (a table column inserted). */
  function shiftRight(sheet, r0, rows, col, count) {
    sheetCells(sheet).moveAll((r, c) => [r, r >= r0 && r < r0 + rows && c >= col ? c + count : c]);
  }
  /** Moves cells in columns [c0, c0 + cols) from row `row` down by `count` (a table row inserted). */
  function shiftDown(sheet, c0, cols, row, count) {
    sheetCells(sheet).moveAll((r, c) => [c >= c0 && c < c0 + cols && r >= row ? r + count : r, c]);
  }
  /**
   * TableColumnCollection.add(index, values, name): a column inserted at `index` (the end when null), shifting the
   * cells right of it in the table's rows; `values` fill it top to bottom (header first when it has one value per row
   * of the table). Returns the new column's index.
   */
  function addTableColumn(t, index, values, name) {
    const at = index === null || index === undefined ? t.cols : index;
    if (at < 0 || at > t.cols) throw new Error(`InvalidArgument: column index ${index} is outside the table ${t.name}`);
    for (const o of state.tables) {
      if (o === t || o.sheet !== t.sheet || o.c + o.cols <= t.c + at) continue;
      const rowsOverlap = o.r < t.r + t.rows && t.r < o.r + o.rows;
      if (!rowsOverlap) continue;
      if (o.r < t.r || o.r + o.rows > t.r + t.rows)
        throw new Error(`InvalidOperation: inserting a column into ${t.name} would shift part of the table ${o.name}`);
    }
    shiftRight(t.sheet, t.r, t.rows, t.c + at, 1);
    for (const o of state.tables)
      if (o !== t && o.sheet === t.sheet && o.c >= t.c + at && o.r >= t.r && o.r + o.rows <= t.r + t.rows) o.c++;
    t.filters = new Map([...t.filters].map(([j, v]) => [j >= at ? j + 1 : j, v]));
    t.cols++;
    const body = values ? (values.length === t.rows ? values.slice(1) : values) : null;
    if (body && body.length !== t.rows - 1)
      throw new Error(`InvalidArgument: ${values.length} values for a table of ${t.rows - 1} data rows`);
    const header =
      name !== undefined && name !== null
        ? String(name)
        : values && values.length === t.rows
          ? String(values[0][0])
          : "";
    let h = header || "Column" + t.cols;
    const taken = new Set(
      tableHeaders(t)
        .filter((_x, j) => j !== at)
        .map((x) => x.toLowerCase()),
    );
    for (let n = 2; taken.has(h.toLowerCase()); n++) h = (header || "Column") + n;
    writeValue(ensureCell(t.sheet, t.r, t.c + at), h);
    if (body) body.forEach((row, i) => writeValue(ensureCell(t.sheet, t.r + 1 + i, t.c + at), row[0]));
    return at;
  }
  /** TableRowCollection.add(index, values): data rows inserted at `index` (the end when null), cells below shifted down. */
  function addTableRows(t, index, values) {
    const rows = values ? values : [Array.from({ length: t.cols }, () => "")];
    const at = index === null || index === undefined ? t.rows - 1 : index;
    shiftDown(t.sheet, t.c, t.cols, t.r + 1 + at, rows.length);
    t.rows += rows.length;
    rows.forEach((row, i) => row.forEach((v, j) => writeValue(ensureCell(t.sheet, t.r + 1 + at + i, t.c + j), v)));
  }
  /**
   * Table sort (table.sort.apply): only the table's own cells move, row by row; with a filter on, only the visible rows
   * are sorted among themselves (hidden rows stay where they are), as Excel does. Blanks sort last either way.
   */
  function sortTable(t, fields) {
    const hidden = hiddenSet(t.sheet);
    const rows = [];
    for (let i = 1; i < t.rows; i++) if (!hidden.has(t.r + i)) rows.push(t.r + i);
    const cells = sheetCells(t.sheet);
    const snap = rows.map((r) => Array.from({ length: t.cols }, (_, j) => cells.at(r, t.c + j)));
    const rank = (cell) => (isBlank(cell) ? 2 : typeof cell.value === "number" ? 0 : 1);
    const order = snap
      .map((_x, i) => i)
      .sort((a, b) => {
        for (const f of fields) {
          const x = snap[a][f.key],
            y = snap[b][f.key];
          const ra = rank(x),
            rb = rank(y);
          if (ra === 2 || rb === 2) {
            if (ra !== rb) return ra - rb;
            continue;
          }
          const asc = f.ascending === false ? -1 : 1;
          if (ra !== rb) return (ra - rb) * asc;
          const cmp =
            ra === 0
              ? x.value - y.value
              : String(x.value).localeCompare(String(y.value), undefined, {
                  sensitivity: f.matchCase ? "variant" : "base",
                });
          if (cmp) return cmp * asc;
        }
        return a - b;
      });
    rows.forEach((r, i) => {
      snap[order[i]].forEach((cell, j) => {
        if (cell) cells.setAt(r, t.c + j, cell);
        else cells.deleteAt(r, t.c + j);
      });
    });
  }
  /**
   * What the user types (AutoCorrect's "Include new rows and columns in table", on by default): a value typed in the row
   * directly below a table, within its columns, makes that row the table's; one typed in the column directly right of
   * it, within its rows, makes that column the table's (named from its header cell, or Column<n>).
   */
  function expandTablesFor(sheet) {
    for (let grew = true; grew;) {
      grew = false;
      for (const t of state.tables) {
        if (t.sheet !== sheet) continue;
        const below = Array.from({ length: t.cols }, (_, j) => cellAt(sheet, t.r + t.rows, t.c + j)).some(
          (cell) => !isBlank(cell),
        );
        const clear = (box) => !state.tables.some((o) => o !== t && o.sheet === sheet && overlaps(o, box));
        if (below && clear({ r: t.r + t.rows, c: t.c, rows: 1, cols: t.cols })) {
          t.rows++;
          grew = true;
        }
        const right = Array.from({ length: t.rows }, (_, i) => cellAt(sheet, t.r + i, t.c + t.cols)).some(
          (cell) => !isBlank(cell),
        );
        if (right && clear({ r: t.r, c: t.c + t.cols, rows: t.rows, cols: 1 })) {
          t.cols++;
          const head = ensureCell(sheet, t.r, t.c + t.cols - 1);
          if (isBlank(head)) writeValue(head, "Column" + t.cols);
          grew = true;
        }
      }
    }
  }

  return {
    tableHeaders,
    findTable,
    overlaps,
    tablesOver,
    tableNameProblem,
    newTable,
    placeTable,
    applyFilters,
    addTableColumn,
    addTableRows,
    sortTable,
    expandTablesFor,
  };
}

module.exports = { createTables };
