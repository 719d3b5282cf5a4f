/**
 * The Action list's columns: ours and the user's own, in the sheet's order (a column the user added stays where they put
 * it), what a cell the user typed is written back as and whether Done says done, and the number format of every cell of the list. Pure.
 */
import { safeCellText, type Cell } from "../sheet/layout";
import { DATE_FORMAT } from "../compliance/obligation-days";
import { COUNT_FORMAT } from "../numbers";
import { cellDay } from "../sheet/user-columns";

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

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

export const isTyped = (v: unknown) => v !== "" && v !== null && v !== undefined && v !== false;

/** What a user typed, written back as it was (a checkbox's true/false stays a boolean), formula-safe. */
export function userCell(v: unknown): Cell {
  if (typeof v === "boolean") return v as unknown as Cell;
  if (typeof v === "number") return v;
  if (v === null || v === undefined) return "";
  if (typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]") return cellDay(v) ?? "";
  return safeCellText(String(v));
}

/**
 * Whether a Done cell says the action is done: TRUE, a tick, "yes", "done", "x", or a date. The one reading of Done:
 * the Action list's Closed section, the summary and the digest all ask it, so "no" or "booked for May" keeps an action
 * open everywhere.
 */
export function isMarkedDone(v: unknown): boolean {
  if (v === true) return true;
  if (typeof v === "number") return v > 0;
  if (v && typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]")
    return Number.isFinite((v as Date).getTime());
  const t = text(v).toLowerCase();
  return (
    /^(true|yes|y|done|x|✓|✔|☑|complete|completed)$/.test(t) ||
    /^\d{4}-\d{1,2}-\d{1,2}$|^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$/.test(t)
  );
}

/** A row marked done (isMarkedDone) whose Evidence cell is empty: the summary counts them, the digest lists them. */
export function isDoneWithoutEvidence(done: unknown, evidence: unknown): boolean {
  return isMarkedDone(done) && text(evidence) === "";
}

/** The summary's count: rows marked done whose Evidence is empty. */
export function doneWithoutEvidence(rows: readonly { done: unknown; evidence: unknown }[]): number {
  return rows.filter((r) => isDoneWithoutEvidence(r.done, r.evidence)).length;
}

export type Column = { kind: "ours"; name: string } | { kind: "user"; index: number; header: string };

/**
 * The list's columns: the sheet's own order when there is one (a column the user added, anywhere, stays where it is,
 * with its header); ours that are missing go back after the one they follow.
 */
export function layout(
  ex: { header: readonly string[]; rows: readonly { cells: readonly unknown[] }[] } | null,
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
 * rows): the header row text; Due a date; Days left a count (grouped, "3,650", as the digest words it); Row a whole
 * number as the sheet numbers its rows ("1234"); Done as typed; our other columns text, so a UPRN or "0123" stays as
 * written; a user's own column keeps each cell's format from the sheet as read
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
      return h === "Days left" ? COUNT_FORMAT : h === "Row" ? "0" : h === "Done" ? "General" : "@";
    }),
  );
}
