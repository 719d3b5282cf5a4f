/**
 * The two sheets built from a results block after every check, the same in Excel and Google Sheets: "Action list" (one
 * row per property and check that needs action within N days, plus every overdue one, keeping what the user typed in
 * Done and Notes) and "Compliance summary" (live COUNTIF formulas over the block, and a table of actions due per month
 * for the chart). Also the Action list as an iCalendar file. Pure: hosts read cells, call these, write what they return.
 */
import { CHECK_NAMES, type CheckName } from "./checks";
import { DEMO_NOTE } from "./demo-key";
import { OUTPUT_COLUMNS, firstReportedOf, safeCellText, type Cell } from "./layout";
import {
  CHECK_LABELS,
  WINDOWS,
  addMonths,
  dateSerial,
  isoDay,
  obligationsFor,
  type Obligation,
  type UserDates,
  type WindowDays,
} from "./obligations";
import type { CheckResult } from "./schemas";
import { buildPortfolioList, type ActionListSheet, type PortfolioTable, type TableCount } from "./action-list";

import { cellDay, userDatesOf, type UserColumns } from "./user-columns";
import { rulesCountry, type CountryAnswer } from "./country";
import { readUserDate } from "./dates";
import { detectOwnColumns, ownInputsOf, ownObligations, type OwnInput } from "./own-obligations";
import type { OwnKey } from "./own-rules";
import { rowPlace } from "./row-place";

export { cellDay, detectUserColumns, readUserDates, userDatesOf, type UserColumns } from "./user-columns";

export const ACTION_LIST_SHEET = "Action list";
export const SUMMARY_SHEET = "Compliance summary";

const col = (key: string) => OUTPUT_COLUMNS.findIndex((c) => c.key === key);
const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

const MEMBERS: [CheckName, string, Record<string, string>][] = [
  ["epc", "epc_status", { rating: "epc_rating", expiry: "epc_expiry" }],
  ["gas_safety", "gas_status", { last_certificate: "gas_last_certificate", expiry: "gas_expiry" }],
  ["eicr", "eicr_status", { expiry: "eicr_expiry", detail: "eicr_detail" }],
  ["licensing", "licensing_status", { scheme: "licensing_scheme", expiry: "licensing_expiry" }],
  ["deposit_protection", "deposit_status", { scheme: "deposit_scheme", protected_date: "deposit_protected_date" }],
];

/**
 * A check result as our block's row shows it (block cells in OUTPUT_COLUMNS order), so that every sheet built from the
 * block gives the answers the row gives. A status of "error" or blank is a check not known. Null when no check is known.
 */
