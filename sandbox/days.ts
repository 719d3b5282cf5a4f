/**
 * Days in the sandbox's register: UTC days as YYYY-MM-DD, a day so many days from today, the service's timestamp
 * format, and the status an expiry so many days away gives.
 */
import { type CheckStatus, WARNING_WINDOW_DAYS } from "./register";

export const DAY_MS = 86_400_000;

export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** YYYY-MM-DD of `today` + n days, memoised per build (100,000 dates from a few thousand offsets). */
export type DayFn = (offset: number) => string;

export function dayFormatter(today: string): DayFn {
  const base = Date.parse(today + "T00:00:00Z");
  const memo = new Map<number, string>();
  return (offset) => {
    let s = memo.get(offset);
    if (s === undefined) {
      s = utcDay(new Date(base + offset * DAY_MS));
      memo.set(offset, s);
    }
    return s;
  };
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
