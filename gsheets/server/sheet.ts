/**
 * SpreadsheetApp glue: find the table around the selection, read input rows, and write the output block in
 * batches (one getValues + one setValues per band of rows written, colours by conditional-format rules set once).
 */
import type { DisplayStatus } from "../../core/service/checks";
import {
  columnLetters,
  columnNumberFormats,
  EDITED_BLOCK_NOTE,
  OUTPUT_COLUMNS,
  STATUS_COLOURS,
  detectColumns,
  detectColumnsInSelection,
  findHeaderBlock,
  findHeaderBlockOfTable,
  findHeaderRow,
  inputOverlapProblem,
  looksLikeHeaderRow,
  placeBlock,
  resultsPlaceNote,
  rowsAfterBlank,
  rowsOfWholeTable,
  outputHeaders,
  safeCellText,
  statusColumnIndexes,
  windowColumnIndexes,
} from "../../core";
import { WINDOW_COLOURS, type Window } from "../../core/compliance/obligations";
import type { ColumnMapping, HeaderBlock } from "../../core";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export const BLOCK_WIDTH = OUTPUT_COLUMNS.length;
/** A header row is looked for in the first rows of the sheet only: tables start near the top. */
const HEADER_SCAN_ROWS = 10;
/** ...or down to the selection, for a table that starts lower (never more than this many rows are read). */
const HEADER_SCAN_MAX = 500;

/** Column letters of a 1-based column, as Sheets counts them: 1 -> A, 28 -> AB (core's columnLetters). */
export function columnLetter(col: number): string {
  return columnLetters(col - 1);
}

