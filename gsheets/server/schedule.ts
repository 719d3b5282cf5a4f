/**
 * Scheduled re-checks in Google Sheets: the sidebar's Schedule section (Off, daily at an hour, weekly on a day) and
 * the time-driven trigger's handler, which re-checks the tables that checks from the sidebar recorded (watch.ts)
 * with the same engine, columns, Change log and Run log as a check from the sidebar (sheetrun.ts).
 *
 * One trigger, always. An Editor add-on may have one time-driven trigger per user per document, firing at most
 * hourly, so a re-check cannot have a second trigger to collect its jobs. Instead the one trigger always points at
 * the next thing to do:
 * - an execution submits the jobs and keeps collecting (sleeping between polls) for up to STEP_BUDGET_MS, far
 *   inside Apps Script's 6 minutes; most re-checks end within it;
 * - as it starts work it replaces the schedule's trigger with a one-off follow-up an hour later (the add-on
 *   minimum), so that an execution that dies (6 minutes, a Google error) or runs out of time is picked up; the job
 *   ids wait in user properties (runstore.ts), and a follow-up only collects them (GETs), never submits twice;
 * - when the re-check ends, the schedule's trigger is installed again.
 * The plan's quota pauses a re-check until the quota is back (the follow-up waits that long); UrlFetch's daily
 * limit is kept by counting this re-check's requests per day (DAILY_FETCH_BUDGET).
 */
import { nextDueInMs, resumeRun, stopRun } from "../../core";
import type { RunLogEntry } from "../../core/changes";
import { WEEKDAYS, type ScheduleInput, type ScheduleMode, type ScheduleResult, type ScheduleView } from "../shared/api";
import { count } from "../shared/words";
import { appendRunLog, lastRunLogProblem, runBy } from "./logs";
import { clearRun, loadRun, MANUAL_SLOT, type SheetRun } from "./runstore";
import { loadSettings, type Settings } from "./settings";
import { findSheet, locateTable, wholeTableEnd } from "./sheet";
import { afterRun, errorText, pollRun, runProblem, save, withUserLock } from "./sheetrun";
import { beginRun, readTableRows } from "./runbegin";
import { forgetWatch, listWatches, watchOf } from "./watch";

/** The trigger's function: a top-level function of Code.js (index.ts). */
export const HANDLER = "scheduledRecheck";

/** No step starts after this long in an execution; a step sends for at most a minute (SEND_BUDGET_MS), then writes. */
const STEP_BUDGET_MS = 4 * 60 * 1000;
/** An add-on's time-driven trigger fires at most hourly: the follow-up of an unfinished re-check. */
const FOLLOW_UP_MS = 60 * 60 * 1000;
/** A re-check still not done after this many executions (a day of hourly follow-ups) is given up and logged. */
const MAX_EXECUTIONS = 24;
/** UrlFetch allows 20,000 calls a day on a consumer account: the re-check leaves the rest for the sidebar. */
export const DAILY_FETCH_BUDGET = 15000;
/** A check from the sidebar saved this recently is in progress: the re-check waits for it. */
const MANUAL_RUN_FRESH_MS = 10 * 60 * 1000;
/** Stale: no success for the schedule's period plus this (26 hours for a daily schedule). */
const STALE_SLACK_MS = 2 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Document properties: the schedule every editor sees, and how its runs went. */
const SCHEDULE_KEY = "compliance.schedule";
const STATUS_KEY = "compliance.schedule.status";
/** User properties (the trigger's user), per spreadsheet: the re-check under way, and the day's request count. */
const USER_PREFIX = "compliance.sched.";
const FETCHES_KEY = "compliance.fetches";

export const REAUTH_PROBLEM =
  "Re-authorisation needed: the add-on asks for permissions not granted yet, so the scheduled re-check did nothing. Open the sidebar (Extensions › Property compliance › Open sidebar) and allow access.";

interface ScheduleRecord {
  mode: ScheduleMode;
  hour: number;
  weekday: string;
  timeZone: string;
  runsAs: string;
  setAtMs: number;
}

interface ScheduleStatus {
  lastSuccessAtMs?: number;
  lastRunAtMs?: number;
}

/** A re-check of every recorded table, one after the other: what is left, and what went wrong so far. */
interface Pass {
  startedAtMs: number;
  /** The records (watch.ts keys) still to re-check; a pass saved before tables were told apart holds sheet ids. */
  sheets: (string | number)[];
  total: number;
  executions: number;
  problems: string[];
}

// ---- stores ----

function docProps(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getDocumentProperties();
}

function readJson<T>(store: GoogleAppsScript.Properties.Properties, key: string): T | null {
  const raw = store.getProperty(key);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch (_e) {
    return null;
  }
}

function loadRecord(): ScheduleRecord | null {
  return readJson<ScheduleRecord>(docProps(), SCHEDULE_KEY);
}

