/**
 * The sidebar's Schedule section in Google Sheets: Off, daily at an hour, or weekly on a day, for this person's one
 * time-driven trigger per spreadsheet (schedule-store.ts); what it shows (when, as whom, the tables re-checked, a
 * re-check under way, and the stale banner when no scheduled re-check has succeeded for too long). The trigger's
 * handler is recheck.ts.
 */
import { WEEKDAYS, type DigestInput, type ScheduleInput, type ScheduleResult, type ScheduleView } from "../shared/api";
import { utcMinute } from "../../core";
import { count } from "../shared/words";
import { digestView, loadDigestSettings, saveDigest } from "./digest";
import { lastRunLogProblem } from "./logs";
import {
  DAY_MS,
  docProps,
  effectiveUser,
  FOLLOW_UP_MS,
  installFollowUp,
  installRecurring,
  loadPass,
  noteScheduled,
  runtimeTodayMs,
  scheduledFiles,
  TRIGGER_MINUTES_PER_DAY,
  TRIGGERS_PER_USER,
  triggerAliveAtMs,
  triggersHeld,
  loadRecord,
  loadStatus,
  ownTriggers,
  removeOwnTriggers,
  SCHEDULE_KEY,
  type ScheduleRecord,
  type ScheduleStatus,
} from "./schedule-store";
import { loadSettings } from "./settings";
import { findSheet } from "./sheet";
import { errorText } from "./sheetrun";
import { listWatches } from "./watch";

/** Stale: no success for the schedule's period plus this (26 hours for a daily schedule). */
const STALE_SLACK_MS = 2 * 60 * 60 * 1000;
/** A trigger neither made nor fired for its period plus this (a follow-up waits a day at most) has stopped. */
const SILENT_SLACK_MS = 4 * 60 * 60 * 1000;

// ---- the Schedule section ----

const two = (n: number) => (n < 10 ? `0${n}` : String(n));
const dayName = (d: string) => d.charAt(0) + d.slice(1).toLowerCase();

function when(rec: ScheduleRecord): string {
  const hours = `between ${two(rec.hour)}:00 and ${two((rec.hour + 1) % 24)}:00 (${rec.timeZone})`;
  return rec.mode === "weekly" ? `Every ${dayName(rec.weekday)} ${hours}` : `Daily ${hours}`;
}

function periodMs(rec: ScheduleRecord): number {
  return rec.mode === "weekly" ? 7 * DAY_MS : DAY_MS;
}

const at = utcMinute;

/** The stale banner's words, or "" while the schedule keeps up (or is off). */
function staleText(rec: ScheduleRecord | null, status: ScheduleStatus, nowMs: number): string {
  if (!rec || rec.mode === "off") return "";
  const since = Math.max(status.lastSuccessAtMs || 0, rec.setAtMs);
  const limit = periodMs(rec) + STALE_SLACK_MS;
  if (nowMs - since <= limit) return "";
  const hours = Math.round(limit / 3600000);
  const what = status.lastSuccessAtMs
    ? `since ${at(status.lastSuccessAtMs)}`
    : `since it was set on ${at(rec.setAtMs)}`;
  let problem: string;
  try {
    problem = lastRunLogProblem();
  } catch (_e) {
    problem = "";
  }
  if (problem && !/[.!?]$/.test(problem)) problem += ".";
  return `Results may be out of date: no scheduled re-check has succeeded for more than ${hours} hours (${what}).${problem ? ` Last problem in the Run log: ${problem}` : " The Run log has no problem recorded: the trigger may not have run (see Extensions › Apps Script › Triggers, or set the schedule again)."}`;
}

/** Google's two limits on schedules, said before they are reached, with how much of each is used. */
function limitsText(): string {
  let held: number;
  try {
    held = triggersHeld();
  } catch (_e) {
    held = 0;
  }
  const used = Math.round(runtimeTodayMs() / 60000);
  return `Google allows each person ${TRIGGERS_PER_USER} schedules in all their spreadsheets (you have ${held}), and ${TRIGGER_MINUTES_PER_DAY} minutes of scheduled run time a day on a personal account (${used} used today); a re-check takes up to 4 minutes a table. Past either limit a schedule cannot run: turn off schedules you no longer need.`;
}

/** Why this person cannot hold another trigger, and what to do, naming the spreadsheets that hold theirs. */
function tooManyText(): string {
  const here = SpreadsheetApp.getActive().getId();
  const names = Object.keys(scheduledFiles())
    .filter((id) => id !== here)
    .map((id) => `"${scheduledFiles()[id]}"`);
  const list = names.length
    ? ` (${names.slice(0, 5).join(", ")}${names.length > 5 ? `, and ${names.length - 5} more` : ""})`
    : "";
  return `The schedule could not be saved: Google allows each person ${TRIGGERS_PER_USER} schedules across all their spreadsheets, and yours are all in use${list}. Open one of those spreadsheets, set its schedule to Off, then save this one again.`;
}

/**
 * The trigger of a schedule that is on, made again when it is gone: Google disables a trigger that keeps failing,
 * and a follow-up that could not run (the day's trigger time used up) is spent. "" when nothing was missing.
 */
function rearm(rec: ScheduleRecord): string {
  try {
    if (loadPass()) installFollowUp(FOLLOW_UP_MS);
    else installRecurring(rec);
    return `The schedule's trigger had stopped (Google disables a trigger that keeps failing, and runs none once the day's ${TRIGGER_MINUTES_PER_DAY} minutes of trigger time are used): it is set again, so re-checks go on as scheduled.`;
  } catch (e) {
    return /too many triggers/i.test(errorText(e))
      ? `The schedule's trigger has stopped and cannot be set again: ${tooManyText().replace(/^The schedule could not be saved: /, "")}`
      : `The schedule's trigger has stopped and could not be set again (${errorText(e)}): save the schedule again.`;
  }
}

