/**
 * The Action list's columns, and the list as it stands on the sheet: our headers and the user's own columns, in the
 * sheet's order; each row read back with what the user typed on it (Done, Notes, their own columns), so that a refresh
 * keeps it on its action (action-list.ts). Pure.
 */
import { safeCellText, type Cell } from "../sheet/layout";
import { DATE_FORMAT } from "../compliance/obligation-days";
import { cellDay } from "../sheet/user-columns";

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));
const plain = (v: unknown) => text(v).replace(/^'/, "");

export const CLOSED_TITLE = "Closed: these actions are no longer due; kept for what was typed in Done and Notes";
export const LATER_TITLE = "Later: due after the chosen window; listed here because something was typed on them";
export const GONE_TITLE = "Table no longer found";
export const TITLES = [CLOSED_TITLE.slice(0, 7), LATER_TITLE.slice(0, 6), GONE_TITLE];

/** Headers the list writes itself; every other column (Done, Notes and the user's own) is the user's. */
export const COMPUTED = [
  "Window",
  "Due",
  "Days left",
  "UPRN",
  "Address",
  "Check",
  "Action",
  "Rule",
  "Table",
  "Row",
  "Action ID",
];
export const USER_TYPED = ["Done", "Evidence", "Notes"];

/** `evidence`: the list has an Evidence column (some table has own-obligation columns, or the list had one). */
export function actionListHeaders(ownerHeader?: string, evidence = false): string[] {
  return [
    "Window",
    "Due",
    "Days left",
    "UPRN",
    "Address",
    ...(ownerHeader ? [ownerHeader] : []),
    "Check",
    "Action",
    "Rule",
    "Table",
    "Row",
    "Done",
    ...(evidence ? ["Evidence"] : []),
    "Notes",
    "Action ID",
  ];
}

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
  /** The row's cells, by column of the existing sheet. */
  cells: readonly unknown[];
  done: unknown;
  /** Something typed in Done, Notes or a column of the user's. */
  typed: boolean;
}

export const isTyped = (v: unknown) => v !== "" && v !== null && v !== undefined && v !== false;

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
      cells: r,
      done: c.done >= 0 ? r[c.done] : "",
      typed,
    });
  }
  return { header, rows };
}

/** What a user typed, written back as it was (a checkbox's true/false stays a boolean), formula-safe. */
export function userCell(v: unknown): Cell {
  if (typeof v === "boolean") return v as unknown as Cell;
  if (typeof v === "number") return v;
  if (v === null || v === undefined) return "";
  if (typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]") return cellDay(v) ?? "";
  return safeCellText(String(v));
}

export type Column = { kind: "ours"; name: string } | { kind: "user"; index: number; header: string };

/**
 * The list's columns: the sheet's own order when there is one (a column the user added, anywhere, stays where it is,
 * with its header); ours that are missing go back after the one they follow.
 */
export function layout(
  ex: Existing | null,
  ownerHeader: string | undefined,
  ownerHeaders: ReadonlySet<string>,
  evidence: boolean,
): Column[] {
  const std = actionListHeaders(ownerHeader, evidence || !!ex?.header.some((h) => h.toLowerCase() === "evidence"));
  if (!ex) return std.map((name) => ({ kind: "ours", name }));
  const stdLow = std.map((h) => h.toLowerCase());
  const cols: Column[] = [];
  const placed = new Set<string>();
  const used = (i: number) => ex.rows.some((r) => isTyped(r.cells[i]));
  ex.header.forEach((h, i) => {
    const k = stdLow.indexOf(h.toLowerCase());
    if (k >= 0 && !placed.has(stdLow[k])) {
      placed.add(stdLow[k]);
      cols.push({ kind: "ours", name: std[k] });
    } else if (ownerHeaders.has(h) && !USER_TYPED.includes(h)) {
      // Another table's owner column heading: the list's one owner column takes its place.
    } else if (h || used(i)) cols.push({ kind: "user", index: i, header: h });
  });
  std.forEach((name, k) => {
    if (placed.has(name.toLowerCase())) return;
    const before = k === 0 ? -1 : cols.findIndex((c) => c.kind === "ours" && c.name.toLowerCase() === stdLow[k - 1]);
    cols.splice(before + 1, 0, { kind: "ours", name });
    placed.add(name.toLowerCase());
  });
  return cols;
}

/**
 * The number format of each cell of the list as built (buildPortfolioList's values, headers, user columns and kept
 * rows): the header row text; Due a date; Days left and Row whole numbers; Done as typed; our other columns text, so a
 * UPRN or "0123" stays as written; a user's own column keeps each cell's format from the sheet as read
 * (`existingFormats`, the same rows and columns as the values read), "General" when it had none.
 */
export function actionListFormats(
  list: {
    values: readonly (readonly unknown[])[];
    headers: readonly string[];
    dateColumns: readonly number[];
    userColumns: readonly { column: number; from: number }[];
    keptFrom: readonly (number | null)[];
  },
  existingFormats: readonly (readonly unknown[])[],
): string[][] {
  const own = new Map(list.userColumns.map((u) => [u.column, u.from]));
  return list.values.map((_r, i) =>
    list.headers.map((h, c) => {
      if (i === 0) return "@";
      const from = own.get(c);
      if (from !== undefined) {
        const k = list.keptFrom[i];
        const kept = k === null || k === undefined ? undefined : existingFormats[k]?.[from];
        return typeof kept === "string" && kept ? kept : "General";
      }
      if (c === list.dateColumns[0]) return DATE_FORMAT;
      return h === "Days left" || h === "Row" ? "0" : h === "Done" ? "General" : "@";
    }),
  );
}
