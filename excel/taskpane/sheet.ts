/**
 * All Office.js reads and writes of the task pane, each taking a RequestContext so they run against Excel, office-addin-mock
 * or the test stand-in alike. Writes are batched: one 2D assignment per block and one sync per chunk under the 5 MB limit.
 */
import { officeErrorText } from "./stored";
import { tableAt } from "./tables";
import { selectedRowsOutside, tableSelectedOffsets } from "../../core/sheet/tables";
import { RANGE_OVERHEAD_BYTES, jsonBytes, packWriteChunks } from "../../core/sheet/write-chunks";
import {
  columnLetters,
  OUTPUT_COLUMNS,
  cellColour,
  NO_FILL,
  columnNumberFormats,
  detectColumns,
  hostRow,
  emptySelectionProblem,
  multiAreaProblem,
  ownSheetProblem,
  outputHeaders,
  safeCellText,
  statusColumnIndexes,
  windowColumnIndexes,
  type Cell,
} from "../../core";
import type { Block } from "./block";
import { readBlock } from "./read-block";

export type { Block };

export interface SelectionRead {
  /** The data table: the current region of the selection's top-left cell, grown to take in every selected row. */
  region: Block;
  values: unknown[][];
  /** Selected rows as offsets into `values` (all rows for the whole table around a cell). */
  selectedOffsets: [number, number];
  /** Selected columns (0-based sheet columns, inclusive). */
  selectedColumns: [number, number];
  address: string;
  /** The Excel Table the selection is in (then `region` is the Table's range), if any. */
  table?: { name: string; block: Block; rowsOutside: number };
  /** The user's selection was one cell (core's oneCellNote says what that checks). */
  oneCell?: boolean;
}

/** Column letters of a 0-based index: 0 -> A, 27 -> AB. */
export function columnLetter(index: number): string {
  return columnLetters(index);
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
    return { problem: multiAreaProblem(areas.address.split(",").map(local)) };
  }
  const selection = context.workbook.getSelectedRange();
  selection.load(["address", "rowIndex", "columnIndex", "rowCount", "columnCount"]);
  const sheet = selection.worksheet;
  sheet.load("name");
  const used = selection.getUsedRangeOrNullObject(true);
  used.load(["rowIndex", "columnIndex", "rowCount", "columnCount"]);
  await context.sync();
  const own = ownSheetProblem(sheet.name);
  if (own) return { problem: own };
  const single = selection.rowCount === 1 && selection.columnCount === 1;
  if (!single && used.isNullObject)
    return {
      problem: emptySelectionProblem(local(selection.address)),
    };
  // The selected cells in use: A:C on a sheet of 51 rows is A1:C51, not a million rows.
  const sel = single
    ? { rowIndex: selection.rowIndex, columnIndex: selection.columnIndex, rowCount: 1, columnCount: 1 }
    : {
        rowIndex: used.rowIndex,
        columnIndex: used.columnIndex,
        rowCount: used.rowCount,
        columnCount: used.columnCount,
      };
  // One cell means its own row (core's oneCellNote), as any selection of rows does.
  return { ...(await readTableOf(context, sheet, sel, false, selection.address)), oneCell: single };
}

/**
 * The whole table around one cell: every row of the table counts as selected. Used
 * by re-check on open, which starts from the header cell of a block recorded by an earlier check (found again first).
 */
export async function readTableAround(
  context: Excel.RequestContext,
  sheetName: string,
  rowIndex: number,
  columnIndex: number,
): Promise<SelectionRead> {
  const sheet = context.workbook.worksheets.getItem(sheetName);
  sheet.load("name");
  return readTableOf(
    context,
    sheet,
    { rowIndex, columnIndex, rowCount: 1, columnCount: 1 },
    true,
    `${sheetName}!${columnLetter(columnIndex)}${rowIndex + 1}`,
  );
}

