/**
 * What must be done, and by when: for each property and check, a due date, days left, a window (Overdue, Urgent, Book,
 * Plan, OK), the next action in plain words and the rule it comes from. The rules are written out, with their sources,
 * in docs/compliance-rules.md; this module is their one implementation, pure and host-free, so the same result gives the
 * same answer in Excel and in Google Sheets. England's rules; Wales and Scotland differ as the document says.
 */
import { displayStatus, CHECK_NAMES, type CheckName } from "./checks";
import type { CheckResult } from "./schemas";
import { CHECK_LABELS, type Window } from "./colours";
import type { Country } from "./country";
import { adjustForCountry } from "./country-rules";

export { WINDOWS, WINDOW_COLOURS, windowColour, CHECK_LABELS, type Window } from "./colours";

/** Days before the due date at which a check enters each window. */
export interface WindowDays {
  plan: number;
  book: number;
  urgent: number;
}
export type WindowSettings = Record<CheckName, WindowDays>;

export const DEFAULT_WINDOWS: Readonly<WindowSettings> = Object.freeze({
  gas_safety: { plan: 60, book: 30, urgent: 7 },
  eicr: { plan: 120, book: 60, urgent: 30 },
  epc: { plan: 180, book: 90, urgent: 30 },
  licensing: { plan: 120, book: 60, urgent: 30 },
  deposit_protection: { plan: 30, book: 14, urgent: 7 },
});

export const RULES: Record<CheckName | "epc_mees" | "epc_2030", string> = {
  gas_safety: "Gas Safety (Installation and Use) Regs 1998, reg 36 and 36A",
  eicr: "Electrical Safety Standards in the PRS (England) Regs 2020, reg 3",
  epc: "Energy Performance of Buildings (E&W) Regs 2012: EPC valid 10 years",
  epc_mees: "Energy Efficiency (PRS) (E&W) Regs 2015 (MEES), reg 23: minimum E",
  epc_2030: "Proposed MEES minimum C from 1 Oct 2030 (not yet law)",
  licensing: "Housing Act 2004, Parts 2 and 3 (HMO and selective licensing)",
  deposit_protection: "Housing Act 2004, ss 213-214",
};

/** One check's obligation. No action (not required, nothing known) is `window: null`. */
export interface Obligation {
  check: CheckName;
  /** YYYY-MM-DD, or null when the rule gives no date. */
  due: string | null;
  /** due - today in whole days; null without a due date. */
  daysLeft: number | null;
  window: Window | null;
  action: string;
  rule: string;
}

/** Dates the user keeps in their own table (by header: "EICR date", "Licence expiry", "Deposit received"). */
export interface UserDates {
  eicrDate?: string;
  licenceExpiry?: string;
  depositReceived?: string;
}

export interface ObligationOptions {
  /** The day the obligations are counted from, YYYY-MM-DD (the check's day). */
  today: string;
  windows?: Partial<Record<CheckName, Partial<WindowDays>>>;
  userDates?: UserDates;
  /** Only these checks (a run may ask for a subset). */
  checks?: readonly CheckName[];
  /** The property's country (core/country.ts); Wales and Scotland then get their own rules (core/country-rules.ts). */
  country?: Country;
  /** The tenancy's start, YYYY-MM-DD (the user's "Tenancy start"): Scotland counts the deposit from it. */
  tenancyStart?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Dates: YYYY-MM-DD in UTC, calendar arithmetic without time zones.

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A valid YYYY-MM-DD (a real calendar day), else null. Accepts a timestamp and keeps its date. */
export function isoDay(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const m = ISO_DAY.exec(v.trim().slice(0, 10));
  if (!m) return null;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3] ? m[0] : null;
}

const dayMs = (iso: string) => Date.parse(iso + "T00:00:00Z");
const fromMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function addDays(iso: string, n: number): string {
  return fromMs(dayMs(iso) + n * 86_400_000);
}

