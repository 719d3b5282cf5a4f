/**
 * The Action list of a whole workbook (its portfolio): every checked table's actions on one sheet, each row showing the
 * table and row it comes from, and everything the user typed on it (Done, Notes, columns of their own) kept on the
 * same action through every refresh. Pure: hosts read every remembered table and the list as it stands, call
 * buildPortfolioList, and write what it returns. Its columns are core/reports/action-list-columns.ts's, an action's
 * identity core/reports/action-ids.ts's, and the list as read back core/reports/action-list-kept.ts's.
 */
import { CHECK_NAMES } from "../service/checks";
import { DEMO_NOTE } from "../demo/demo-key";
import { safeCellText, type Cell } from "../sheet/layout";
import { addDays } from "../compliance/obligations";
import { actionsByProperty, type BlockProperty, type ListItem, type ListOptions } from "./actions";
import type { BlockRef } from "../sheet/block-ref";
import { unreadColumnSentence, type UnreadOwnColumn } from "../compliance/own-headers";
import { cellDay } from "../sheet/user-columns";
import { USER_TYPED, doneWithoutEvidence, isMarkedDone, layout, userCell, type Column } from "./action-list-columns";
import {
  CLOSED_TITLE,
  GONE_TITLE,
  LATER_TITLE,
  readExisting,
  typedRowsOf,
  type Existing,
  type KeptRow,
} from "./action-list-kept";
import { withCurrentTableIds } from "./legacy-table-ids";
import { actionId, rowIdentities, shortHash, tableLabels, tableOfActionId } from "./action-ids";
import { formatCount } from "../numbers";

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));
const plain = (v: unknown) => text(v).replace(/^'/, "");

/** One table of the portfolio, as the host read it now. */
export interface PortfolioTable {
  /** The table's id (core/reports/action-ids.ts tableIds): letters and digits. */
  id: string;
  /** Its ids in an earlier add-in's form (legacy-table-ids.ts), so that a list written then keeps what was typed on it. */
  formerIds?: readonly string[];
  /** Its sheet's own id, as the host reads it (a row's link in a digest is made from it). */
  sheetId?: string | number;
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

/** An action of a table found: the index of its table, its property and obligation, its Action ID, and its typed row. */
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
  const ex = withCurrentTableIds(readExisting(existing, ownerHeaders), tables);
  const acts = tableActions(tables, o);
  const cols = layout(
    ex,
    ownerHeader,
    ownerHeaders,
    acts.some((a) => a.ob.evidence !== undefined),
  );
  const headers = cols.map((c) => (c.kind === "ours" ? c.name : c.header));
  const kept = ex?.rows ?? [];
  const typed = typedRowsOf(
    acts.map((a) => ({
      id: a.id,
      table: tables[a.t].id,
      uprn: plain(a.prop.uprn),
      check: a.ob.label,
      due: a.ob.due ?? "",
      action: a.ob.action,
    })),
    kept,
  );
  acts.forEach((a, i) => {
    a.kept = typed[i];
  });
  const { open, later, ended } = actionsByWhen(acts, o);
  const { gone, closed: stale } = untakenRows(kept, new Set(typed.filter((k) => !!k)), tables);
  const closed = [...ended, ...stale];

  const cells = rowCells(cols, labels, ex);
  const goneSections = [...gone].map(([tid, rows]) => goneSection(tid, rows, tables, labels, cells.fromKept));
  const grid = listGrid(
    headers,
    open.map((a) => ({ cells: cells.fromAct(a, a.ob.window ?? ""), from: a.kept?.at ?? null })),
    [
      {
        title: `${LATER_TITLE} (more than ${o.withinDays} days ahead)`,
        rows: later.map((a) => ({ cells: cells.fromAct(a, "Later"), from: a.kept?.at ?? null })),
      },
      { title: CLOSED_TITLE, rows: closed.map((k) => ({ cells: cells.fromKept(k, "Closed"), from: k.at })) },
      ...goneSections,
    ],
  );
  const values = grid.values;
  const colOf = (name: string) => headers.indexOf(name);
  const goneCounts = new Map([...gone].map(([tid, rows]) => [tid, rows.length]));
  return {
    values,
    headers,
    windowColumn: colOf("Window"),
    dateColumns: [colOf("Due")],
    doneColumn: colOf("Done"),
    notesColumn: colOf("Notes"),
    idColumn: colOf("Action ID"),
    userColumns: cols.flatMap((c, column) => (c.kind === "user" ? [{ column, from: c.index }] : [])),
    keptFrom: grid.keptFrom,
    open: open.length,
    closedTitleRow: grid.titleAt[1],
    titleRows: grid.titleAt.filter((r): r is number => r !== null),
    closed: closed.length,
    later: later.length,
    kept: [...goneCounts.values()].reduce((s, n) => s + n, 0),
    doneWithoutEvidence:
      colOf("Evidence") < 0
        ? 0
        : doneWithoutEvidence(values.slice(1).map((r) => ({ done: r[colOf("Done")], evidence: r[colOf("Evidence")] }))),
    tables: tableCounts(tables, labels, { open, later, closed }, gone),
    demo: open.some((a) => a.prop.demo) || later.some((a) => a.prop.demo),
    unreadColumns: [
      ...new Set(tables.flatMap((t) => (t.props ? (t.unreadColumns ?? []) : []).map(unreadColumnSentence))),
    ],
  };
}

/** Every action of every table found, with its Action ID. */
function tableActions(tables: readonly PortfolioTable[], o: Omit<ListOptions, "ownerHeader">): Act[] {
  const acts: Act[] = [];
  tables.forEach((table, t) => {
    if (!table.props) return;
    const rowIds = rowIdentities(table.props);
    const actions = actionsByProperty(table.props, o);
    table.props.forEach((prop, p) => {
      const ids = new Set<string>();
      for (const ob of actions[p]) {
        let id = actionId(table.id, rowIds[p], ob.check, ob.due, ob.dueNow);
        // Two obligations of one check due the same day (an expired certificate that also fails a standard).
        if (ids.has(id)) id = `${id}-${shortHash(ob.rule + ob.action)}`;
        ids.add(id);
        acts.push({ t, prop, ob, id });
      }
    });
  });
  return acts;
}

/**
 * Which section each action goes in: open, Later (typed on, due after the window), or ended (marked Done and past its
 * due date: its typed row goes under Closed); an action due later that nobody typed on is not listed. Open and Later
 * are each in the list's order.
 */
function actionsByWhen(
  acts: readonly Act[],
  o: Pick<ListOptions, "today" | "withinDays">,
): { open: Act[]; later: Act[]; ended: KeptRow[] } {
  const last = addDays(o.today, o.withinDays);
  const open: Act[] = [];
  const later: Act[] = [];
  const ended: KeptRow[] = [];
  for (const a of acts) {
    // An own-obligation with no date ("Record when the alarms were checked") stays open until its column says.
    const due = a.ob.due;
    if (a.kept && isMarkedDone(a.kept.done) && due && due < o.today) ended.push(a.kept);
    // A failed check's action is listed however far off its date: a failure is never left for later.
    else if (!due || a.ob.window === "Overdue" || a.ob.failed || due <= last) open.push(a);
    else if (a.kept?.typed) later.push(a);
  }
  open.sort(listOrder);
  later.sort(listOrder);
  return { open, later, ended };
}

const checkRank = (c: string) => (CHECK_NAMES as readonly string[]).indexOf(c) + 1 || 99;
const dueOf = (a: Act) => a.ob.due ?? "9999";

/** By due date (undated last), then table, row, check and the check's label. */
function listOrder(a: Act, b: Act): number {
  return dueOf(a) < dueOf(b)
    ? -1
    : dueOf(a) > dueOf(b)
      ? 1
      : a.t - b.t ||
        (a.prop.row ?? 0) - (b.prop.row ?? 0) ||
        checkRank(a.ob.check) - checkRank(b.ob.check) ||
        a.ob.label.localeCompare(b.ob.label);
}

/**
 * The rows of the sheet no action took back: those of tables no longer found (or no longer remembered) stay as they
 * were, by table; those of a table found whose action has gone go under Closed when something was typed on them.
 */
function untakenRows(
  kept: readonly KeptRow[],
  taken: ReadonlySet<KeptRow>,
  tables: readonly PortfolioTable[],
): { gone: Map<string, KeptRow[]>; closed: KeptRow[] } {
  const found = new Set(tables.filter((t) => t.props).map((t) => t.id));
  const gone = new Map<string, KeptRow[]>();
  const closed: KeptRow[] = [];
  for (const k of kept) {
    if (taken.has(k)) continue;
    const tid = tableOfActionId(k.id);
    if (tid && !found.has(tid)) gone.set(tid, [...(gone.get(tid) ?? []), k]);
    else if (k.typed) closed.push(k);
  }
  return { gone, closed };
}

/** What each column of the list holds on an action's row, and on a kept row (`window` null: as it was). */
function rowCells(cols: readonly Column[], labels: readonly string[], ex: Existing | null) {
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
  return { fromAct, fromKept };
}

interface ListRow {
  cells: Cell[];
  /** The index of the row of the sheet as read whose typed cells it carries, else null. */
  from: number | null;
}

/** The section of a table no longer found: its heading says which, and why when the host knows. */
function goneSection(
  tid: string,
  rows: readonly KeptRow[],
  tables: readonly PortfolioTable[],
  labels: readonly string[],
  fromKept: (k: KeptRow, window: null) => Cell[],
): { title: string; rows: ListRow[] } {
  const t = tables.findIndex((x) => x.id === tid);
  const label = t >= 0 ? labels[t] : rows.find((r) => r.table)?.table || tid;
  const why = t >= 0 && tables[t].problem ? ` (${tables[t].problem!.replace(/[.\s]+$/, "")})` : "";
  return {
    title: `${GONE_TITLE}: ${label}${why}. Its actions are kept as they were; delete these rows when you no longer need them.`,
    rows: rows.map((k) => ({ cells: fromKept(k, null), from: k.at })),
  };
}

/**
 * The sheet's cells: the header, the open rows, then each section that has rows after a blank row and its title.
 * `titleAt` is each section's title row (0-based), null for a section left out.
 */
function listGrid(
  headers: string[],
  open: readonly ListRow[],
  sections: readonly { title: string; rows: readonly ListRow[] }[],
): { values: Cell[][]; keptFrom: (number | null)[]; titleAt: (number | null)[] } {
  const values: Cell[][] = [headers];
  const keptFrom: (number | null)[] = [null];
  const put = (r: ListRow) => {
    values.push(r.cells);
    keptFrom.push(r.from);
  };
  open.forEach(put);
  const titleAt = sections.map((s) => {
    if (!s.rows.length) return null;
    put({ cells: headers.map(() => ""), from: null });
    const at = values.length;
    put({ cells: [s.title, ...headers.slice(1).map(() => "")], from: null });
    s.rows.forEach(put);
    return at;
  });
  return { values, keptFrom, titleAt };
}

/** Each table's counts, then one line per table whose rows are kept though it is no longer checked in the workbook. */
function tableCounts(
  tables: readonly PortfolioTable[],
  labels: readonly string[],
  listed: { open: readonly Act[]; later: readonly Act[]; closed: readonly KeptRow[] },
  gone: ReadonlyMap<string, readonly KeptRow[]>,
): TableCount[] {
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
      overdue: listed.open.filter((a) => mine(a) && a.ob.window === "Overdue").length,
      open: listed.open.filter(mine).length,
      later: listed.later.filter(mine).length,
      closed: listed.closed.filter((k) => tableOfActionId(k.id) === table.id).length,
      kept: gone.get(table.id)?.length ?? 0,
    };
  });
  const known = new Set(tables.map((t) => t.id));
  for (const [tid, rows] of gone) {
    if (known.has(tid)) continue;
    counts.push({
      id: tid,
      label: rows.find((r) => r.table)?.table || tid,
      found: false,
      problem: "no longer checked in this workbook",
      properties: 0,
      demo: 0,
      overdue: 0,
      open: 0,
      later: 0,
      closed: 0,
      kept: rows.length,
    });
  }
  return counts;
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
