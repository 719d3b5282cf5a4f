/**
 * The Change log (one row per changed field, appended as each poll writes its rows) and the Run log (one row per
 * run, when it ends), from core/reports/changes.ts: the same sheets and words as the Excel add-in's.
 */
import {
  CHANGE_LOG_ARCHIVE_SHEET,
  CHANGE_LOG_HEADERS,
  CHANGE_LOG_SHEET,
  RUN_LOG_HEADERS,
  RUN_LOG_SHEET,
  changeLogOverflow,
  changeLogRow,
  runLogEntryOfRow,
  runLogLine,
  runLogNumberFormats,
  runLogRow,
  type Change,
  type RunLogEntry,
} from "../../core/reports/changes";
import { isDemoKey, DEMO_NOTE } from "../../core/demo/demo-key";
import { DIGEST_TRIGGER } from "../../core/reports/digest-route";
import type { Cell } from "../../core/sheet/layout";
import { sheetNamed } from "./actions";
import { loadSettings } from "./settings";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** The log sheet, made with its bold, frozen header row when missing; `created` says its last row is that header. */
function logSheet(name: string, headers: readonly string[]): { sheet: Sheet; created: boolean } {
  const { sheet, created } = sheetNamed(name);
  if (created) {
    sheet.getRange(1, 1, 1, headers.length).setValues([headers.slice()]).setFontWeight("bold");
    sheet.setFrozenRows(1);
  }
  return { sheet, created };
}

/** Appends one poll's changes; past CHANGE_LOG_MAX_ROWS the oldest rows move to the archive sheet first. */
export function appendChanges(runAt: string, changes: readonly Change[]): void {
  if (!changes.length) return;
  const width = CHANGE_LOG_HEADERS.length;
  const { sheet, created } = logSheet(CHANGE_LOG_SHEET, CHANGE_LOG_HEADERS);
  let last = created ? 1 : Math.max(1, sheet.getLastRow());
  const overflow = changeLogOverflow(last - 1, changes.length);
  if (overflow > 0) {
    const oldest = sheet.getRange(2, 1, overflow, width).getValues();
    const archive = logSheet(CHANGE_LOG_ARCHIVE_SHEET, CHANGE_LOG_HEADERS).sheet;
    const end = Math.max(1, archive.getLastRow());
    ensureRows(archive, end + overflow);
    archive
      .getRange(end + 1, 1, overflow, width)
      .setNumberFormat("@")
      .setValues(oldest);
    sheet.deleteRows(2, overflow);
    last -= overflow;
  }
  ensureRows(sheet, last + changes.length);
  sheet
    .getRange(last + 1, 1, changes.length, width)
    .setNumberFormat("@")
    .setValues(changes.map((c) => changeLogRow(runAt, c)));
}

/** Sheets cannot write past a sheet's last row (a new sheet has 1,000): grown in one call when an append needs it. */
function ensureRows(sheet: Sheet, lastRowNeeded: number): void {
  const max = sheet.getMaxRows();
  if (lastRowNeeded > max) sheet.insertRowsAfter(max, lastRowNeeded - max);
}

/** The last run's line, for every editor's sidebar (document properties: it names no key, only counts). */
const LAST_RUN_LINE = "compliance.lastRunLine";

/** Appends the run's row and returns its line for the sidebar (kept as the last run's line). */
export function appendRunLog(entry: RunLogEntry): string {
  // A run made with the demo key says so on its row (its results are the demo's, not real checks).
  if (entry.demo === undefined) entry = { ...entry, demo: isDemoKey(loadSettings().config?.apiKey) };
  appendLogRow(runLogRow(entry));
  const line = runLogLine(entry);
  try {
    PropertiesService.getDocumentProperties().setProperty(LAST_RUN_LINE, line);
  } catch (_e) {
    // Only the sidebar's line is not updated; the Run log has the row.
  }
  return line;
}

