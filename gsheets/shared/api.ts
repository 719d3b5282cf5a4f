/**
 * The contract between the sidebar and the Apps Script server: every function the sidebar may call through
 * google.script.run, with plain-data arguments and results. Both sides compile against it.
 */
import type { PlanName } from "../../core/service/checks";
import type { WindowSettings } from "../../core/compliance/obligations";
import type { ShownPhase } from "../../core/run/session";

/** What the sidebar may know about the settings: never the key itself. */
export interface SettingsView {
  hasKey: boolean;
  /** The key is `demo`: answers come from core's demo data and nothing is sent. */
  demo: boolean;
  /** e.g. "sand••••••••onal"; empty when no key is stored. */
  maskedKey: string;
  baseUrl: string;
  defaultBaseUrl: string;
  plan: PlanName;
  /** Days before a due date at which each check enters the Plan, Book and Urgent windows. */
  windows: WindowSettings;
  defaultWindows: WindowSettings;
  /** The Action list shows actions due within this many days (7, 30, 60 or 90), plus every overdue one. */
  actionDays: number;
}

export interface SettingsInput {
  /** A new key; omitted or empty keeps the stored one. */
  apiKey?: string;
  baseUrl?: string;
  plan?: string;
  /** Per check, the plan / book / urgent days as typed; checked field by field on the server. */
  windows?: Record<string, Record<string, string | number>>;
  /** Back to the default windows. */
  resetWindows?: boolean;
  actionDays?: number | string;
}

export interface SettingsResult {
  ok: boolean;
  message: string;
  /** Saved, but the service could not confirm the key (unreachable, busy, a plan without API access). */
  warning?: boolean;
  settings: SettingsView;
}

/** Input columns chosen by hand, as column letters ("A"); used when no header row names them. */
export interface ColumnLetters {
  uprn?: string;
  postcode?: string;
  address?: string;
}

export interface JobProgress {
  jobId: string | null;
  /** submitting (not accepted yet), running, completed, failed, timed_out, stopped (Stop, or the run ended) */
  status: string;
  /** Properties the service answered for (processed so far, while running). */
  processed: number;
  total: number;
}

/**
 * The engine's phase as both add-ins show it (core shownPhase). paused: the plan's quota ran out (Resume after the time
 * in the message); stopped: Stop, or the run could not go on.
 */
export type RunPhase = ShownPhase;

export interface RunProgress {
  runId: string;
  sheetName: string;
  /** A1 notation of the rows being checked, e.g. "A2:C2501". */
  rangeA1: string;
  /** A1 notation of the output block, e.g. "D1:Z2501". */
  outputA1: string;
  phase: RunPhase;
  rows: number;
  invalidRows: number;
  duplicateRows: number;
  properties: number;
  /** Properties the service has answered for: a failed or stopped job's rows are not counted. */
  propertiesDone: number;
  rowsWritten: number;
  jobs: JobProgress[];
  /** How long the sidebar should wait before its next poll. */
  waitMs: number;
  /** The latest thing a person should read (rate limit, error; once the run has ended, its headline). */
  message: string;
  /** The words beside the progress bar (core runCaption, as the Excel pane's). */
  caption: string;
  /** Rows answered: what fills the bar, as in the Excel pane. */
  rowsChecked: number;
  /** The run has ended having checked every row asked for (core runEndWords' complete): nothing to warn about. */
  complete: boolean;
  /** Once the run has ended: the rest of its end words (core runEndWords), shown under Details. */
  details: string[];
  rateLimited: boolean;
  notes: string[];
  /** Jobs that failed or timed out (stopped ones are not counted): the run did not check everything. */
  failedJobs: number;
  /** Why, when every job failed (core's describeError of the first job's error); otherwise empty. */
  problem: string;
  /** The results are written; the Action list, summary and Run log are not yet built: call finishBulkCheck. */
  endDue?: boolean;
  /** Rows in jobs already sent (or queued while paused) that Resume can still collect, without sending any job twice. */
  resumable: boolean;
}

/** Stop's answer: busy when a poll holds the lock (the run goes on; ask again in a moment). */
export type StopResult = RunProgress & { busy?: boolean };

export type StartResult =
  | { ok: true; jobIds: string[]; progress: RunProgress }
  | { ok: false; message: string; needsMapping?: boolean; progress?: RunProgress | null; askResume?: boolean };

export interface AddressView {
  uprn: string;
  address: string;
  postcode: string | null;
}

export type LookupResult = { ok: true; addresses: AddressView[]; message: string } | { ok: false; message: string };

export interface InsertResult {
  ok: boolean;
  message: string;
  cell?: string;
}

export type ScheduleMode = "off" | "daily" | "weekly";