export function scheduleView(): ScheduleView {
  const rec = loadRecord();
  const me = effectiveUser();
  const now = Date.now();
  const ss = SpreadsheetApp.getActive();
  const on = !!rec && rec.mode !== "off";
  const mine = on && (!rec!.runsAs || !me || rec!.runsAs === me);
  let installed: boolean;
  try {
    installed = ownTriggers().length > 0;
  } catch (_e) {
    installed = false;
  }
  const pass = on ? loadPass() : null;
  let warning = "";
  if (on && !mine)
    warning = `This schedule was set by ${rec!.runsAs}: it runs as them, with their API key. Saving a schedule here makes it yours, and theirs stops.`;
  // Gone (a one-off follow-up spent while the day's trigger time was used up), or silent for longer than its period
  // allows (Google disabled it after it kept failing): made again.
  else if (on && (!installed || now - Math.max(triggerAliveAtMs(), rec!.setAtMs) > periodMs(rec!) + SILENT_SLACK_MS))
    warning = rearm(rec!);
  const tables = listWatches().map((w) => {
    const sheet = findSheet(w.sheetId);
    const name = sheet ? sheet.getName() : `${w.sheetName} (deleted)`;
    return w.headerRow
      ? `${name}: the table under header row ${w.headerRow}`
      : `${name}: rows ${w.firstRow}–${w.lastRow}`;
  });
  return {
    mode: on ? rec!.mode : "off",
    hour: rec ? rec.hour : 7,
    weekday: rec ? rec.weekday : "MONDAY",
    timeZone: on ? rec!.timeZone : ss.getSpreadsheetTimeZone(),
    runsAs: on ? rec!.runsAs : "",
    mine,
    summary: on
      ? `${when(rec!)}${rec!.runsAs ? `, as ${rec!.runsAs}` : ""}.`
      : "Off: tables are checked only when you press the button.",
    warning,
    stale: staleText(rec, loadStatus(), now),
    limits: limitsText(),
    pending: pass
      ? `A scheduled re-check is under way: ${pass.total - pass.sheets.length} of ${count(pass.total, "table")} done; it goes on within the hour.`
      : "",
    tables,
    digest: digestView(),
  };
}

function result(ok: boolean, message: string): ScheduleResult {
  return { ok, message, schedule: scheduleView() };
}

/** Off, or daily / weekly at an hour: this person's one trigger for this spreadsheet is made, replaced or removed. */
export function saveSchedule(input: ScheduleInput): ScheduleResult {
  const mode = String((input && input.mode) || "");
  if (mode !== "off" && mode !== "daily" && mode !== "weekly")
    return result(false, `Unknown schedule "${mode}": choose Off, Daily or Weekly.`);
  const before = loadRecord();
  const me = effectiveUser();
  try {
    if (mode === "off") {
      removeOwnTriggers();
      noteScheduled(false);
      docProps().deleteProperty(SCHEDULE_KEY);
      const other =
        before && before.mode !== "off" && before.runsAs && me && before.runsAs !== me
          ? ` ${before.runsAs}'s trigger removes itself the next time it fires.`
          : "";
      return result(true, `Schedule off: tables are checked only when you press the button.${other}`);
    }
    const hour = Number(input.hour);
    if (!(Math.floor(hour) === hour && hour >= 0 && hour <= 23))
      return result(false, `The hour must be a whole number from 0 to 23 (got "${String(input.hour)}").`);
    const weekday = String(input.weekday || "MONDAY").toUpperCase();
    if ((WEEKDAYS as readonly string[]).indexOf(weekday) < 0)
      return result(false, `"${String(input.weekday)}" is not a day of the week.`);
    const settings = loadSettings();
    if (!settings.config)
      return result(false, "Add your API key under Settings first: the scheduled re-check runs as you, with your key.");
    const rec: ScheduleRecord = {
      mode,
      hour,
      weekday,
      timeZone: SpreadsheetApp.getActive().getSpreadsheetTimeZone(),
      runsAs: me,
      setAtMs: Date.now(),
    };
    // A re-check under way keeps its follow-up trigger; it installs this schedule when it ends.
    const pending = !!loadPass() && ownTriggers().length > 0;
    // Google's message for the 21st trigger names neither the limit nor the way out: this one does, before trying.
    if (!ownTriggers().length && triggersHeld() >= TRIGGERS_PER_USER) return result(false, tooManyText());
    if (!pending) installRecurring(rec);
    noteScheduled(true);
    docProps().setProperty(SCHEDULE_KEY, JSON.stringify(rec));
    const nothing = listWatches().length
      ? ""
      : " Nothing to re-check yet: check a table with the button first; the schedule re-checks every table checked from here.";
    const took =
      before && before.mode !== "off" && before.runsAs && me && before.runsAs !== me
        ? ` It replaces ${before.runsAs}'s schedule.`
        : "";
    const mail = loadDigestSettings().on
      ? ` Reminder digests are emailed to ${me || "you"} after each re-check that finds something new (turn them off below).`
      : "";
    return result(
      true,
      `Scheduled: ${when(rec)}${me ? `, as ${me}` : ""}. Apps Script picks a minute within that hour.${took}${nothing}${mail}`,
    );
  } catch (e) {
    if (/too many triggers/i.test(errorText(e))) return result(false, tooManyText());
    return result(false, `The schedule could not be set: ${errorText(e)}`);
  }
}

/** The Schedule section's reminder settings. */
export function saveDigestSettings(input: DigestInput): ScheduleResult {
  try {
    const r = saveDigest(input);
    return result(r.ok, r.message);
  } catch (e) {
    return result(false, `The reminder settings could not be saved: ${errorText(e)}`);
  }
}
