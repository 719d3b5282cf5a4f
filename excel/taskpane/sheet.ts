/**
 * All Office.js reads and writes of the task pane, each taking a RequestContext so they run against Excel, office-addin-mock
 * or the test stand-in alike. Writes are batched: one 2D assignment per block and one sync per chunk under the 5 MB limit.
 */
import { OUTPUT_COLUMNS, outputHeaders, safeCellText, statusColour, statusColumnIndexes, type Cell } from "../../core";

/** A rectangle of a worksheet in 0-based indexes. */
export interface Block {
  sheet: string;
  rowIndex: number;
  columnIndex: number;
  rowCount: number;
  columnCount: number;
}

export interface SelectionRead {
  /** The data table: the current region of the selection's top-left cell, grown to take in every selected row. */
  region: Block;
  values: unknown[][];
  /** Selected rows as offsets into `values` (all rows when one cell is selected). */
  selectedOffsets: [number, number];
  address: string;
}

/** Column letters of a 0-based index: 0 -> A, 27 -> AB. */
export function columnLetter(index: number): string {
  let s = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

export function a1(block: Block): string {
  const top = `${columnLetter(block.columnIndex)}${block.rowIndex + 1}`;
  const bottom = `${columnLetter(block.columnIndex + block.columnCount - 1)}${block.rowIndex + block.rowCount}`;
  return top === bottom ? top : `${top}:${bottom}`;
}

/** Excel's grid: 1,048,576 rows by 16,384 columns. */
export const SHEET_ROWS = 1_048_576;
export const SHEET_COLUMNS = 16_384;

/** "Sheet1!A1:C5" -> "A1:C5" for messages (the sheet is named separately). */
function local(address: string): string {
  return address.slice(address.lastIndexOf("!") + 1);
}

/**
 * Reads the selection and its surrounding table, so selecting a few data rows still finds the header above them.
 * Whole columns or rows (A:C, 5:20) are trimmed to the cells in use first: only those are read. Returns a sentence
 * instead when the selection cannot be checked (several areas, nothing in it).
 */
export async function readSelection(context: Excel.RequestContext): Promise<SelectionRead | { problem: string }> {
  // Ctrl+click selections have several areas; getSelectedRange() would fail on them.
  const areas = context.workbook.getSelectedRanges();
  areas.load(["areaCount", "address"]);
  await context.sync();
  if (areas.areaCount > 1) {
    const list = areas.address.split(",").map(local).join(", ");
    return {
      problem: `You selected ${areas.areaCount} separate areas (${list.length > 80 ? `${list.slice(0, 77)}...` : list}). Select one block of rows (click the first row, Shift+click the last), or one cell of the table, and check again.`,
    };
  }
  const selection = context.workbook.getSelectedRange();
  selection.load(["address", "rowIndex", "columnIndex", "rowCount", "columnCount"]);
  const sheet = selection.worksheet;
  sheet.load("name");
  const used = selection.getUsedRangeOrNullObject(true);
  used.load(["rowIndex", "columnIndex", "rowCount", "columnCount"]);
  await context.sync();
  const single = selection.rowCount === 1 && selection.columnCount === 1;
  if (!single && used.isNullObject) return { problem: `The selection (${local(selection.address)}) is empty: select the rows to check, or one cell of the table.` };
  // The selected cells in use: A:C on a sheet of 51 rows is A1:C51, not a million rows.
  const sel = single
    ? { rowIndex: selection.rowIndex, columnIndex: selection.columnIndex, rowCount: 1, columnCount: 1 }
    : { rowIndex: used.rowIndex, columnIndex: used.columnIndex, rowCount: used.rowCount, columnCount: used.columnCount };
  // Excel's surrounding region is that of the top-left cell only.
  const around = sheet.getRangeByIndexes(sel.rowIndex, sel.columnIndex, 1, 1).getSurroundingRegion();
  around.load(["rowIndex", "columnIndex", "rowCount", "columnCount"]);
  await context.sync();
  // The table: that region, grown to every selected row (a selection may run past a blank row of the table).
  const top = Math.min(around.rowIndex, sel.rowIndex);
  const bottom = Math.max(around.rowIndex + around.rowCount, sel.rowIndex + sel.rowCount);
  const left = Math.min(around.columnIndex, sel.columnIndex);
  const right = Math.max(around.columnIndex + around.columnCount, sel.columnIndex + sel.columnCount);
  const block: Block = { sheet: sheet.name, rowIndex: top, columnIndex: left, rowCount: bottom - top, columnCount: right - left };
  const values = await readBlock(context, block);
  const selectedOffsets: [number, number] = single ? [0, block.rowCount - 1] : [sel.rowIndex - top, sel.rowIndex + sel.rowCount - 1 - top];
  return { region: block, values, selectedOffsets, address: selection.address };
}

/**
 * The last column in use (0-based) in the given rows, from `fromColumn` rightwards; -1 when they are empty there.
 * Used to find a free place for a new results block and to see our block wherever it stands in those rows.
 */
export async function lastUsedColumn(context: Excel.RequestContext, b: { sheet: string; rowIndex: number; rowCount: number }, fromColumn: number): Promise<number> {
  const rows = context.workbook.worksheets.getItem(b.sheet).getRangeByIndexes(b.rowIndex, fromColumn, b.rowCount, SHEET_COLUMNS - fromColumn);
  const used = rows.getUsedRangeOrNullObject(true);
  used.load(["columnIndex", "columnCount"]);
  await context.sync();
  return used.isNullObject ? -1 : used.columnIndex + used.columnCount - 1;
}

function blockRange(context: Excel.RequestContext, b: Block): Excel.Range {
  return context.workbook.worksheets.getItem(b.sheet).getRangeByIndexes(b.rowIndex, b.columnIndex, b.rowCount, b.columnCount);
}

/** Current values of a block (our previous results, or a check that the place is empty). */
export async function readBlock(context: Excel.RequestContext, b: Block): Promise<unknown[][]> {
  const range = blockRange(context, b);
  range.load("values");
  await context.sync();
  return range.values as unknown[][];
}

const NUMBER_FORMAT: Record<(typeof OUTPUT_COLUMNS)[number]["kind"], string> = {
  // Text formats keep service text as text (never a formula, never a guessed date); numbers stay numbers.
  status: "@",
  text: "@",
  date: "@",
  datetime: "@",
  number: "General",
};
const FORMATS = OUTPUT_COLUMNS.map((c) => NUMBER_FORMAT[c.kind]);
const STATUS_COLUMNS = statusColumnIndexes();

/** Rough JSON size of what a write sends, to keep each sync well under Excel on the web's 5 MB request limit. */
function rowBytes(row: readonly Cell[]): number {
  let n = 16 + STATUS_COLUMNS.length * 80 + FORMATS.length * 12;
  for (const v of row) n += typeof v === "string" ? v.length * 1.1 + 6 : 12;
  return n;
}

export interface WriteStats {
  syncs: number;
  chunks: number;
  maxChunkBytes: number;
}

export interface WriteOptions {
  /** Bytes per sync; default 2 MB, well under the 5 MB limit even if our estimate is off by half. */
  maxBytes?: number;
  /** Rows per sync, whatever their size. */
  maxRows?: number;
  /** Row gaps up to this size are written through (from `block`) rather than split into separate ranges. */
  mergeGap?: number;
}

/**
 * Writes the given rows of the output block. `block[i]` is the full output row for sheet row `origin.rowIndex + i`;
 * only `rows` (offsets into block) are sent, grouped into runs, one values + numberFormat assignment and one colour call
 * per status column per run, and one sync per chunk.
 */
export async function writeOutputRows(
  context: Excel.RequestContext,
  origin: { sheet: string; rowIndex: number; columnIndex: number },
  block: readonly (readonly Cell[])[],
  rows: Iterable<number>,
  opts: WriteOptions = {},
): Promise<WriteStats> {
  const maxBytes = opts.maxBytes ?? 2_000_000;
  const maxRows = opts.maxRows ?? 5_000;
  const mergeGap = opts.mergeGap ?? 32;
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const r of sorted) {
    const last = runs[runs.length - 1];
    if (last && r - last[1] <= mergeGap + 1) last[1] = r;
    else runs.push([r, r]);
  }
  const stats: WriteStats = { syncs: 0, chunks: 0, maxChunkBytes: 0 };
  const sheet = context.workbook.worksheets.getItem(origin.sheet);
  let bytes = 0;
  let rowsInChunk = 0;
  const flush = async () => {
    if (rowsInChunk === 0) return;
    await context.sync();
    stats.syncs++;
    stats.chunks++;
    stats.maxChunkBytes = Math.max(stats.maxChunkBytes, Math.round(bytes));
    bytes = 0;
    rowsInChunk = 0;
  };
  for (const [first, last] of runs) {
    // A run larger than a chunk is cut into pieces that fit.
    let start = first;
    while (start <= last) {
      let end = start;
      let runBytes = rowBytes(block[start]);
      while (end < last && rowsInChunk + (end - start + 1) < maxRows && bytes + runBytes + rowBytes(block[end + 1]) < maxBytes) {
        end++;
        runBytes += rowBytes(block[end]);
      }
      if (rowsInChunk > 0 && (bytes + runBytes > maxBytes || rowsInChunk + (end - start + 1) > maxRows)) await flush();
      const slice = block.slice(start, end + 1).map((r) => [...r]);
      const range = sheet.getRangeByIndexes(origin.rowIndex + start, origin.columnIndex, slice.length, OUTPUT_COLUMNS.length);
      range.numberFormat = slice.map(() => FORMATS);
      range.values = slice;
      for (const c of STATUS_COLUMNS) {
        const column = sheet.getRangeByIndexes(origin.rowIndex + start, origin.columnIndex + c, slice.length, 1);
        column.setCellProperties(
          slice.map((r) => {
            const colour = statusColour(r[c]);
            return [colour ? { format: { fill: { color: colour.fill }, font: { color: colour.font } } } : { format: { fill: { color: "#FFFFFF" }, font: { color: "#000000" } } }];
          }),
        );
      }
      bytes += runBytes;
      rowsInChunk += slice.length;
      start = end + 1;
    }
  }
  await flush();
  return stats;
}

