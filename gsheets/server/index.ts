/**
 * Apps Script entry: only assigns the top-level functions (menu triggers and the sidebar's server calls);
 * gas-webpack-plugin turns each `global.x = ...` into a top-level function declaration in Code.js.
 */
import type { ServerApi } from "../shared/api";
import { cancelBulkCheck, currentRun, finishBulkCheck, pollBulkCheck, resumeBulkCheck, startBulkCheck } from "./bulk";
import { actionCalendarFile, refreshActionSheets } from "./actions";
import { insertSampleTable } from "./demo";
import { insertUprn, lookupAddresses } from "./lookup";
import { checkSelectedRows, onInstall, onOpen, showSettings, showSidebar } from "./menu";
import { takeIntent } from "./runstore";
import { removeApiKey, saveSettings, settingsView } from "./settings";
import { lastRunLine, openLogSheet } from "./logs";
import { saveDigestSettings, saveSchedule, scheduleView } from "./schedule";
import { scheduledRecheck } from "./recheck";

declare const global: Record<string, unknown>;

/** Every area of the selection, so that a Ctrl+click selection shows as what it is. */
function selectionA1(): string {
  const sheet = SpreadsheetApp.getActiveSheet();
  const list = sheet.getActiveRangeList();
  const areas = list ? list.getRanges() : [];
  return areas.length ? `${sheet.getName()}!${areas.map((r) => r.getA1Notation()).join(", ")}` : "";
}

/** Typed against the sidebar's contract: a renamed or reshaped server function is a compile error. */
const api: ServerApi = {
  getSidebarState: () => {
    const intent = takeIntent();
    return {
      settings: settingsView(),
      run: currentRun(),
      selection: selectionA1(),
      intent: intent === "check" || intent === "settings" ? intent : "",
      schedule: scheduleView(),
      lastRun: lastRunLine(),
    };
  },
  getSelection: selectionA1,
  saveSettings,
  removeApiKey,
  startBulkCheck,
  pollBulkCheck,
  finishBulkCheck,
  cancelBulkCheck,
  resumeBulkCheck,
  lookupAddresses,
  insertUprn,
  refreshActionSheets,
  actionCalendar: actionCalendarFile,
  insertSampleTable,
  saveSchedule,
  saveDigest: saveDigestSettings,
  openLogSheet,
};

global.onOpen = onOpen;
global.onInstall = onInstall;
global.showSidebar = showSidebar;
global.checkSelectedRows = checkSelectedRows;
global.showSettings = showSettings;
global.getSidebarState = api.getSidebarState;
global.getSelection = api.getSelection;
global.saveSettings = api.saveSettings;
global.removeApiKey = api.removeApiKey;
global.startBulkCheck = api.startBulkCheck;
global.pollBulkCheck = api.pollBulkCheck;
global.finishBulkCheck = api.finishBulkCheck;
global.cancelBulkCheck = api.cancelBulkCheck;
global.resumeBulkCheck = api.resumeBulkCheck;
global.lookupAddresses = api.lookupAddresses;
global.insertUprn = api.insertUprn;
global.refreshActionSheets = api.refreshActionSheets;
global.actionCalendar = api.actionCalendar;
global.insertSampleTable = api.insertSampleTable;
global.saveSchedule = api.saveSchedule;
global.saveDigest = api.saveDigest;
global.openLogSheet = api.openLogSheet;
// The time-driven trigger's function (schedule.ts HANDLER names it).
global.scheduledRecheck = scheduledRecheck;
