/**
 * What the schedule keeps and the one trigger it installs: the schedule every editor sees and how its runs went
 * (document properties), the re-check under way and the day's request count (the trigger user's properties), and the
 * time-driven trigger itself (ScriptApp). The Schedule section (schedule.ts) and the trigger's handler (recheck.ts)
 * share these.
 */
import type { ScheduleMode } from "../shared/api";
import { clearRun } from "./runstore";

/** The trigger's function: a top-level function of Code.js (index.ts). */
export const HANDLER = "scheduledRecheck";
/** An add-on's time-driven trigger fires at most hourly: the follow-up of an unfinished re-check. */
export const FOLLOW_UP_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** Document properties: the schedule every editor sees, and how its runs went. */
export const SCHEDULE_KEY = "compliance.schedule";
const STATUS_KEY = "compliance.schedule.status";
/** User properties (the trigger's user), per spreadsheet: the re-check under way, and the day's request count. */
const USER_PREFIX = "compliance.sched.";
const FETCHES_KEY = "compliance.fetches";
/** User properties: the trigger run time the re-checks used today (UTC), and the spreadsheets this user scheduled. */
const RUNTIME_KEY = "compliance.triggerMs";
const SCHEDULED_KEY = "compliance.scheduled";

/** Google: a user may hold 20 triggers of one script (this add-on), across all their spreadsheets. */
export const TRIGGERS_PER_USER = 20;
/** Google: a consumer account's triggers run 90 minutes a day in all; then none runs until the next day. */
export const TRIGGER_MINUTES_PER_DAY = 90;
/** The re-checks stop for the day when this much is used, leaving room for the execution under way to end. */
export const TRIGGER_BUDGET_MS = (TRIGGER_MINUTES_PER_DAY - 6) * 60 * 1000;

export interface ScheduleRecord {
  mode: ScheduleMode;
  hour: number;
  weekday: string;
  timeZone: string;
  runsAs: string;
  setAtMs: number;
}

export interface ScheduleStatus {
  lastSuccessAtMs?: number;
  lastRunAtMs?: number;
}

/** A re-check of every recorded table, one after the other: what is left, and what went wrong so far. */
export interface Pass {
  startedAtMs: number;
  /** The records (watch.ts keys) still to re-check; a pass saved before tables were told apart holds sheet ids. */
  sheets: (string | number)[];
  total: number;
  executions: number;
  problems: string[];
  /** A table of the pass wrote results and the Action list and summary are not built from them yet. */
  listsDue?: boolean;
}

// ---- stores ----

export function docProps(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getDocumentProperties();
}

export function readJson<T>(store: GoogleAppsScript.Properties.Properties, key: string): T | null {
  const raw = store.getProperty(key);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch (_e) {
    return null;
  }
}

export function loadRecord(): ScheduleRecord | null {
  return readJson<ScheduleRecord>(docProps(), SCHEDULE_KEY);
}

export function loadStatus(): ScheduleStatus {
  return readJson<ScheduleStatus>(docProps(), STATUS_KEY) || {};
}

export function saveStatus(s: ScheduleStatus): void {
  docProps().setProperty(STATUS_KEY, JSON.stringify(s));
}

/** User properties are the user's across every document: the re-check's keys name this spreadsheet. */
export function userKey(what: string): string {
  return `${USER_PREFIX}${SpreadsheetApp.getActive().getId()}.${what}`;
}

export function runSlot(): string {
  return userKey("run");
}

export function loadPass(): Pass | null {
  return readJson<Pass>(PropertiesService.getUserProperties(), userKey("pass"));
}

export function savePass(p: Pass): void {
  PropertiesService.getUserProperties().setProperty(userKey("pass"), JSON.stringify(p));
}

export function clearPass(): void {
  PropertiesService.getUserProperties().deleteProperty(userKey("pass"));
  clearRun(runSlot());
}