function loadStatus(): ScheduleStatus {
  return readJson<ScheduleStatus>(docProps(), STATUS_KEY) || {};
}

function saveStatus(s: ScheduleStatus): void {
  docProps().setProperty(STATUS_KEY, JSON.stringify(s));
}

/** User properties are the user's across every document: the re-check's keys name this spreadsheet. */
function userKey(what: string): string {
  return `${USER_PREFIX}${SpreadsheetApp.getActive().getId()}.${what}`;
}

function runSlot(): string {
  return userKey("run");
}

function loadPass(): Pass | null {
  return readJson<Pass>(PropertiesService.getUserProperties(), userKey("pass"));
}

function savePass(p: Pass): void {
  PropertiesService.getUserProperties().setProperty(userKey("pass"), JSON.stringify(p));
}

function clearPass(): void {
  PropertiesService.getUserProperties().deleteProperty(userKey("pass"));
  clearRun(runSlot());
}

/** Requests this add-on's re-checks sent today (UTC), against UrlFetch's daily limit. */
function fetchesToday(): number {
  const raw = PropertiesService.getUserProperties().getProperty(FETCHES_KEY) || "";
  const [day, n] = raw.split(":");
  return day === new Date(Date.now()).toISOString().slice(0, 10) ? Number(n) || 0 : 0;
}

function addFetches(n: number): void {
  if (n <= 0) return;
  PropertiesService.getUserProperties().setProperty(
    FETCHES_KEY,
    `${new Date(Date.now()).toISOString().slice(0, 10)}:${fetchesToday() + n}`,
  );
}

// ---- the trigger ----

function effectiveUser(): string {
  try {
    return Session.getEffectiveUser().getEmail() || "";
  } catch (_e) {
    return "";
  }
}

function ownTriggers(): GoogleAppsScript.Script.Trigger[] {
  return ScriptApp.getUserTriggers(SpreadsheetApp.getActive()).filter((t) => t.getHandlerFunction() === HANDLER);
}

/** Deleted before one is made: an add-on may have one time-driven trigger per user and document. */
function removeOwnTriggers(): void {
  for (const t of ownTriggers()) ScriptApp.deleteTrigger(t);
}

function installRecurring(rec: ScheduleRecord): void {
  removeOwnTriggers();
  const clock = ScriptApp.newTrigger(HANDLER).timeBased();
  const day = (ScriptApp.WeekDay as unknown as Record<string, GoogleAppsScript.Base.Weekday>)[rec.weekday];
  if (rec.mode === "weekly") clock.everyWeeks(1).onWeekDay(day).atHour(rec.hour).inTimezone(rec.timeZone).create();
  else clock.everyDays(1).atHour(rec.hour).inTimezone(rec.timeZone).create();
}

function installFollowUp(ms: number): void {
  removeOwnTriggers();
  ScriptApp.newTrigger(HANDLER)
    .timeBased()
    .after(Math.max(FOLLOW_UP_MS, Math.ceil(ms)))
    .create();
}

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

function at(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

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
  else if (on && !installed)
    warning = "The schedule's trigger is missing (removed on the Apps Script Triggers page?): save the schedule again.";
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
    pending: pass
      ? `A scheduled re-check is under way: ${pass.total - pass.sheets.length} of ${count(pass.total, "table")} done; it goes on within the hour.`
      : "",
    tables,
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
    if (!pending) installRecurring(rec);
    docProps().setProperty(SCHEDULE_KEY, JSON.stringify(rec));
    const nothing = listWatches().length
      ? ""
      : " Nothing to re-check yet: check a table with the button first; the schedule re-checks every table checked from here.";
    const took =
      before && before.mode !== "off" && before.runsAs && me && before.runsAs !== me
        ? ` It replaces ${before.runsAs}'s schedule.`
        : "";
    return result(
      true,
      `Scheduled: ${when(rec)}${me ? `, as ${me}` : ""}. Apps Script picks a minute within that hour.${took}${nothing}`,
    );
  } catch (e) {
    return result(false, `The schedule could not be set: ${errorText(e)}`);
  }
}

// ---- the trigger's handler ----

function logScheduled(startedMs: number, text: string): void {
  // The Run log's line (core's runLogLine) ends the problem with its own full stop.
  const problem = text.replace(/\.$/, "");
  const entry: RunLogEntry = {
    startedAt: new Date(startedMs).toISOString(),
    endedAt: new Date(Date.now()).toISOString(),
    trigger: "scheduled",
    runBy: runBy(),
    rows: 0,
    checked: 0,
    changed: 0,
    worse: 0,
    errors: 0,
    problem,
  };
  appendRunLog(entry);
}

