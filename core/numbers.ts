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

/** "1 row", "2,500 rows": a count and its noun, as a person writes them. */
export function countWord(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