/** Requests this add-on's re-checks sent today (UTC), against UrlFetch's daily limit. */
export function fetchesToday(): number {
  const raw = PropertiesService.getUserProperties().getProperty(FETCHES_KEY) || "";
  const [day, n] = raw.split(":");
  return day === new Date(Date.now()).toISOString().slice(0, 10) ? Number(n) || 0 : 0;
}

export function addFetches(n: number): void {
  if (n <= 0) return;
  PropertiesService.getUserProperties().setProperty(
    FETCHES_KEY,
    `${new Date(Date.now()).toISOString().slice(0, 10)}:${fetchesToday() + n}`,
  );
}

const today = () => new Date(Date.now()).toISOString().slice(0, 10);

/** Trigger run time this user's re-checks used today (UTC), in every spreadsheet: Google counts it per user. */
export function runtimeTodayMs(): number {
  const raw = PropertiesService.getUserProperties().getProperty(RUNTIME_KEY) || "";
  const [day, ms] = raw.split(":");
  return day === today() ? Number(ms) || 0 : 0;
}

export function addRuntime(ms: number): void {
  if (ms <= 0) return;
  PropertiesService.getUserProperties().setProperty(RUNTIME_KEY, `${today()}:${Math.round(runtimeTodayMs() + ms)}`);
}

/** The spreadsheets (id to name) where this user's schedule is on: named when the 20 triggers are all used. */
export function scheduledFiles(): Record<string, string> {
  return readJson<Record<string, string>>(PropertiesService.getUserProperties(), SCHEDULED_KEY) || {};
}

export function noteScheduled(on: boolean): void {
  const ss = SpreadsheetApp.getActive();
  const files = scheduledFiles();
  if (on) files[ss.getId()] = ss.getName();
  else delete files[ss.getId()];
  PropertiesService.getUserProperties().setProperty(SCHEDULED_KEY, JSON.stringify(files));
}

/** This user's triggers of this add-on in all their spreadsheets (Google's limit counts them all). */
export function triggersHeld(): number {
  return ScriptApp.getProjectTriggers().filter((t) => t.getHandlerFunction() === HANDLER).length;
}

// ---- the trigger ----

export function effectiveUser(): string {
  try {
    return Session.getEffectiveUser().getEmail() || "";
  } catch (_e) {
    return "";
  }
}

export function ownTriggers(): GoogleAppsScript.Script.Trigger[] {
  return ScriptApp.getUserTriggers(SpreadsheetApp.getActive()).filter((t) => t.getHandlerFunction() === HANDLER);
}

/** Deleted before one is made: an add-on may have one time-driven trigger per user and document. */
export function removeOwnTriggers(): void {
  for (const t of ownTriggers()) ScriptApp.deleteTrigger(t);
}

/**
 * When this user's trigger for this spreadsheet was last made or last fired: Apps Script does not say whether a
 * trigger is disabled, so one that has done neither for longer than its period is taken to have stopped.
 */
export function noteTriggerAlive(): void {
  PropertiesService.getUserProperties().setProperty(userKey("aliveAt"), String(Date.now()));
}

export function triggerAliveAtMs(): number {
  return Number(PropertiesService.getUserProperties().getProperty(userKey("aliveAt")) || 0);
}

export function installRecurring(rec: ScheduleRecord): void {
  removeOwnTriggers();
  noteTriggerAlive();
  const clock = ScriptApp.newTrigger(HANDLER).timeBased();
  const day = (ScriptApp.WeekDay as unknown as Record<string, GoogleAppsScript.Base.Weekday>)[rec.weekday];
  if (rec.mode === "weekly") clock.everyWeeks(1).onWeekDay(day).atHour(rec.hour).inTimezone(rec.timeZone).create();
  else clock.everyDays(1).atHour(rec.hour).inTimezone(rec.timeZone).create();
}

export function installFollowUp(ms: number): void {
  removeOwnTriggers();
  noteTriggerAlive();
  ScriptApp.newTrigger(HANDLER)
    .timeBased()
    .after(Math.max(FOLLOW_UP_MS, Math.ceil(ms)))
    .create();
}
