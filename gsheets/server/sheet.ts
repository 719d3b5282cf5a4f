/**
 * SpreadsheetApp glue: the results block's headers, number formats and colour rules, and writes in
 * batches (one getValues + one setValues per band of rows written, colours by conditional-format rules set once).
 */
import type { DisplayStatus } from "../../core/service/checks";
import {
  columnLetters,
  columnNumberFormats,
  OUTPUT_COLUMNS,
  STATUS_COLOURS,
  outputHeaders,
  safeCellText,
  statusColumnIndexes,
  windowColumnIndexes,
} from "../../core";
import { WINDOW_COLOURS, type Window } from "../../core/compliance/obligations";
import type { ColumnMapping, StartNotesInput } from "../../core";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export const BLOCK_WIDTH = OUTPUT_COLUMNS.length;

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
  /** What core's startNotes needs of the plan, for the lines said as the run begins (beginRun adds the rows). */
  start: Omit<StartNotesInput, "rows" | "hidden">;
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
