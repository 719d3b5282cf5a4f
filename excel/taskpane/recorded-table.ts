/**
 * A table checked before, found again: its sheet, and that sheet read from the top past its results block. The one read
 * behind a run's writes (rows-now.ts), the re-check on open (watch.ts) and the portfolio (portfolio-read.ts). Where the
 * block stands now is core's decision (findBlockNow); this finds the sheet and reads what core needs to decide it.
 */
import {
  blockNotFound,
  blockReadWindows,
  inputColumnNotFound,
  sheetNotFound,
  findBlockNow,
  inputShiftAtRest,
  type BlockAt,
  type ColumnMapping,
} from "../../core";
import { SHEET_COLUMNS, readBlock, usedExtent } from "./sheet";

/** Where a run's sheet parts were last seen (stored with the run state and the workbook's records; found again before use). */
export interface RunPlace {
  sheet: string;
  /** The sheet's Worksheet.id, which a rename keeps (absent in a record of an earlier version: found by name then). */
  sheetId?: string;
  /** Our header row (absolute, 0-based), or null when the block has no header row. */
  headerRow: number | null;
  /** The results block's first column. */
  blockColumn: number;
  /** The input columns (absolute). */
  inputColumns: ColumnMapping;
  /** A remembered table's number on its sheet (core's tableOrdinals; watch-settings.ts keeps it), which its Action IDs
   * carry; absent in a record of an earlier version. */
  ordinal?: number;
}

export interface RecordedTable {
  /** The sheet's name and Worksheet.id now. */
  sheet: string;
  sheetId: string;
  /** Found by the name it was recorded under, not by its id (the record kept none, or no sheet has it now). */
  byName: boolean;
  /** The sheet from A1: every row in use; every column in use, the input columns, and the block and the columns core searches past it (blockReadWindows). */
  grid: unknown[][];
  /** Where the block stands now (core's findBlockNow). */
  at: BlockAt;
  /** How far the input columns moved with the block (core's inputShiftAtRest); undefined when its first one is not found. */
  inputShift: number | undefined;
}

/**
 * Finds a recorded table's sheet and reads it. The sheet is found by its Worksheet.id first, which a rename keeps; else
 * by the name it was recorded under: a record of an earlier version keeps no id, and Excel may give a sheet another id
 * when the workbook is opened in another version of Excel. A sheet found by name is taken only when it plausibly holds
 * the same table: core finds the results block on it, and its first input column stands beside the block as recorded.
 * A lower-case problem (naming the sheet) instead when there is no such sheet or block, with the id of the sheet tried
 * first when there is one.
 */
export async function readRecordedTable(
  context: Excel.RequestContext,
  place: RunPlace,
): Promise<RecordedTable | { problem: string; sheetId?: string }> {
  const sheets = context.workbook.worksheets;
  const byId = place.sheetId ? sheets.getItemOrNullObject(place.sheetId) : null;
  const byName = sheets.getItemOrNullObject(place.sheet);
  byId?.load("id, name");
  byName.load("id, name");
  await context.sync();
  const found = [byId, byName].filter((ws): ws is Excel.Worksheet => !!ws && !ws.isNullObject);
  const tried = found.filter((ws, i) => found.findIndex((o) => o.id === ws.id) === i);
  if (tried.length === 0) return { problem: sheetNotFound(place.sheet, !place.sheetId) };
  let problem = "";
  for (const ws of tried) {
    const named = ws.id !== place.sheetId;
    const why = await readOn(context, place, ws.name);
    if ("problem" in why) {
      problem ||= why.problem;
      continue;
    }
    if (named && why.inputShift === undefined) {
      problem ||= inputColumnNotFound(ws.name);
      continue;
    }
    return { sheet: ws.name, sheetId: ws.id, byName: named, ...why };
  }
  return { problem, sheetId: tried[0].id };
}

/** One sheet read and the block found on it. */
async function readOn(
  context: Excel.RequestContext,
  place: RunPlace,
  sheet: string,
): Promise<Pick<RecordedTable, "grid" | "at" | "inputShift"> | { problem: string }> {
  const ext = await usedExtent(context, sheet);
  if (ext.lastRow < 0) return { problem: `the sheet "${sheet}" is empty` };
  // The user's own columns (dates, owner, country) may stand anywhere in use; the block may have moved right. Every row
  // is read: the run's writes, the re-check and the portfolio all read the table from it.
  const [window] = blockReadWindows({
    lastRow: ext.lastRow,
    lastColumn: ext.lastColumn,
    maxColumns: SHEET_COLUMNS,
    headerRow: place.headerRow,
    blockColumn: place.blockColumn,
    inputColumns: place.inputColumns,
    wholeSheet: true,
  });
  const grid = await readBlock(context, {
    sheet,
    rowIndex: 0,
    columnIndex: 0,
    rowCount: window.rowCount,
    columnCount: window.columnCount,
  });
  const at = findBlockNow(grid, place);
  if (!at)
    return {
      problem: blockNotFound(sheet, place.blockColumn, place.headerRow === null ? undefined : grid[place.headerRow]),
    };
  const inputShift = inputShiftAtRest(grid, place.inputColumns, at.blockColumn - place.blockColumn, at.headerRow);
  return { grid, at, inputShift };
}