/** The header row of our block, bold, with widths from the core's table; written once per run. */
export function queueHeaders(context: Excel.RequestContext, origin: { sheet: string; rowIndex: number; columnIndex: number }): void {
  const sheet = context.workbook.worksheets.getItem(origin.sheet);
  const header = sheet.getRangeByIndexes(origin.rowIndex, origin.columnIndex, 1, OUTPUT_COLUMNS.length);
  header.numberFormat = [OUTPUT_COLUMNS.map(() => "@")];
  header.values = [outputHeaders()];
  header.format.font.bold = true;
  OUTPUT_COLUMNS.forEach((c, i) => {
    // Excel measures column width in points; the core's hint is in pixels (0.75 pt each).
    sheet.getRangeByIndexes(origin.rowIndex, origin.columnIndex + i, 1, 1).format.columnWidth = Math.round(c.width * 0.75);
  });
}

/** Puts a UPRN (as text, keeping leading zeros) and optionally its address into the active cell and the one to its right. */
export async function insertAddress(context: Excel.RequestContext, uprn: string, address: string | null): Promise<string> {
  const cell = context.workbook.getActiveCell();
  cell.load(["rowIndex", "columnIndex"]);
  const sheet = cell.worksheet;
  sheet.load("name");
  await context.sync();
  const values = address === null ? [[uprn]] : [[uprn, address]];
  const target = sheet.getRangeByIndexes(cell.rowIndex, cell.columnIndex, 1, values[0].length);
  target.numberFormat = [values[0].map(() => "@")];
  target.values = [values[0].map(safeCellText)];
  await context.sync();
  return a1({ sheet: sheet.name, rowIndex: cell.rowIndex, columnIndex: cell.columnIndex, rowCount: 1, columnCount: values[0].length });
}