async function readTableOf(
  context: Excel.RequestContext,
  sheet: Excel.Worksheet,
  sel: { rowIndex: number; columnIndex: number; rowCount: number; columnCount: number },
  whole: boolean,
  address: string,
): Promise<SelectionRead> {
  // A cell in an Excel Table: the table is that Table, whatever stands around it.
  const table = await tableAt(context, sheet, sel);
  if (table)
    return {
      region: table.block,
      values: await readBlock(context, table.block),
      selectedOffsets: tableSelectedOffsets(table.block, sel, whole),
      selectedColumns: [table.block.columnIndex, table.block.columnIndex + table.block.columnCount - 1],
      address,
      table: { ...table, rowsOutside: selectedRowsOutside(table.block, sel, whole) },
    };
  // Excel's surrounding region is that of the top-left cell only.
  const around = sheet.getRangeByIndexes(sel.rowIndex, sel.columnIndex, 1, 1).getSurroundingRegion();
  around.load(["rowIndex", "columnIndex", "rowCount", "columnCount"]);
  await context.sync();
  // The table: that region, grown to every selected row (a selection may run past a blank row of the table).
  const top = Math.min(around.rowIndex, sel.rowIndex);
  const bottom = Math.max(around.rowIndex + around.rowCount, sel.rowIndex + sel.rowCount);
  const left = Math.min(around.columnIndex, sel.columnIndex);
  const right = Math.max(around.columnIndex + around.columnCount, sel.columnIndex + sel.columnCount);
  const block: Block = {
    sheet: sheet.name,
    rowIndex: top,
    columnIndex: left,
    rowCount: bottom - top,
    columnCount: right - left,
  };
  const values = await readBlock(context, block);
  const selectedOffsets: [number, number] = whole
    ? [0, block.rowCount - 1]
    : [sel.rowIndex - top, sel.rowIndex + sel.rowCount - 1 - top];
  const selectedColumns: [number, number] = [sel.columnIndex, sel.columnIndex + sel.columnCount - 1];
  return { region: block, values, selectedOffsets, selectedColumns, address };
}

/**
 * The last column in use (0-based) in the given rows, from `fromColumn` rightwards; -1 when they are empty there.
 * Used to find a free place for a new results block and to see our block wherever it stands in those rows.
 */
export async function lastUsedColumn(
  context: Excel.RequestContext,
  b: { sheet: string; rowIndex: number; rowCount: number },
  fromColumn: number,
): Promise<number> {
  const rows = context.workbook.worksheets
    .getItem(b.sheet)
    .getRangeByIndexes(b.rowIndex, fromColumn, b.rowCount, SHEET_COLUMNS - fromColumn);
  const used = rows.getUsedRangeOrNullObject(true);
  used.load(["columnIndex", "columnCount"]);
  await context.sync();
  return used.isNullObject ? -1 : used.columnIndex + used.columnCount - 1;
}

function blockRange(context: Excel.RequestContext, b: Block): Excel.Range {
  return context.workbook.worksheets
    .getItem(b.sheet)
    .getRangeByIndexes(b.rowIndex, b.columnIndex, b.rowCount, b.columnCount);
}

export { readBlock, type ReadOptions } from "./read-block";
export { officeErrorText };

// core's formats: text stays text (never a formula, never a guessed date), dates are real dates, numbers numbers.
const FORMATS = columnNumberFormats();
/** Status and Window columns, coloured by core's colours of what they hold. */
const STATUS_COLUMNS = [...statusColumnIndexes(), ...windowColumnIndexes()];

type CellProps = { props: { format: { fill: { color: string }; font: { color: string } } }; bytes: number };
/** Each pair of colours as setCellProperties sends it, and its size in a request with its comma: a handful of pairs. */
const COLOUR_PROPS = new Map<string, CellProps>();

/** Each Status and Window cell's colours and their size, measured once a pair rather than once a cell written. */
function cellProps(c: number, value: Cell): CellProps {
  const colour = cellColour(c, value) ?? NO_FILL;
  const key = `${colour.fill} ${colour.font}`;
  if (!COLOUR_PROPS.has(key)) {
    const props = { format: { fill: { color: colour.fill }, font: { color: colour.font } } };
    COLOUR_PROPS.set(key, { props, bytes: jsonBytes([props]) + 1 });
  }
  return COLOUR_PROPS.get(key)!;
}

/** One row's formats, as numberFormat sends them, and its comma in the 2D array. */
const FORMATS_BYTES = jsonBytes(FORMATS) + 1;

/**
 * What one row really adds to a request: the JSON of its values (as sent, dates as serials), of its number formats,
 * and of the colours of each Status and Window cell, with the comma that separates it from the next row in each array.
 */
function rowBytes(hosted: readonly unknown[], row: readonly Cell[]): number {
  let n = jsonBytes(hosted) + 1 + FORMATS_BYTES;
  for (const c of STATUS_COLUMNS) n += cellProps(c, row[c]).bytes;
  return n;
}

export interface WriteStats {
  syncs: number;
  chunks: number;
  maxChunkBytes: number;
}

export interface WriteOptions {
  /** Bytes per sync; default core's budget (90 % of Excel on the web's 5 MB request limit, see core/sheet/write-chunks.ts). */
  maxBytes?: number;
  /** Rows per sync, whatever their size (none by default). */
  maxRows?: number;
  /** Row gaps up to this size are written through (from `block`) rather than split into separate ranges. */
  mergeGap?: number;
}

