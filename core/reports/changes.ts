/**
 * What changed since the last check, the same in Excel and Google Sheets: each property's new row of the results
 * block is compared with the row as it stood before it was written, field by field, and every difference becomes a
 * row of the "Change log" sheet (append-only). Each run becomes a row of the "Run log" sheet. Pure: hosts read the
 * cells, call these, and append what they return.
 *
 * Rules: a row with no earlier result is the baseline (nothing logged); a row the service could not answer this time
 * (statuses "error", or the earlier values kept) is not a change: the run log counts it as an error. A row compares
 * only with the same property's earlier result: a row now holding another property (its UPRN replaced, or the row
 * re-used) starts a new baseline. Demo results are never history: a row whose earlier or new result is the demo's
 * logs nothing, so switching between the demo key and a real key logs no changes.
 */
import { CHECK_LABELS } from "../sheet/colours";
import { DEMO_NOTE } from "../demo/demo-key";
import { OUTPUT_COLUMNS, isDemoRow, safeCellText, type Cell } from "../sheet/layout";
import { cellDay } from "../sheet/user-columns";
import { runCounts, type RunState } from "../run";
import { COUNT_FORMAT, formatCount, utcMinute } from "../numbers";

export const CHANGE_LOG_SHEET = "Change log";
export const CHANGE_LOG_ARCHIVE_SHEET = "Change log (archive)";
export const RUN_LOG_SHEET = "Run log";
export const CHANGE_LOG_HEADERS = ["Run at", "UPRN", "Address", "Check", "Field", "Was", "Now", "Direction"] as const;
export const RUN_LOG_HEADERS = [
  "Started",
  "Ended",
  "Trigger",
  "Run by",
  "Rows",
  "Checked",
  "Changed",
  "Worse",
  "Errors",
  "Requests used",
  "Quota left",
  "Problem",
] as const;
/**
 * The number format of each Run log column, as both add-ins write a row (a run's or a digest's): its counts (Rows to
 * Quota left) COUNT_FORMAT, shown grouped ("2,500"); the rest General as before, so the times, trigger and words read
 * back as they always have.
 */
export function runLogNumberFormats(): string[] {
  const first = RUN_LOG_HEADERS.indexOf("Rows");
  const last = RUN_LOG_HEADERS.indexOf("Quota left");
  return RUN_LOG_HEADERS.map((_h, i) => (i >= first && i <= last ? COUNT_FORMAT : "General"));
}
/** Past this many data rows, the oldest rows of the Change log move to its archive sheet (never dropped). */
export const CHANGE_LOG_MAX_ROWS = 50_000;

export type Direction = "better" | "worse" | "changed";
export type Trigger = "manual" | "scheduled" | "on open";

type Kind = "status" | "date" | "rating" | "score" | "risk" | "window" | "text";

/** The fields compared: each check's status, expiry and rating; the score; the risk; the next action and its window. */
const FIELDS: { key: string; check: string; field: string; kind: Kind }[] = [
  { key: "compliance_score", check: "", field: "Compliance score", kind: "score" },
  { key: "risk_level", check: "", field: "Risk level", kind: "risk" },
  { key: "epc_status", check: "epc", field: "Status", kind: "status" },
  { key: "epc_rating", check: "epc", field: "Rating", kind: "rating" },
  { key: "epc_expiry", check: "epc", field: "Expiry", kind: "date" },
  { key: "gas_status", check: "gas_safety", field: "Status", kind: "status" },
  { key: "gas_expiry", check: "gas_safety", field: "Expiry", kind: "date" },
  { key: "eicr_status", check: "eicr", field: "Status", kind: "status" },
  { key: "eicr_expiry", check: "eicr", field: "Expiry", kind: "date" },
  { key: "licensing_status", check: "licensing", field: "Status", kind: "status" },
  { key: "deposit_status", check: "deposit_protection", field: "Status", kind: "status" },
  { key: "next_action", check: "", field: "Next action", kind: "text" },
  { key: "window", check: "", field: "Window", kind: "window" },
];
export const COMPARED_FIELDS: readonly string[] = FIELDS.map((f) => f.key);

const at = (key: string) => OUTPUT_COLUMNS.findIndex((c) => c.key === key);
const STATUS_KEYS = OUTPUT_COLUMNS.map((c, i) => (c.kind === "status" ? i : -1)).filter((i) => i >= 0);

