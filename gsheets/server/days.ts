/**
 * Days as the spreadsheet means them: a date cell is a day in the file's own time zone (Apps Script hands it back as
 * the Date of that day's midnight there), and "today" is the file's day, not the server's or UTC's.
 */
const isDate = (v: unknown): v is Date => Object.prototype.toString.call(v) === "[object Date]";

/** A Date cell (or YYYY-MM-DD text) as the day it shows in the file's time zone, YYYY-MM-DD; null for anything else. */
export function dayInFileZone(v: unknown, timeZone: string): string | null {
  if (isDate(v)) return isNaN(v.getTime()) ? null : Utilities.formatDate(v, timeZone, "yyyy-MM-dd");
  if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v.trim())) return v.trim();
  return null;
}

/** The file's day at `nowMs`, YYYY-MM-DD. */
export function todayInFileZone(nowMs: number, timeZone: string): string {
  return Utilities.formatDate(new Date(nowMs), timeZone, "yyyy-MM-dd");
}