/**
 * Writes the given rows of the output block. `block[i]` is the full output row for sheet row `origin.rowIndex + i`;
 * only `rows` (offsets into block) are sent, grouped into runs, one values + numberFormat assignment and one colour call
 * per status column per run, and one sync per request, packed by core from each row's measured size.
 */
export async function writeOutputRows(
  context: Excel.RequestContext,
  origin: { sheet: string; rowIndex: number; columnIndex: number },
  block: readonly (readonly Cell[])[],
  rows: Iterable<number>,
  opts: WriteOptions = {},
): Promise<WriteStats> {
  const mergeGap = opts.mergeGap ?? 32;
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const r of sorted) {
    const last = runs[runs.length - 1];
    if (last && r - last[1] <= mergeGap + 1) last[1] = r;
    else runs.push([r, r]);
  }
  // Dates go as date serials (with the date format): real dates that sort and filter. Each row is made once, measured
  // and then sent as measured.
  const hosted = new Map<number, Cell[]>();
  const sized = (i: number) => {
    const h = hostRow(block[i]);
    hosted.set(i, h);
    return rowBytes(h, block[i]);
  };
  // A piece writes one range of values and formats and one range per coloured column.
  const chunks = packWriteChunks(runs, sized, {
    budgetBytes: opts.maxBytes,
    maxRows: opts.maxRows,
    pieceOverheadBytes: RANGE_OVERHEAD_BYTES * (1 + STATUS_COLUMNS.length),
  });
  const stats: WriteStats = { syncs: 0, chunks: 0, maxChunkBytes: 0 };
  const sheet = context.workbook.worksheets.getItem(origin.sheet);
  for (const chunk of chunks) {
    for (const { start, end } of chunk.pieces) {
      const slice: Cell[][] = [];
      for (let i = start; i <= end; i++) slice.push(hosted.get(i)!);
      const range = sheet.getRangeByIndexes(
        origin.rowIndex + start,
        origin.columnIndex,
        slice.length,
        OUTPUT_COLUMNS.length,
      );
      range.numberFormat = slice.map(() => FORMATS);
      range.values = slice as Excel.Range["values"];
      for (const c of STATUS_COLUMNS) {
        const column = sheet.getRangeByIndexes(origin.rowIndex + start, origin.columnIndex + c, slice.length, 1);
        column.setCellProperties(block.slice(start, end + 1).map((r) => [cellProps(c, r[c]).props]));
      }
    }
    await context.sync();
    for (const { start, end } of chunk.pieces) for (let i = start; i <= end; i++) hosted.delete(i);
    stats.syncs++;
    stats.chunks++;
    stats.maxChunkBytes = Math.max(stats.maxChunkBytes, chunk.bytes);
  }
  return stats;
}

/** The header row of our block, bold, with widths from the core's table; written once per run. */
export function queueHeaders(
  context: Excel.RequestContext,
  origin: { sheet: string; rowIndex: number; columnIndex: number },
): void {
  const sheet = context.workbook.worksheets.getItem(origin.sheet);
  const header = sheet.getRangeByIndexes(origin.rowIndex, origin.columnIndex, 1, OUTPUT_COLUMNS.length);
  header.numberFormat = [OUTPUT_COLUMNS.map(() => "@")];
  header.values = [outputHeaders()];
  header.format.font.bold = true;
  OUTPUT_COLUMNS.forEach((c, i) => {
    // Excel measures column width in points; the core's hint is in pixels (0.75 pt each).
    sheet.getRangeByIndexes(origin.rowIndex, origin.columnIndex + i, 1, 1).format.columnWidth = Math.round(
      c.width * 0.75,
    );
  });
}

export interface InsertResult {
  /** The active cell, where the UPRN went. */
  uprnAt: string;
  /** Where the address went, when it was written. */
  addressAt?: string;
  /** Why the address was not written, when it was asked for. */
  skipped?: string;
}

/** A cell with nothing in it, as Office.js reads one back. */
export const isBlankCell = (v: unknown) => v === "" || v === null || v === undefined;

/**
 * The table's Address column (0-based) for a cell, from the header row above it (a title row or two may stand above the
 * header, as Check allows); null when there is no header naming one, or when it is the cell's own column.
 */
