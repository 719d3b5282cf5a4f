/**
 * Which table and which row of it an action comes from, told the same way in both add-ins and on every refresh: the
 * portfolio's tables in one order, each under one label, and each action's identity (its Action ID, also the .ics UID).
 *
 * An action's identity is: the table's id (tableIds), the source row's own identity, the
 * check and the due date. The row's identity is what the row holds, not where it stands, so that a sort keeps every note
 * on its action: the UPRN (or, without one, the address), a short hash of the row's address (two flats under one UPRN
 * are two rows), and, for rows alike in both, their order in the table.
 */
import type { CheckName } from "../service/checks";
import { columnLetters } from "../sheet/layout";
import type { BlockProperty } from "./actions";

const plain = (v: unknown) =>
  (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v)).replace(/^'/, "");

/**
 * Where a table starts, as its label shows it when a sheet holds two: its first input column and its header row (0-based;
 * null without one: its block is read from the top of the sheet, so row 1). The same in both add-ins.
 */
export function tableAnchor(firstColumn: number, headerRow: number | null): string {
  return `${columnLetters(firstColumn)}${(headerRow ?? 0) + 1}`;
}

/**
 * What a host reads of a table to name it on the Action list: its sheet's own id (Excel's Worksheet.id, Google's
 * Sheet.getSheetId(): both stay the same when the sheet is renamed or moved), where the table starts now (its header
 * row, 0-based, null without one; its first input column, or its results block's without one), as found again, and the
 * ordinal its record keeps (tableOrdinals; absent from records written before tables kept one).
 */
export interface TablePlaceFacts {
  sheetId: string | number;
  headerRow: number | null;
  firstColumn: number;
  ordinal?: number;
}

const placeKey = (t: TablePlaceFacts) => `${t.headerRow ?? -1},${t.firstColumn}`;
const byPlace = (a: TablePlaceFacts, b: TablePlaceFacts) =>
  (a.headerRow ?? -1) - (b.headerRow ?? -1) || a.firstColumn - b.firstColumn;
const validOrdinal = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 1;

/**
 * Each table's number among its sheet's tables, decided here for both add-ins: a property of the table, given once
 * when its record is first kept and kept with the record, so that a table checked above or left of it, or one removed,
 * never renumbers it. A record that has one keeps it; records found at the same place are one table and share the
 * lowest of theirs (a table checked again after it moved keeps the number it had). Remembered records from before
 * tables kept a number are numbered by their order on the sheet (top to bottom, then left to right) among themselves,
 * skipping numbers taken: a list of an earlier version keeps its ids. A table new to the sheet (the current run's, not
 * remembered) gets 1 + the highest number of its sheet. Hosts store what this gives each record when they save it.
 */
export function tableOrdinals(remembered: readonly TablePlaceFacts[], current?: TablePlaceFacts): number[] {
  const all = current === undefined ? [...remembered] : [...remembered, current];
  const out: number[] = new Array<number>(all.length).fill(0);
  for (const sheet of new Set(all.map((t) => String(t.sheetId)))) {
    const here = all.map((t, i) => ({ t, i })).filter(({ t }) => String(t.sheetId) === sheet);
    const groups = new Map<string, { at: TablePlaceFacts; members: number[]; ordinal?: number; isCurrent: boolean }>();
    for (const { t, i } of here) {
      const g = groups.get(placeKey(t)) ?? { at: t, members: [], isCurrent: true };
      g.members.push(i);
      if (i < remembered.length) g.isCurrent = false;
      if (validOrdinal(t.ordinal)) g.ordinal = Math.min(g.ordinal ?? t.ordinal, t.ordinal);
      groups.set(placeKey(t), g);
    }
    const list = [...groups.values()];
    const taken = new Set(list.map((g) => g.ordinal).filter(validOrdinal));
    let next = 1;
    for (const g of list.filter((g) => g.ordinal === undefined && !g.isCurrent).sort((a, b) => byPlace(a.at, b.at))) {
      while (taken.has(next)) next++;
      g.ordinal = next;
      taken.add(next);
    }
    const fresh = list.find((g) => g.ordinal === undefined);
    if (fresh) fresh.ordinal = Math.max(0, ...taken) + 1;
    for (const g of list) for (const i of g.members) out[i] = g.ordinal!;
  }
  return out;
}

/**
 * Each table's id, the first part of its Action IDs, decided here for both add-ins: its sheet, named by its own id,
 * never its name, so a rename keeps every id; and its number on the sheet (tableOrdinals), never its row or column, so
 * rows inserted above, columns inserted left, a sort or another table checked on the sheet keep every id. The first
 * table of a sheet (nearly every sheet has one) is the sheet's id alone; the second "n2" after it, and so on. The hash
 * keeps ids short, letters and digits, whatever the host's sheet id looks like (Excel's is a GUID in braces).
 */
export function tableIds(remembered: readonly TablePlaceFacts[], current?: TablePlaceFacts): string[] {
  const all = current === undefined ? [...remembered] : [...remembered, current];
  const ordinals = tableOrdinals(remembered, current);
  return all.map((t, i) => `t${shortHash(String(t.sheetId))}${ordinals[i] > 1 ? `n${ordinals[i]}` : ""}`);
}

/**
 * The portfolio's tables with their ids (tableIds), in portfolioOrder; records that tableIds finds to be one table
 * appear once, as the current run's when it is one of them, else as the first recorded.
 */
export function portfolioTables<T>(
  remembered: readonly T[],
  current: T | undefined,
  facts: (t: T) => TablePlaceFacts,
): { table: T; id: string }[] {
  const all = current === undefined ? [...remembered] : [...remembered, current];
  const ids = tableIds(remembered.map(facts), current === undefined ? undefined : facts(current));
  const withIds = all.map((table, i) => ({ table, id: ids[i] }));
  const ordered = portfolioOrder(
    withIds.slice(0, remembered.length),
    current === undefined ? undefined : withIds[remembered.length],
    (t) => t.id,
  );
  const seen = new Set<string>();
  return ordered.filter((t) => !seen.has(t.id) && !!seen.add(t.id));
}

/**
 * The portfolio's tables in one order in both add-ins: the remembered ones as they were recorded, the current run's
 * table in its own place among them (it was checked before), or last when it is new.
 */
export function portfolioOrder<T>(remembered: readonly T[], current: T | undefined, id: (t: T) => string): T[] {
  if (current === undefined) return [...remembered];
  const at = remembered.findIndex((t) => id(t) === id(current));
  return at < 0 ? [...remembered, current] : remembered.map((t, i) => (i === at ? current : t));
}

/** The table's name as the list and summary show it: its Table name, else its sheet (and where it starts, when a sheet holds two). */
export function tableLabels(tables: readonly { sheet: string; anchor?: string; name?: string }[]): string[] {
  return tables.map((t) => {
    if (t.name) return t.name;
    const shared = tables.filter((o) => !o.name && o.sheet === t.sheet).length > 1;
    return shared && t.anchor ? `${t.sheet} ${t.anchor}` : t.sheet;
  });
}

/** FNV-1a, 32 bits, base 36: short, stable, the same in every host. */
export function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();

/** Each property's row identity within its table (see the module's comment), in the order given. */
export function rowIdentities(props: readonly Pick<BlockProperty, "uprn" | "address">[]): string[] {
  const seen = new Map<string, number>();
  return props.map((p) => {
    const uprn = plain(p.uprn)
      .replace(/[^0-9A-Za-z]/g, "")
      .replace(/^0+(?=\d)/, "");
    const base = `${uprn || "a"}-${shortHash(norm(plain(p.address)))}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}

const CHECK_CODES: Record<CheckName, string> = {
  epc: "epc",
  gas_safety: "gas",
  eicr: "eicr",
  licensing: "lic",
  deposit_protection: "dep",
};

/**
 * An own-obligation's code is its key without underscores ("smokealarms"); one with no due date ends ".nodate", one due
 * now with no day of its own (its due day is the day counted from, which moves) ".now".
 */
export function actionId(
  tableId: string,
  rowId: string,
  check: CheckName | string,
  due: string | null,
  dueNow = false,
): string {
  return `${tableId}.${rowId}.${CHECK_CODES[check as CheckName] ?? check.replace(/_/g, "")}.${dueNow ? "now" : due ? due.replace(/-/g, "") : "nodate"}`;
}

/** Whether an Action ID is an action's due now, whose due day is the day counted from (it moves with it). */
export const isDueNowId = (id: string) => /\.now(-[0-9a-z]+)?$/.test(id);

/**
 * An Action ID with "now" in place of its due day: what an action an earlier list dated with the day it was made is
 * known by now, and the dateless key under which one overdue action stays the same one (its due day may be read again).
 */
export const dueNowId = (id: string) => id.replace(/\.\d{8}(-[0-9a-z]+)?$/, ".now$1");

/** The table id an Action ID starts with. */
export const tableOfActionId = (id: string) => (id.includes(".") ? id.slice(0, id.indexOf(".")) : "");
