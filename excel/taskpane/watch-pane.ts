/**
 * The pane's "Watch this workbook" card: the last run's line (read from the Run log sheet, so it is the same for every
 * user of the workbook), buttons that open the Change log and Run log sheets, and the re-check on open setting.
 */
import { CHANGE_LOG_SHEET, RUN_LOG_SHEET, runLogEntryOfRow, runLogLine } from "../../core";
import type { ExcelRun } from "./check-run";
import { officeErrorText } from "./stored";
import {
  DEFAULT_RECHECK_DAYS,
  recheckDays,
  recheckUnsupported,
  setRecheckOnOpen,
  workbookSettings,
} from "./watch-settings";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const say = (id: string, text: string): void => {
  $(id).textContent = text;
};

/** The Run log's last row as the pane's line, or a sentence saying there is none yet. */
export async function lastRunLine(excelRun: ExcelRun): Promise<string> {
  return excelRun(async (context) => {
    const sheet = context.workbook.worksheets.getItemOrNullObject(RUN_LOG_SHEET);
    await context.sync();
    if (sheet.isNullObject) return "No run is logged in this workbook yet.";
    const used = sheet.getUsedRangeOrNullObject(true);
    used.load(["rowIndex", "rowCount", "columnCount"]);
    await context.sync();
    if (used.isNullObject || used.rowIndex + used.rowCount < 2) return "No run is logged in this workbook yet.";
    const last = sheet.getRangeByIndexes(used.rowIndex + used.rowCount - 1, 0, 1, Math.max(12, used.columnCount));
    last.load("values");
    await context.sync();
    const entry = runLogEntryOfRow(last.values[0] ?? []);
    return entry
      ? runLogLine(entry)
      : `The last row of the ${RUN_LOG_SHEET} sheet is not a run (it was edited); new runs are added below it.`;
  });
}

export async function showLastRun(excelRun: ExcelRun, line?: string): Promise<void> {
  try {
    say("last-run", line ?? (await lastRunLine(excelRun)));
  } catch (e) {
    say("last-run", `The ${RUN_LOG_SHEET} could not be read (${officeErrorText(e)}).`);
  }
}

/** Activates the Change log or Run log sheet, or says that no run has written it yet. */
async function openSheet(excelRun: ExcelRun, name: string): Promise<void> {
  try {
    const found = await excelRun(async (context) => {
      const sheet = context.workbook.worksheets.getItemOrNullObject(name);
      await context.sync();
      if (sheet.isNullObject) return false;
      sheet.activate();
      await context.sync();
      return true;
    });
    say("watch-status", found ? "" : `There is no ${name} sheet yet: it is made by the first check of this workbook.`);
  } catch (e) {
    say(
      "watch-status",
      `The ${name} sheet could not be opened (${officeErrorText(e)}). Click its tab at the bottom of the workbook.`,
    );
  }
}

function renderRecheck(): void {
  const why = recheckUnsupported();
  const days = recheckDays(workbookSettings());
  const box = $<HTMLInputElement>("recheck-on");
  const input = $<HTMLInputElement>("recheck-days");
  box.checked = days !== null;
  input.value = String(days ?? DEFAULT_RECHECK_DAYS);
  box.disabled = input.disabled = !!why;
  if (why) say("watch-status", why);
}

/** The days as typed: a whole number from 0 to 365, else a sentence saying what to type. */
function daysTyped(): number | string {
  const raw = $<HTMLInputElement>("recheck-days").value.trim();
  const n = Number(raw);
  return raw !== "" && Number.isInteger(n) && n >= 0 && n <= 365
    ? n
    : `"${raw}" is not a number of days: type a whole number from 0 to 365 (0 re-checks on every open).`;
}

async function saveRecheck(): Promise<void> {
  const on = $<HTMLInputElement>("recheck-on").checked;
  const days = daysTyped();
  if (on && typeof days === "string") {
    // Not on until the days make sense; an earlier setting (if any) stays as it was.
    $<HTMLInputElement>("recheck-on").checked = recheckDays(workbookSettings()) !== null;
    return say("watch-status", days);
  }
  try {
    await setRecheckOnOpen(on ? (days as number) : null);
    say(
      "watch-status",
      on
        ? `Saved. From the next time this workbook opens, blocks last checked more than ${days} day${days === 1 ? "" : "s"} before are checked again in the background. Save the workbook to keep the setting.`
        : "Re-check on open is off: the add-in no longer loads with this workbook.",
    );
  } catch (e) {
    $<HTMLInputElement>("recheck-on").checked = !on;
    say("watch-status", `The setting was not saved: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function wireWatch(excelRun: ExcelRun): void {
  renderRecheck();
  void showLastRun(excelRun);
  $("open-change-log").addEventListener("click", () => void openSheet(excelRun, CHANGE_LOG_SHEET));
  $("open-run-log").addEventListener("click", () => void openSheet(excelRun, RUN_LOG_SHEET));
  $("recheck-on").addEventListener("change", () => void saveRecheck());
  $("recheck-days").addEventListener("change", () => $<HTMLInputElement>("recheck-on").checked && void saveRecheck());
}
