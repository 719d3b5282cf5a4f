/**
 * Days in the sandbox's register: UTC days as YYYY-MM-DD, a day so many days from today, the service's timestamp
 * format, and the status an expiry so many days away gives.
 */
import { type CheckStatus, WARNING_WINDOW_DAYS } from "./register";

export const DAY_MS = 86_400_000;

// Hot loops read globals through local bindings: in a vm context (jest) every global lookup is slow.
const DateObject = Date;
const floor = Math.floor;

export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** YYYY-MM-DD of `today` + n days, memoised per build (100,000 dates from a few thousand offsets). */
export type DayFn = (offset: number) => string;

/** The offsets a build asks for lie within about ten years either side of today: memoised by index there. */
const NEAR_DAYS = 4096;

export function dayFormatter(today: string): DayFn {
  const base = Date.parse(today + "T00:00:00Z");
  const near: (string | undefined)[] = new Array(2 * NEAR_DAYS);
  const far = new Map<number, string>();
  const baseDay = base / DAY_MS;
  const format = (offset: number) => ymd(baseDay + offset) ?? utcDay(new DateObject(base + offset * DAY_MS));
  return (offset) => {
    const i = offset + NEAR_DAYS;
    if (i >= 0 && i < 2 * NEAR_DAYS && (i | 0) === i) return near[i] ?? (near[i] = format(offset));
    let s = far.get(offset);
    if (s === undefined) far.set(offset, (s = format(offset)));
    return s;
  };
}

/**
 * YYYY-MM-DD of a day counted from 1970-01-01 in the proleptic Gregorian calendar (as Date counts), by arithmetic
 * (H. Hinnant's days-to-civil), where a Date and its ISO string cost ten times as much; undefined outside years
 * 0-9999, which utcDay writes its own way.
 */
function ymd(days: number): string | undefined {
  const z = days + 719_468;
  const era = floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = floor(
    (dayOfEra - floor(dayOfEra / 1460) + floor(dayOfEra / 36_524) - floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + floor(yearOfEra / 4) - floor(yearOfEra / 100));
  const mp = floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (!(year >= 0 && year <= 9999)) return undefined;
  return (
    (year < 1000 ? ("000" + year).slice(-4) : "" + year) +
    (month < 10 ? "-0" : "-") +
    month +
    (day < 10 ? "-0" : "-") +
    day
  );
}

/** ISO 8601 UTC without milliseconds, the service's timestamp format. */
export function isoSeconds(ms: number): string {
  const iso = new Date(ms).toISOString();
  // "2026-11-26T01:02:03.456Z" in years 0 to 9999; a wider year ("+012026-...") keeps its own length.
  return iso.length === 24 ? iso.slice(0, 19) + "Z" : iso.replace(/\.\d{3}Z$/, "Z");
}

export function statusForExpiryDays(days: number): CheckStatus {
  if (days < 0) return "fail";
  if (days <= WARNING_WINDOW_DAYS) return "warning";
  return "pass";
}
