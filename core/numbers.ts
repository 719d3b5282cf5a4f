/**
 * Counts as the add-ins write them in every sentence, pane, sidebar and sheet alike: en-GB digit grouping ("2,500").
 * Grouped here by hand rather than by toLocaleString, whose output depends on the locale data of the runtime (Apps
 * Script, a browser, Node), so that "2500" and "2,500" never stand side by side.
 */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const [whole, fraction] = String(Math.abs(n)).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${n < 0 ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}

/**
 * The number format both add-ins give the counts they write into sheets (the Run log's, the Compliance summary's, the
 * Action list's days): the sheet shows them as formatCount writes them in words, "2,500", and they stay numbers that
 * sum and sort. A format, not text, so that the cell's value is the count itself.
 */
export const COUNT_FORMAT = "#,##0";

/** "1 row", "2,500 rows": a count and its noun, as a person writes them. */
export function countWord(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/**
 * A moment as every sentence of both add-ins writes it, to the minute and in UTC ("2026-03-01 09:05 UTC"): a run's
 * start, a digest sent, a schedule's last success. UTC, named, so the words mean one moment on any computer and in
 * Apps Script's zone alike. `at` is epoch milliseconds or an ISO timestamp.
 */
export function utcMinute(at: number | string): string {
  return `${new Date(typeof at === "string" ? Date.parse(at) : at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A clause as the start of a sentence: its first letter a capital ("the sheet …" begins "The sheet …"). */
export function sentence(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