function authorizationRequired(): boolean {
  try {
    return (
      ScriptApp.getAuthorizationInfo(ScriptApp.AuthMode.FULL).getAuthorizationStatus() ===
      ScriptApp.AuthorizationStatus.REQUIRED
    );
  } catch (_e) {
    return false;
  }
}

function requestsOf(run: SheetRun | null): number {
  return run ? run.engine.requests.submit + run.engine.requests.results : 0;
}

type StepOutcome = { waitMs: number; busy?: true } | { passDone: true } | { pausedUntilMs: number };

/** A recorded table's scheduled run: the table found again where it is now, every row under its header re-checked. */
function beginTable(
  key: string | number,
  settings: Settings & { config: NonNullable<Settings["config"]> },
): { ok: true; run: SheetRun } | { ok: false; message: string } {
  const w = watchOf(key);
  const sheet = w ? findSheet(w.sheetId) : null;
  if (!w || !sheet) {
    forgetWatch(key);
    return { ok: false, message: `The sheet "${w ? w.sheetName : key}" was deleted, so it is no longer re-checked.` };
  }
  const name = sheet.getName();
  // The recorded input columns choose the table again where tables stand side by side in one header row.
  const cols = [w.mapping.uprn, w.mapping.postcode, w.mapping.address].filter((c): c is number => c !== undefined);
  const span = cols.length ? { firstCol: Math.min(...cols) + 1, lastCol: Math.max(...cols) + 1 } : {};
  const table = locateTable(
    sheet,
    w.manualMapping ? w.mapping : null,
    w.headerRow
      ? { firstRow: w.headerRow + 1, lastRow: w.headerRow + 1, ...span }
      : { firstRow: w.firstRow, lastRow: w.lastRow, ...span },
  );
  if ("problem" in table) return { ok: false, message: `${name}: ${table.problem}` };
  const firstRow = table.headerRow ? table.headerRow + 1 : w.firstRow;
  // Every row under the header, to the table's first blank row (as a header-row selection does, and Excel's re-check).
  const endRow = table.headerRow
    ? wholeTableEnd(table, firstRow, sheet.getLastRow())
    : Math.min(w.lastRow, sheet.getLastRow());
  const read = readTableRows(sheet, table, firstRow, endRow);
  if (read.endRow < firstRow) return { ok: false, message: `${name}: the table has no rows to re-check now.` };
  return beginRun(
    {
      sheet,
      table,
      firstRow,
      endRow: read.endRow,
      values: read.values,
      wholeTable: !!table.headerRow,
      manualMapping: w.manualMapping,
      trigger: "scheduled",
      slot: runSlot(),
    },
    settings,
  );
}

/** The table is done with: why it did not end well (if it did not) is kept for the pass's status. */
function endTable(pass: Pass, run: SheetRun | null, problem?: string): void {
  const failed = run ? runProblem(run) : "";
  const why = problem || (failed ? `${run!.sheetName}: ${failed}` : "");
  if (why) pass.problems.push(why);
  pass.sheets.shift();
  clearRun(runSlot());
  savePass(pass);
}

/** One step of the pass under the user lock: begin the next table, or poll the one under way, like one sidebar poll. */
function stepPass(
  pass: Pass,
  settings: Settings & { config: NonNullable<Settings["config"]> },
  firstInExecution: boolean,
): StepOutcome {
  const run = loadRun(runSlot());
  if (!run) {
    const key = pass.sheets[0];
    if (key === undefined) return { passDone: true };
    const started = Date.now();
    const begun = beginTable(key, settings);
    if (!begun.ok) {
      logScheduled(started, begun.message);
      endTable(pass, null, begun.message);
      return { waitMs: 0 };
    }
    addFetches(requestsOf(begun.run));
    // beginRun has stored the run, and logged it when it ended at once.
    if (begun.run.phase !== "running") endTable(pass, begun.run);
    return { waitMs: nextDueInMs(begun.run.engine, Date.now()) };
  }
  if (run.phase === "paused" || (firstInExecution && run.phase === "running")) {
    // A new execution: what was sent is collected (GETs), a submit that may have reached the service is never sent again.
    const until = run.engine.pausedUntilMs || 0;
    if (run.phase === "paused" && until > Date.now()) return { pausedUntilMs: until };
    resumeRun(run.engine, Date.now());
    run.phase = "running";
  }
  if (run.phase !== "running") {
    endTable(pass, run);
    return { waitMs: 0 };
  }
  const before = requestsOf(run);
  let waitMs = 0;
  try {
    waitMs = pollRun(run, Date.now());
  } catch (e) {
    stopRun(run.engine);
    run.phase = "stopped";
    run.message = `The re-check of ${run.sheetName} stopped: the sheet could not be read or written (${errorText(e)}).`;
  }
  addFetches(requestsOf(run) - before);
  // pollRun moves the phase on (TypeScript keeps the narrowing from before the call).
  const phase = run.phase as SheetRun["phase"];
  if (phase === "paused") {
    save(run);
    return { pausedUntilMs: run.engine.pausedUntilMs || Date.now() + FOLLOW_UP_MS };
  }
  if (phase !== "running") {
    afterRun(run);
    endTable(pass, run);
    return { waitMs: 0 };
  }
  save(run);
  return { waitMs };
}

