/**
 * Who receives which part of a digest: each action goes to the person it is assigned to, and the schedule's owner (and
 * any extra recipients) get everything. An address that cannot be one is said in the owner's digest, never guessed.
 * Pure: hosts send (Google Sheets) or save drafts (Excel) of what this returns.
 */
import type { Digest, DigestAction, DigestEntry } from "./digest";
import { safeCellText, type Cell } from "../sheet/layout";
import { countWord, formatCount } from "../numbers";

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

/**
 * An email address as a mail service takes it: ASCII, one "@", a local part of at most 64 characters of the usual
 * unquoted kind, a domain of labels with a dot, at most 254 characters in all. Quoted local parts, IP literals and
 * non-ASCII addresses are refused rather than guessed at.
 */
export function isEmailAddress(s: string): boolean {
  if (s.length > 254) return false;
  const m = /^([A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*)@([A-Za-z0-9.-]+)$/.exec(s);
  if (!m || m[1].length > 64) return false;
  const labels = m[2].split(".");
  return (
    labels.length >= 2 &&
    labels.every((l) => l.length >= 1 && l.length <= 63 && /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/.test(l)) &&
    /[A-Za-z]/.test(labels[labels.length - 1])
  );
}

/** One person's digest: their entries (everything, for the owner and extra recipients) and what the owner must hear. */
export interface DigestRecipient {
  to: string;
  /** The owner or an extra recipient: they get every action. */
  everything: boolean;
  entries: DigestEntry[];
  doneWithoutEvidence: DigestAction[];
  /** Said to the owner only: addresses that could not be used, and people not sent theirs. */
  problems: string[];
}

export interface RouteOptions {
  /** The schedule's owner (Sheets) or the person saving the drafts (Excel; "" when they gave no address). */
  owner: string;
  /** Extra recipients of everything. */
  extra?: readonly string[];
}

const where = (a: DigestAction) => `${a.table}${a.row ? ` row ${a.row}` : ""}`;

/**
 * The digest split by person. The owner comes first. An assignee's digest holds only their actions; an unusable
 * address ("Jo Smith", "jo@example") is named in the owner's digest with the rows it was typed on, and those actions
 * go to the owner only. Nobody with nothing to hear is listed.
 */
export function routeDigest(d: Digest, o: RouteOptions): DigestRecipient[] {
  const owner = text(o.owner);
  const key = (s: string) => s.toLowerCase();
  const out = new Map<string, DigestRecipient>();
  const problems: string[] = [];
  const badRows = new Map<string, string[]>();
  const add = (to: string, everything: boolean) => {
    const k = key(to);
    let r = out.get(k);
    if (!r) {
      r = { to, everything, entries: [], doneWithoutEvidence: [], problems: [] };
      out.set(k, r);
    }
    r.everything = r.everything || everything;
    return r;
  };
  // No owner address (an Excel draft to fill in): their digest still holds everything, addressed to no one yet.
  const first = !owner ? add("", true) : isEmailAddress(owner) ? add(owner, true) : null;
  if (owner && !first) problems.push(`The owner's address "${owner}" is not an email address.`);
  for (const e of o.extra ?? []) {
    const t = text(e);
    if (!t) continue;
    if (isEmailAddress(t)) add(t, true);
    else problems.push(`The extra recipient "${t}" is not an email address, so nothing was sent to it.`);
  }
  const everyone = [...out.values()];
  const route = (a: DigestAction, put: (r: DigestRecipient) => void) => {
    for (const r of everyone) put(r);
    const t = a.assignee;
    if (!t) return;
    if (isEmailAddress(t)) {
      const r = out.get(key(t)) ?? add(t, false);
      if (!r.everything) put(r);
    } else badRows.set(t, [...(badRows.get(t) ?? []), where(a)]);
  };
  for (const e of d.entries) route(e, (r) => r.entries.push(e));
  for (const a of d.doneWithoutEvidence) route(a, (r) => r.doneWithoutEvidence.push(a));
  for (const [t, rows] of badRows) {
    const shown = rows.slice(0, 5).join(", ") + (rows.length > 5 ? ` and ${formatCount(rows.length - 5)} more` : "");
    problems.push(
      `"${t}" (Assigned to, ${shown}) is not an email address: ${rows.length === 1 ? "its action was" : "their actions were"} sent to the owner only.`,
    );
  }
  if (first) first.problems.push(...problems);
  return [...out.values()].filter((r) => r.entries.length || r.doneWithoutEvidence.length || r.problems.length);
}

/**
 * When the day's mail quota cannot reach everyone: the owner alone, with everything, told who was not sent theirs.
 * `quota` is how many more recipients may be sent to today.
 */
export function fitQuota(
  list: readonly DigestRecipient[],
  quota: number,
): { send: DigestRecipient[]; notSent: string[] } {
  if (list.length <= quota) return { send: list.slice(), notSent: [] };
  if (quota < 1) return { send: [], notSent: list.map((r) => r.to) };
  const owner = list.find((r) => r.everything) ?? list[0];
  const notSent = list.filter((r) => r !== owner).map((r) => r.to);
  const note = `The day's email quota had ${quota} left, so this digest went to you alone, with every action; not sent theirs: ${notSent.join(", ")}.`;
  return { send: [{ ...owner, problems: [...owner.problems, note] }], notSent };
}

/** The Run log's Trigger for a digest: a row the last-run line and the stale banner pass over. */
export const DIGEST_TRIGGER = "digest";

/**
 * A digest's Run log row (the columns of RUN_LOG_HEADERS): when, the owner as Run by, the actions in the owner's digest
 * as Rows, the people sent one as Checked, those not sent theirs as Errors, and in words whom each went to.
 */
export function digestLogRow(o: {
  atIso: string;
  endIso: string;
  owner: string;
  sent: readonly { to: string; actions: number }[];
  notSent: readonly string[];
  problem?: string;
}): Cell[] {
  const n = (k: number) => countWord(k, "action");
  const words = [
    o.sent.length ? `Digest sent to ${o.sent.map((s) => `${s.to} (${n(s.actions)})`).join(", ")}.` : "No digest sent.",
    o.problem ?? "",
  ]
    .filter(Boolean)
    .join(" ");
  return [
    o.atIso,
    o.endIso,
    DIGEST_TRIGGER,
    safeCellText(o.owner),
    Math.max(0, ...o.sent.map((s) => s.actions)),
    o.sent.length,
    "",
    "",
    o.notSent.length,
    "",
    "",
    safeCellText(words),
  ];
}
