/**
 * What the pane needs at start, kept out of the check chunk (check-run.ts and the sheet code load on first use): the
 * keys of what is kept per user, and how an Office.js error reads.
 */

/** The unfinished run kept per user (OfficeRuntime.storage, not the workbook) so that a closed pane can resume. */
export const UNFINISHED_KEY = "compliance.unfinishedRun";
/** Runs set aside by a check begun while they were unfinished (still resumable), kept per user beside UNFINISHED_KEY. */
export const HELD_KEY = "compliance.unfinishedRun.heldAside";
/** Where the last check's results block was (per user, never the workbook): for Refresh action list and the calendar. */
export const LAST_BLOCK_KEY = "compliance.lastBlock";

/** An Office.js error's code and message as one text, to test for the error it is (Excel's codes are strings). */
export function officeErrorText(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  const message = e instanceof Error ? e.message : String(e);
  return `${typeof code === "string" ? code : ""} ${message}`;
}

/** The computer's local day at `ms`, YYYY-MM-DD: Excel's dates are local days, and so is the Action list's "today". */
export function localDay(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}