export function resultFromBlockRow(cells: readonly unknown[]): CheckResult | null {
  const checks: Record<string, Record<string, unknown>> = {};
  for (const [name, statusKey, fields] of MEMBERS) {
    const status = text(cells[col(statusKey)]).toLowerCase();
    if (!status || status === "error") continue;
    const m: Record<string, unknown> = { status };
    for (const [f, key] of Object.entries(fields)) {
      const v = cells[col(key)];
      m[f] = OUTPUT_COLUMNS[col(key)].kind === "date" ? cellDay(v) : text(v).replace(/^'/, "") || null;
    }
    checks[name] = m;
  }
  if (!Object.keys(checks).length) return null;
  const score = cells[col("compliance_score")];
  return {
    uprn: text(cells[col("matched_uprn")]),
    address: text(cells[col("matched_address")]),
    compliance_score: typeof score === "number" ? score : null,
    risk_level: text(cells[col("risk_level")]) || null,
    checks,
  } as CheckResult;
}

/** Whether a block row's result is the demo's (its Message says so), not a real check. */
export function isDemoRow(cells: readonly unknown[]): boolean {
  return text(cells[col("message")]).includes(DEMO_NOTE);
}

/** The day a block row was checked (its Checked at cell), else null. */
export function rowCheckedDay(cells: readonly unknown[]): string | null {
  return cellDay(cells[col("checked_at")]);
}

// ---------------------------------------------------------------------------------------------------------------
// The Action list.

/** One property of the results block, as the lists read it. */
export interface BlockProperty {
  /** The row's UPRN as the user's table has it (else the matched one). */
  uprn: string;
  address: string;
  owner?: string;
  /** The block's cells of this row, OUTPUT_COLUMNS order. */
  cells: readonly unknown[];
  userDates?: UserDates;
  /** The row's number on its sheet (1-based), as the user sees it. */
  row?: number;
  /** Its result is the demo's, not a real check. */
  demo?: boolean;
  /** The row's country (core/row-place.ts) and tenancy start: its country's rules, none out of scope. */
  country?: CountryAnswer;
  tenancyStart?: string;
  /** The row's own-obligation cells (smoke alarms, legionella...), with their Evidence. */
  own?: OwnInput[];
}

export interface ListOptions {
  /** The day the list counts from, YYYY-MM-DD. */
  today: string;
  /** Actions due within this many days are listed, with every overdue one. */
  withinDays: number;
  windows?: Partial<Record<CheckName, Partial<WindowDays>>>;
  /** The header of the user's owner column, when the table has one (the list then has that column). */
  ownerHeader?: string;
}

/** Every obligation of every property of the block, counted from `today`. */
export function blockObligations(
  props: readonly BlockProperty[],
  o: Pick<ListOptions, "today" | "windows">,
): { prop: BlockProperty; ob: Obligation }[] {
  const out: { prop: BlockProperty; ob: Obligation }[] = [];
  for (const prop of props) {
    const result = resultFromBlockRow(prop.cells);
    const country = prop.country ? rulesCountry(prop.country) : undefined;
    // Out of scope (Northern Ireland, the Crown dependencies): no country's deadlines, as the row says.
    if (!result || country === null) continue;
    const options = {
      today: o.today,
      windows: o.windows,
      userDates: prop.userDates,
      firstReported: firstReportedOf(prop.cells),
      country,
      tenancyStart: prop.tenancyStart,
    };
    for (const ob of obligationsFor(result, options)) out.push({ prop, ob });
  }
  return out;
}

/** One line of the Action list: a check's obligation, or one of the user's own columns' (with its Evidence). */
export interface ListItem {
  check: CheckName | OwnKey;
  label: string;
  due: string | null;
  daysLeft: number | null;
  window: Obligation["window"];
  action: string;
  rule: string;
  /** Set for an own-obligation: the Evidence cell of the source row ("" when the table has none or it is empty). */
  evidence?: string;
}

/**
 * Every action of every property: its checks' obligations with a due date, and its own columns' obligations with
 * something to do (those the law gives no date, "Record when the smoke alarms were checked", have no Due).
 */
export function blockActions(
  props: readonly BlockProperty[],
  o: Pick<ListOptions, "today" | "windows">,
): { prop: BlockProperty; ob: ListItem }[] {
  const out: { prop: BlockProperty; ob: ListItem }[] = [];
  for (const { prop, ob } of blockObligations(props, o)) {
    if (ob.due && ob.action)
      out.push({
        prop,
        ob: {
          check: ob.check,
          label: CHECK_LABELS[ob.check],
          due: ob.due,
          daysLeft: ob.daysLeft,
          window: ob.window,
          action: ob.action,
          rule: ob.rule,
        },
      });
  }
  for (const prop of props) {
    const country = prop.country ? rulesCountry(prop.country) : undefined;
    if (!prop.own?.length || country === null) continue;
    for (const ob of ownObligations(prop.own, {
      today: o.today,
      country: country ?? "England",
      tenancyStart: prop.tenancyStart,
    })) {
      if (!ob.action) continue;
      out.push({
        prop,
        ob: {
          check: ob.key,
          label: ob.label,
          due: ob.due,
          daysLeft: ob.daysLeft,
          window: ob.window,
          action: ob.action,
          rule: ob.rule,
          evidence: ob.evidence,
        },
      });
    }
  }
  return out;
}

/**
 * The Action list of one table (the portfolio of one): see buildPortfolioList in core/action-list.ts, which the hosts
 * call with every table of the workbook.
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

// ---------------------------------------------------------------------------------------------------------------
// The Compliance summary.

/** Where the results block stands, for the summary's formulas. */
export interface BlockRef {
  sheet: string;
  /** 0-based: the block's first column, and its first and last data rows. */
  column: number;
  firstRow: number;
  lastRow: number;
  /** The Excel Table whose own columns the block is: formulas then name its columns (Properties[EPC status]). */
  table?: string;
}

export function columnLetters(index: number): string {
  let s = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/**
 * 'Sheet name'!$E$2:$E$101 for one column of the block; in an Excel Table, the structured reference to the Table's column
 * (Properties[EPC status]), which also takes in rows the Table gains after the check.
 */
export function blockColumnRef(b: BlockRef, key: string): string {
  if (b.table) return `${b.table}[${OUTPUT_COLUMNS[col(key)].header.replace(/['#[\]]/g, "'$&")}]`;
  const letter = columnLetters(b.column + col(key));
  return `'${b.sheet.replace(/'/g, "''")}'!$${letter}$${b.firstRow + 1}:$${letter}$${Math.max(b.firstRow, b.lastRow) + 1}`;
}

export const SUMMARY_STATUSES = ["pass", "warning", "fail", "not_required"] as const;
export const MONTHS_AHEAD = 18;

export interface SummarySheet {
  /** Cells from A1; strings starting "=" are formulas (hosts write this grid as formulas). */
  cells: Cell[][];
  /** The chart's source: rows and columns of the due-per-month table, 0-based, header row and label column included. */
  chart: { firstRow: number; firstColumn: number; rowCount: number; columnCount: number };
  /** Where each count table stands (0-based), for tests and hosts that format them. */
  tables: { status: number; risk: number; window: number; months: number; tables: number };
  /** Rows (0-based) of header lines to make bold. */
  headerRows: number[];
}

/** The summary's line counting Action list rows marked Done with an empty Evidence. */
export const DONE_WITHOUT_EVIDENCE = "Marked done without evidence (Action list)";

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Actions due per month over the next 18 months, by check, with an "Overdue" row first. */
export function dueByMonth(
  props: readonly BlockProperty[],
  o: Pick<ListOptions, "today" | "windows">,
): { labels: string[]; counts: number[][] } {
  const start = o.today.slice(0, 7) + "-01";
  const labels = ["Overdue", ...Array.from({ length: MONTHS_AHEAD }, (_, i) => addMonths(start, i).slice(0, 7))];
  const counts = labels.map(() => CHECK_NAMES.map(() => 0));
  for (const { ob } of blockObligations(props, o)) {
    if (!ob.due || !ob.action) continue;
    const c = CHECK_NAMES.indexOf(ob.check);
    if (ob.window === "Overdue") counts[0][c]++;
    else {
      const i = labels.indexOf(ob.due.slice(0, 7));
      if (i > 0) counts[i][c]++;
    }
  }
  return { labels, counts };
}

/**
 * The Compliance summary of the portfolio: counts by status for each check, by risk level and by window as live COUNTIF
 * formulas over every table's results block (so edits and re-runs update them without the add-in), an "as of" stamp,
 * the table of actions due per month that the chart shows (values as of the run), and, given the Action list's counts,
 * a line per table (a table no longer found says so) and their total. Results of the demo key say so.
 */
export function buildSummary(
  block: BlockRef | readonly BlockRef[],
  props: readonly BlockProperty[],
  o: Pick<ListOptions, "today" | "windows"> & {
    asOf: string;
    tables?: readonly TableCount[];
    withinDays?: number;
    doneWithoutEvidence?: number;
  },
): SummarySheet {
  const blocks = Array.isArray(block) ? (block as readonly BlockRef[]) : [block as BlockRef];
  const cells: Cell[][] = [];
  const width = 7;
  const row = (...v: Cell[]) => cells.push([...v, ...Array(Math.max(0, width - v.length)).fill("")]);
  const headerRows: number[] = [];
  const where = (b: BlockRef) =>
    `${b.sheet}!${columnLetters(b.column)}${b.firstRow + 1}:${columnLetters(b.column + OUTPUT_COLUMNS.length - 1)}${b.lastRow + 1}`;
  // Over every block: one COUNTIF (or COUNTA) per block, added up.
  const over = (key: string, f: (ref: string) => string) =>
    blocks.length ? blocks.map((b) => f(blockColumnRef(b, key))).join("+") : "0";
  row("Compliance summary");
  // Shown, not used in a formula: the sheet's name as it is (a leading apostrophe would be taken for a text prefix).
  row(
    "As of",
    safeCellText(o.asOf),
    blocks.length === 1 ? "Results block" : "Results blocks",
    safeCellText(blocks.map(where).join("; ")),
  );
  row("Counts are live formulas over the results blocks; the table of actions due per month is as of the last check.");
  const demo = props.filter((p) => p.demo).length;
  if (demo)
    row(
      safeCellText(
        `${DEMO_NOTE}: ${demo.toLocaleString("en-GB")} of ${props.length.toLocaleString("en-GB")} properties here have demo results, not real checks.`,
      ),
    );
  row();
  const status = cells.length;
  headerRows.push(status);
  row("Check", ...SUMMARY_STATUSES, "error / unknown", "Total");
  for (const [name, statusKey] of MEMBERS) {
    const r = cells.length + 1;
    row(
      CHECK_LABELS[name],
      ...SUMMARY_STATUSES.map((s) => `=${over(statusKey, (ref) => `COUNTIF(${ref},${q(s)})`)}`),
      `=${over(statusKey, (ref) => `COUNTIF(${ref},"error")+COUNTIF(${ref},"unknown")`)}`,
      `=SUM(B${r}:F${r})`,
    );
  }
  row();
  const risk = cells.length;
  headerRows.push(risk);
  row("Risk level", "Properties");
  for (const level of ["low", "medium", "high"])
    row(level, `=${over("risk_level", (ref) => `COUNTIF(${ref},${q(level)})`)}`);
  row(
    "other / none",
    `=${over("checked_at", (ref) => `COUNTA(${ref})`)}-${["low", "medium", "high"].map((l) => over("risk_level", (ref) => `COUNTIF(${ref},${q(l)})`)).join("-")}`,
  );
  row(
    "Average score",
    blocks.length ? `=IFERROR(AVERAGE(${blocks.map((b) => blockColumnRef(b, "compliance_score")).join(",")}),"")` : "",
  );
  row();
  const windowAt = cells.length;
  headerRows.push(windowAt);
  row("Window", "Properties");
  for (const w of WINDOWS) row(w, `=${over("window", (ref) => `COUNTIF(${ref},${q(w)})`)}`);
  // From the Action list as built (its Done and Evidence columns), when it has an Evidence column.
  if (o.doneWithoutEvidence !== undefined) row(DONE_WITHOUT_EVIDENCE, o.doneWithoutEvidence);
  row();
  const months = cells.length;
  headerRows.push(months);
  const due = dueByMonth(props, o);
  row("Actions due", ...CHECK_NAMES.map((c) => CHECK_LABELS[c]));
  due.labels.forEach((label, i) => row(label, ...due.counts[i]));
  let tablesAt = -1;
  if (o.tables?.length) {
    row();
    tablesAt = cells.length;
    headerRows.push(tablesAt);
    row(
      "Table",
      "Properties",
      "Overdue",
      `Listed${o.withinDays ? ` (within ${o.withinDays} days)` : ""}`,
      "Later",
      "Closed",
      "State",
    );
    const total = { properties: 0, overdue: 0, open: 0, later: 0, closed: 0 };
    for (const t of o.tables) {
      for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += t[k];
      const state = t.found
        ? t.demo
          ? `${DEMO_NOTE} (${t.demo.toLocaleString("en-GB")} demo results)`
          : "Checked"
        : `No longer found${t.problem ? ` (${t.problem.replace(/[.\s]+$/, "")})` : ""}: ${t.kept.toLocaleString("en-GB")} of its actions kept on the Action list`;
      row(safeCellText(t.label), t.properties, t.overdue, t.open, t.later, t.closed, safeCellText(state));
    }
    row("Total", total.properties, total.overdue, total.open, total.later, total.closed, "");
  }
  return {
    cells,
    chart: { firstRow: months, firstColumn: 0, rowCount: due.labels.length + 1, columnCount: CHECK_NAMES.length + 1 },
    tables: { status, risk, window: windowAt, months, tables: tablesAt },
    headerRows,
  };
}

/** The date serial of a YYYY-MM-DD cell, for hosts writing the lists' date columns as real dates. */
export function hostDate(v: Cell): Cell {
  return typeof v === "string" && isoDay(v) ? (dateSerial(v) ?? v) : v;
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the block for the lists: the same in both hosts.

export interface TableColumns {
  /** 0-based columns in the rows given: the block's first column, the user's UPRN and address columns when known. */
  blockColumn: number;
  uprn?: number;
  address?: number;
  user?: UserColumns;
  /** The sheet row (1-based) of the first row given, so that each property says which row it is. */
  firstRow?: number;
  /** The table's header row (same columns as the rows): its Country, Tenancy start and own-obligation columns are read. */
  header?: readonly unknown[];
  /** 0-based column of the user's Postcode input. */
  postcode?: number;
  /** The file's locale writes dates month-first. */
  monthFirst?: boolean;
  /**
   * The table ends at its first blank row or at the next header row of a results block (another table below it on the
   * same sheet); without this every row given is the table's.
   */
  untilBlank?: boolean;
}

/** How many of the rows under a table's header are its own: up to its first blank row or the next block's header row. */
export function tableRowCount(rows: readonly (readonly unknown[])[], blockColumn: number): number {
  const blank = (v: unknown) => v === null || v === undefined || (typeof v === "string" && v.trim() === "");
  const first = OUTPUT_COLUMNS[0].header.toLowerCase();
  const end = rows.findIndex((r) => r.every(blank) || text(r[blockColumn]).toLowerCase() === first);
  return end < 0 ? rows.length : end;
}

/**
 * The properties of a results block from the table's data rows (each row as the sheet holds it, from column A or from
 * the same first column as the indexes): rows whose block holds no check are left out. The UPRN is the user's cell
 * when there is one, else the matched UPRN; the address the user's, else the matched address.
 */
export function blockProperties(rows: readonly (readonly unknown[])[], c: TableColumns): BlockProperty[] {
  const out: BlockProperty[] = [];
  const ours = new Set(OUTPUT_COLUMNS.map((_c, k) => c.blockColumn + k));
  const own = c.header ? detectOwnColumns(c.header, ours) : [];
  const readDay = (v: unknown) => {
    const r = readUserDate(v, "", { monthFirst: c.monthFirst });
    return "day" in r ? r.day : null;
  };
  (c.untilBlank ? rows.slice(0, tableRowCount(rows, c.blockColumn)) : rows).forEach((row, i) => {
    const cells = Array.from({ length: OUTPUT_COLUMNS.length }, (_, k) => row[c.blockColumn + k]);
    if (!resultFromBlockRow(cells)) return;
    const uprn =
      (c.uprn !== undefined ? text(row[c.uprn]).replace(/^'/, "") : "") ||
      text(cells[col("matched_uprn")]).replace(/^'/, "");
    const address =
      (c.address !== undefined ? text(row[c.address]).replace(/^'/, "") : "") ||
      text(cells[col("matched_address")]).replace(/^'/, "");
    out.push({
      uprn,
      address,
      owner: c.user?.owner !== undefined ? text(row[c.user.owner]).replace(/^'/, "") : undefined,
      cells,
      userDates: c.user ? userDatesOf(row, c.user) : undefined,
      row: c.firstRow !== undefined ? c.firstRow + i : undefined,
      demo: isDemoRow(cells),
      ...(c.header ? placeOf(c, row, cells, ours) : {}),
      ...(own.length ? { own: ownInputsOf(row, own, readDay) } : {}),
    });
  });
  return out;
}

/** A block row's country and tenancy start, by the rule the results block used (core/row-place.ts). */
function placeOf(
  c: TableColumns,
  row: readonly unknown[],
  cells: readonly unknown[],
  ours: ReadonlySet<number>,
): Pick<BlockProperty, "country" | "tenancyStart"> {
  const p = rowPlace(
    c.header,
    row,
    { address: text(cells[col("matched_address")]) },
    { postcodeColumn: c.postcode, exclude: ours, monthFirst: c.monthFirst },
  );
  return { ...(p.country ? { country: p.country } : {}), ...(p.tenancyStart ? { tenancyStart: p.tenancyStart } : {}) };
}

/** The latest Checked at time of the block's rows ("YYYY-MM-DD hh:mm:ss" UTC), for the summary's "as of" stamp. */
export function lastCheckedAt(props: readonly BlockProperty[]): string {
  let best = "";
  for (const p of props) {
    const v = p.cells[col("checked_at")];
    const t =
      v && typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]"
        ? new Date((v as Date).getTime()).toISOString().slice(0, 19).replace("T", " ")
        : typeof v === "number"
          ? new Date(Math.round((v - 25569) * 86_400_000)).toISOString().slice(0, 19).replace("T", " ")
          : text(v);
    if (t > best) best = t;
  }
  return best ? `${best} UTC` : "";
}
