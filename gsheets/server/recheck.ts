/**
 * The scheduled re-check in Google Sheets: the time-driven trigger's handler (the Schedule section that sets it is
 * schedule.ts), which re-checks the tables that checks from the sidebar recorded (watch.ts)
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
import { nextDueInMs, resumeRun, shownPhase, stopRun, type PortfolioTable, sentence, sheetNotFound } from "../../core";
import { notCheckedLogEntry } from "../../core/reports/changes";
import { refreshLists } from "./actions";
import { sendDigestAfterPass } from "./digest";
import { appendRunLog, runBy } from "./logs";
import { clearRun, loadRun, MANUAL_SLOT, type SheetRun } from "./runstore";
import {
  addFetches,
  clearPass,
  DAY_MS,
  effectiveUser,
  fetchesToday,
  FOLLOW_UP_MS,
  installFollowUp,
  installRecurring,
  addRuntime,
  noteScheduled,
  noteTriggerAlive,
  runtimeTodayMs,
  TRIGGER_BUDGET_MS,
  TRIGGER_MINUTES_PER_DAY,
  loadPass,
  loadRecord,
  loadStatus,
  removeOwnTriggers,
  runSlot,
  savePass,
  saveStatus,
  type Pass,
  type ScheduleRecord,
} from "./schedule-store";
import { loadSettings, type Settings } from "./settings";
import { findSheet } from "./sheet";
import { planSheetCheck } from "./table-plan";
import { errorText, finishRun, pollRun, runProblem, save, withUserLock } from "./sheetrun";
import { beginRun } from "./runbegin";
import { forgetWatch, listWatches, watchOf } from "./watch";
import { formatCount } from "../../core/numbers";

/** No step starts after this long in an execution; a step sends for at most a minute (SEND_BUDGET_MS), then writes. */
const STEP_BUDGET_MS = 4 * 60 * 1000;
/** A re-check still not done after this many executions (a day of hourly follow-ups) is given up and logged. */
const MAX_EXECUTIONS = 24;
/** UrlFetch allows 20,000 calls a day on a consumer account: the re-check leaves the rest for the sidebar. */
export const DAILY_FETCH_BUDGET = 15000;
/** A check from the sidebar saved this recently is in progress: the re-check waits for it. */
const MANUAL_RUN_FRESH_MS = 10 * 60 * 1000;

export const REAUTH_PROBLEM =
  "Re-authorisation needed: the add-on asks for permissions not granted yet, so the scheduled re-check did nothing. Open the sidebar (Extensions › Property compliance › Open sidebar) and allow access.";

// ---- the trigger's handler ----