async function addressColumn(
  context: Excel.RequestContext,
  sheet: string,
  rowIndex: number,
  columnIndex: number,
): Promise<number | null> {
  const around = context.workbook.worksheets
    .getItem(sheet)
    .getRangeByIndexes(rowIndex, columnIndex, 1, 1)
    .getSurroundingRegion();
  around.load(["rowIndex", "columnIndex", "rowCount", "columnCount"]);
  await context.sync();
  const above = Math.min(10, rowIndex - around.rowIndex);
  if (above <= 0) return null;
  const head = await readBlock(context, {
    sheet,
    rowIndex: around.rowIndex,
    columnIndex: around.columnIndex,
    rowCount: above,
    columnCount: around.columnCount,
  });
  for (const row of head) {
    const m = detectColumns(row);
    if (!m) continue;
    const col = m.address === undefined ? null : around.columnIndex + m.address;
    return col === columnIndex ? null : col;
  }
  return null;
}

/**
 * Puts a UPRN (as text, keeping leading zeros) into the active cell and, when given, the address into the row's Address
 * column (found by the table's header), else into the cell to the right. Only the active cell is ever overwritten: the
 * user chose it. Another cell that already holds something is left as it is and the result says so, and formats change
 * only on the cells written (a Postcode column beside the UPRN keeps its own).
 */
export async function insertAddress(
  context: Excel.RequestContext,
  uprn: string,
  address: string | null,
): Promise<InsertResult> {
  const cell = context.workbook.getActiveCell();
  cell.load(["rowIndex", "columnIndex"]);
  const sheet = cell.worksheet;
  sheet.load("name");
  await context.sync();
  const name = sheet.name;
  const at = (col: number) =>
    a1({ sheet: name, rowIndex: cell.rowIndex, columnIndex: col, rowCount: 1, columnCount: 1 });
  const write = (col: number, text: string) => {
    const target = context.workbook.worksheets.getItem(name).getRangeByIndexes(cell.rowIndex, col, 1, 1);
    target.numberFormat = [["@"]];
    target.values = [[safeCellText(text)]];
  };
  write(cell.columnIndex, uprn);
  const result: InsertResult = { uprnAt: at(cell.columnIndex) };
  if (address !== null) {
    const col = (await addressColumn(context, name, cell.rowIndex, cell.columnIndex)) ?? cell.columnIndex + 1;
    if (col >= SHEET_COLUMNS) {
      result.skipped = "There is no column right of the active cell for the address.";
    } else {
      // formulas, not values: a formula showing "" is not an empty cell.
      const target = context.workbook.worksheets.getItem(name).getRangeByIndexes(cell.rowIndex, col, 1, 1);
      target.load("formulas");
      await context.sync();
      const existing = (target.formulas as unknown[][])[0][0];
      if (isBlankCell(existing) || existing === address) {
        write(col, address);
        result.addressAt = at(col);
      } else {
        const shown = String(existing);
        result.skipped = `${at(col)} already holds "${shown.length > 40 ? `${shown.slice(0, 37)}...` : shown}", so the address was not written there (clear it and insert again to replace it).`;
      }
    }
  }
  await context.sync();
  return result;
}

/**
 * The offsets (into the block's rows) of rows hidden by a filter or by hand. Range.rowHidden (ExcelApi 1.2) is read
 * once for the whole block: false (nothing hidden, the usual case) or true answers at once; null (some hidden) is
 * resolved row by row, in chunks of one sync each.
 */
export async function hiddenRowOffsets(context: Excel.RequestContext, b: Block, chunk = 5_000): Promise<number[]> {
  if (b.rowCount <= 0) return [];
  const whole = blockRange(context, { ...b, columnCount: Math.max(1, b.columnCount) });
  whole.load("rowHidden");
  await context.sync();
  if (whole.rowHidden === false) return [];
  if (whole.rowHidden === true) return Array.from({ length: b.rowCount }, (_, i) => i);
  const out: number[] = [];
  for (let start = 0; start < b.rowCount; start += chunk) {
    const rows = Array.from({ length: Math.min(chunk, b.rowCount - start) }, (_, i) =>
      whole.getRow(start + i).load("rowHidden"),
    );
    await context.sync();
    rows.forEach((r, i) => {
      if (r.rowHidden) out.push(start + i);
    });
  }
  return out;
}

/** The last row and column in use on a sheet (0-based); -1 when it is empty. */
export async function usedExtent(
  context: Excel.RequestContext,
  sheet: string,
): Promise<{ lastRow: number; lastColumn: number }> {
  const used = context.workbook.worksheets.getItem(sheet).getUsedRangeOrNullObject(true);
  used.load(["rowIndex", "columnIndex", "rowCount", "columnCount"]);
  await context.sync();
  if (used.isNullObject) return { lastRow: -1, lastColumn: -1 };
  return { lastRow: used.rowIndex + used.rowCount - 1, lastColumn: used.columnIndex + used.columnCount - 1 };
}
