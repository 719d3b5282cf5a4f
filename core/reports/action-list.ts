/**
 * The Action list of a whole workbook (its portfolio): every checked table's actions on one sheet, each row showing the
 * table and row it comes from, and everything the user typed on it (Done, Notes, columns of their own) kept on the
 * same action through every refresh. Pure: hosts read every remembered table and the list as it stands, call
 * buildPortfolioList, and write what it returns.
 *
 * An action's identity (its Action ID, also the .ics UID) is: the table's id (the host's remembered id of the table),
 * the source row's own identity, the check and the due date. The row's identity is what the row holds, not where it
 * stands, so that a sort keeps every note on its action: the UPRN (or, without one, the address), a short hash of the
 * row's address (two flats under one UPRN are two rows), and, for rows alike in both, their order in the table.
 */
import { CHECK_NAMES, type CheckName } from "../service/checks";
import { DEMO_NOTE } from "../demo/demo-key";
import { columnLetters, safeCellText, type Cell } from "../sheet/layout";
import { addDays } from "../compliance/obligations";
import { blockActions, type BlockProperty, type ListItem, type ListOptions } from "./actions";
import type { BlockRef } from "../sheet/block-ref";
import { doneWithoutEvidence } from "../compliance/own-obligations";
import { unreadColumnSentence, type UnreadOwnColumn } from "../compliance/own-headers";
import { cellDay } from "../sheet/user-columns";
import {
  CLOSED_TITLE,
  GONE_TITLE,
  LATER_TITLE,
  USER_TYPED,
  isTyped,
  layout,
  readExisting,
  userCell,
  type KeptRow,
} from "./action-list-columns";
import { formatCount } from "../numbers";

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));
const plain = (v: unknown) => text(v).replace(/^'/, "");

/** One table of the portfolio, as the host read it now. */
export interface PortfolioTable {
  /** The host's remembered id of the table: stable while the table stays where it is. Letters, digits, "-" only. */
  id: string;
  sheet: string;
  /** Where the table starts ("A1"): tells two tables on one sheet apart. */
  anchor?: string;
  /** An Excel Table's name, when the table is one. */
  name?: string;
  /** Its properties now; null when the table could not be found (then `problem` says why). */
  props: BlockProperty[] | null;
  problem?: string;
  /** The header of the table's owner column, when it has one. */
  ownerHeader?: string;
  /** Where its results block stands, for the summary's live formulas. */
  block?: BlockRef;
  /** Its columns that look like an obligation's dates but are not read (core/compliance/own-headers.ts `unreadOwnColumns`). */
  unreadColumns?: readonly Pick<UnreadOwnColumn, "header" | "key">[];
}

/**
 * Where a table starts, as its label shows it when a sheet holds two: its first input column and its header row (0-based;
 * null without one: its block is read from the top of the sheet, so row 1). The same in both add-ins.
 */
export function tableAnchor(firstColumn: number, headerRow: number | null): string {
  return `${columnLetters(firstColumn)}${(headerRow ?? 0) + 1}`;
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
export function tableLabels(tables: readonly Pick<PortfolioTable, "sheet" | "anchor" | "name">[]): string[] {
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

/** An own-obligation's code is its key without underscores ("smokealarms"); one with no due date ends ".nodate". */
export function actionId(tableId: string, rowId: string, check: CheckName | string, due: string | null): string {
  return `${tableId}.${rowId}.${CHECK_CODES[check as CheckName] ?? check.replace(/_/g, "")}.${due ? due.replace(/-/g, "") : "nodate"}`;
}

/** The table id an Action ID starts with. */
export const tableOfActionId = (id: string) => (id.includes(".") ? id.slice(0, id.indexOf(".")) : "");

// ---------------------------------------------------------------------------------------------------------------
// The list.

export interface TableCount {
  id: string;
  label: string;
  found: boolean;
  problem?: string;
  /** Properties with a result, and of them from demo answers. */
  properties: number;
  demo: number;
  overdue: number;
  /** Listed (overdue, due within the window, or answering a failed check). */
  open: number;
  later: number;
  closed: number;
  /** Rows kept under the table's "no longer found" heading. */
  kept: number;
}

export interface ActionListSheet {
  /** Cells to write from A1: text already formula-safe, dates as YYYY-MM-DD text (hosts write them as dates). */
  values: Cell[][];
  headers: string[];
  windowColumn: number;
  dateColumns: number[];
  doneColumn: number;
  notesColumn: number;
  idColumn: number;
  /** The user's own columns: where each is now, and its index in the sheet as read (to keep its cells' formats). */
  userColumns: { column: number; from: number }[];
  /** For each row of `values`, the index of the row of the sheet as read whose typed cells it carries, else null. */
  keptFrom: (number | null)[];
  /** Rows 1.. are the open actions; then each section's title row (0-based sheet rows). */
  open: number;
  closedTitleRow: number | null;
  titleRows: number[];
  closed: number;
  later: number;
  /** Rows kept for tables no longer found. */
  kept: number;
  /** Rows marked Done whose Evidence is empty (0 when the list has no Evidence column). */
  doneWithoutEvidence: number;
  tables: TableCount[];
  /** Some listed action comes from a demo answer. */
  demo: boolean;
  /** One sentence per header, over every table, that looks like an obligation's dates but is not read. */
  unreadColumns: string[];
}

interface Act {
  t: number;
  prop: BlockProperty;
  ob: ListItem;
  id: string;
  kept?: KeptRow;
}

/**
 * The Action list of one table (the portfolio of one): see buildPortfolioList, which the hosts call with every table of the workbook.
 */
export function buildActionList(
  props: readonly BlockProperty[],
  o: ListOptions,
  existing: readonly (readonly unknown[])[] = [],
  table: Partial<PortfolioTable> = {},
): ActionListSheet {
  return buildPortfolioList(
    [{ id: table.id ?? "t1", sheet: table.sheet ?? "Sheet1", ...table, props: [...props], ownerHeader: o.ownerHeader }],
    o,
    existing,
  );
}

/**
 * The Action list of the portfolio: the header row, the open actions (overdue, due within N days, and every one that
 * answers a failed check; by due date, then table, row and check), then, when there are any: "Later" (actions due
 * after the window on which something was typed: they come back when the window reaches them), "Closed" (rows typed
 * on whose action has ended: a new date, the property gone, or marked Done and past its due date), and one section per
 * table no longer found, its rows as they were until the user deletes them. `existing` is the sheet as it is now (values from A1, dates as YYYY-MM-DD text or
 * serials): what the user typed goes back on the action it was typed on, found by its Action ID.
 */
export function buildPortfolioList(
  tables: readonly PortfolioTable[],
  o: Omit<ListOptions, "ownerHeader">,
  existing: readonly (readonly unknown[])[] = [],
): ActionListSheet {
  const labels = tableLabels(tables);
  const ownerHeader = tables.find((t) => t.props && t.ownerHeader)?.ownerHeader;
  const ownerHeaders = new Set(tables.map((t) => t.ownerHeader).filter((h): h is string => !!h));
  const ex = readExisting(existing, ownerHeaders);
  const all = tables.map((table) => (table.props ? table.props.map((prop) => blockActions([prop], o)) : []));
  const cols = layout(
    ex,
    ownerHeader,
    ownerHeaders,
    all.some((t) => t.some((p) => p.some((a) => a.ob.evidence !== undefined))),
  );
  const headers = cols.map((c) => (c.kind === "ours" ? c.name : c.header));

  // Every action of every table found, with its identity.
  const acts: Act[] = [];
  tables.forEach((table, t) => {
    if (!table.props) return;
    const rowIds = rowIdentities(table.props);
    table.props.forEach((prop, p) => {
      const ids = new Set<string>();
      for (const { ob } of all[t][p]) {
        let id = actionId(table.id, rowIds[p], ob.check, ob.due);
        // Two obligations of one check due the same day (an expired certificate that also fails a standard).
        if (ids.has(id)) id = `${id}-${shortHash(ob.rule + ob.action)}`;
        ids.add(id);
        acts.push({ t, prop, ob, id });
      }
    });
  });

  // What was typed goes back on its action: by Action ID; else (a list of an earlier version, or a row whose address
  // was corrected) by UPRN, check and due date within the same table.
  const kept = ex?.rows ?? [];
  const byId = new Map<string, KeptRow>();
  for (const k of kept) if (k.id && !byId.has(k.id)) byId.set(k.id, k);
  const matched = new Set<KeptRow>();
  for (const a of acts) {
    const k = byId.get(a.id);
    if (k && !matched.has(k)) {
      a.kept = k;
      matched.add(k);
    }
  }
  const loose = (uprn: string, check: string, due: string) =>
    `${uprn.toLowerCase()}\u0000${check.toLowerCase()}\u0000${due}`;
  const byLoose = new Map<string, KeptRow[]>();
  for (const k of kept) {
    if (matched.has(k) || !k.uprn) continue;
    const key = loose(k.uprn, k.check, k.due);
    byLoose.set(key, [...(byLoose.get(key) ?? []), k]);
  }
  for (const a of acts) {
    if (a.kept) continue;
    const list = byLoose.get(loose(plain(a.prop.uprn), a.ob.label, a.ob.due ?? ""));
    const k = list?.find((r) => !matched.has(r) && (!r.id || tableOfActionId(r.id) === tables[a.t].id));
    if (k) {
      a.kept = k;
      matched.add(k);
    }
  }

  const last = addDays(o.today, o.withinDays);
  const open: Act[] = [];
  const later: Act[] = [];
  const closed: KeptRow[] = [];
  for (const a of acts) {
    // An own-obligation with no date ("Record when the alarms were checked") stays open until its column says.
    const due = a.ob.due;
    if (a.kept && isTyped(a.kept.done) && due && due < o.today) closed.push(a.kept);
    // A failed check's action is listed however far off its date: a failure is never left for later.
    else if (!due || a.ob.window === "Overdue" || a.ob.failed || due <= last) open.push(a);
    else if (a.kept?.typed) later.push(a);
  }
  const rank = (c: string) => (CHECK_NAMES as readonly string[]).indexOf(c) + 1 || 99;
  const dueOf = (a: Act) => a.ob.due ?? "9999";
  const order = (a: Act, b: Act) =>
    dueOf(a) < dueOf(b)
      ? -1
      : dueOf(a) > dueOf(b)
        ? 1
        : a.t - b.t ||
          (a.prop.row ?? 0) - (b.prop.row ?? 0) ||
          rank(a.ob.check) - rank(b.ob.check) ||
          a.ob.label.localeCompare(b.ob.label);
  open.sort(order);
  later.sort(order);

  // Rows of tables no longer found (or no longer remembered) stay as they were, under their table's heading.
  const found = new Set(tables.filter((t) => t.props).map((t) => t.id));
  const known = new Set(tables.map((t) => t.id));
  const gone = new Map<string, KeptRow[]>();
  for (const k of kept) {
    if (matched.has(k)) continue;
    const tid = tableOfActionId(k.id);
    if (tid && !found.has(tid)) gone.set(tid, [...(gone.get(tid) ?? []), k]);
    else if (k.typed) closed.push(k);
  }

  const colOf = (name: string) => headers.indexOf(name);
  const exLow = ex ? ex.header.map((h) => h.toLowerCase()) : [];
  const demoAction = (a: Act) => (a.prop.demo ? `${DEMO_NOTE}: ${a.ob.action}` : a.ob.action);
  const fromAct = (a: Act, window: string): Cell[] =>
    cols.map((c) => {
      if (c.kind === "user") return userCell(a.kept?.cells[c.index]);
      switch (c.name) {
        case "Window":
          return window;
        case "Due":
          return a.ob.due ?? "";
        case "Days left":
          return a.ob.daysLeft ?? "";
        case "UPRN":
          return safeCellText(a.prop.uprn);
        case "Address":
          return safeCellText(a.prop.address);
        case "Check":
          return safeCellText(a.ob.label);
        case "Action":
          return safeCellText(demoAction(a));
        case "Rule":
          return safeCellText(a.ob.rule);
        case "Table":
          return safeCellText(labels[a.t]);
        case "Row":
          return a.prop.row ?? "";
        case "Action ID":
          return a.id;
        case "Evidence":
          // The source table's Evidence cell when it has one; else what was typed here, kept like Notes.
          if (a.ob.evidence) return safeCellText(a.ob.evidence);
          return userCell(a.kept?.cells[exLow.indexOf("evidence")]);
        case "Done":
        case "Notes":
          return userCell(a.kept?.cells[exLow.indexOf(c.name.toLowerCase())]);
        default:
          // The owner column.
          return safeCellText(a.prop.owner ?? "");
      }
    });
  const fromKept = (k: KeptRow, window: string | null): Cell[] =>
    cols.map((c) => {
      if (c.kind === "user") return userCell(k.cells[c.index]);
      const i = exLow.indexOf(c.name.toLowerCase());
      const v = i >= 0 ? k.cells[i] : "";
      if (c.name === "Window" && window !== null) return window;
      if (c.name === "Days left" && window !== null) return "";
      if (c.name === "Due") return cellDay(v) ?? "";
      if (USER_TYPED.includes(c.name)) return userCell(v);
      return typeof v === "number" ? v : safeCellText(plain(v));
    });

  const values: Cell[][] = [headers];
  const keptFrom: (number | null)[] = [null];
  for (const a of open) {
    values.push(fromAct(a, a.ob.window ?? ""));
    keptFrom.push(a.kept?.at ?? null);
  }
  const titleRows: number[] = [];
  const section = (title: string, rows: Cell[][], from: (number | null)[]) => {
    if (!rows.length) return;
    values.push(headers.map(() => ""));
    titleRows.push(values.length);
    values.push([title, ...headers.slice(1).map(() => "")]);
    values.push(...rows);
    keptFrom.push(null, null, ...from);
  };
  section(
    `${LATER_TITLE} (more than ${o.withinDays} days ahead)`,
    later.map((a) => fromAct(a, "Later")),
    later.map((a) => a.kept?.at ?? null),
  );
  const closedAt = values.length + 1;
  section(
    CLOSED_TITLE,
    closed.map((k) => fromKept(k, "Closed")),
    closed.map((k) => k.at),
  );
  const goneCounts = new Map<string, number>();
  for (const [tid, rows] of gone) {
    const t = tables.findIndex((x) => x.id === tid);
    const label = t >= 0 ? labels[t] : rows.find((r) => r.table)?.table || tid;
    const why = t >= 0 && tables[t].problem ? ` (${tables[t].problem!.replace(/[.\s]+$/, "")})` : "";
    section(
      `${GONE_TITLE}: ${label}${why}. Its actions are kept as they were; delete these rows when you no longer need them.`,
      rows.map((k) => fromKept(k, null)),
      rows.map((k) => k.at),
    );
    goneCounts.set(tid, rows.length);
  }

  const counts: TableCount[] = tables.map((table, t) => {
    const mine = (a: Act) => a.t === t;
    const props = table.props ?? [];
    return {
      id: table.id,
      label: labels[t],
      found: !!table.props,
      problem: table.problem,
      properties: props.length,
      demo: props.filter((p) => p.demo).length,
      overdue: open.filter((a) => mine(a) && a.ob.window === "Overdue").length,
      open: open.filter(mine).length,
      later: later.filter(mine).length,
      closed: closed.filter((k) => tableOfActionId(k.id) === table.id).length,
      kept: goneCounts.get(table.id) ?? 0,
    };
  });
  for (const [tid, n] of goneCounts) {
    if (known.has(tid)) continue;
    const label = gone.get(tid)!.find((r) => r.table)?.table || tid;
    counts.push({
      id: tid,
      label,
      found: false,
      problem: "no longer checked in this workbook",
      properties: 0,
      demo: 0,
      overdue: 0,
      open: 0,
      later: 0,
      closed: 0,
      kept: n,
    });
  }
  return {
    values,
    headers,
    windowColumn: colOf("Window"),
    dateColumns: [colOf("Due")],
    doneColumn: colOf("Done"),
    notesColumn: colOf("Notes"),
    idColumn: colOf("Action ID"),
    userColumns: cols.flatMap((c, column) => (c.kind === "user" ? [{ column, from: c.index }] : [])),
    keptFrom,
    open: open.length,
    closedTitleRow: closed.length ? closedAt : null,
    titleRows,
    closed: closed.length,
    later: later.length,
    kept: [...goneCounts.values()].reduce((s, n) => s + n, 0),
    doneWithoutEvidence:
      colOf("Evidence") < 0
        ? 0
        : doneWithoutEvidence(values.slice(1).map((r) => ({ done: r[colOf("Done")], evidence: r[colOf("Evidence")] }))),
    tables: counts,
    demo: open.some((a) => a.prop.demo) || later.some((a) => a.prop.demo),
    unreadColumns: [
      ...new Set(tables.flatMap((t) => (t.props ? (t.unreadColumns ?? []) : []).map(unreadColumnSentence))),
    ],
  };
}

/** The pane's and sidebar's line after the list is built. */
export function actionListLine(
  list: ActionListSheet,
  withinDays: number,
  sheetName: string,
  summaryName: string,
): string {
  const n = (k: number, one: string, many = `${one}s`) => `${formatCount(k)} ${k === 1 ? one : many}`;
  const tables = list.tables.filter((t) => t.found).length;
  const extra = [
    list.later ? `${n(list.later, "later action")} kept for what was typed on ${list.later === 1 ? "it" : "them"}` : "",
    list.closed ? `${n(list.closed, "closed row")} kept for ${list.closed === 1 ? "its" : "their"} notes` : "",
    ...list.tables
      .filter((t) => !t.found)
      .map(
        (t) => `the table ${t.label} was not found${t.kept ? ` (its ${n(t.kept, "row")} kept under its heading)` : ""}`,
      ),
  ].filter(Boolean);
  const demo = list.demo ? ` ${DEMO_NOTE}: some results come from the demo key.` : "";
  const unread = list.unreadColumns.map((u) => ` ${u}`).join("");
  return `"${sheetName}": ${n(list.open, "action")} overdue or due within ${withinDays} days from ${n(tables, "table")}${extra.length ? `; ${extra.join("; ")}` : ""}. "${summaryName}" refreshed.${demo}${unread}`;
}