function logScheduled(startedMs: number, text: string): void {
  appendRunLog(
    notCheckedLogEntry({
      startedAt: new Date(startedMs).toISOString(),
      endedAt: new Date(Date.now()).toISOString(),
      trigger: "scheduled",
      runBy: runBy(),
      problem: text,
    }),
  );
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

/** `listed`: the tables the step built the Action list from (the pass's last table ended), for the digest. */
type StepOutcome =
  { waitMs: number; busy?: true; listed?: PortfolioTable[] } | { passDone: true } | { pausedUntilMs: number };

/** A recorded table's scheduled run: the table found again where it is now, every row under its header re-checked. */
function beginTable(
  key: string | number,
  settings: Settings & { config: NonNullable<Settings["config"]> },
): { ok: true; run: SheetRun } | { ok: false; message: string } {
  const w = watchOf(key);
  const sheet = w ? findSheet(w.sheetId) : null;
  if (!w || !sheet) {
    forgetWatch(key);
    return {
      ok: false,
      message: `${sentence(sheetNotFound(w ? w.sheetName : String(key)))}, so it is no longer re-checked.`,
    };
  }
  const name = sheet.getName();
  // The recorded input columns: the table is the one around the header's first input cell, every row of it checked (as
  // Excel's re-check reads the table around its block); without a header row, the rows the last check took.
  const cols = [w.mapping.uprn, w.mapping.postcode, w.mapping.address].filter((c): c is number => c !== undefined);
  const first = cols.length ? Math.min(...cols) : 0;
  const last = cols.length ? Math.max(...cols) : 0;
  const planned = planSheetCheck(sheet, {
    selection: w.headerRow
      ? { row: w.headerRow, col: first + 1, rows: 1, cols: 1 }
      : { row: w.firstRow, col: first + 1, rows: w.lastRow - w.firstRow + 1, cols: last - first + 1 },
    manual: w.manualMapping || !w.headerRow ? w.mapping : null,
    ...(w.headerRow ? { whole: true } : { hasHeader: false as const }),
  });
  if ("nothing" in planned) return { ok: false, message: `${name}: the table has no rows to re-check now.` };
  if ("problem" in planned) return { ok: false, message: `${name}: ${planned.problem}` };
  return beginRun(
    {
      sheet,
      table: planned.table,
      firstRow: planned.firstRow,
      endRow: planned.endRow,
      values: planned.values,
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
    if (shownPhase(begun.run.engine) !== "running") endTable(pass, begun.run);
    return { waitMs: nextDueInMs(begun.run.engine, Date.now()) };
  }
  if (run.endDue) {
    // The step after the one that wrote the last results: the Run log, and the Action list and summary once a pass (they
    // read every table), as its last table ends, or in finishPass when that one wrote nothing.
    const lists = pass.sheets.length <= 1;
    let listed: PortfolioTable[] | undefined;
    finishRun(run, { lists, listed: (tables) => (listed = tables) });
    if (run.rowsWritten) pass.listsDue = !lists;
    endTable(pass, run);
    return { waitMs: 0, listed };
  }
  if (shownPhase(run.engine) === "paused" || (firstInExecution && shownPhase(run.engine) === "running")) {
    // A new execution: what was sent is collected (GETs), a submit that may have reached the service is never sent again.
    const until = run.engine.pausedUntilMs || 0;
    if (shownPhase(run.engine) === "paused" && until > Date.now()) return { pausedUntilMs: until };
    resumeRun(run.engine, Date.now());
  }
  if (shownPhase(run.engine) !== "running") {
    endTable(pass, run);
    return { waitMs: 0 };
  }
  const before = requestsOf(run);
  let waitMs = 0;
  try {
    waitMs = pollRun(run, Date.now());
  } catch (e) {
    stopRun(run.engine);
    run.message = `The re-check of ${run.sheetName} stopped: the sheet could not be read or written (${errorText(e)}).`;
  }
  addFetches(requestsOf(run) - before);
  const phase = shownPhase(run.engine);
  if (phase === "paused") {
    save(run);
    return { pausedUntilMs: run.engine.pausedUntilMs || Date.now() + FOLLOW_UP_MS };
  }
  if (phase !== "running") {
    // Its results are all written: the next step builds the end of the run (in this execution, or the next one).
    run.endDue = true;
    save(run);
    return { waitMs: 0 };
  }
  save(run);
  return { waitMs };
}

/**
 * The pass ended: its status for the stale banner, and the schedule's own trigger back in place. `listed`: the tables
 * the step just before read for the Action list, which the digest lists from.
 */
function finishPass(pass: Pass, rec: ScheduleRecord, listed?: PortfolioTable[]): void {
  if (pass.listsDue) listed = refreshLists(null).tables;
  clearPass();
  const status = loadStatus();
  status.lastRunAtMs = Date.now();
  if (!pass.problems.length) status.lastSuccessAtMs = Date.now();
  saveStatus(status);
  installRecurring(rec);
  sendDigestAfterPass(rec, listed);
}

/**
 * The time-driven trigger's function. Checks authorisation before anything else; then re-checks each recorded
 * table in turn, within STEP_BUDGET_MS, and leaves the one trigger pointing at what comes next.
 */
export function scheduledRecheck(_e?: unknown): void {
  const startedMs = Date.now();
  try {
    noteTriggerAlive();
    recheckNow(startedMs);
  } finally {
    // Google counts every trigger's run time against the user's day: kept so that the re-checks stop short of it.
    try {
      addRuntime(Date.now() - startedMs);
    } catch (_err) {
      // Out of time or storage: the count is a guard, not a result.
    }
  }
}

type RecheckSettings = Settings & { config: NonNullable<Settings["config"]> };

/**
 * Whether this trigger may re-check now: authorised, the schedule on and set by this person, a key, and no check from
 * the sidebar running. When not, it says why (in the Run log) and gives undefined.
 */
function mayRecheck(startedMs: number): { rec: ScheduleRecord; config: RecheckSettings } | undefined {
  if (authorizationRequired()) {
    logScheduled(startedMs, REAUTH_PROBLEM);
    return undefined;
  }
  const rec = loadRecord();
  const me = effectiveUser();
  if (!rec || rec.mode === "off") {
    // Turned off (by this person or another editor) after this trigger was made: it removes itself.
    removeOwnTriggers();
    noteScheduled(false);
    clearPass();
    return undefined;
  }
  if (rec.runsAs && me && rec.runsAs !== me) {
    removeOwnTriggers();
    noteScheduled(false);
    clearPass();
    logScheduled(
      startedMs,
      `${rec.runsAs} set the schedule since, so ${me}'s trigger removed itself; nothing was re-checked by it.`,
    );
    return undefined;
  }
  const settings = loadSettings();
  if (!settings.config) {
    logScheduled(
      startedMs,
      "No API key: it was removed in Settings, so nothing was re-checked. Add the key again; the schedule stays on.",
    );
    return undefined;
  }
  const config = { ...settings, config: settings.config };
  const manual = loadRun(MANUAL_SLOT);
  if (
    manual &&
    shownPhase(manual.engine) === "running" &&
    startedMs - (manual.savedAtMs || manual.startedAtMs) < MANUAL_RUN_FRESH_MS
  ) {
    installFollowUp(FOLLOW_UP_MS);
    logScheduled(
      startedMs,
      "Waited: a check started from the sidebar was running, so the scheduled re-check tries again in an hour.",
    );
    return undefined;
  }
  return { rec, config };
}

/** The pass under way, or a new one over every watched table (undefined, and said, when there is none). */
function passToRun(startedMs: number): Pass | undefined {
  const pass = loadPass();
  if (pass) return pass;
  const tables = listWatches();
  if (!tables.length) {
    logScheduled(
      startedMs,
      "Nothing to re-check yet: check a table with the sidebar's button first; the schedule re-checks every table checked from there.",
    );
    return undefined;
  }
  return {
    startedAtMs: startedMs,
    sheets: tables.map((w) => w.key ?? w.sheetId),
    total: tables.length,
    executions: 0,
    problems: [],
  };
}

/** The day's trigger run time or UrlFetch allowance for re-checks used up: said, and the follow-up set for midnight. */
function dailyBudgetSpent(startedMs: number): boolean {
  let problem: string | undefined;
  if (runtimeTodayMs() + (Date.now() - startedMs) >= TRIGGER_BUDGET_MS)
    problem = `Paused: scheduled re-checks used ${Math.round(TRIGGER_BUDGET_MS / 60000)} of the ${TRIGGER_MINUTES_PER_DAY} minutes of trigger run time Google gives a day; they go on tomorrow. Turn off schedules you no longer need to leave more for the others.`;
  else if (fetchesToday() >= DAILY_FETCH_BUDGET)
    problem = `Paused: the re-checks sent ${formatCount(DAILY_FETCH_BUDGET)} requests today, the most they may use of Apps Script's daily UrlFetch limit; they go on tomorrow.`;
  if (problem === undefined) return false;
  logScheduled(startedMs, problem);
  const midnight = Math.ceil(Date.now() / DAY_MS) * DAY_MS;
  installFollowUp(midnight - Date.now());
  return true;
}

/** Steps the pass until it ends, pauses, or this execution's STEP_BUDGET_MS is spent. */
function stepPassWhileTime(pass: Pass, rec: ScheduleRecord, config: RecheckSettings, startedMs: number): void {
  let first = true;
  let listed: PortfolioTable[] | undefined;
  while (Date.now() - startedMs < STEP_BUDGET_MS) {
    if (dailyBudgetSpent(startedMs)) return;
    // The user lock for each step only, as a sidebar poll takes it: the sidebar is never kept waiting for minutes.
    const step = withUserLock<StepOutcome | null>(
      () => stepPass(pass, config, first),
      () => null,
    ) || { waitMs: 2000, busy: true };
    if (!("busy" in step)) first = false;
    if ("passDone" in step) {
      finishPass(pass, rec, listed);
      return;
    }
    // Only the step just before the pass's end counts: anything older may have been edited since.
    listed = "listed" in step ? step.listed : undefined;
    if ("pausedUntilMs" in step) {
      // The plan's quota is used up: the follow-up waits until it is back.
      installFollowUp(step.pausedUntilMs - Date.now());
      return;
    }
    const left = STEP_BUDGET_MS - (Date.now() - startedMs);
    if (left <= 0) break;
    if (step.waitMs > 0) Utilities.sleep(Math.min(step.waitMs, left, 30000));
  }
  // Out of time: the follow-up trigger (installed by recheckNow) collects the rest within the hour.
}

function recheckNow(startedMs: number): void {
  const allowed = mayRecheck(startedMs);
  if (!allowed) return;
  const { rec, config } = allowed;
  const pass = passToRun(startedMs);
  if (!pass) return;
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
  stepPassWhileTime(pass, rec, config, startedMs);
}
