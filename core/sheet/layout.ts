/**
 * THE output table: which columns the add-ins write beside the data, how each value is read from a check
 * result, and the colour of each status. Both hosts write what this file says and nothing else.
 */
import { displayStatus, type CheckName } from "../service/checks";
import { statusColour } from "./colours";
import { describeError, isAboutProperty, type ServiceError } from "../service/errors";
import type { Outcome } from "../run/plan";
import type { CheckResult } from "../service/schemas";
import { DEMO_NOTE } from "../demo/demo-key";
import { remember } from "../memo";
import {
  DATE_FORMAT,
  dateSerial,
  isoDay,
  serialDate,
  windowColour,
  type Obligation,
  type ObligationOptions,
  type UserDates,
  type WindowDays,
} from "../compliance/obligations";
import { countryMessage, type CountryAnswer } from "../compliance/country";
import { nextOf, obligationsIn } from "../compliance/result-place";

export type Cell = string | number;

export interface OutputColumn {
  key: string;
  header: string;
  kind: "status" | "text" | "number" | "date" | "datetime" | "window";
  /** Width hint in pixels. */
  width: number;
  /** For status columns: the check whose status it shows. */
  check?: CheckName;
}

type Checks = CheckResult["checks"];
/** What a row's values depend on beyond the result: the check's time, and for the obligations the user's settings and dates. */
export interface RowContext {
  checkedAt: string;
  /**
   * The file's own day at the check (YYYY-MM-DD): Sheets' spreadsheet time zone, Excel's local day. Days left and the
   * Window count from it, as the Action list counts from the file's today; without it, the UTC day of `checkedAt`.
   */
  day?: string;
  windows?: Partial<Record<CheckName, Partial<WindowDays>>>;
  userDates?: UserDates;
  checks?: readonly CheckName[];
  /** Days the service first reported obligations the law gives no date (outputRow reads them from the row's previous values). */
  firstReported?: ObligationOptions["firstReported"];
  /** Problems with the row's own columns (a date that cannot be read), said in Message. */
  problems?: readonly string[];
  /** The row's country (core/compliance/country.ts `rowCountry`): its rules, and a message when it is out of scope or unsettled. */
  country?: CountryAnswer;
  tenancyStart?: string;
}
type Reader = (r: CheckResult, ctx: RowContext) => unknown;

interface ColumnDef extends OutputColumn {
  read: Reader;
}

function member(r: CheckResult, name: CheckName): Record<string, unknown> | undefined {
  return (r.checks as Checks & Record<string, Record<string, unknown> | undefined>)[name] as
    Record<string, unknown> | undefined;
}
const field =
  (name: CheckName, f: string): Reader =>
  (r) =>
    member(r, name)?.[f];
const status =
  (name: CheckName): Reader =>
  (r) => {
    const m = member(r, name);
    return m ? displayStatus(m.status) : "";
  };

const EXPIRING: [CheckName, string][] = [
  ["epc", "expiry"],
  ["gas_safety", "expiry"],
  ["eicr", "expiry"],
];

/** The earliest expiry among checks that apply, and which check it is. */
export function nextExpiry(r: CheckResult): { date: string; check: CheckName } | null {
  let best: { date: string; check: CheckName } | null = null;
  for (const [name, f] of EXPIRING) {
    const m = member(r, name);
    const d = m?.[f];
    if (!m || typeof d !== "string" || displayStatus(m.status) === "not_required") continue;
    if (!best || d < best.date) best = { date: d, check: name };
  }
  return best;
}

function daysBetween(fromIso: string, toDate: string): number | "" {
  const from = Date.parse(fromIso.slice(0, 10) + "T00:00:00Z");
  const to = Date.parse(toDate + "T00:00:00Z");
  return Number.isFinite(from) && Number.isFinite(to) ? Math.round((to - from) / 86400000) : "";
}

