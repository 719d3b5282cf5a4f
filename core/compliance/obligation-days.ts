/**
 * An obligation's shape, its windows and the calendar it is counted on (YYYY-MM-DD days in UTC): what England's rules
 * (core/compliance/obligations.ts) and the countries' rules (core/compliance/country-rules.ts) both count with, below both.
 */
import type { CheckName } from "../service/checks";
import { remember } from "../memo";
import type { Window } from "../sheet/colours";

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
  /** For an obligation the law gives no date (an F or G rating): the day the service first reported it, its due day. */
  firstReported?: string;
  /** A note for the row's Message (what the due date counts from when the law gives none). */
  note?: string;
  /**
   * The obligation that answers the service's "fail" of its check (the check's most urgent one): never OK, at the latest
   * "Book", and on the Action list whatever its window (core/compliance/obligations.ts, neverOk).
   */
  failed?: true;
  /**
   * Due now, with no day of its own (a certificate none on record, a check failed): `due` is the day counted from, which
   * moves with it, so its Action ID carries "now" instead of a day (core/reports/action-ids.ts) and what is typed on it
   * stays with it from one day to the next.
   */
  dueNow?: true;
}

/** Dates the user keeps in their own table (by header: "EICR date", "Licence expiry", "Deposit received"). */
export interface UserDates {
  eicrDate?: string;
  licenceExpiry?: string;
  depositReceived?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Dates: YYYY-MM-DD in UTC, calendar arithmetic without time zones.

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A valid YYYY-MM-DD (a real calendar day), else null. Accepts a timestamp and keeps its date. */
export function isoDay(v: unknown): string | null {
  if (typeof v !== "string") return null;
  // Only the first ten characters count: a timestamp's day is remembered once, whatever its time.
  const head = v.trim().slice(0, 10);
  let day = isoDays.get(head);
  if (day === undefined) {
    day = isoDayOnce(head);
    remember(isoDays, head, day);
  }
  return day;
}

/**
 * Remembered answers for the dates a table repeats (its rows share a few hundred days, and each row's five checks are
 * worked out from them): isoDay and dayMs ran for every date of every row, and took a tenth of a 10,000-row check.
 */
const isoDays = new Map<string, string | null>();
const dayMsOf = new Map<string, number>();
/** The same for the day a rule's months or days lead to (addMonths, addDays): the rows' few hundred days again. */
const monthsLater = new Map<string, string>();
const daysOfMs = new Map<number, string>();

function isoDayOnce(head: string): string | null {
  const m = ISO_DAY.exec(head);
  if (!m) return null;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3] ? m[0] : null;
}

function dayMs(iso: string): number {
  let ms = dayMsOf.get(iso);
  if (ms === undefined) {
    ms = Date.parse(iso + "T00:00:00Z");
    remember(dayMsOf, iso, ms);
  }
  return ms;
}
function fromMs(ms: number): string {
  let day = daysOfMs.get(ms);
  if (day === undefined) {
    day = new Date(ms).toISOString().slice(0, 10);
    remember(daysOfMs, ms, day);
  }
  return day;
}

export function addDays(iso: string, n: number): string {
  return fromMs(dayMs(iso) + n * 86_400_000);
}

/** Calendar months; a day the target month lacks is its last day (29 Feb + 12 months = 28 Feb). */
export function addMonths(iso: string, n: number): string {
  const key = `${iso}|${n}`;
  let day = monthsLater.get(key);
  if (day === undefined) {
    day = addMonthsOnce(iso, n);
    remember(monthsLater, key, day);
  }
  return day;
}
function addMonthsOnce(iso: string, n: number): string {
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
// Windows.

export function windowFor(daysLeft: number, w: WindowDays): Window {
  if (daysLeft < 0) return "Overdue";
  if (daysLeft <= w.urgent) return "Urgent";
  if (daysLeft <= w.book) return "Book";
  if (daysLeft <= w.plan) return "Plan";
  return "OK";
}

export const SEVERITY: Record<Window, number> = { Overdue: 0, Urgent: 1, Book: 2, Plan: 3, OK: 4 };

/** Most urgent first: by window, then the earlier due date, dated before undated. */
export function compareObligations(a: Obligation, b: Obligation): number {
  const sa = a.window ? SEVERITY[a.window] : 9;
  const sb = b.window ? SEVERITY[b.window] : 9;
  if (sa !== sb) return sa - sb;
  if (a.due && b.due) return a.due < b.due ? -1 : a.due > b.due ? 1 : 0;
  return a.due ? -1 : b.due ? 1 : 0;
}
