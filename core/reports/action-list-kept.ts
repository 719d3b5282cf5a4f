/**
 * The Action list as it stands on the sheet, read back: each row with what the user typed on it (Done, Notes, their own
 * columns), and which action of the list being built it goes back on, so that a refresh keeps every note on its action
 * (core/reports/action-ids.ts says what an action's identity is). Pure.
 */
import { cellDay } from "../sheet/user-columns";
import { COMPUTED, isTyped } from "./action-list-columns";
import { dueNowId, isDueNowId, tableOfActionId } from "./action-ids";

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));
const plain = (v: unknown) => text(v).replace(/^'/, "");

export const CLOSED_TITLE = "Closed: these actions are no longer due; kept for what was typed in Done and Notes";
export const LATER_TITLE = "Later: due after the chosen window; listed here because something was typed on them";
export const GONE_TITLE = "Table no longer found";
export const TITLES = [CLOSED_TITLE.slice(0, 7), LATER_TITLE.slice(0, 6), GONE_TITLE];

export interface Existing {
  /** Each column of the sheet: its header as written (trimmed). */
  header: string[];
  rows: KeptRow[];
}

export interface KeptRow {
  /** Its index in the sheet's rows as read. */
  at: number;
  id: string;
  uprn: string;
  check: string;
  due: string;
  table: string;
  /** What the Action column says. */
  action: string;
  /** The row's cells, by column of the existing sheet. */
  cells: readonly unknown[];
  done: unknown;
  /** Something typed in Done, Notes or a column of the user's. */
  typed: boolean;
}

export function readExisting(
  existing: readonly (readonly unknown[])[],
  ownerHeaders: ReadonlySet<string>,
): Existing | null {
  const headerAt = existing.findIndex(
    (r) => r.some((v) => text(v).toLowerCase() === "uprn") && r.some((v) => text(v).toLowerCase() === "check"),
  );
  if (headerAt < 0) return null;
  const width = Math.max(...existing.map((r) => r.length));
  const header = Array.from({ length: width }, (_v, i) => text(existing[headerAt][i]));
  const low = header.map((h) => h.toLowerCase());
  const at = (name: string) => low.indexOf(name.toLowerCase());
  const c = {
    id: at("Action ID"),
    uprn: at("UPRN"),
    check: at("Check"),
    due: at("Due"),
    table: at("Table"),
    action: at("Action"),
    done: at("Done"),
  };
  const computed = new Set([...COMPUTED, ...ownerHeaders].map((h) => h.toLowerCase()));
  const userCols = header.map((h, i) => i).filter((i) => !computed.has(low[i]));
  const rows: KeptRow[] = [];
  for (let at = headerAt + 1; at < existing.length; at++) {
    const r = existing[at];
    const first = text(r[0]);
    if (TITLES.some((t) => first.startsWith(t)) && r.slice(1).every((v) => !isTyped(v))) continue;
    const uprn = plain(r[c.uprn]);
    const id = c.id >= 0 ? plain(r[c.id]) : "";
    const typed = userCols.some((i) => isTyped(r[i]));
    if (!uprn && !id && !typed) continue;
    rows.push({
      at,
      id,
      uprn,
      check: text(r[c.check]),
      due: (c.due >= 0 ? cellDay(r[c.due]) : null) ?? "",
      table: c.table >= 0 ? plain(r[c.table]) : "",
      action: c.action >= 0 ? text(r[c.action]) : "",
      cells: r,
      done: c.done >= 0 ? r[c.done] : "",
      typed,
    });
  }
  return { header, rows };
}

/** An action of the list being built, as far as finding its typed row goes. */
export interface ActionKey {
  id: string;
  /** The id of the table it comes from. */
  table: string;
  uprn: string;
  /** The check's label, as the list's Check column shows it. */
  check: string;
  due: string;
  /** What it asks for, as the Action column says it. */
  action: string;
}

/**
 * The row each action's typed cells come back from, if any: by Action ID; for an action due now, a row an earlier
 * version listed it on under the day of that list (the same Action ID but for that day, asking for the same thing);
 * else (a list of an earlier version, or a row whose address was corrected) by UPRN, check and due date within the
 * same table. A row goes back on one action only.
 */
export function typedRowsOf(actions: readonly ActionKey[], kept: readonly KeptRow[]): (KeptRow | undefined)[] {
  const byId = new Map<string, KeptRow>();
  for (const k of kept) if (k.id && !byId.has(k.id)) byId.set(k.id, k);
  const matched = new Set<KeptRow>();
  const take = (k: KeptRow | undefined) => {
    if (!k || matched.has(k)) return undefined;
    matched.add(k);
    return k;
  };
  const rows = actions.map((a) => take(byId.get(a.id)));
  actions.forEach((a, i) => {
    if (rows[i] || !isDueNowId(a.id)) return;
    rows[i] = take(
      kept.find((k) => !matched.has(k) && k.action === a.action && k.id !== a.id && dueNowId(k.id) === a.id),
    );
  });
  const loose = (uprn: string, check: string, due: string) =>
    `${uprn.toLowerCase()}\u0000${check.toLowerCase()}\u0000${due}`;
  const byLoose = new Map<string, KeptRow[]>();
  for (const k of kept) {
    if (matched.has(k) || !k.uprn) continue;
    const key = loose(k.uprn, k.check, k.due);
    byLoose.set(key, [...(byLoose.get(key) ?? []), k]);
  }
  actions.forEach((a, i) => {
    if (rows[i]) return;
    const list = byLoose.get(loose(a.uprn, a.check, a.due));
    rows[i] = take(list?.find((r) => !matched.has(r) && (!r.id || tableOfActionId(r.id) === a.table)));
  });
  return rows;
}
