/**
 * The task pane's Action list card: the Action list and Compliance summary sheets built from the last check's block,
 * the days ahead they list, and the calendar (.ics) of the same actions.
 */
import { BUILDING_ACTION_SHEETS, ICS_FILE_NAME, ICS_MIME, calendarReadyLine } from "../../core/reports/report-words";
import type { UserStore } from "../settings";
import { complianceRuntime } from "../runtime";
import type { ExcelRun } from "./check-run";
import { $, errorText, say } from "./pane-ui";
import { actionSheets, lastBlock } from "./last-block";
import { localDay } from "./stored";
import { watchedBlocks, workbookSettings } from "./watch-settings";

const rt = complianceRuntime();

async function refreshActions(excelRun: ExcelRun, store: UserStore): Promise<void> {
  const days = Number(($("action-days") as HTMLSelectElement).value);
  await rt.settings.setActionDays(days);
  const place = await lastBlock(store);
  if (!place) return say("actions-status", "No check has been run from this computer yet: check some rows first.");
  say("actions-status", BUILDING_ACTION_SHEETS);
  const s = await rt.settings.load();
  const r = await (
    await actionSheets()
  ).buildActionSheets(excelRun, place, {
    today: localDay(Date.now()),
    withinDays: s.actionDays,
    windows: s.windows,
    tables: watchedBlocks(workbookSettings()),
  });
  say("actions-status", r.line);
}

async function downloadCalendar(excelRun: ExcelRun, store: UserStore): Promise<void> {
  const place = await lastBlock(store);
  if (!place)
    return say(
      "actions-status",
      "No check has been run from this computer yet: check some rows first, then download the calendar.",
    );
  const s = await rt.settings.load();
  const r = await (
    await actionSheets()
  ).actionCalendarText(excelRun, place, {
    today: localDay(Date.now()),
    withinDays: s.actionDays,
    windows: s.windows,
    tables: watchedBlocks(workbookSettings()),
    nowIso: new Date().toISOString(),
  });
  if (!r.ok) return say("actions-status", r.message);
  const link = $("ics-link") as HTMLAnchorElement;
  if (link.href) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([r.ics], { type: ICS_MIME }));
  link.download = ICS_FILE_NAME;
  link.textContent = `Save ${ICS_FILE_NAME}`;
  link.hidden = false;
  link.click();
  say("actions-status", calendarReadyLine(r.events));
}

export function wireActions(excelRun: ExcelRun, store: UserStore): void {
  // Whatever stops them (the sheet, the chunk of their code not fetched) is said in the card, never swallowed.
  const failed = (e: unknown) => say("actions-status", errorText(e));
  $("refresh-actions").addEventListener("click", () => void refreshActions(excelRun, store).catch(failed));
  $("action-days").addEventListener(
    "change",
    () => void rt.settings.setActionDays(Number(($("action-days") as HTMLSelectElement).value)),
  );
  $("download-ics").addEventListener("click", () => void downloadCalendar(excelRun, store).catch(failed));
}