/** Monday first, as ScriptApp.WeekDay names them. */
export const WEEKDAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"] as const;

export interface ScheduleInput {
  mode: string;
  /** 0–23, in the spreadsheet's time zone. */
  hour?: number | string;
  /** One of WEEKDAYS, for a weekly schedule. */
  weekday?: string;
}

/** The Schedule section: what is set, who it runs as, and whether it has kept up. */
export interface ScheduleView {
  mode: ScheduleMode;
  hour: number;
  weekday: string;
  timeZone: string;
  /** The address the trigger runs as (the person who set it); empty when off or when Apps Script does not say. */
  runsAs: string;
  /** The schedule was set by the person looking: only they can change their trigger. */
  mine: boolean;
  /** One line for the section, e.g. "Daily between 07:00 and 08:00 (Europe/London), as ann@example.com." */
  summary: string;
  /** Something to put right (another person's schedule, a missing trigger); empty when all is well. */
  warning: string;
  /** Google's limits on schedules (20 triggers a person, 90 minutes of trigger time a day) and how much is used. */
  limits: string;
  /** The stale banner's text: no scheduled re-check has succeeded for 26 hours (a weekly one: 7 days and 2 hours). */
  stale: string;
  /** A re-check under way across executions, in words; empty otherwise. */
  pending: string;
  /** The tables the schedule re-checks, e.g. "Portfolio (header row 1)". */
  tables: string[];
  /** The reminder digests emailed after each scheduled re-check. */
  digest: DigestView;
}

/** The reminder digests' settings as the Schedule section shows them, and the last one sent. */
export interface DigestView {
  on: boolean;
  /** Days before each due date, e.g. "90, 60, 30, 7". */
  thresholds: string;
  /** Extra recipients of every action, comma-separated. */
  extra: string;
  /** "" or one of WEEKDAYS: that day's digest lists every open action. */
  summaryDay: string;
  /** When the last one went and to whom, in words. */
  last: string;
}

export interface DigestInput {
  on: boolean;
  thresholds?: string;
  extra?: string;
  summaryDay?: string;
}

export interface ScheduleResult {
  ok: boolean;
  message: string;
  schedule: ScheduleView;
}

export interface SidebarState {
  settings: SettingsView;
  run: RunProgress | null;
  schedule: ScheduleView;
  /** The last run's line from the Run log (core's runLogLine), any trigger; empty before the first. */
  lastRun: string;
  selection: string;
  /** Set by the menu: "check" starts a check of the selection, "settings" opens the settings panel. */
  intent: "" | "check" | "settings";
}

/** The functions google.script.run can call. The server assigns exactly these to globals. */
export interface ServerApi {
  getSidebarState(): SidebarState;
  /** The Selection line alone: cheap, for keeping it current while the sidebar is open. */
  getSelection(): string;
  saveSettings(input: SettingsInput): SettingsResult;
  removeApiKey(): SettingsResult;
  /** anyway: check even though a run is unfinished (it is set aside, still resumable); without it, askResume asks first. */
  startBulkCheck(opts: { mapping?: ColumnLetters; anyway?: boolean }): StartResult;
  pollBulkCheck(): RunProgress | null;
  /** After the last poll: builds the Action list, summary and Run log of a run whose results are all written. */
  finishBulkCheck(): RunProgress | null;
  cancelBulkCheck(): StopResult | null;
  /** Goes on with a paused or stopped run: collects the jobs already sent, sends the ones not sent. */
  resumeBulkCheck(): RunProgress | null;
  lookupAddresses(q: { postcode?: string; query?: string }): LookupResult;
  insertUprn(uprn: string): InsertResult;
  /** Builds the Action list and Compliance summary again from the last check's results block. */
  refreshActionSheets(opts?: { actionDays?: number }): ActionSheetsResult;
  /** The Action list as an iCalendar (.ics) file's text, built from the last check's results block. */
  actionCalendar(): CalendarResult;
  /** Writes the demo's sample table on a new sheet and selects it, ready for "Check selected rows". */
  insertSampleTable(): ActionSheetsResult;
  /** Sets (Off, daily at an hour, weekly on a day) this person's one time-driven trigger for this spreadsheet. */
  saveSchedule(input: ScheduleInput): ScheduleResult;
  /** The reminder digests: on or off, thresholds, extra recipients, the weekly summary day. */
  saveDigest(input: DigestInput): ScheduleResult;
  /** Makes the "Change log" or "Run log" sheet the active one. */
  openLogSheet(name: string): ActionSheetsResult;
}

export interface ActionSheetsResult {
  ok: boolean;
  message: string;
}

export type CalendarResult =
  { ok: true; ics: string; events: number; fileName: string } | { ok: false; message: string };
