/**
 * A date the user typed in one of their own columns (EICR date, Licence expiry, Deposit received), read or refused
 * aloud: the one rule both add-ins call, so the same cell gives the same day in Excel and in Google Sheets.
 *
 * Read: a date serial (a real date cell in Excel) of a day from 1990 to 50 years after the day of the check, YYYY-MM-DD text (what the hosts make of a real date cell, in the
 * file's own time zone), ISO text with one-digit parts (2021-3-15), UK day-first text (15/03/2021, 15-03-2021,
 * 15.03.21, 15 Mar 2021, 15 March 2021, 15th March 2021) and month names first (March 15, 2021). Numbers-only text is
 * read month-first (03/15/2021) only when the file's locale writes dates month-first. Two-digit years are read as
 * spreadsheets read them: 00-29 are 2000-2029, 30-99 are 1930-1999.
 * Refused, with a sentence naming the column and the value: anything else, a number outside those dates (a bare year,
 * 2025, is the serial of 17 July 1905), a day that does not exist (31/02/2021),
 * text that reads only the other way round from the file's locale (03/15/2021 in a day-first file), and numbers-only
 * text when the file's order is not known and it reads as two different days.
 */
import { addMonths, isoDay, serialDate } from "../compliance/obligations";
import { formatCount } from "../numbers";

/**
 * How a file's typed dates are read: given in full wherever a date is read, so that no reader can leave the file's
 * order out.
 */
export interface ReadDateOptions {
  /** The file's locale writes dates month-first (en_US). Undefined: not known. */
  monthFirst: boolean | undefined;
  /** The day of the check (YYYY-MM-DD, the file's day): a number more than 50 years after it is not a date. */
  today: string;
}

/** The first day a number in a date column is read as: a serial before it is a year or a count, not a date. */
export const FIRST_SERIAL_DAY = "1990-01-01";
/** How many years after the day of the check a number in a date column may fall and still be read as a date. */
export const SERIAL_YEARS_AHEAD = 50;

export type ReadDate = { day: string } | { problem: string } | { empty: true };

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH_NAMES = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const SHOWN = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

function monthOf(word: string): number | null {
  const w = word.toLowerCase().replace(/\.$/, "");
  if (w === "sept") return 9;
  const i = MONTHS.indexOf(w);
  if (i >= 0) return i + 1;
  const j = MONTH_NAMES.indexOf(w);
  return j >= 0 ? j + 1 : null;
}

function fullYear(y: string): number {
  if (y.length === 4) return +y;
  const n = +y;
  return n <= 29 ? 2000 + n : 1900 + n;
}

/** The YYYY-MM-DD of a calendar day, else null (31 February is not a day). */
function dayOf(y: number, m: number, d: number): string | null {
  if (y < 1900 || y > 2199 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  return isoDay(`${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`);
}

const spoken = (iso: string) => `${+iso.slice(8)} ${SHOWN[+iso.slice(5, 7) - 1]} ${iso.slice(0, 4)}`;

const isDate = (v: unknown): v is Date =>
  !!v && typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]";

/**
 * One cell of a user's date column as a day, a problem in words, or empty. `column` is the header the user gave the
 * column, used in the problem sentence.
 */
