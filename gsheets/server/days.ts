/**
 * Days as the spreadsheet means them. Sheets hands a date cell over as a Date at midnight in the spreadsheet's own time
 * zone: its day is the date in that zone, not in UTC nor in the server's zone. Read here, at the host's edge, so that
 * core only ever sees YYYY-MM-DD text.
 */

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
