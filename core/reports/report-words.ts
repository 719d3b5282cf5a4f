/**
 * What both add-ins say when the Action list, the Compliance summary, their calendar or the logs cannot be made, and
 * the calendar file's name and type: one sentence, one place. Small, so the Sheets sidebar and the Excel pane's first
 * chunk can use it without bundling the rest of core.
 */
import { countWord, formatCount } from "../numbers";

/** Said while the two sheets are built after a run. */
export const BUILDING_ACTION_SHEETS = "Building the Action list and Compliance summary…";

/** The Action list as a file: its name and its type (RFC 5545's media type). */
export const ICS_FILE_NAME = "compliance-actions.ics";
export const ICS_MIME = "text/calendar;charset=utf-8";

/** The calendar was made and offered for saving; `events` actions in it. */
export function calendarReadyLine(events: number): string {
  return `Calendar of ${formatCount(events)} action${events === 1 ? "" : "s"} ready: ${ICS_FILE_NAME} (all-day events, a reminder 7 days before). If nothing was saved, use the "Save" link.`;
}

/** A table of the portfolio that was not found, in the host's words: where it was and why. */
export interface TableProblem {
  sheet: string;
  problem?: string;
}

/** Why no table of the portfolio could be read: each table's sheet and problem. */
export function tablesProblem(tables: readonly TableProblem[]): string {
  return tables.map((t) => `${t.sheet}: ${t.problem}`).join("; ") || "no checked table was found";
}

export function actionSheetsNotRefreshedLine(tables: readonly TableProblem[]): string {
  return `The Action list and Compliance summary were not refreshed: ${tablesProblem(tables)}. Check again to rebuild them.`;
}

/** The sheets failed to build; the results of the run are on the sheet all the same. */
export function actionSheetsFailedLine(why: string): string {
  return `The Action list and Compliance summary could not be refreshed (${why}); the results are written. Press "Refresh action list" to try again.`;
}

export function noCalendarLine(tables: readonly TableProblem[]): string {
  return `No calendar: ${tablesProblem(tables)}. Check again, then download it.`;
}

export function emptyCalendarLine(withinDays: number): string {
  return `No actions are overdue or due within ${withinDays} days, so the calendar would be empty.`;
}

export function calendarFailedLine(why: string): string {
  return `The calendar could not be made (${why}). Try again in a moment.`;
}

/**
 * The logs of a run could not be written; the results are. `logs` names those that failed (Excel writes both at the
 * run's end, Google Sheets the Change log as each poll writes its rows), `next` what becomes of the changes.
 */
export function logsNotWrittenLine(logs: "Run log" | "Change log and Run log", why: string, next = ""): string {
  return `The ${logs} could not be written this time (${why}); the results are written.${next ? ` ${next}` : ""}`;
}

/**
 * What becomes of a finished run's changes that the Change log did not take: nothing can log them later (a check again
 * compares with the values now written, and finds them unchanged), so the count is said, not a step that would not help.
 */
export function changesNotLoggedWords(count: number): string {
  return count > 0
    ? `${countWord(count, "change")} of this run ${count === 1 ? "is" : "are"} not in the Change log.`
    : "";
}