function text(v: unknown): string {
  if (v === null || v === undefined) return "";
  return (typeof v === "string" ? v : String(v)).trim().replace(/^'/, "");
}

function value(kind: Kind, v: unknown): string {
  if (kind === "date") return cellDay(v) ?? text(v);
  if (kind === "score") return typeof v === "number" ? String(v) : text(v);
  if (kind === "status" || kind === "risk") return text(v).toLowerCase();
  return text(v);
}

const RANK: Partial<Record<Kind, Record<string, number>>> = {
  status: { fail: 0, warning: 1, pass: 2 },
  risk: { high: 0, medium: 1, low: 2 },
  window: { Overdue: 0, Urgent: 1, Book: 2, Plan: 3, OK: 4 },
  rating: { G: 0, F: 1, E: 2, D: 3, C: 4, B: 5, A: 6 },
};

function direction(kind: Kind, was: string, now: string): Direction {
  if (!was || !now) return "changed";
  if (kind === "score" || kind === "date") {
    const a = kind === "score" ? Number(was) : Date.parse(was);
    const b = kind === "score" ? Number(now) : Date.parse(now);
    return Number.isFinite(a) && Number.isFinite(b) ? (b > a ? "better" : "worse") : "changed";
  }
  const rank = RANK[kind];
  const a = rank?.[was];
  const b = rank?.[now];
  return a === undefined || b === undefined || a === b ? "changed" : b > a ? "better" : "worse";
}

/** Whether a block row holds a result (any status other than blank or "error"). */
function answered(row: readonly unknown[] | undefined): boolean {
  return (
    !!row &&
    STATUS_KEYS.some((i) => {
      const s = text(row[i]).toLowerCase();
      return s !== "" && s !== "error";
    })
  );
}

const sameUprn = (v: unknown) => text(v).replace(/^0+(?=\d)/, "");

export interface Change {
  uprn: string;
  address: string;
  check: string;
  field: string;
  was: string;
  now: string;
  direction: Direction;
}

/**
 * The fields of one property that differ between its block row before (`was`, as read from the sheet) and after
 * (`now`, the row being written). Empty for a first result (the baseline) and for a row not answered this time.
 */
export function rowChanges(was: readonly unknown[] | undefined, now: readonly unknown[]): Change[] {
  if (!answered(was) || !answered(now)) return [];
  // The earlier values kept ("Not refreshed at ..."): the service did not answer this time.
  if (/^Not refreshed at /.test(text(now[at("message")]))) return [];
  // A row over demo values keeps the demo's note through the run's mark (core/sheet/layout.ts isDemoRow).
  if (isDemoRow(was!) || isDemoRow(now)) return [];
  const wasUprn = sameUprn(was![at("matched_uprn")]);
  const nowUprn = sameUprn(now[at("matched_uprn")]);
  // Another property on this row now: its result is a new baseline, not a change of the one before.
  if (wasUprn !== nowUprn && (wasUprn || nowUprn)) return [];
  if (!wasUprn && text(was![at("matched_address")]).toLowerCase() !== text(now[at("matched_address")]).toLowerCase())
    return [];
  const uprn = text(now[at("matched_uprn")]) || text(was![at("matched_uprn")]);
  const address = text(now[at("matched_address")]) || text(was![at("matched_address")]);
  const out: Change[] = [];
  for (const f of FIELDS) {
    const a = value(f.kind, was![at(f.key)]);
    const b = value(f.kind, now[at(f.key)]);
    if (a === b) continue;
    out.push({
      uprn,
      address,
      check: f.check ? CHECK_LABELS[f.check as keyof typeof CHECK_LABELS] : "",
      field: f.field,
      was: a,
      now: b,
      direction: direction(f.kind, a, b),
    });
  }
  return out;
}

/** A Change log row; text is formula-safe (a value starting with = + - @ is written as text). */
export function changeLogRow(runAt: string, c: Change): Cell[] {
  return [
    runAt,
    safeCellText(c.uprn),
    safeCellText(c.address),
    c.check,
    c.field,
    safeCellText(c.was),
    safeCellText(c.now),
    c.direction,
  ];
}

export interface RunLogEntry {
  startedAt: string;
  endedAt: string;
  trigger: Trigger;
  runBy: string;
  rows: number;
  checked: number;
  changed: number;
  worse: number;
  errors: number;
  requestsUsed?: number;
  quotaLeft?: number;
  /** Why the run failed or stopped, in words; empty when it ended well. */
  problem?: string;
  /** Its results came from the demo key: the row says so (in Problem, the column every reader of the log sees). */
  demo?: boolean;
}

/** How many of the changes are for the worse. */
export function worseCount(changes: readonly Pick<Change, "direction">[]): number {
  return changes.filter((c) => c.direction === "worse").length;
}

/**
 * A run's Run log entry from the engine's state, the same counts in both hosts: rows asked for, rows with a result,
 * rows whose Message holds their own error (invalid input, a property the service could not check), and the quota left.
 * Rows left without either (cancelled, not sent, the service failed, hidden by a filter) count as not checked.
 */
export function runLogEntry(
  state: RunState,
  o: Pick<RunLogEntry, "startedAt" | "endedAt" | "trigger" | "runBy" | "changed" | "worse" | "problem" | "demo">,
): RunLogEntry {
  const c = runCounts(state);
  const used = state.requests ? state.requests.submit + state.requests.results : undefined;
  return {
    ...o,
    rows: c.rows,
    checked: c.withResult,
    // Rows whose Message holds their own error; the rest without a result (cancelled, not sent, the service failed,
    // hidden by a filter) were not checked, which runLogLine says as such.
    errors: c.rowErrors + c.invalid,
    requestsUsed: used,
    quotaLeft: state.rate?.remaining,
  };
}

/**
 * The Run log entry of a re-check that was due and checked nothing (no key, the table not found, another check
 * running): no rows, and why. The problem's own full stop goes: the Run log's line (runLogLine) ends it with its own.
 */
export function notCheckedLogEntry(
  o: Pick<RunLogEntry, "startedAt" | "endedAt" | "trigger" | "runBy"> & { problem: string },
): RunLogEntry {
  return { ...o, rows: 0, checked: 0, changed: 0, worse: 0, errors: 0, problem: o.problem.replace(/\.$/, "") };
}

export function runLogRow(e: RunLogEntry): Cell[] {
  const problem = [e.demo ? `${DEMO_NOTE}.` : "", e.problem ?? ""].filter(Boolean).join(" ");
  return [
    e.startedAt,
    e.endedAt,
    e.trigger,
    safeCellText(e.runBy),
    e.rows,
    e.checked,
    e.changed,
    e.worse,
    e.errors,
    e.requestsUsed ?? "",
    e.quotaLeft ?? "",
    safeCellText(problem),
  ];
}

/**
 * A Run log row read back from the sheet (the columns of RUN_LOG_HEADERS), for the pane's and sidebar's last-run line;
 * null when the row is not one (blank, or a header). Counts read back as numbers or as text alike.
 */
export function runLogEntryOfRow(row: readonly unknown[]): RunLogEntry | null {
  const text = (v: unknown) => (v === null || v === undefined ? "" : String(v).trim());
  const count = (v: unknown) => (text(v) === "" || !Number.isFinite(Number(v)) ? 0 : Number(v));
  // A spreadsheet may have turned the ISO text into a date: a Date (Apps Script) or a serial number (Excel).
  const time = (v: unknown) => {
    if (Object.prototype.toString.call(v) === "[object Date]" && !isNaN((v as Date).getTime()))
      return (v as Date).toISOString();
    if (typeof v === "number" && v > 0 && v < 2958466)
      return new Date(Math.round((v - 25569) * 86_400_000)).toISOString();
    return text(v);
  };
  const trigger = text(row[2]) as Trigger;
  if (!text(row[0]) || !["manual", "scheduled", "on open"].includes(trigger)) return null;
  const optional = (v: unknown) => (text(v) === "" || !Number.isFinite(Number(v)) ? undefined : Number(v));
  return {
    startedAt: time(row[0]),
    endedAt: time(row[1]) || time(row[0]),
    trigger,
    runBy: text(row[3]),
    rows: count(row[4]),
    checked: count(row[5]),
    changed: count(row[6]),
    worse: count(row[7]),
    errors: count(row[8]),
    requestsUsed: optional(row[9]),
    quotaLeft: optional(row[10]),
    problem: text(row[11]),
  };
}

/** Whether a check made at `iso` is more than `days` days old at `nowMs` (re-check on open); a missing time is old. */
export function olderThanDays(iso: string | undefined, days: number, nowMs: number): boolean {
  const t = iso ? Date.parse(iso) : NaN;
  return !Number.isFinite(t) || nowMs - t > days * 86_400_000;
}

/** The pane's and sidebar's line for the last run. */
export function runLogLine(e: RunLogEntry): string {
  const what = `${formatCount(e.checked)} of ${formatCount(e.rows)} rows checked`;
  const changes = e.changed
    ? `${formatCount(e.changed)} change${e.changed === 1 ? "" : "s"} (${formatCount(e.worse)} worse)`
    : "no changes";
  const errors = e.errors ? `, ${formatCount(e.errors)} with errors` : "";
  const notChecked = Math.max(0, e.rows - e.checked - e.errors);
  const unchecked = notChecked ? `, ${formatCount(notChecked)} not checked` : "";
  return `Last run ${utcMinute(e.endedAt)} (${e.trigger}): ${what}, ${changes}${errors}${unchecked}${e.problem ? `. ${e.problem.trim().replace(/[.\s]+$/, "")}` : ""}. See the ${CHANGE_LOG_SHEET} and ${RUN_LOG_SHEET} sheets.`;
}

/**
 * How many of the oldest Change log rows to move to the archive before appending `adding` rows to `existing` data
 * rows, so that the log keeps at most `max` (the archive keeps everything).
 */
export function changeLogOverflow(existing: number, adding: number, max = CHANGE_LOG_MAX_ROWS): number {
  return Math.max(0, Math.min(existing, existing + adding - max));
}