/** Calendar months; a day the target month lacks is its last day (29 Feb + 12 months = 28 Feb). */
export function addMonths(iso: string, n: number): string {
  const [y, m, d] = iso.split("-").map(Number);
  const total = y * 12 + (m - 1) + n;
  const ty = Math.floor(total / 12);
  const tm = total - ty * 12;
  const last = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  return fromMs(Date.UTC(ty, tm, Math.min(d, last)));
}

export function daysBetween(fromIso: string, toIso: string): number {
  return Math.round((dayMs(toIso) - dayMs(fromIso)) / 86_400_000);
}

/** Excel and Google Sheets count days from 1899-12-30: the serial of a YYYY-MM-DD day. */
export function dateSerial(iso: string): number | null {
  const d = isoDay(iso);
  return d ? Math.round((dayMs(d) - Date.UTC(1899, 11, 30)) / 86_400_000) : null;
}

/** The YYYY-MM-DD of a date serial (whole days; a time part is dropped). */
export function serialDate(serial: number): string | null {
  if (!Number.isFinite(serial) || serial < 1 || serial > 2_958_465) return null;
  return fromMs(Date.UTC(1899, 11, 30) + Math.floor(serial) * 86_400_000);
}

/** The number format both hosts give date cells. */
export const DATE_FORMAT = "yyyy-mm-dd";

// ---------------------------------------------------------------------------------------------------------------

function settingsFor(check: CheckName, o: ObligationOptions): WindowDays {
  return { ...DEFAULT_WINDOWS[check], ...(o.windows?.[check] ?? {}) };
}

export function windowFor(daysLeft: number, w: WindowDays): Window {
  if (daysLeft < 0) return "Overdue";
  if (daysLeft <= w.urgent) return "Urgent";
  if (daysLeft <= w.book) return "Book";
  if (daysLeft <= w.plan) return "Plan";
  return "OK";
}

const SEVERITY: Record<Window, number> = { Overdue: 0, Urgent: 1, Book: 2, Plan: 3, OK: 4 };

/** Most urgent first: by window, then the earlier due date, dated before undated. */
export function compareObligations(a: Obligation, b: Obligation): number {
  const sa = a.window ? SEVERITY[a.window] : 9;
  const sb = b.window ? SEVERITY[b.window] : 9;
  if (sa !== sb) return sa - sb;
  if (a.due && b.due) return a.due < b.due ? -1 : a.due > b.due ? 1 : 0;
  return a.due ? -1 : b.due ? 1 : 0;
}

function member(r: CheckResult, name: CheckName): Record<string, unknown> | undefined {
  return (r.checks as Record<string, Record<string, unknown> | undefined>)[name];
}

const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");

function dated(check: CheckName, due: string, action: string, rule: string, o: ObligationOptions): Obligation {
  const daysLeft = daysBetween(o.today, due);
  return { check, due, daysLeft, window: windowFor(daysLeft, settingsFor(check, o)), action, rule };
}

/** An obligation due on the check's own day and past any window: "do it now". */
function now(check: CheckName, action: string, rule: string, o: ObligationOptions): Obligation {
  return { check, due: o.today, daysLeft: 0, window: "Overdue", action, rule };
}

function undated(check: CheckName, window: Window, action: string, rule: string): Obligation {
  return { check, due: null, daysLeft: null, window, action, rule };
}

