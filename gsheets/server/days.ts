/**
 * Days as the spreadsheet means them. Sheets hands a date cell over as a Date at midnight in the spreadsheet's own time
 * zone: its day is the date in that zone, not in UTC nor in the server's zone. Read here, at the host's edge, so that
 * core only ever sees YYYY-MM-DD text.
 */
import {
  detectContextColumns,
  detectUserColumns,
  isMonthFirstLocale,
  readUserDates,
  rowPlace,
  type Outcome,
  type RowPlace,
  type UserDates,
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
 * The user's own dates the rules read (by header: "EICR date", "Licence expiry", "Deposit received"), one read of the
 * columns that hold them; nothing is read when the table has none of them. Our block's columns (blockWidth from
 * blockCol, 1-based) are never the user's.
 */
export function readOwnDates(
  sheet: Sheet,
  at: { blockCol: number; header?: unknown[] },
  top: number,
  n: number,
  blockWidth: number,
): { dates: UserDates; problems: string[] }[] {
  if (!at.header || !n) return [];
  const ours = new Set<number>();
  for (let k = 0; k < blockWidth; k++) ours.add(at.blockCol - 1 + k);
  const cols = detectUserColumns(at.header, ours);
  const wanted = [cols.eicrDate, cols.licenceExpiry, cols.depositReceived].filter((c): c is number => c !== undefined);
  if (!wanted.length) return [];
  const from = Math.min(...wanted);
  const to = Math.max(...wanted);
  const ss = SpreadsheetApp.getActive();
  // Date cells are days in the spreadsheet's time zone; text is read by core's one rule, month-first only in a month-first locale.
  const grid = gridInZone(sheet.getRange(top, from + 1, n, to - from + 1).getValues(), () =>
    ss.getSpreadsheetTimeZone(),
  );
  const shifted = { eicrDate: cols.eicrDate, licenceExpiry: cols.licenceExpiry, depositReceived: cols.depositReceived };
  for (const k of Object.keys(shifted) as (keyof typeof shifted)[])
    if (shifted[k] !== undefined) shifted[k] = shifted[k]! - from;
  const options = { header: at.header.slice(from, to + 1), monthFirst: isMonthFirstLocale(ss.getSpreadsheetLocale()) };
  return grid.map((row) => readUserDates(row, shifted, options));
}

/**
 * Each row's country and tenancy start for the results block, by core's one rule (rowPlace) over the row's cells: the
 * user's Postcode input (in `input`, read from column 1), their Country and Tenancy start columns (read here, from column
 * 1, only when the table has one), and the service's answer. `row` is 0-based from `top`.
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
  const wanted = [ctx.country, ctx.tenancyStart, postcodeColumn].filter((c): c is number => c !== undefined);
  const ss = SpreadsheetApp.getActive();
  const width = wanted.length ? Math.max(...wanted) + 1 : 0;
  const read =
    n && (ctx.country !== undefined || ctx.tenancyStart !== undefined)
      ? gridInZone(sheet.getRange(top, 1, n, width).getValues(), () => ss.getSpreadsheetTimeZone())
      : input;
  let monthFirst: boolean | undefined;
  const options = () =>
    monthFirst === undefined && ctx.tenancyStart !== undefined
      ? (monthFirst = isMonthFirstLocale(ss.getSpreadsheetLocale()))
      : monthFirst;
  return (row, outcome) =>
    rowPlace(at.header, read[row], outcome, { postcodeColumn, exclude: ours, monthFirst: options() });
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
