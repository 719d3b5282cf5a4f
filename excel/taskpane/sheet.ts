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
  /** The data table: the selection's current region (or the selection itself when it spans several regions). */
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

/** Reads the selection and its surrounding table, so selecting a few data rows still finds the header above them. */
export async function readSelection(context: Excel.RequestContext): Promise<SelectionRead> {
  const selection = context.workbook.getSelectedRange();
  selection.load(["address", "rowIndex", "columnIndex", "rowCount", "columnCount"]);
  const sheet = selection.worksheet;
  sheet.load("name");
  const region = selection.getSurroundingRegion();
  region.load(["address", "rowIndex", "columnIndex", "rowCount", "columnCount", "values"]);
  await context.sync();
  const single = selection.rowCount === 1 && selection.columnCount === 1;
  const inside =
    selection.rowIndex >= region.rowIndex &&
    selection.rowIndex + selection.rowCount <= region.rowIndex + region.rowCount &&
    selection.columnIndex >= region.columnIndex;
  let values = region.values as unknown[][];
  let block: Block = { sheet: sheet.name, rowIndex: region.rowIndex, columnIndex: region.columnIndex, rowCount: region.rowCount, columnCount: region.columnCount };
  let selectedOffsets: [number, number] = [0, region.rowCount - 1];
  if (!single && inside) {
    selectedOffsets = [selection.rowIndex - region.rowIndex, selection.rowIndex + selection.rowCount - 1 - region.rowIndex];
  } else if (!single) {
    // A selection wider than one region (e.g. whole columns): use what is selected, clipped to the used range.
    const used = selection.getUsedRange(true);
    used.load(["rowIndex", "columnIndex", "rowCount", "columnCount", "values"]);
    await context.sync();
    values = used.values as unknown[][];
    block = { sheet: sheet.name, rowIndex: used.rowIndex, columnIndex: used.columnIndex, rowCount: used.rowCount, columnCount: used.columnCount };
    selectedOffsets = [0, used.rowCount - 1];
  }
  return { region: block, values, selectedOffsets, address: selection.address };
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