const COLUMNS: ColumnDef[] = [
  { key: "compliance_score", header: "Compliance score", kind: "number", width: 90, read: (r) => r.compliance_score },
  { key: "risk_level", header: "Risk level", kind: "text", width: 80, read: (r) => r.risk_level },
  { key: "epc_status", header: "EPC status", kind: "status", width: 90, check: "epc", read: status("epc") },
  { key: "epc_rating", header: "EPC rating", kind: "text", width: 70, read: field("epc", "rating") },
  { key: "epc_expiry", header: "EPC expiry", kind: "date", width: 90, read: field("epc", "expiry") },
  {
    key: "gas_status",
    header: "Gas safety status",
    kind: "status",
    width: 110,
    check: "gas_safety",
    read: status("gas_safety"),
  },
  {
    key: "gas_last_certificate",
    header: "Gas last certificate",
    kind: "date",
    width: 110,
    read: field("gas_safety", "last_certificate"),
  },
  { key: "gas_expiry", header: "Gas expiry", kind: "date", width: 90, read: field("gas_safety", "expiry") },
  { key: "eicr_status", header: "EICR status", kind: "status", width: 90, check: "eicr", read: status("eicr") },
  { key: "eicr_expiry", header: "EICR expiry", kind: "date", width: 90, read: field("eicr", "expiry") },
  { key: "eicr_detail", header: "EICR detail", kind: "text", width: 220, read: field("eicr", "detail") },
  {
    key: "licensing_status",
    header: "Licensing status",
    kind: "status",
    width: 110,
    check: "licensing",
    read: status("licensing"),
  },
  { key: "licensing_scheme", header: "Licensing scheme", kind: "text", width: 180, read: field("licensing", "scheme") },
  {
    key: "deposit_status",
    header: "Deposit status",
    kind: "status",
    width: 100,
    check: "deposit_protection",
    read: status("deposit_protection"),
  },
  {
    key: "deposit_scheme",
    header: "Deposit scheme",
    kind: "text",
    width: 100,
    read: field("deposit_protection", "scheme"),
  },
  {
    key: "deposit_protected_date",
    header: "Deposit protected",
    kind: "date",
    width: 110,
    read: field("deposit_protection", "protected_date"),
  },
  { key: "next_expiry", header: "Next expiry", kind: "date", width: 90, read: (r) => nextExpiry(r)?.date },
  {
    key: "days_to_next_expiry",
    header: "Days to next expiry",
    kind: "number",
    width: 110,
    read: (r, ctx) => {
      const n = nextExpiry(r);
      return n ? daysBetween(checkDay(ctx), n.date) : "";
    },
  },
  { key: "matched_uprn", header: "Matched UPRN", kind: "text", width: 110, read: (r) => r.uprn },
  { key: "matched_address", header: "Matched address", kind: "text", width: 240, read: (r) => r.address },
  {
    key: "last_updated",
    header: "Last updated (UTC)",
    kind: "datetime",
    width: 140,
    read: (r) => formatTimestamp(r.last_updated),
  },
  {
    key: "checked_at",
    header: "Checked at (UTC)",
    kind: "datetime",
    width: 140,
    read: (_r, ctx) => formatTimestamp(ctx.checkedAt),
  },
  { key: "message", header: "Message", kind: "text", width: 260, read: () => "" },
  // The obligations (core/compliance/obligations.ts): the row's most urgent action across its checks, counted from the check's
  // day. After Message, so that a block written before these columns existed is still ours and grows in place.
  {
    key: "next_action",
    header: "Next action",
    kind: "text",
    width: 300,
    read: (r, ctx) => obligationOf(r, ctx)?.action,
  },
  { key: "action_due", header: "Action due", kind: "date", width: 90, read: (r, ctx) => obligationOf(r, ctx)?.due },
  {
    key: "days_left",
    header: "Days left",
    kind: "number",
    width: 70,
    read: (r, ctx) => obligationOf(r, ctx)?.daysLeft ?? "",
  },
  { key: "window", header: "Window", kind: "window", width: 80, read: (r, ctx) => obligationOf(r, ctx)?.window },
  // The licence's expiry as the service gives it, so that every sheet built from the block (the Action list) can count
  // the renewal too. Last, so that a block of the earlier 27 columns grows in place.
  { key: "licensing_expiry", header: "Licensing expiry", kind: "date", width: 100, read: field("licensing", "expiry") },
];

/** The day a row was checked on, as the file counts days: the host's local day when it gave one, else the UTC day. */
const checkDay = (ctx: RowContext): string =>
  isoDay(ctx.day) ?? isoDay(ctx.checkedAt) ?? new Date().toISOString().slice(0, 10);

