/**
 * Which rows and columns of a sheet are the table the user means: its header row (not a title above it), the table
 * the selected columns are in where tables stand side by side, and the rows a selection covers (not a second table
 * further down). Pure: rows are arrays of cell values as the host read them; both add-ins decide with these.
 */
import { detectColumns, headerCellRank, stripInvisible, type ColumnMapping } from "./input-rows";

const isBlank = (v: unknown) =>
  v === null || v === undefined || (typeof v === "string" && stripInvisible(v).trim() === "");
const KEYS = ["uprn", "postcode"] as const;

/** The input column one header cell names by itself ("UPRN", "Post code"), if any. */
export function keyOfCell(cell: unknown): "uprn" | "postcode" | undefined {
  const m = detectColumns([cell]);
  return m ? KEYS.find((k) => m[k] !== undefined) : undefined;
}

/**
 * A title above the table ("UPRN checks - March 2026"): one cell in use that only mentions an input column among other
 * words. It names the sheet, not a column: a row below that names the columns is the header.
 */
export function isTitleRow(row: readonly unknown[]): boolean {
  const used = row.filter((v) => !isBlank(v));
  if (used.length !== 1 || typeof used[0] !== "string") return false;
  return KEYS.every((k) => headerCellRank(used[0], k) <= 1) && KEYS.some((k) => headerCellRank(used[0], k) === 1);
}

/**
 * The header row among `rows` (0-based, or -1): the nearest row at or above the selection's first row (`selectedFirst`)
 * that names a UPRN or Postcode column (or that `isHeader` accepts), else the first such row below it. A title row is
 * the header only when no other row names the columns.
 */
export function findHeaderRow(
  rows: readonly (readonly unknown[])[],
  selectedFirst: number,
  isHeader: (row: readonly unknown[]) => boolean = (r) => detectColumns(r) !== null,
): number {
  const named = rows.map((r, i) => (isHeader(r) ? i : -1)).filter((i) => i >= 0);
  const real = named.filter((i) => !isTitleRow(rows[i]));
  const candidates = real.length ? real : named;
  const above = candidates.filter((i) => i <= selectedFirst);
  return above.length ? above[above.length - 1] : candidates.length ? candidates[0] : -1;
}

/**
 * A row under a table's header that is the header of another table: it names a UPRN or Postcode column by its plain
 * word or a synonym ("UPRN", "Postcode", "Property reference"), and every cell in use is words (no UPRN or postcode
 * value). A data row whose cell only mentions the word ("not a postcode") is not one.
 */
export function isAnotherHeader(row: readonly unknown[]): boolean {
  return row.some((v) => KEYS.some((k) => headerCellRank(v, k) >= 2)) && looksLikeHeaderRow(row);
}

/**
 * Where a selection ends within its table: before the first row under the header that is another table's header (a
 * second table stacked below, taken in by a whole column or a selection across the blank rows between), and before
 * the blank rows that precede it. `rows[0]` is the first row under the header; `to` is an index into `rows`. The
 * table the selection starts in is checked; the other keeps its own header and results.
 */
export function selectionEnd(rows: readonly (readonly unknown[])[], to: number): number {
  const last = Math.min(to, rows.length - 1);
  for (let i = 0; i <= last; i++) {
    if (!isAnotherHeader(rows[i])) continue;
    let end = i - 1;
    while (end >= 0 && rows[end].every(isBlank)) end--;
    return end;
  }
  return last;
}

/**
 * The input columns of the table the selected columns are in, where a header row holds more than one table side by
 * side (A:B and D:E, or A:B and C:D with no gap, both "UPRN / Postcode"): the header cells within the selected columns
 * (0-based, inclusive) name a UPRN or Postcode column and cells outside the table name a UPRN or Postcode column
 * again. The table runs from those cells over the header cells either side, up to a blank cell or a cell naming a
 * UPRN or Postcode column the table already has (the next table's); a column named within the selection wins over
 * one elsewhere in the table. Null when the selection names no input column or the row holds one table: then
 * detectColumns reads the whole row.
 */