/** The pass ended: its status for the stale banner, and the schedule's own trigger back in place. */
function finishPass(pass: Pass, rec: ScheduleRecord): void {
  clearPass();
  const status = loadStatus();
  status.lastRunAtMs = Date.now();
  if (!pass.problems.length) status.lastSuccessAtMs = Date.now();
  saveStatus(status);
  installRecurring(rec);
}

/**
 * The time-driven trigger's function. Checks authorisation before anything else; then re-checks each recorded
 * table in turn, within STEP_BUDGET_MS, and leaves the one trigger pointing at what comes next.
 */
export function scheduledRecheck(_e?: unknown): void {
  const startedMs = Date.now();
  if (authorizationRequired()) {
    logScheduled(startedMs, REAUTH_PROBLEM);
    return;
  }
  const rec = loadRecord();
  const me = effectiveUser();
  if (!rec || rec.mode === "off") {
    // Turned off (by this person or another editor) after this trigger was made: it removes itself.
    removeOwnTriggers();
    clearPass();
    return;
  }
  if (rec.runsAs && me && rec.runsAs !== me) {
    removeOwnTriggers();
    clearPass();
    logScheduled(
      startedMs,
      `${rec.runsAs} set the schedule since, so ${me}'s trigger removed itself; nothing was re-checked by it.`,
    );
    return;
  }
  const settings = loadSettings();
  if (!settings.config) {
    logScheduled(
      startedMs,
      "No API key: it was removed in Settings, so nothing was re-checked. Add the key again; the schedule stays on.",
    );
    return;
  }
  const config = { ...settings, config: settings.config };
  const manual = loadRun(MANUAL_SLOT);
  if (
    manual &&
    manual.phase === "running" &&
    startedMs - (manual.savedAtMs || manual.startedAtMs) < MANUAL_RUN_FRESH_MS
  ) {
    installFollowUp(FOLLOW_UP_MS);
    logScheduled(
      startedMs,
      "Waited: a check started from the sidebar was running, so the scheduled re-check tries again in an hour.",
    );
    return;
  }
  let pass = loadPass();
  if (!pass) {
    const tables = listWatches();
    if (!tables.length) {
      logScheduled(
        startedMs,
        "Nothing to re-check yet: check a table with the sidebar's button first; the schedule re-checks every table checked from there.",
      );
      return;
    }
    pass = {
      startedAtMs: startedMs,
      sheets: tables.map((w) => w.key ?? w.sheetId),
      total: tables.length,
      executions: 0,
      problems: [],
    };
  }
  pass.executions++;
  savePass(pass);
  installFollowUp(FOLLOW_UP_MS);
  if (pass.executions > MAX_EXECUTIONS) {
    const run = loadRun(runSlot());
    logScheduled(
      pass.startedAtMs,
      `The scheduled re-check was given up after ${pass.executions - 1} attempts${run ? ` (${run.sheetName}: ${run.message})` : ""}.`,
    );
    pass.problems.push("given up");
    finishPass(pass, rec);
    return;
  }
  let first = true;
  while (Date.now() - startedMs < STEP_BUDGET_MS) {
    if (fetchesToday() >= DAILY_FETCH_BUDGET) {
      logScheduled(
        startedMs,
        `Paused: the re-checks sent ${DAILY_FETCH_BUDGET.toLocaleString("en-GB")} requests today, the most they may use of Apps Script's daily UrlFetch limit; they go on tomorrow.`,
      );
      const midnight = Math.ceil(Date.now() / DAY_MS) * DAY_MS;
      installFollowUp(midnight - Date.now());
      return;
    }
    // The user lock for each step only, as a sidebar poll takes it: the sidebar is never kept waiting for minutes.
    const step = withUserLock<StepOutcome | null>(
      () => stepPass(pass!, config, first),
      () => null,
    ) || { waitMs: 2000, busy: true };
    if (!("busy" in step)) first = false;
    if ("passDone" in step) {
      finishPass(pass, rec);
      return;
    }
    if ("pausedUntilMs" in step) {
      // The plan's quota is used up: the follow-up waits until it is back.
      installFollowUp(step.pausedUntilMs - Date.now());
      return;
    }
    const left = STEP_BUDGET_MS - (Date.now() - startedMs);
    if (left <= 0) break;
    if (step.waitMs > 0) Utilities.sleep(Math.min(step.waitMs, left, 30000));
  }
  // Out of time: the follow-up trigger (installed above) collects the rest within the hour.
}