/** A row's obligations, worked out once for its four obligation columns and its Message notes. */
const memo = new WeakMap<CheckResult, { ctx: RowContext; all: Obligation[] | null; next: Obligation | null }>();
const obligationOptions = (ctx: RowContext): ObligationOptions => ({
  today: checkDay(ctx),
  windows: ctx.windows,
  userDates: ctx.userDates,
  checks: ctx.checks,
  firstReported: ctx.firstReported,
  tenancyStart: ctx.tenancyStart,
});
function obligationsOf(r: CheckResult, ctx: RowContext) {
  const hit = memo.get(r);
  if (hit && hit.ctx === ctx) return hit;
  // Out of scope (Northern Ireland, the Crown dependencies): no country's deadlines; Message says why.
  const all = obligationsIn(r, ctx.country, obligationOptions(ctx));
  const value = { ctx, all, next: nextOf(all) };
  memo.set(r, value);
  return value;
}
const obligationOf = (r: CheckResult, ctx: RowContext) => obligationsOf(r, ctx).next;

const FIRST_REPORTED = /\brated ([FG]),? first reported (?:on )?(\d{4}-\d{2}-\d{2})/;

/**
 * The day the service first reported an F or G rating for this row, from what the row shows now (its block cells in
 * OUTPUT_COLUMNS order): the Message note or the Next action that names the day, else, for a row that showed an F or G
 * rating before these notes existed, the day it was checked then. Undefined when the row never showed one. This is
 * where that day is kept: in the row itself, so that it survives every refresh, sort and host, with no other store.
 */
export function firstReportedOf(cells: readonly unknown[] | undefined): ObligationOptions["firstReported"] {
  if (!cells) return undefined;
  const said = [cells[MESSAGE], cells[NEXT_ACTION]]
    // Every row written comes here: the expression only for text that can hold the note.
    .map((v) => (typeof v === "string" && v.includes(" first reported ") ? FIRST_REPORTED.exec(v) : null))
    .find(Boolean);
  if (said && isoDay(said[2])) return { epc_mees: said[2] };
  const rating = typeof cells[EPC_RATING] === "string" ? (cells[EPC_RATING] as string).trim().toUpperCase() : "";
  const checked = cells[CHECKED_AT];
  const day =
    typeof checked === "number"
      ? serialDate(checked)
      : isoDay(typeof checked === "string" ? checked.replace(" ", "T") : "");
  return (rating === "F" || rating === "G") && day ? { epc_mees: day } : undefined;
}

/**
 * The notes of a row's Message (its block cells, OUTPUT_COLUMNS order) that name the day an F or G rating was first
 * reported: whatever else a refresh writes in Message (a "Checking…" mark, a failed refresh), these stay in it, so that
 * firstReportedOf reads the same day from the row on the next check.
 */
export function firstReportedNotes(cells: readonly unknown[] | undefined): string[] {
  return String(cells?.[MESSAGE] ?? "")
    .split("; ")
    .filter((x) => FIRST_REPORTED.test(x));
}

export const OUTPUT_COLUMNS: readonly OutputColumn[] = COLUMNS.map(({ read: _read, ...c }) => c);
const MESSAGE = COLUMNS.findIndex((c) => c.key === "message");
const CHECKED_AT = COLUMNS.findIndex((c) => c.key === "checked_at");
const NEXT_ACTION = COLUMNS.findIndex((c) => c.key === "next_action");
const EPC_RATING = COLUMNS.findIndex((c) => c.key === "epc_rating");

export function outputHeaders(): string[] {
  return COLUMNS.map((c) => c.header);
}

export { STATUS_COLOURS, statusColour, NO_FILL } from "./colours";

/** Texts formatTimestamp made: a run's check time is the same in every row it writes, and the service's times repeat. */
const stamps = new Map<string, string>();

/** "2026-11-22T09:12:44Z" -> "2026-11-22 09:12:44"; other text is kept. */
export function formatTimestamp(v: unknown): string {
  if (typeof v !== "string" || !v) return "";
  const to = stamps.get(v);
  if (to !== undefined) return to;
  const ms = Date.parse(v);
  return remember(stamps, v, Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 19).replace("T", " ") : v);
}

/** Text that a spreadsheet must not read as a formula gets a leading apostrophe (shown as plain text). */
export function safeCellText(s: string): string {
  const first = String(s).charAt(0); // alone decides: every text cell comes here, too many for a regular expression
  return first !== "" && "=+-@\t\r|".includes(first) ? `'${s}` : s;
}