function gas(m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation {
  const last = isoDay(m.last_certificate);
  const due = isoDay(m.expiry) ?? (last ? addMonths(last, 12) : null);
  if (due) {
    const from = addMonths(due, -2);
    const days = daysBetween(o.today, due);
    const action =
      days < 0
        ? "Gas safety check overdue: book it now (Gas Safe engineer), then give the tenant a copy within 28 days"
        : `Book the annual gas safety check (Gas Safe engineer): a check from ${from} keeps the ${due} anniversary`;
    return dated("gas_safety", due, action, RULES.gas_safety, o);
  }
  if (status === "fail") return now("gas_safety", "Get a gas safety check now (Gas Safe engineer): no certificate on record", RULES.gas_safety, o);
  return generic("gas_safety", status, o);
}

function eicr(m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation {
  const userDate = isoDay(o.userDates?.eicrDate);
  const expiry = isoDay(m.expiry) ?? (userDate ? addMonths(userDate, 60) : null);
  if (status === "fail") {
    const detail = text(m.detail);
    const expired = expiry !== null && expiry < o.today;
    if (!expired && (expiry || /unsatisfactory|\bC1\b|\bC2\b|\bFI\b|remedial/i.test(detail))) {
      const named = /(?:due|by|before)[^0-9]{0,20}(\d{4}-\d{2}-\d{2})/i.exec(detail);
      const report = userDate ?? (expiry ? addMonths(expiry, -60) : null);
      const due = (named && isoDay(named[1])) || (report ? addDays(report, 28) : null);
      const action = "Remedial work within 28 days of the report, then confirm in writing to the tenant and the council";
      return due ? dated("eicr", due, action, RULES.eicr, o) : now("eicr", action, RULES.eicr, o);
    }
    if (expired) return dated("eicr", expiry, "EICR expired: book a new inspection now (qualified electrician)", RULES.eicr, o);
    return now("eicr", "Get an EICR (qualified electrician): none on record", RULES.eicr, o);
  }
  if (expiry) return dated("eicr", expiry, "Book the 5-yearly EICR (qualified electrician)", RULES.eicr, o);
  return generic("eicr", status, o);
}

function epc(m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation {
  const rating = text(m.rating).toUpperCase();
  if (rating === "F" || rating === "G") return now("epc", "Cannot be let: improve to E or register an exemption", RULES.epc_mees, o);
  const expiry = isoDay(m.expiry);
  const byDate = expiry ? dated("epc", expiry, expiry < o.today ? "EPC expired: get a new one before marketing or a new letting" : "Renew the EPC before marketing or a new letting (valid 10 years)", RULES.epc, o) : null;
  const note = rating === "D" || rating === "E" ? { ...dated("epc", "2030-10-01", "Below C: the announced minimum of C from 1 October 2030 is not yet law", RULES.epc_2030, o), window: "Plan" as Window } : null;
  const candidates = [byDate, note].filter((x): x is Obligation => x !== null);
  if (candidates.length) return candidates.sort(compareObligations)[0];
  if (status === "fail") return now("epc", "Get a valid EPC: none on record", RULES.epc, o);
  return generic("epc", status, o);
}

function licensing(m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation {
  const scheme = text(m.scheme);
  const named = scheme ? ` (${scheme})` : "";
  if (status === "fail") return now("licensing", `Apply for the licence${named}`, RULES.licensing, o);
  // The spec gives licensing a scheme only: a licence's expiry is the user's own "Licence expiry" column.
  const expiry = isoDay(o.userDates?.licenceExpiry);
  if (expiry) return dated("licensing", expiry, `Renew the licence${named} before it expires`, RULES.licensing, o);
  return generic("licensing", status, o);
}

function deposit(_m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation {
  if (status === "fail") {
    const action = "Protect the deposit and serve the prescribed information within 30 days of receiving it";
    const received = isoDay(o.userDates?.depositReceived);
    return received ? dated("deposit_protection", addDays(received, 30), action, RULES.deposit_protection, o) : now("deposit_protection", action, RULES.deposit_protection, o);
  }
  return generic("deposit_protection", status, o);
}

function generic(check: CheckName, status: string, o: ObligationOptions): Obligation {
  const rule = RULES[check];
  if (status === "fail") return now(check, `Resolve the failed ${CHECK_LABELS[check]} check`, rule, o);
  if (status === "warning") return undated(check, "Plan", `Review the ${CHECK_LABELS[check]} warning in the property's record`, rule);
  if (status === "pass") return { check, due: null, daysLeft: null, window: "OK", action: "", rule };
  return undated(check, "Plan", "Check this property's record", rule);
}

const BY_CHECK: Record<CheckName, (m: Record<string, unknown>, status: string, o: ObligationOptions) => Obligation> = {
  gas_safety: gas,
  eicr,
  epc,
  licensing,
  deposit_protection: deposit,
};

/** One check's obligation; null when the check is absent or not required. */
export function obligationFor(result: CheckResult, check: CheckName, o: ObligationOptions): Obligation | null {
  const m = member(result, check);
  if (!m) return null;
  const shown = displayStatus(m.status);
  if (shown === "not_required") return null;
  // An unknown status word: the rules cannot say what it means.
  if (shown === "unknown") return undated(check, "Plan", "Check this property's record", RULES[check]);
  return BY_CHECK[check](m, shown, o);
}

/** Every check's obligation, most urgent first (not required and absent checks left out). */
export function obligationsFor(result: CheckResult, o: ObligationOptions): Obligation[] {
  const checks = o.checks ?? CHECK_NAMES;
  const england = checks
    .map((c) => obligationFor(result, c, o))
    .filter((x): x is Obligation => x !== null)
    .sort(compareObligations);
  return o.country ? adjustForCountry(england, o.country, (c) => member(result, c), o) : england;
}

/** The row's most urgent obligation with something to do (an OK with no action is not one). */
export function nextObligation(result: CheckResult, o: ObligationOptions): Obligation | null {
  return obligationsFor(result, o).find((x) => x.action !== "") ?? null;
}

/**
 * Window settings from what a user typed: each check's plan, book and urgent days, whole numbers 0..3650 with
 * plan >= book >= urgent. Returns the settings with defaults filled in, or the first problem in words.
 */
export function parseWindowSettings(input: unknown): { ok: true; value: WindowSettings } | { ok: false; message: string } {
  const out = JSON.parse(JSON.stringify(DEFAULT_WINDOWS)) as WindowSettings;
  if (input === undefined || input === null) return { ok: true, value: out };
  if (typeof input !== "object") return { ok: false, message: "Window settings must be an object of checks: reset the windows to their defaults in Settings." };
  for (const [check, v] of Object.entries(input as Record<string, unknown>)) {
    if (!(CHECK_NAMES as readonly string[]).includes(check)) return { ok: false, message: `"${check}" is not a check (use ${CHECK_NAMES.join(", ")}).` };
    if (!v || typeof v !== "object") continue;
    const w = { ...out[check as CheckName] };
    for (const k of ["plan", "book", "urgent"] as const) {
      const raw = (v as Record<string, unknown>)[k];
      if (raw === undefined || raw === null || raw === "") continue;
      const n = typeof raw === "number" ? raw : Number(String(raw).trim());
      if (!Number.isInteger(n) || n < 0 || n > 3650) return { ok: false, message: `${CHECK_LABELS[check as CheckName]} ${k} window: "${String(raw)}" is not a whole number of days; enter one from 0 to 3650.` };
      w[k] = n;
    }
    if (!(w.plan >= w.book && w.book >= w.urgent)) {
      return { ok: false, message: `${CHECK_LABELS[check as CheckName]} windows must be Plan ≥ Book ≥ Urgent (got ${w.plan} / ${w.book} / ${w.urgent} days): correct the numbers.` };
    }
    out[check as CheckName] = w;
  }
  return { ok: true, value: out };
}

/** The choices of N for the Action list: actions due within N days, plus every overdue one. */
export const ACTION_LIST_DAYS = [7, 30, 60, 90] as const;
export const DEFAULT_ACTION_LIST_DAYS = 30;

/**
 * Settings as a host stored them (text in user properties or Office's storage), read back the same way by both hosts:
 * anything unreadable or out of range falls back to the default, never to a half-read value.
 */
export function storedWindows(text: string | null | undefined): WindowSettings {
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const r = parseWindowSettings(parsed);
  return r.ok ? r.value : (parseWindowSettings(undefined) as { ok: true; value: WindowSettings }).value;
}

export function storedActionDays(v: unknown): number {
  const n = Number(v);
  return (ACTION_LIST_DAYS as readonly number[]).indexOf(n) >= 0 ? n : DEFAULT_ACTION_LIST_DAYS;
}
