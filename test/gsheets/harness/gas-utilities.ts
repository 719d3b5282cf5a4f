/** Utilities as the stand-in gives it to Code.js: formatDate in the zone and pattern asked for. */
import { zonedParts } from "./fake-sheets";

/** Utilities.formatDate's SimpleDateFormat letters that our code uses; anything else throws, so a test notices. */
const formatted = new Map<string, Map<string, Map<number, string>>>();
export function formatDate(date: Date, timeZone: string, pattern: string): string {
  // Remembered, as zonedTimeToUtc is: a large run formats the same few hundred days over and over (by zone, then
  // pattern: a key made of both was a new string for each of the hundreds of thousands of calls).
  let zone = formatted.get(timeZone);
  if (!zone) formatted.set(timeZone, (zone = new Map()));
  let texts = zone.get(pattern);
  if (!texts) zone.set(pattern, (texts = new Map()));
  const ms = date.getTime();
  let text = texts.get(ms);
  if (text === undefined) {
    if (texts.size > 100_000) texts.clear();
    texts.set(ms, (text = formatDateOnce(date, timeZone, pattern)));
  }
  return text;
}

function formatDateOnce(date: Date, timeZone: string, pattern: string): string {
  const p = zonedParts(date.getTime(), timeZone);
  const two = (n: number) => String(n).padStart(2, "0");
  const fields: Record<string, string> = {
    yyyy: String(p.year),
    MM: two(p.month),
    dd: two(p.day),
    HH: two(p.hour),
    mm: two(p.minute),
    ss: two(p.second),
  };
  return pattern.replace(/[A-Za-z]+/g, (t) => {
    if (!(t in fields)) throw new Error(`formatDate stand-in: unsupported pattern letters "${t}"`);
    return fields[t];
  });
}