/**
 * A date value a host read back from a cell (Apps Script hands date cells over as Date objects). Hosts
 * should turn them into text in the sheet's own time zone first; this is the fallback. A date-only cell is
 * local midnight, up to 14 hours either side of UTC midnight, so the nearest UTC midnight names its day.
 */
function dateCellText(d: Date, kind: OutputColumn["kind"]): string {
  const ms = d.getTime();
  if (!Number.isFinite(ms)) return "";
  if (kind === "date") return new Date(ms + 12 * 3600 * 1000).toISOString().slice(0, 10);
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

function toCell(v: unknown, kind: OutputColumn["kind"]): Cell {
  if (v === null || v === undefined) return "";
  if (typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]")
    return dateCellText(v as Date, kind);
  // A date cell read back from a sheet is its serial number (Excel); core's own form of a date is YYYY-MM-DD text.
  if (kind === "date" && typeof v === "number") return serialDate(v) ?? "";
  if (kind === "number") return typeof v === "number" && Number.isFinite(v) ? v : "";
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  return safeCellText(typeof v === "string" ? v : JSON.stringify(v));
}

function unknownWords(r: CheckResult): string[] {
  const out: string[] = [];
  for (const c of COLUMNS) {
    if (c.kind !== "status" || !c.check) continue;
    const m = member(r, c.check);
    if (m && displayStatus(m.status) === "unknown")
      out.push(`${c.header} "${String(m.status)}" is not a status this add-in knows`);
  }
  return out;
}

/** Whether a block row shows values of an earlier check (anything but its Message). */
export function hasValues(previous: readonly unknown[] | undefined): boolean {
  return !!previous && previous.some((v, i) => i !== MESSAGE && v !== "" && v !== null && v !== undefined);
}

/**
 * Whether outputRow keeps a row's earlier values for this error: it is not a fact about the property and the
 * row has values from an earlier check. Hosts that count what a run refreshed ask the same question.
 */
export function keepsEarlierValues(error: ServiceError, previous: readonly unknown[] | undefined): boolean {
  return !isAboutProperty(error) && hasValues(previous);
}

/** Whether the service answered for the property: a result, or a fact about it (not found, ambiguous, invalid). */
export function isAnswer(outcome: Outcome): boolean {
  return "result" in outcome || isAboutProperty(outcome.error);
}

/**
 * Whether a block row's values are the demo's, not a real check: its Message says so. Every row that keeps those values
 * keeps the note (a "Checking…" mark over them, a result not refreshed), so that demo values are never taken for a
 * property's history, whatever was written over the Message since.
 */
export function isDemoRow(cells: readonly unknown[]): boolean {
  const m = cells[MESSAGE];
  return typeof m === "string" && m.includes(DEMO_NOTE);
}

/** The demo's note for a row that keeps `previous`'s values, when those are demo values; else "". */
export function keptDemoNote(previous: readonly unknown[] | undefined): string {
  return previous && isDemoRow(previous) ? `${DEMO_NOTE}.` : "";
}

/**
 * One output row in OUTPUT_COLUMNS order. An error that is not a fact about the property (network,
 * server, rate limit, timeout, failed job, cancel, a refused key) keeps the previous values when there
 * are some and only says so in Message: a failure of the service never loses what was already written.
 * Not found, ambiguous and invalid input replace them: the old values were for another property.
 */
export function outputRow(
  outcome: Outcome | undefined,
  checkedAtIso: string,
  previous?: readonly unknown[],
  note?: string,
  context?: Omit<RowContext, "checkedAt">,
): Cell[] {
  const ctx: RowContext = { ...context, checkedAt: checkedAtIso };
  if (!ctx.firstReported) ctx.firstReported = firstReportedOf(previous);
  if (!outcome) {
    return hasValues(previous)
      ? COLUMNS.map((c, i) => toCell(previous![i], c.kind))
      : COLUMNS.map((_c, i) => (i === MESSAGE ? "Not checked yet." : ""));
  }
  if ("error" in outcome) {
    const text = describeError(outcome.error);
    if (keepsEarlierValues(outcome.error, previous)) {
      const row = COLUMNS.map((c, i) => toCell(previous![i], c.kind));
      const kept = firstReportedNotes(previous);
      row[MESSAGE] = safeCellText(
        [
          `Not refreshed at ${formatTimestamp(checkedAtIso)}: ${text} Values are from the previous check.`,
          keptDemoNote(previous),
          ...(ctx.problems ?? []),
          ...kept,
        ]
          .filter(Boolean)
          .join("; "),
      );
      return row;
    }
    return COLUMNS.map((c, i) =>
      i === MESSAGE
        ? safeCellText([[note, text].filter(Boolean).join(" "), ...(ctx.problems ?? [])].filter(Boolean).join("; "))
        : i === CHECKED_AT
          ? formatTimestamp(checkedAtIso)
          : c.kind === "status"
            ? "error"
            : "",
    );
  }
  const r = outcome.result;
  const row = COLUMNS.map((c) => toCell(c.read(r, ctx), c.kind));
  const demo = (r as { demo?: unknown }).demo === true ? `${DEMO_NOTE}.` : "";
  const notes = (obligationsOf(r, ctx).all ?? []).map((o) => o.note);
  const messages = [
    demo,
    note,
    countryMessage(ctx.country),
    ...(ctx.problems ?? []),
    ...unknownWords(r),
    ...(outcome.warnings ?? []),
    ...notes,
  ].filter(Boolean);
  row[MESSAGE] = safeCellText(messages.join("; "));
  return row;
}

/**
 * Where our block of output columns already stands in a header row (for in-place re-runs): the first
 * place where our first three headers appear in order. Null if it is not there.
 */
export function locateOutputColumns(headerRow: readonly unknown[]): { start: number } | null {
  const headers = outputHeaders();
  const norm = (v: unknown) => (typeof v === "string" ? v.trim().toLowerCase() : "");
  for (let i = 0; i + 2 < headerRow.length; i++) {
    if ([0, 1, 2].every((k) => norm(headerRow[i + k]) === headers[k].toLowerCase())) return { start: i };
  }
  return null;
}

/** Indexes (within the output block) of the status columns, for hosts that colour by rule or by range. */
/** A result's words in the status columns, in their order, as outputRow writes them. */
export function statusWords(r: CheckResult): string[] {
  return COLUMNS.filter((c) => c.kind === "status").map((c) => String(c.read(r, { checkedAt: "" }) ?? ""));
}

export function statusColumnIndexes(): number[] {
  return COLUMNS.map((c, i) => (c.kind === "status" ? i : -1)).filter((i) => i >= 0);
}

/** Indexes (within the output block) of the date columns: written as date serials with DATE_FORMAT in both hosts. */
export function dateColumnIndexes(): number[] {
  return COLUMNS.map((c, i) => (c.kind === "date" ? i : -1)).filter((i) => i >= 0);
}

/** Indexes (within the output block) of the Window column(s), coloured by WINDOW_COLOURS. */
export function windowColumnIndexes(): number[] {
  return COLUMNS.map((c, i) => (c.kind === "window" ? i : -1)).filter((i) => i >= 0);
}

/** The colour of an output cell by its column's kind: a status word or a window; null for other columns. */
export function cellColour(columnIndex: number, value: unknown): { fill: string; font: string } | null {
  const kind = COLUMNS[columnIndex]?.kind;
  return kind === "status" ? statusColour(value) : kind === "window" ? windowColour(value) : null;
}

/** The number format of each output column, the same in Excel and Google Sheets: text stays text, dates are dates. */
export function columnNumberFormats(): string[] {
  return COLUMNS.map((c) => (c.kind === "date" ? DATE_FORMAT : c.kind === "number" ? "General" : "@"));
}

/**
 * An output row as a host writes it: date columns as date serials (real dates that sort and filter), the rest as
 * they are. Text that is not a date stays text.
 */
export function hostRow(row: readonly Cell[]): Cell[] {
  return row.map((v, i) =>
    COLUMNS[i]?.kind === "date" && typeof v === "string" && v !== "" ? (dateSerial(v) ?? v) : v,
  );
}

/** The block's earlier header lists, still recognised as ours (the block grows to today's columns on the next write). */
export const LEGACY_HEADER_COUNTS: readonly number[] = [
  COLUMNS.findIndex((c) => c.key === "window") + 1,
  COLUMNS.findIndex((c) => c.key === "message") + 1,
];

/** A 0-based column index in the letters a spreadsheet shows: 0 = A, 25 = Z, 26 = AA. */
export function columnLetters(index: number): string {
  let s = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
