/**
 * The Change log (one row per changed field, appended as each poll writes its rows) and the Run log (one row per
 * run, when it ends), from core/changes.ts: the same sheets and words as the Excel add-in's.
 */
import {
  CHANGE_LOG_ARCHIVE_SHEET,
  CHANGE_LOG_HEADERS,
  CHANGE_LOG_SHEET,
  RUN_LOG_HEADERS,
  RUN_LOG_SHEET,
  changeLogOverflow,
  changeLogRow,
  runLogLine,
  runLogRow,
  type Change,
  type RunLogEntry,
} from "../../core/changes";
import { sheetNamed } from "./actions";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

function logSheet(name: string, headers: readonly string[]): Sheet {
  const { sheet, created } = sheetNamed(name);
  if (created) {
    sheet.getRange(1, 1, 1, headers.length).setValues([headers.slice()]).setFontWeight("bold");
    sheet.setFrozenRows(1);
  }
  return sheet;
}

/** Appends one poll's changes; past CHANGE_LOG_MAX_ROWS the oldest rows move to the archive sheet first. */
export function appendChanges(runAt: string, changes: readonly Change[]): void {
  if (!changes.length) return;
  const width = CHANGE_LOG_HEADERS.length;
  const sheet = logSheet(CHANGE_LOG_SHEET, CHANGE_LOG_HEADERS);
  let last = Math.max(1, sheet.getLastRow());
  const overflow = changeLogOverflow(last - 1, changes.length);
  if (overflow > 0) {
    const oldest = sheet.getRange(2, 1, overflow, width).getValues();
    const archive = logSheet(CHANGE_LOG_ARCHIVE_SHEET, CHANGE_LOG_HEADERS);
    archive.getRange(Math.max(1, archive.getLastRow()) + 1, 1, overflow, width).setNumberFormat("@").setValues(oldest);
    sheet.deleteRows(2, overflow);
    last -= overflow;
  }
  sheet.getRange(last + 1, 1, changes.length, width).setNumberFormat("@").setValues(changes.map((c) => changeLogRow(runAt, c)));
}

/** Appends the run's row and returns its line for the sidebar. */
export function appendRunLog(entry: RunLogEntry): string {
  const sheet = logSheet(RUN_LOG_SHEET, RUN_LOG_HEADERS);
  const row = runLogRow(entry);
  sheet.getRange(Math.max(1, sheet.getLastRow()) + 1, 1, 1, row.length).setValues([row]);
  return runLogLine(entry);
}

/** Who runs this, for the Run log: the user's address where Apps Script gives it (it may not, without that scope). */
export function runBy(): string {
  try {
    return Session.getActiveUser().getEmail() || "";
  } catch {
    return "";
  }
}
