/**
 * How Sheets reads a cell's date: a value that is a Date, and a number under a date format read back as its day's
 * local midnight in the spreadsheet's time zone.
 */
import type { CellData } from "./grid";
import { zonedTimeToUtc } from "./zoned-time";

export type MakeDate = (ms: number) => Date;

export function isDate(v: unknown): v is Date {
  // Most cells hold text or numbers: only an object can be a Date (of this realm or the vm's).
  return typeof v === "object" && v !== null && Object.prototype.toString.call(v) === "[object Date]";
}

let zoneOf: () => string = () => "Etc/UTC";
/** The spreadsheet whose sheet was added last decides the zone a date-formatted number is read in. */
export function followZone(zone: () => string): void {
  zoneOf = zone;
}
/** The time zone date-formatted numbers are read in now. */
export function currentZone(): string {
  return zoneOf();
}
/** A number in a date-formatted cell is read back as a Date (local midnight of that day, as Sheets does). */
export function dateFormatted(cell: CellData | undefined): Date | undefined {
  if (!cell || typeof cell.value !== "number" || !cell.format || !isDateFormat(cell.format)) return undefined;
  return new Date(serialMidnight(Math.floor(cell.value), zoneOf()));
}

/** A format with a year and a day in it shows a date; the few formats a test uses, each looked at once. */
const dateFormats = new Map<string, boolean>();
let lastFormat = "";
let lastIsDate = false;
export function isDateFormat(format: string): boolean {
  // A block's cells share a few formats: the last one asked about is most often asked about again.
  if (format === lastFormat) return lastIsDate;
  let yes = dateFormats.get(format);
  if (yes === undefined) dateFormats.set(format, (yes = /y/i.test(format) && /d/i.test(format)));
  lastFormat = format;
  lastIsDate = yes;
  return yes;
}

/** Local midnight of a date serial in the zone, remembered: a table reads the same few hundred days over and over. */
const serialMidnights = new Map<string, Map<number, number>>();
export function serialMidnight(serial: number, timeZone: string): number {
  return midnightIn(zoneMidnights(timeZone), serial, timeZone);
}
/** The remembered midnights of one zone: a block's read looks its zone up once, not once per date cell. */
export function zoneMidnights(timeZone: string): Map<number, number> {
  let zone = serialMidnights.get(timeZone);
  if (!zone) serialMidnights.set(timeZone, (zone = new Map()));
  return zone;
}
export function midnightIn(zone: Map<number, number>, serial: number, timeZone: string): number {
  let ms = zone.get(serial);
  if (ms === undefined) {
    const day = new Date(Date.UTC(1899, 11, 30) + serial * 86_400_000).toISOString().slice(0, 10);
    zone.set(serial, (ms = zonedTimeToUtc(day, timeZone)));
  }
  return ms;
}
