/**
 * Reminder digests: what changed for the portfolio's actions since the last digest (new, more urgent, overdue, past a
 * reminder threshold), and who hears of each. Pure: hosts build the Action list (core/reports/action-list.ts) with the
 * digest's horizon, keep the state this returns, and send or save what core/reports/digest-render.ts makes of it.
 */
import { DEMO_NOTE } from "../demo/demo-key";
import { WINDOWS } from "../sheet/colours";
import type { ActionListSheet, PortfolioTable } from "./action-list";
import { dueNowId, isDueNowId, shortHash, tableLabels, tableOfActionId } from "./action-ids";
import { isDoneWithoutEvidence, isMarkedDone } from "./action-list-columns";
import { cellDay } from "../sheet/user-columns";

/** The Action list's windows, in days before the due date: each is reminded once as an action crosses it. */
export const DEFAULT_THRESHOLDS: readonly number[] = [90, 60, 30, 7];
/** The Action list's header (typed there by the user) or a source table's that routes an action to a person. */
export const ASSIGNEE_HEADER = /^(assigned to|responsible|responsible person|assignee)$/i;

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));
const plain = (v: unknown) => text(v).replace(/^'/, "");

/** One action of the Action list as a digest tells it. */
export interface DigestAction {
  id: string;
  /** The host's id of the table (the Action ID's first part): hosts make the row's link from it. */
  tableId: string;
  /** Its Action ID in an earlier add-in's form (legacy-table-ids.ts): a digest state of then still knows it. */
  formerIds?: string[];
  window: string;
  due: string | null;
  daysLeft: number | null;
  uprn: string;
  address: string;
  check: string;
  action: string;
  /** The table's name as the Action list shows it, and the row on its sheet. */
  table: string;
  row: number | null;
  /** Whom it is assigned to, as typed ("" when no one is). */
  assignee: string;
  demo: boolean;
}

export interface DigestActions {
  /** Open actions within the horizon, not marked Done. */
  open: DigestAction[];
  /** Marked Done with an Evidence column left empty. */
  doneWithoutEvidence: DigestAction[];
  /** Marked Done (left out of digests), with evidence or without. */
  done: DigestAction[];
}

/**
 * Parses thresholds as typed ("90, 60, 30, 7"): whole days 0..3650, any order, duplicates once. Empty means the
 * defaults. Returns the days largest first, or the problem in words.
 */
export function parseThresholds(input: unknown): { ok: true; value: number[] } | { ok: false; message: string } {
  const raw = Array.isArray(input) ? input.map(text) : text(input).split(/[\s,;]+/);
  const parts = raw.filter((s) => s !== "");
  if (!parts.length) return { ok: true, value: DEFAULT_THRESHOLDS.slice() };
  const out = new Set<number>();
  for (const p of parts) {
    if (!/^\d{1,4}$/.test(p) || Number(p) > 3650)
      return {
        ok: false,
        message: `Reminder thresholds: "${p}" is not a whole number of days from 0 to 3650 (e.g. "90, 60, 30, 7").`,
      };
    out.add(Number(p));
  }
  if (out.size > 10) return { ok: false, message: "Reminder thresholds: at most 10 numbers of days." };
  return { ok: true, value: [...out].sort((a, b) => b - a) };
}

/**
 * The Action list's open rows as digest actions, with whom each is assigned to: the list's own "Assigned to" (or
 * "Responsible") cell when the user typed one there, else the source row's. `list` is built with the digest's
 * horizon (horizonDays) as its window; `tables` are the ones it was built from.
 */
export function digestActions(list: ActionListSheet, tables: readonly PortfolioTable[]): DigestActions {
  const at = (name: string) => list.headers.indexOf(name);
  const assigneeCol = list.headers.findIndex((h) => ASSIGNEE_HEADER.test(text(h)));
  const evidenceCol = at("Evidence");
  const labels = tableLabels(tables);
  const bySource = new Map<string, string>();
  tables.forEach((t, i) => {
    for (const p of t.props ?? []) if (p.assignee && p.row) bySource.set(`${labels[i]}\u0000${p.row}`, p.assignee);
  });
  const out: DigestActions = { open: [], doneWithoutEvidence: [], done: [] };
  for (const r of list.values.slice(1, 1 + list.open)) {
    const cell = (name: string) => (at(name) < 0 ? "" : plain(r[at(name)]));
    const id = cell("Action ID");
    const table = cell("Table");
    const row = typeof r[at("Row")] === "number" ? (r[at("Row")] as number) : Number(cell("Row")) || null;
    const days = r[at("Days left")];
    const action = cell("Action");
    const tableId = tableOfActionId(id);
    const former = tables.find((t) => t.id === tableId)?.formerIds ?? [];
    const a: DigestAction = {
      id,
      tableId,
      ...(former.length ? { formerIds: former.map((f) => f + id.slice(tableId.length)) } : {}),
      window: cell("Window"),
      due: cellDay(r[at("Due")]),
      daysLeft: typeof days === "number" ? days : null,
      uprn: cell("UPRN"),
      address: cell("Address"),
      check: cell("Check"),
      action,
      table,
      row,
      assignee: (assigneeCol >= 0 ? plain(r[assigneeCol]) : "") || bySource.get(`${table}\u0000${row}`) || "",
      demo: action.startsWith(DEMO_NOTE),
    };
    if (isMarkedDone(r[at("Done")])) {
      out.done.push(a);
      if (evidenceCol >= 0 && isDoneWithoutEvidence(r[at("Done")], r[evidenceCol])) out.doneWithoutEvidence.push(a);
    } else out.open.push(a);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The state kept between digests: the day of the last one and, for each action it knew, its window then.

export interface DigestState {
  day: string;
  /** Action key (digestKey) -> the window's code then ("D": marked done without evidence, already said). */
  seen: Record<string, string>;
}

const WINDOW_CODES: Record<string, string> = { Overdue: "O", Urgent: "U", Book: "B", Plan: "P", OK: "K" };
const CODE_WINDOWS: Record<string, string> = { O: "Overdue", U: "Urgent", B: "Book", P: "Plan", K: "OK", D: "" };
/** Overdue is the most urgent (0), an unknown window the least. */
const rank = (w: string) => {
  const i = (WINDOWS as readonly string[]).indexOf(w);
  return i < 0 ? WINDOWS.length : i;
};

/** An Action ID in 14 characters (two FNV-1a hashes): 10,000 properties' actions fit in a few kilobytes. */
export function digestKey(id: string): string {
  return shortHash(id).padStart(7, "0") + shortHash(`${id}\u0001`).padStart(7, "0");
}

/** The state as text, for a host's store (which may split it into pieces of its own size). */
export function digestStateText(s: DigestState): string {
  return `d1|${s.day}|${Object.keys(s.seen)
    .map((k) => k + s.seen[k])
    .join("")}`;
}

/** The state from a host's store; null for none or anything unreadable (the next digest then starts afresh). */
export function readDigestState(t: string | null | undefined): DigestState | null {
  const m = /^d1\|(\d{4}-\d{2}-\d{2})\|([0-9a-z]{14}[OUBPKD])*$/.exec(t || "");
  if (!m) return null;
  const body = (t as string).slice(14);
  const seen: Record<string, string> = {};
  for (let i = 0; i + 15 <= body.length; i += 15) seen[body.slice(i, i + 14)] = body.charAt(i + 14);
  return { day: m[1], seen };
}

// ---------------------------------------------------------------------------------------------------------------
// The digest.

export type DigestReason = "new" | "more urgent" | "overdue" | "threshold" | "open";

export interface DigestEntry extends DigestAction {
  reason: DigestReason;
  /** Why it is in this digest, in words ("Now Urgent (was Book)", "30 days to go"). */
  why: string;
}

export interface Digest {
  today: string;
  since: string | null;
  entries: DigestEntry[];
  /** Done without evidence, each said once. */
  doneWithoutEvidence: DigestAction[];
  /** A weekly summary lists every open action, changed or not. */
  summary: boolean;
  demo: boolean;
  /** The state to keep for the next digest. */
  next: DigestState;
}

export interface DigestOptions {
  today: string;
  thresholds?: readonly number[];
  /** Every open action within the horizon, not only what changed (the weekly summary). */
  summary?: boolean;
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** How far ahead a digest looks: its largest threshold. */
export function horizonDays(thresholds: readonly number[] = DEFAULT_THRESHOLDS): number {
  return thresholds.length ? Math.max(...thresholds) : 0;
}

/**
 * Why an open action is in the digest, if it is: `was` is the window code the last digest knew it by (undefined: not
 * known, "D": marked done), `before` its days left at the last digest (null: not known from the same due date), and
 * `crossed` the thresholds it passed since.
 */
function digestReason(
  window: string,
  was: string | undefined,
  o: { before: number | null; crossed: readonly number[]; since: boolean; horizon: number; summary: boolean },
): { reason: DigestReason; why: string } | null {
  const { before, crossed } = o;
  if (was === undefined || was === "D") {
    // Not in the last digest's view: new, or it has come within the largest threshold since.
    if (o.since && before !== null && before > o.horizon && crossed.length)
      return window === "Overdue"
        ? { reason: "overdue", why: "Overdue" }
        : { reason: "threshold", why: `Within ${crossed[crossed.length - 1]} days` };
    return { reason: "new", why: "New" };
  }
  if (rank(window) < rank(CODE_WINDOWS[was] ?? ""))
    return window === "Overdue"
      ? { reason: "overdue", why: "Now overdue" }
      : { reason: "more urgent", why: `Now ${window} (was ${CODE_WINDOWS[was]})` };
  if (crossed.length) return { reason: "threshold", why: `Within ${crossed[crossed.length - 1]} days` };
  if (o.summary) return { reason: "open", why: "Still open" };
  return null;
}

/**
 * The digest since `prev` (null: none was sent yet, so every action is new). An action is in it once for each reason:
 * new to the digests, moved to a more urgent window, overdue since, or past a threshold since (the smallest one it
 * crossed). Nothing is said twice for one threshold, however often digests are made. Actions marked Done are left
 * out; one marked done without evidence is said once.
 */
export function buildDigest(prev: DigestState | null, acts: DigestActions, o: DigestOptions): Digest {
  const thresholds = (o.thresholds ?? DEFAULT_THRESHOLDS).slice().sort((a, b) => b - a);
  const horizon = horizonDays(thresholds);
  const elapsed = prev ? Math.max(0, daysBetween(prev.day, o.today)) : 0;
  const inView = (a: DigestAction) => a.daysLeft === null || a.window === "Overdue" || a.daysLeft <= horizon;
  const next: DigestState = { day: o.today, seen: {} };
  // What the last digest knew of an action, under its Action ID now or in an earlier form.
  const seenAs = (a: DigestAction, form: (id: string) => string = (id) => id) => {
    for (const id of [a.id, ...(a.formerIds ?? [])]) {
      const was = prev?.seen[digestKey(form(id))];
      if (was !== undefined) return was;
    }
    return undefined;
  };
  const entries: DigestEntry[] = [];
  for (const a of acts.open) {
    if (!inView(a)) continue;
    const key = digestKey(a.id);
    const code = WINDOW_CODES[a.window] ?? "P";
    next.seen[key] = code;
    let was = seenAs(a);
    // An action due now has no day of its own: its due day is today's, so no days left can be counted back from it.
    let dated = !isDueNowId(a.id);
    if (a.window === "Overdue") {
      // An overdue action was said once: an F or G rating's first-reported day may be read again, and an earlier
      // version dated "do it now" obligations each day's own date, so the Action ID of one overdue action can change.
      // The same check of the same row, overdue last time, is found under its dateless key.
      const overdue = digestKey(dueNowId(a.id));
      next.seen[overdue] = code;
      if (was === undefined && prev) {
        was = seenAs(a, dueNowId);
        if (was !== undefined) dated = false;
      }
    }
    // Days left at the last digest, from the same due date; none when only its dateless key was known.
    const before = a.daysLeft === null || !dated ? null : a.daysLeft + elapsed;
    const crossed = before === null || !prev ? [] : thresholds.filter((t) => before > t && a.daysLeft! <= t);
    const said = digestReason(a.window, was, { before, crossed, since: !!prev, horizon, summary: !!o.summary });
    if (said) entries.push({ ...a, ...said });
  }
  // Done actions stay known, so that a Done cleared later is not news; without evidence they are said once.
  const doneWithoutEvidence: DigestAction[] = [];
  const noEvidence = new Set(acts.doneWithoutEvidence.map((a) => a.id));
  for (const a of acts.done) {
    if (!inView(a) && !noEvidence.has(a.id)) continue;
    const key = digestKey(a.id);
    const was = seenAs(a);
    if (noEvidence.has(a.id)) {
      next.seen[key] = "D";
      if (was !== "D" || o.summary) doneWithoutEvidence.push(a);
    } else next.seen[key] = WINDOW_CODES[a.window] ?? "P";
  }
  const order = (x: DigestEntry, y: DigestEntry) =>
    rank(x.window) - rank(y.window) || (x.due ?? "9999").localeCompare(y.due ?? "9999") || x.id.localeCompare(y.id);
  entries.sort(order);
  return {
    today: o.today,
    since: prev ? prev.day : null,
    entries,
    doneWithoutEvidence,
    summary: !!o.summary,
    demo: acts.open.some((a) => a.demo) || acts.done.some((a) => a.demo),
    next,
  };
}

/** A digest has something to say. */
export const digestHasNews = (d: Digest) => d.entries.length > 0 || d.doneWithoutEvidence.length > 0;