export function columnNumber(letters: string): number | null {
  const s = String(letters || "")
    .trim()
    .toUpperCase();
  if (!/^[A-Z]{1,3}$/.test(s)) return null;
  let n = 0;
  for (const ch of s) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

export function a1(row: number, col: number, rows = 1, cols = 1): string {
  const start = `${columnLetter(col)}${row}`;
  return rows === 1 && cols === 1 ? start : `${start}:${columnLetter(col + cols - 1)}${row + rows - 1}`;
}

export function findSheet(sheetId: number): Sheet | null {
  for (const s of SpreadsheetApp.getActiveSpreadsheet().getSheets()) if (s.getSheetId() === sheetId) return s;
  return null;
}

/** Text that Sheets would read as a formula is written with a leading apostrophe (shown as plain text). */
export function safeCell(v: unknown): unknown {
  return typeof v === "string" ? safeCellText(v) : v;
}

export interface Table {
  sheet: Sheet;
  /** Sheet row of the header, or 0 when there is none. */
  headerRow: number;
  headerValues: unknown[];
  /** Input columns, 0-based from column A. */
  mapping: ColumnMapping;
  /** First sheet column of our output block (1-based). */
  blockCol: number;
  blockExists: boolean;
  /** The block is one an earlier version wrote (fewer columns): its header row is written again. */
  legacy?: boolean;
  /** Columns A..inputCols hold every mapped input column. */
  inputCols: number;
  /**
   * The table's first column (1-based): 1, unless the header row holds tables side by side and the selected columns
   * chose the one further right (core's detectColumnsInSelection). The sidebar's range starts there.
   */
  firstCol: number;
  /** The table's last column (1-based): the input columns and the header cells next to them, up to our block. */
  tableEnd: number;
  notes: string[];
}

const norm = (v: unknown) => (typeof v === "string" ? v.trim().toLowerCase() : "");
const isBlank = (v: unknown) => v === "" || v === null || v === undefined || (typeof v === "string" && v.trim() === "");

/**
 * Where our block is in a header row, and whether it is still exactly ours: core's one rule (findHeaderBlock), so
 * Excel and Sheets read the same header row the same way. A user's own "EPC status / EPC rating / Risk level"
 * columns are not our block; ours changed by the user (a column inserted inside it, a header renamed) is found
 * with what changed, so it is never written over.
 */
export function inspectBlock(
  headerValues: readonly unknown[],
  found: HeaderBlock = findHeaderBlock(headerValues),
): { start: number; changed: { col: number; found: string; expected: string }[]; legacy?: boolean } | null {
  if (found.exact !== undefined)
    return found.legacy ? { start: found.exact, changed: [], legacy: true } : { start: found.exact, changed: [] };
  if (found.changed === undefined) return null;
  const start = found.changed;
  const changed: { col: number; found: string; expected: string }[] = [];
  outputHeaders().forEach((h, k) => {
    const v = headerValues[start + k];
    if (norm(v) !== h.toLowerCase())
      changed.push({ col: start + k + 1, found: v === undefined || v === null ? "" : String(v), expected: h });
  });
  return { start, changed };
}

/** Where results of a sheet without a header row went last time (document properties: any editor re-runs in place). */
const BLOCK_MEMO = "compliance.block.";
/** The last column of a remembered block that was refused: a fresh block goes right of it, never over it. */
const RETIRED_MEMO = "compliance.retiredBlockEnd.";

export function rememberBlock(sheet: Sheet, blockCol: number): void {
  const props = PropertiesService.getDocumentProperties();
  props.setProperty(BLOCK_MEMO + sheet.getSheetId(), String(blockCol));
  props.deleteProperty(RETIRED_MEMO + sheet.getSheetId());
}

function isStatusRule(rule: GoogleAppsScript.Spreadsheet.ConditionalFormatRule): boolean {
  const cond = rule.getBooleanCondition();
  return (
    !!cond &&
    cond.getCriteriaType() === SpreadsheetApp.BooleanCriteria.TEXT_EQUAL_TO &&
    String(cond.getCriteriaValues()[0]) in STATUS_COLOURS
  );
}

function isWindowRule(rule: GoogleAppsScript.Spreadsheet.ConditionalFormatRule): boolean {
  const cond = rule.getBooleanCondition();
  return (
    !!cond &&
    cond.getCriteriaType() === SpreadsheetApp.BooleanCriteria.TEXT_EQUAL_TO &&
    String(cond.getCriteriaValues()[0]) in WINDOW_COLOURS
  );
}

/**
 * The last column of a block that starts at `start`, as far as can be told: our colour rules move with
 * columns inserted inside the block (Sheets shifts them), so the last status column they cover, plus the
 * columns that follow it in the block, finds a widened block's end.
 */
function blockEnd(sheet: Sheet, start: number): number {
  const lastStatus = Math.max(...statusColumnIndexes());
  let end = start + BLOCK_WIDTH - 1;
  for (const rule of sheet.getConditionalFormatRules()) {
    if (!isStatusRule(rule)) continue;
    for (const r of rule.getRanges())
      if (r.getColumn() >= start) end = Math.max(end, r.getLastColumn() + (BLOCK_WIDTH - 1 - lastStatus));
  }
  return end;
}

/**
 * A remembered block is reused while its status columns hold nothing but our status words over every used
 * row of the sheet (not just the selected ones: checking rows added below must find the block of the rows
 * above). An empty one (the user cleared or deleted it) is forgotten. Anything else means it was changed:
 * refuse, never overwrite, and forget it, so that the next run writes a fresh block right of it.
 */
function rememberedBlock(sheet: Sheet): { col: number } | { problem: string } | null {
  const props = PropertiesService.getDocumentProperties();
  const stored = Number(props.getProperty(BLOCK_MEMO + sheet.getSheetId()));
  if (!stored || stored < 1) return null;
  const maxCol = sheet.getMaxColumns();
  const usedRows = sheet.getLastRow();
  const width = Math.min(BLOCK_WIDTH, maxCol - stored + 1);
  if (width < 1 || usedRows < 1) return null;
  const values = sheet.getRange(1, stored, usedRows, width).getValues();
  if (values.every((row) => row.every((v) => v === "" || v === null))) return null;
  const words = Object.keys(STATUS_COLOURS);
  let ours = 0;
  let foreign = 0;
  for (const i of statusColumnIndexes()) {
    if (i >= width) continue;
    for (const row of values) {
      const v = row[i];
      if (v === "" || v === null) continue;
      if (words.indexOf(norm(v)) >= 0) ours++;
      else foreign++;
    }
  }
  if (ours && !foreign) return { col: stored };
  props.deleteProperty(BLOCK_MEMO + sheet.getSheetId());
  props.setProperty(RETIRED_MEMO + sheet.getSheetId(), String(blockEnd(sheet, stored)));
  return {
    problem:
      `The results columns from the last check (${columnLetter(stored)}:${columnLetter(stored + BLOCK_WIDTH - 1)}) were changed since (a column inserted or edited inside them), ` +
      `so they cannot be updated safely. Nothing was written, so your data is safe. Undo the change and check again, or check again as it is to put fresh results after your last column.`,
  };
}

/** Right of a refused block: its empty columns (a blank Message column) count as used. */
function retiredBlockEnd(sheet: Sheet): number {
  return Number(PropertiesService.getDocumentProperties().getProperty(RETIRED_MEMO + sheet.getSheetId())) || 0;
}

/**
 * Locate the header (the nearest row at or above the selection that names a UPRN or Postcode column; title
 * rows above it are fine), the input columns (from the header, or the caller's mapping) and our output
 * block: where it already is, else after the last used column, so that a user's own column is never
 * overwritten. A block whose columns the user changed is never written over.
 */
export function locateTable(
  sheet: Sheet,
  manual: ColumnMapping | null,
  selection?: { firstRow: number; lastRow: number; firstCol?: number; lastCol?: number },
): Table | { problem: string } {
  let lastCol = Math.max(1, sheet.getLastColumn());
  const lastRow = sheet.getLastRow();
  const selFirst = selection ? selection.firstRow : 1;
  const scan = Math.max(1, Math.min(lastRow, Math.max(HEADER_SCAN_ROWS, Math.min(selFirst, HEADER_SCAN_MAX))));
  const top = sheet.getRange(1, 1, scan, lastCol).getValues();
  // The nearest header at or above the selection (not a title row above it): core's rule, as in Excel.
  let headerRow = findHeaderRow(top, selFirst - 1, (r) => !!(detectColumns(r) || inspectBlock(r))) + 1;
  // Columns chosen by hand under a header that names none of ours ("Property ID"): that row is still the header, as in
  // Excel (core's looksLikeHeaderRow), so the results get their headers there. The nearest such row at or above the
  // selection's first row, within the table (no blank row between), also when rows mid-table are selected.
  if (!headerRow && manual && selection && selFirst <= lastRow) {
    const from = Math.max(1, selFirst - HEADER_SCAN_MAX);
    const above = sheet.getRange(from, 1, selFirst - from + 1, lastCol).getValues();
    for (let t = above.length - 1; t >= 0 && !above[t].every(isBlank); t--) {
      if (!looksLikeHeaderRow(above[t])) continue;
      headerRow = from + t;
      top[headerRow - 1] = above[t];
      break;
    }
  }
  const fullHeader = headerRow ? top[headerRow - 1] : [];
  // Tables side by side in one header row: the selected columns choose the table (core's rule; in Excel the selection's
  // surrounding region does). Cells left of that table are not its own, so our block is looked for from its first column.
  const chosen =
    !manual && headerRow && selection && selection.firstCol !== undefined
      ? detectColumnsInSelection(fullHeader, {
          first: selection.firstCol - 1,
          last: (selection.lastCol ?? selection.firstCol) - 1,
        })
      : null;
  const firstCol = chosen ? chosen.first + 1 : 1;
  const headerValues = chosen ? fullHeader.map((v, i) => (i < chosen.first ? "" : v)) : fullHeader;
  const mapping = manual ?? (chosen ? chosen.mapping : headerRow ? detectColumns(headerValues) : null);
  if (!mapping || (mapping.uprn === undefined && mapping.postcode === undefined)) {
    return {
      problem:
        'No UPRN or Postcode column found. Add a header row naming a UPRN or Postcode column, or choose the columns under "Columns".',
    };
  }
  const notes: string[] = [];
  const used = [mapping.uprn, mapping.postcode, mapping.address].filter((c): c is number => c !== undefined);
  const inputCols = Math.max(...used) + 1;
  let found: { start: number; legacy?: boolean } | null = null;
  let changedAt: number | null = null;
  if (headerRow) {
    // Where tables stand side by side, each has its own block: core's rule says which is this table's.
    const under =
      lastRow > headerRow
        ? sheet.getRange(headerRow + 1, 1, Math.min(lastRow - headerRow, HEADER_SCAN_MAX), lastCol).getValues()
        : [];
    const block = inspectBlock(headerValues, findHeaderBlockOfTable(fullHeader, firstCol - 1, under));
    // A block of ours the user changed is never written over: a fresh one goes after everything (as in Excel).
    if (block && block.changed.length) changedAt = block.start + 1;
    else found = block;
  } else if (selection) {
    const memo = rememberedBlock(sheet);
    // A remembered block the user changed is left as it is; fresh results go after it (as in Excel).
    if (memo && "problem" in memo) notes.push(EDITED_BLOCK_NOTE);
    else if (memo) found = { start: memo.col - 1 };
    if (!found) lastCol = Math.max(lastCol, retiredBlockEnd(sheet));
  }
  // The table: the input columns and the header cells next to them; the new block goes beside it when free (core).
  const edge = headerRow ? headerValues : selection ? sheet.getRange(selFirst, 1, 1, lastCol).getValues()[0] : [];
  const from = Math.max(1, headerRow || selFirst);
  const { tableEnd, besideFree, blockCol } = placeBlock({
    edge,
    inputEnd: inputCols,
    // Tables side by side with no blank column between: this table ends where the selected one does (core's rule).
    limit: chosen ? chosen.last + 1 : undefined,
    found: found ? found.start + 1 : undefined,
    changedAt: changedAt ?? undefined,
    lastUsed: lastCol,
    beside: (end, width) => sheet.getRange(from, end + 1, Math.max(1, lastRow - from + 1), width).getValues(),
  });
  // Input columns inside our block would be written over: core's rule and words, as in Excel.
  const overlap = found ? inputOverlapProblem(used, found.start) : undefined;
  if (overlap) return { problem: overlap };
  // Where the results go: core's words, as in Excel (columns 0-based there).
  notes.push(
    resultsPlaceNote({
      kind: found ? "in-place" : besideFree ? "beside" : changedAt !== null ? "after-changed" : "after",
      at: blockCol - 1,
      dataFirst: firstCol - 1,
      changedAt: changedAt === null ? undefined : changedAt - 1,
    }),
  );
  return {
    sheet,
    headerRow,
    headerValues,
    mapping,
    blockCol,
    blockExists: !!found,
    legacy: !!(found && found.legacy),
    inputCols,
    firstCol,
    tableEnd,
    notes,
  };
}

/**
 * The last row of the whole table under its header (a selection of the header row, a scheduled re-check): its first
 * row blank in every column of the table ends it (core's rowsOfWholeTable over the table's columns, not only the input
 * ones: a row with only a note in it is still the table's, as in Excel's surrounding region), so a table further down
 * is not taken in. `lastRow` is the sheet's last row with data.
 */
export function wholeTableEnd(table: Table, firstRow: number, lastRow: number): number {
  if (lastRow < firstRow) return lastRow;
  const grid = table.sheet
    .getRange(firstRow, table.firstCol, lastRow - firstRow + 1, Math.max(1, table.tableEnd - table.firstCol + 1))
    .getValues();
  return firstRow + rowsOfWholeTable(grid) - 1;
}

/** Rows the table's blank row leaves out: at most this many below it are read (a note counts them, nothing more). */
const BELOW_READ_MAX = 5_000;

/**
 * Rows of data below the blank rows that end the whole table (core's rowsAfterBlank over the table's columns), to say
 * they were not checked. `tableLastRow` is the table's last row, `lastRow` the sheet's last row with data.
 */
export function rowsBelowTable(table: Table, tableLastRow: number, lastRow: number) {
  if (lastRow <= tableLastRow) return undefined;
  const grid = table.sheet
    .getRange(
      tableLastRow + 1,
      table.firstCol,
      Math.min(lastRow - tableLastRow, BELOW_READ_MAX),
      Math.max(1, table.tableEnd - table.firstCol + 1),
    )
    .getValues();
  return rowsAfterBlank(grid, tableLastRow);
}

/** Grow the sheet when our block would pass its last column (Sheets cannot address cells beyond it). */
export function ensureBlockFits(sheet: Sheet, blockCol: number): void {
  const need = blockCol + BLOCK_WIDTH - 1;
  const max = sheet.getMaxColumns();
  if (need > max) sheet.insertColumnsAfter(max, need - max);
}

export function writeHeaders(sheet: Sheet, headerRow: number, blockCol: number): void {
  if (!headerRow) return;
  sheet.getRange(headerRow, blockCol, 1, BLOCK_WIDTH).setValues([outputHeaders()]).setFontWeight("bold");
}

/**
 * Each column of the block gets core's number format (columnNumberFormats, as in Excel): text stays as written ("0123",
 * "100023336956", a Checked at time), dates written as date serials are real dates that sort and filter. One call per
 * format.
 */
export function formatBlockColumns(sheet: Sheet, blockCol: number, firstRow: number, lastRow: number): void {
  if (lastRow < firstRow) return;
  const formats = columnNumberFormats();
  for (const format of formats.filter((f, i) => formats.indexOf(f) === i)) {
    const columns = formats.map((f, i) => (f === format ? a1(firstRow, blockCol + i, lastRow - firstRow + 1, 1) : ""));
    sheet.getRangeList(columns.filter(Boolean)).setNumberFormat(format);
  }
}

function ruleIsOurs(rule: GoogleAppsScript.Spreadsheet.ConditionalFormatRule, blockCol: number): boolean {
  if (!isStatusRule(rule) && !isWindowRule(rule)) return false;
  return rule.getRanges().every((r) => r.getColumn() >= blockCol && r.getColumn() < blockCol + BLOCK_WIDTH);
}

function ruleSignature(word: string, fill: string, font: string, ranges: string[]): string {
  return [word, fill.toLowerCase(), font.toLowerCase(), ...ranges].join("|");
}

/**
 * One rule per status word over the status columns, so colours follow the values whoever edits them.
 * Existing rules of ours are recognised and replaced, never stacked, and still reach as high as they did (two tables
 * stacked in the same columns keep both their colours); other rules are kept. At most one write.
 */
export function ensureStatusRules(sheet: Sheet, blockCol: number, firstDataRow: number): boolean {
  const existing = sheet.getConditionalFormatRules();
  const others = existing.filter((r) => !ruleIsOurs(r, blockCol));
  const ours = existing.filter((r) => ruleIsOurs(r, blockCol));
  // Our rules of these columns from higher up (a table above this one, in the same columns) keep covering it.
  const from = Math.min(firstDataRow, ...ours.flatMap((r) => r.getRanges().map((x) => x.getRow())));
  const rows = Math.max(1, sheet.getMaxRows() - from + 1);
  const ranges = statusColumnIndexes().map((i) => sheet.getRange(from, blockCol + i, rows, 1));
  const rangeA1 = ranges.map((r) => r.getA1Notation());
  const words = Object.keys(STATUS_COLOURS) as DisplayStatus[];
  const windowRanges = windowColumnIndexes().map((i) => sheet.getRange(from, blockCol + i, rows, 1));
  const windowA1 = windowRanges.map((r) => r.getA1Notation());
  const windows = Object.keys(WINDOW_COLOURS) as Window[];
  const wanted = words
    .map((w) => ruleSignature(w, STATUS_COLOURS[w].fill, STATUS_COLOURS[w].font, rangeA1))
    .concat(windows.map((w) => ruleSignature(w, WINDOW_COLOURS[w].fill, WINDOW_COLOURS[w].font, windowA1)))
    .sort();
  const have = ours
    .map((r) => {
      const c = r.getBooleanCondition()!;
      return ruleSignature(
        String(c.getCriteriaValues()[0]),
        String(c.getBackground() || ""),
        String(c.getFontColor() || ""),
        r.getRanges().map((x) => x.getA1Notation()),
      );
    })
    .sort();
  if (have.length === wanted.length && have.every((s, i) => s === wanted[i])) return false;
  const rules = words.map((w) =>
    SpreadsheetApp.newConditionalFormatRule()
      .whenTextEqualTo(w)
      .setBackground(STATUS_COLOURS[w].fill)
      .setFontColor(STATUS_COLOURS[w].font)
      .setRanges(ranges)
      .build(),
  );
  const windowRules = windows.map((w) =>
    SpreadsheetApp.newConditionalFormatRule()
      .whenTextEqualTo(w)
      .setBackground(WINDOW_COLOURS[w].fill)
      .setFontColor(WINDOW_COLOURS[w].font)
      .setRanges(windowRanges)
      .build(),
  );
  sheet.setConditionalFormatRules(others.concat(rules, windowRules));
  return true;
}