export function readUserDate(value: unknown, column: string, o: ReadDateOptions): ReadDate {
  if (value === null || value === undefined || value === "") return { empty: true };
  const shown = (v: string) => `${column} "${v}"`;
  if (typeof value === "number") return serialDay(value, column, o);
  if (isDate(value)) {
    // Hosts turn a Date into its day in the file's time zone first; this is the fallback: a date-only cell is local
    // midnight, up to 14 hours either side of UTC midnight, so the nearest UTC midnight names its day.
    const ms = value.getTime();
    return Number.isFinite(ms)
      ? { day: new Date(ms + 12 * 3600 * 1000).toISOString().slice(0, 10) }
      : { problem: `${column} holds a date that is not valid: enter the date again.` };
  }
  if (typeof value !== "string")
    return {
      problem: `${shown(String(value))} is not a date: enter the date (for example 2021-03-15), or clear the cell.`,
    };
  const t = value.trim().replace(/\s+/g, " ");
  if (t === "") return { empty: true };
  const unreadable = { problem: `${shown(t)} is not a date the add-in can read: type it as 2021-03-15 or 15/03/2021.` };
  const noSuchDay = { problem: `${shown(t)} is not a day of the calendar: correct the date.` };

  // ISO: 2021-03-15, 2021-3-15, 2021/03/15, with a time of day after it.
  let m =
    /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(t);
  if (m) {
    const day = dayOf(+m[1], +m[2], +m[3]);
    return day ? { day } : noSuchDay;
  }
  // Numbers only: 15/03/2021, 15-03-2021, 15.03.21 (day-first), 03/15/2021 (month-first).
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})$/.exec(t);
  if (m) {
    const y = fullYear(m[3]);
    const dayFirst = dayOf(y, +m[2], +m[1]);
    const monthFirst = dayOf(y, +m[1], +m[2]);
    if (!dayFirst && !monthFirst) return noSuchDay;
    if (dayFirst && monthFirst && dayFirst !== monthFirst && o.monthFirst === undefined) {
      return {
        problem: `${shown(t)} reads two ways (${spoken(dayFirst)} or ${spoken(monthFirst)}): type it as ${dayFirst} or ${monthFirst}.`,
      };
    }
    const wanted = o.monthFirst ? monthFirst : dayFirst;
    if (wanted) return { day: wanted };
    const other = (o.monthFirst ? dayFirst : monthFirst)!;
    const order = o.monthFirst ? "month first (03/15/2021)" : "day first (15/03/2021)";
    return {
      problem: `${shown(t)} is not a date in this file's order, ${order}; it reads only the other way round, as ${spoken(other)}: type it as ${other}.`,
    };
  }
  // Month by name: 15 Mar 2021, 15 March 2021, 15-Mar-21, 15th March 2021; March 15, 2021.
  m = /^(\d{1,2})(?:st|nd|rd|th)?[ \-/.]?([A-Za-z]{3,9}\.?)[ \-/.,]+(\d{4}|\d{2})$/.exec(t);
  if (m) {
    const month = monthOf(m[2]);
    if (!month) return unreadable;
    const day = dayOf(fullYear(m[3]), month, +m[1]);
    return day ? { day } : noSuchDay;
  }
  m = /^([A-Za-z]{3,9}\.?) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})$/.exec(t);
  if (m) {
    const month = monthOf(m[1]);
    if (!month) return unreadable;
    const day = dayOf(+m[3], month, +m[2]);
    return day ? { day } : noSuchDay;
  }
  return unreadable;
}

/**
 * A number in a date column: a real date cell's serial when it names a day from 1990 to 50 years after the check;
 * anything else (a bare year, an amount, a count) is refused, never read as a day of 1905.
 */
function serialDay(value: number, column: string, o: ReadDateOptions): ReadDate {
  const typed = `${column} "${value}"`;
  const last = addMonths(isoDay(o.today) ?? FIRST_SERIAL_DAY, SERIAL_YEARS_AHEAD * 12);
  const range = `${spoken(FIRST_SERIAL_DAY)} to ${spoken(last)}`;
  if (Number.isInteger(value) && value >= 1900 && value <= 2200)
    return {
      problem: `${typed} is a year, not a date: type the whole date (for example 2021-03-15), or clear the cell.`,
    };
  const day = serialDate(value);
  if (!day) return { problem: `${typed} is not a date: type the date (for example 2021-03-15), or clear the cell.` };
  if (day < FIRST_SERIAL_DAY || day > last)
    return {
      problem: `${typed} is a number that reads as ${spoken(day)}, outside the dates the add-in reads (${range}): type the date (for example 2021-03-15), or clear the cell.`,
    };
  return { day };
}

/** Locales whose short date is month-first (Sheets' getSpreadsheetLocale "en_US", Office's "en-US"): the only ones. */
const MONTH_FIRST_LOCALES = new Set([
  "en_us",
  "en_ph",
  "es_us",
  "en_as",
  "en_gu",
  "en_mp",
  "en_pr",
  "en_um",
  "en_vi",
  "en_fm",
  "en_mh",
  "en_pw",
]);

/** Whether a locale name (en_US, en-US, en_GB...) writes numbers-only dates month-first. Unknown or empty: undefined. */
export function isMonthFirstLocale(locale: string | null | undefined): boolean | undefined {
  const l = String(locale ?? "")
    .trim()
    .toLowerCase()
    .replace("-", "_");
  if (!l) return undefined;
  return MONTH_FIRST_LOCALES.has(l);
}

/** The run summary's line for rows whose own dates could not be read, the same in both add-ins; "" for none. */
export function dateProblemsLine(rows: number): string {
  if (!rows) return "";
  return `${formatCount(rows)} row${rows === 1 ? " has" : "s have"} a date in your own columns that could not be read: the Message column names the column and the value; correct it and check again.`;
}