/** Appends one row of the Run log's columns (a run's, or a reminder digest's), its counts in core's format ("2,500"). */
export function appendLogRow(row: Cell[]): void {
  const { sheet, created } = sheetNamed(RUN_LOG_SHEET);
  const formats = runLogNumberFormats();
  if (created) {
    // A new sheet: its header and this first row in one write, the header bold and frozen.
    sheet
      .getRange(1, 1, 2, RUN_LOG_HEADERS.length)
      .setNumberFormats([RUN_LOG_HEADERS.map(() => "General"), formats])
      .setValues([RUN_LOG_HEADERS.slice(), row]);
    sheet.getRange(1, 1, 1, RUN_LOG_HEADERS.length).setFontWeight("bold");
    sheet.setFrozenRows(1);
  } else {
    const last = Math.max(1, sheet.getLastRow());
    ensureRows(sheet, last + 1);
    sheet
      .getRange(last + 1, 1, 1, row.length)
      .setNumberFormats([formats])
      .setValues([row]);
  }
}

/**
 * The last run's line, as the Excel pane makes it: from the Run log's last row (core's runLogEntryOfRow), so that
 * every editor sees the run the sheet shows; the line kept when the row was written, if the row is not a run now.
 */
export function lastRunLine(): string {
  const kept = () => PropertiesService.getDocumentProperties().getProperty(LAST_RUN_LINE) || "";
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(RUN_LOG_SHEET);
  const last = sheet ? sheet.getLastRow() : 0;
  if (!sheet || last < 2) return kept();
  const entry = runLogEntryOfRow(sheet.getRange(last, 1, 1, RUN_LOG_HEADERS.length).getValues()[0]);
  return entry ? runLogLine(entry) : kept();
}

/** How far back the Run log is read for its last problem. */
const PROBLEM_LOOKBACK = 200;

/** The Problem of the Run log's latest row that has one (any trigger), for the stale banner; empty when none. */
export function lastRunLogProblem(): string {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(RUN_LOG_SHEET);
  if (!sheet) return "";
  const last = sheet.getLastRow();
  if (last < 2) return "";
  const first = Math.max(2, last - PROBLEM_LOOKBACK + 1);
  const values = sheet.getRange(first, 1, last - first + 1, RUN_LOG_HEADERS.length).getValues();
  const col = RUN_LOG_HEADERS.indexOf("Problem");
  const trigger = RUN_LOG_HEADERS.indexOf("Trigger");
  for (let i = values.length - 1; i >= 0; i--) {
    // A reminder digest's row says whom it went to: not a re-check's problem.
    if (String(values[i][trigger] ?? "").trim() === DIGEST_TRIGGER) continue;
    // The demo's mark on a run's row is not a problem of that run.
    const v = String(values[i][col] ?? "")
      .trim()
      .replace(/^'/, "")
      .replace(`${DEMO_NOTE}.`, "")
      .trim();
    if (v) return v;
  }
  return "";
}

/** The sidebar's links to the two log sheets: the sheet is made the active one. */
export function openLogSheet(name: string): { ok: boolean; message: string } {
  if (name !== CHANGE_LOG_SHEET && name !== RUN_LOG_SHEET)
    return { ok: false, message: `There is no log sheet called "${name}".` };
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(name);
  if (!sheet) {
    return {
      ok: false,
      message:
        name === RUN_LOG_SHEET
          ? `No "${name}" sheet yet: the first check makes it.`
          : `No "${name}" sheet yet: it is made when a check finds a change since the previous one.`,
    };
  }
  sheet.activate();
  return { ok: true, message: `The "${name}" sheet is open.` };
}

/**
 * Who runs this, for the Run log: the user's address (the userinfo.email scope; Apps Script may still give none, e.g.
 * to a user of another domain).
 */
export function runBy(): string {
  try {
    // In a trigger the active user may be unknown; the effective user is the one the trigger runs as.
    return Session.getActiveUser().getEmail() || Session.getEffectiveUser().getEmail() || "";
  } catch {
    return "";
  }
}
