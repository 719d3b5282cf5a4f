/** Time zones as Sheets applies them: an instant's wall-clock fields in a zone, and a typed local time's instant. */
/** Wall-clock fields of an instant in a time zone, as Sheets shows them there. */
const zoneFormats = new Map<string, Intl.DateTimeFormat>();
export function zonedParts(
  ms: number,
  timeZone: string,
): Record<"year" | "month" | "day" | "hour" | "minute" | "second", number> {
  if (timeZone === "Etc/UTC" || timeZone === "UTC") {
    const d = new Date(ms);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
    };
  }
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    zoneFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return {
    year: get("year"),
    month: get("month"),
    day: get("day"),
    hour: get("hour"),
    minute: get("minute"),
    second: get("second"),
  };
}

/** "2031-10-27" or "2026-11-22 18:36:06" read as a local time in the zone (what Sheets does with typed dates). */
const zonedTimes = new Map<string, Map<string, number>>();
export function zonedTimeToUtc(text: string, timeZone: string): number {
  // Remembered: a 10,000-row table reads the same few hundred days over and over, and Intl is slow. By zone, then
  // text: a key made of both was a new string for every date cell written.
  let zone = zonedTimes.get(timeZone);
  if (!zone) zonedTimes.set(timeZone, (zone = new Map()));
  let ms = zone.get(text);
  if (ms === undefined) zone.set(text, (ms = zonedTimeToUtcOnce(text, timeZone)));
  return ms;
}

function zonedTimeToUtcOnce(text: string, timeZone: string): number {
  const [d, t = "00:00:00"] = text.split(" ");
  const [y, mo, da] = d.split("-").map(Number);
  const [h, mi, se = 0] = t.split(":").map(Number);
  const wall = Date.UTC(y, mo - 1, da, h, mi, se);
  let guess = wall;
  for (let i = 0; i < 2; i++) {
    const p = zonedParts(guess, timeZone);
    guess += wall - Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  }
  return guess;
}