export function detectColumnsInSelection(
  headerRow: readonly unknown[],
  selected: { first: number; last: number },
): { mapping: ColumnMapping; first: number; last: number } | null {
  const lo = Math.max(0, selected.first);
  const hi = Math.min(headerRow.length - 1, selected.last);
  if (hi < lo) return null;
  const only = (from: number, to: number) => headerRow.map((v, i) => (i >= from && i <= to ? v : ""));
  const inSelection = detectColumns(only(lo, hi));
  if (!inSelection) return null;
  const named = new Set<string>();
  for (let i = lo; i <= hi; i++) {
    const k = keyOfCell(headerRow[i]);
    if (k) named.add(k);
  }
  const joins = (i: number) => {
    if (isBlank(headerRow[i])) return false;
    const k = keyOfCell(headerRow[i]);
    if (k && named.has(k)) return false;
    if (k) named.add(k);
    return true;
  };
  let first = lo;
  let last = hi;
  while (first > 0 && joins(first - 1)) first--;
  while (last + 1 < headerRow.length && joins(last + 1)) last++;
  const mapping: ColumnMapping = { ...detectColumns(only(first, last)), ...inSelection };
  // Another table names a UPRN or Postcode column this one names too; a header cell left blank inside one table
  // ("UPRN", "", "Postcode") is not a second table.
  const outside = detectColumns(headerRow.map((v, i) => (i >= first && i <= last ? "" : v)));
  if (!outside || !KEYS.some((k) => outside[k] !== undefined && mapping[k] !== undefined)) return null;
  if (mapping.address !== undefined && (mapping.address === mapping.uprn || mapping.address === mapping.postcode))
    delete mapping.address;
  return { mapping, first, last };
}

/**
 * Whether a selection means "the whole table": its rows end on or above the table's header row (the header row
 * selected, or a title above it). Then the table runs to rowsOfWholeTable: up to the first row blank in every cell of
 * the table's columns, as Excel's surrounding region ends, so a second table further down is not taken in. Both
 * add-ins decide with these two (rows are indexes in the same numbering as headerRow).
 */
export function wholeTableSelected(selectionLastRow: number, headerRow: number | null): boolean {
  return headerRow !== null && selectionLastRow <= headerRow;
}

/**
 * One selected cell means its own row, in both add-ins; the header row selected means the whole table
 * (wholeTableSelected). A check spends the plan's daily quota and cannot be taken back: a table of thousands of rows
 * checked because the user clicked one cell to re-check one property would spend the day's quota for nothing, while
 * checking more rows is one selection away. `cells` is the selection's size, `sheetRow` its 1-based row; the answer is
 * the sentence both add-ins show before the check (what will be checked, and how to check the whole table), or "".
 */
export function oneCellNote(sel: {
  rows: number;
  columns: number;
  sheetRow: number;
  onOrAboveHeader: boolean;
}): string {
  if (sel.rows !== 1 || sel.columns !== 1 || sel.onOrAboveHeader) return "";
  return `You selected one cell, so only its row (row ${sel.sheetRow}) is checked. To check the whole table, select its header row.`;
}

/** Which rows a check takes, against what was selected: sheet rows (1-based), as the user numbers them. */
export interface CheckedRows {
  firstRow: number;
  lastRow: number;
  /** The selection was the header row, or rows above it (a title): the whole table is checked. */
  whole?: "header" | "above";
  /** The selection ran into another table, whose header is this row: that table is left as it is. */
  anotherHeaderRow?: number;
  /** Selected rows below lastRow that are empty, left out. */
  blankBelow?: number;
  /** The whole table was checked, and below the blank rows that end it stand rows of data not checked (rowsAfterBlank). */
  leftBelow?: { firstBlank: number; lastBlank: number; firstRow: number; lastRow: number };
}

/**
 * What both add-ins say, before the check, when the rows checked are not simply the rows selected; "" otherwise.
 * (One selected cell has its own sentence: oneCellNote.)
 */
