/**
 * Days as the spreadsheet means them. Sheets hands a date cell over as a Date at midnight in the spreadsheet's own time
 * zone: its day is the date in that zone, not in UTC nor in the server's zone. Read here, at the host's edge, so that
 * core only ever sees YYYY-MM-DD text.
 */
import {
  dateColumns,
  dateReading,
  detectContextColumns,
  isMonthFirstLocale,
  rowDates,
  rowPlace,
  type Outcome,
  type RowDates,
  type RowPlace,
} from "../../core";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

const isDate = (v: unknown): v is Date => Object.prototype.toString.call(v) === "[object Date]";

/** A cell's value with a Date turned into its day (YYYY-MM-DD) in `timeZone`; anything else as it is. */
export function cellInZone(v: unknown, timeZone: string): unknown {
  return isDate(v) && Number.isFinite(v.getTime()) ? Utilities.formatDate(v, timeZone, "yyyy-MM-dd") : v;
}

/** Cells of a grid with their Dates turned into days in the spreadsheet's time zone (read once, on the first Date). */
export function gridInZone(grid: unknown[][], zone: () => string): unknown[][] {
  let tz = "";
  return grid.map((row) => row.map((v) => (isDate(v) ? cellInZone(v, tz || (tz = zone())) : v)));
}

/**
 * Each row's typed dates (EICR date, Licence expiry, Deposit received, Tenancy start, the own-obligation columns), read
 * once by core's rowDates in the file's date order, on the first call: one read of the columns that hold them (none when
 * the table has none). Our block's columns (blockWidth from blockCol, 1-based) are never the user's. `today` is the
 * file's day of the check.
 */
export function rowDatesReader(
  sheet: Sheet,
  at: { blockCol: number; header?: unknown[] },
  top: number,
  n: number,
  blockWidth: number,
): (today: string) => (RowDates | undefined)[] {
  let read: (RowDates | undefined)[] | undefined;
  return (today) => {
    if (read) return read;
    const ours = new Set<number>();
    for (let k = 0; k < blockWidth; k++) ours.add(at.blockCol - 1 + k);
    // The columns first: the file's locale is asked for only when the table has a date column.
    const found = dateReading(at.header, { monthFirst: undefined, today }, ours);
    const wanted = at.header && n ? dateColumns(found) : [];
    if (!wanted.length) return (read = []);
    const ss = SpreadsheetApp.getActive();
    const from = Math.min(...wanted);
    const to = Math.max(...wanted);
    // Date cells are days in the spreadsheet's time zone; text is read by core's one rule, month-first only in a month-first locale.
    const grid = gridInZone(sheet.getRange(top, from + 1, n, to - from + 1).getValues(), () =>
      ss.getSpreadsheetTimeZone(),
    );
    const r = { ...found, order: { monthFirst: isMonthFirstLocale(ss.getSpreadsheetLocale()), today } };
    const before: unknown[] = Array(from).fill("");
    return (read = grid.map((row) => rowDates(before.concat(row), r)));
  };
}

/**
 * Each row's country for the results block, by core's one rule (rowPlace) over the row's cells: the user's Postcode
 * input (in `input`, read from column 1), their Country column (read here, from column 1, only when the table has
 * one), and the service's answer. `row` is 0-based from `top`.
 */
export function placeReader(
  sheet: Sheet,
  at: { blockCol: number; header?: unknown[] },
  top: number,
  n: number,
  blockWidth: number,
  postcodeColumn: number | undefined,
  input: unknown[][],
): (row: number, outcome: Outcome) => RowPlace {
  const ours = new Set<number>();
  for (let k = 0; k < blockWidth; k++) ours.add(at.blockCol - 1 + k);
  const ctx = at.header ? detectContextColumns(at.header, ours) : {};
  const wanted = [ctx.country, postcodeColumn].filter((c): c is number => c !== undefined);
  const width = wanted.length ? Math.max(...wanted) + 1 : 0;
  const read = n && ctx.country !== undefined ? sheet.getRange(top, 1, n, width).getValues() : input;
  return (row, outcome) => rowPlace(at.header, read[row], outcome, { postcodeColumn, exclude: ours, context: ctx });
}

/** A Date cell (or YYYY-MM-DD text) as the day it shows in the file's time zone, YYYY-MM-DD; null for anything else. */
export function dayInFileZone(v: unknown, timeZone: string): string | null {
  if (isDate(v)) return isNaN(v.getTime()) ? null : Utilities.formatDate(v, timeZone, "yyyy-MM-dd");
  if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v.trim())) return v.trim();
  return null;
}

/** The file's day at `nowMs`, YYYY-MM-DD: "today" is the file's day, not the server's or UTC's. */
export function todayInFileZone(nowMs: number, timeZone: string): string {
  return Utilities.formatDate(new Date(nowMs), timeZone, "yyyy-MM-dd");
}
