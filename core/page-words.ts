/**
 * The words both add-ins' pages show as they stand (the Excel task pane, the Google Sheets sidebar): each page marks
 * the element with data-words="key" and writes this text into it as it loads, so the two cannot drift. No imports:
 * the sidebar bundles it.
 */
export const PAGE_WORDS = {
  demoBanner: "results come from built-in demo data, not the compliance service; nothing is sent.",
  checkAnyway: "Check the selection anyway",
  windowsLegend: "Action windows (days before the due date)",
  windowsHint: "A check enters Plan, Book and Urgent this many days before it is due (Plan ≥ Book ≥ Urgent).",
} as const;

/** The text for a page element's data-words key; undefined for a key core does not know (the element is left as is). */
export function pageWord(key: string | undefined): string | undefined {
  return key !== undefined && Object.prototype.hasOwnProperty.call(PAGE_WORDS, key)
    ? PAGE_WORDS[key as keyof typeof PAGE_WORDS]
    : undefined;
}