export function checkedRowsNote(c: CheckedRows): string {
  const rows = `rows ${c.firstRow}–${c.lastRow}`;
  if (c.whole)
    return `You selected ${c.whole === "header" ? "the header row" : "rows above the table"}, so the whole table is checked: ${rows}.${c.leftBelow ? ` ${leftBelowNote(c.leftBelow)}` : ""}`;
  if (c.anotherHeaderRow)
    return `Checked ${rows}: the selection runs into another table (its header is row ${c.anotherHeaderRow}), which is left as it is.`;
  if (c.blankBelow)
    return `Checked ${rows}: the selected ${c.blankBelow === 1 ? "row" : "rows"} below ${c.lastRow} ${c.blankBelow === 1 ? "is" : "are"} empty and ${c.blankBelow === 1 ? "was" : "were"} left out.`;
  return "";
}

/** How many rows of a table under its header the whole table holds (see wholeTableSelected). */
export function rowsOfWholeTable(rows: readonly (readonly unknown[])[]): number {
  const i = rows.findIndex((r) => r.every(isBlank));
  return i < 0 ? rows.length : i;
}

/**
 * A row that reads as a header though it names none of our columns ("Property ID", "Town"): every cell in use is
 * words, none holds a UPRN-like run of digits or starts like a postcode. Then the columns are chosen by hand and the
 * row stays the table's header (both add-ins).
 */
export function looksLikeHeaderRow(row: readonly unknown[]): boolean {
  const cells = row.filter((v) => !isBlank(v));
  return (
    cells.length > 0 &&
    cells.every(
      (v) => typeof v === "string" && /[a-z]/i.test(v) && !/\d{5,}/.test(v) && !/^[a-z]{1,2}\d/i.test(v.trim()),
    )
  );
}

/**
 * What each row's Message says besides its result when several rows hold one property: the first of them is checked,
 * the others say "Same property as row N; checked once." (N as the user sees it). `keys[i]` is the property of a row
 * taking a result now (undefined for the others); `rowNumber` turns an index into the sheet's row number.
 */
export function sameAsNotes(
  keys: readonly (string | undefined)[],
  rowNumber: (i: number) => number,
): (string | undefined)[] {
  const first = new Map<string, number>();
  return keys.map((k, i) => {
    if (!k) return undefined;
    const f = first.get(k);
    if (f === undefined) return void first.set(k, i);
    return sameAsNote(rowNumber(f));
  });
}

export function sameAsNote(row: number): string {
  return `Same property as row ${row}; checked once.`;
}

/** A row's own note (a postcode read another way) with the duplicate's note after it. */
export function joinNotes(...notes: (string | undefined)[]): string | undefined {
  return notes.filter(Boolean).join(" ") || undefined;
}

/**
 * Rows of data below the blank rows that end a table (the whole table runs to its first blank row, rowsOfWholeTable):
 * `rows` are the rows after the table's last row (sheet row `lastRow`, 1-based), over the table's columns. Their first
 * run of rows holding something, up to the next blank row, unless it begins with another table's header (a second
 * table, which is left as it is), in sheet rows. Both add-ins say these rows were not checked (checkedRowsNote), rather
 * than leave them out silently.
 */
export function rowsAfterBlank(
  rows: readonly (readonly unknown[])[],
  lastRow: number,
): CheckedRows["leftBelow"] | undefined {
  let first = 0;
  while (first < rows.length && rows[first].every(isBlank)) first++;
  if (first === 0 || first >= rows.length || isAnotherHeader(rows[first])) return undefined;
  let last = first;
  while (last + 1 < rows.length && !rows[last + 1].every(isBlank) && !isAnotherHeader(rows[last + 1])) last++;
  return {
    firstBlank: lastRow + 1,
    lastBlank: lastRow + first,
    firstRow: lastRow + 1 + first,
    lastRow: lastRow + 1 + last,
  };
}

function leftBelowNote(b: NonNullable<CheckedRows["leftBelow"]>): string {
  const span = (a: number, z: number) => (a === z ? `${a}` : `${a}–${z}`);
  const blank = `the blank ${b.firstBlank === b.lastBlank ? "row" : "rows"} ${span(b.firstBlank, b.lastBlank)}`;
  return b.firstRow === b.lastRow
    ? `Row ${b.firstRow}, below ${blank}, is not checked: select it to check it too.`
    : `Rows ${span(b.firstRow, b.lastRow)}, below ${blank}, are not checked: select them to check them too.`;
}
