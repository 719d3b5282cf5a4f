/**
 * What the two sheets built after every check read from a results block, the same in Excel and Google Sheets: each
 * row's result, obligations and actions (the "Action list" itself is action-list.ts, the "Compliance summary"
 * compliance-summary.ts), and the block read as properties. Pure: hosts read cells, call these, write what they return.
 */
import type { CheckName } from "../service/checks";
import { OUTPUT_COLUMNS, firstReportedOf, isDemoRow, type Cell } from "../sheet/layout";
import {
  CHECK_LABELS,
  dateSerial,
  isoDay,
  obligationsFor,
  type Obligation,
  type UserDates,
  type WindowDays,
} from "../compliance/obligations";
import type { CheckResult } from "../service/schemas";
import { cellDay, type UserColumns } from "../sheet/user-columns";
import { rulesCountry, type CountryAnswer } from "../compliance/country";
import type { ReadDateOptions } from "../sheet/user-dates";
import { detectContextColumns, ownObligations } from "../compliance/own-obligations";
import type { OwnInput, OwnKey } from "../compliance/own-rules";
import { rowPlace } from "../compliance/row-place";
import { dateReading, rowDates } from "../sheet/row-dates";

export { cellDay, detectUserColumns, readUserDates, type UserColumns } from "../sheet/user-columns";

export const ACTION_LIST_SHEET = "Action list";
export const SUMMARY_SHEET = "Compliance summary";

/** Each output column's index by key, found once: every sheet built from a block reads each of its rows by key. */
const COLUMN_INDEX = new Map(OUTPUT_COLUMNS.map((c, i) => [c.key, i]));
const col = (key: string) => COLUMN_INDEX.get(key) ?? -1;
const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

export const MEMBERS: [CheckName, string, Record<string, string>][] = [
  ["epc", "epc_status", { rating: "epc_rating", expiry: "epc_expiry" }],
  ["gas_safety", "gas_status", { last_certificate: "gas_last_certificate", expiry: "gas_expiry" }],
  ["eicr", "eicr_status", { expiry: "eicr_expiry", detail: "eicr_detail" }],
  ["licensing", "licensing_status", { scheme: "licensing_scheme", expiry: "licensing_expiry" }],
  ["deposit_protection", "deposit_status", { scheme: "deposit_scheme", protected_date: "deposit_protected_date" }],
];

/** MEMBERS by column index: each check's status column, and each field's column and whether it holds a date. */
const MEMBER_CELLS = MEMBERS.map(
  ([name, statusKey, fields]) =>
    [
      name,
      col(statusKey),
      Object.entries(fields).map(([f, key]) => [f, col(key), OUTPUT_COLUMNS[col(key)].kind === "date"] as const),
    ] as const,
);

/**
 * A check result as our block's row shows it (block cells in OUTPUT_COLUMNS order), so that every sheet built from the
 * block gives the answers the row gives. A status of "error" or blank is a check not known. Null when no check is known.
 */
export function resultFromBlockRow(cells: readonly unknown[]): CheckResult | null {
  const checks: Record<string, Record<string, unknown>> = {};
  for (const [name, statusAt, fields] of MEMBER_CELLS) {
    const status = text(cells[statusAt]).toLowerCase();
    if (!status || status === "error") continue;
    const m: Record<string, unknown> = { status };
    for (const [f, at, date] of fields) {
      const v = cells[at];
      m[f] = date ? cellDay(v) : text(v).replace(/^'/, "") || null;
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
  /** The row's "Assigned to" (or "Responsible") cell, as typed: whom the reminder digests send its actions to. */
  assignee?: string;
  /** The block's cells of this row, OUTPUT_COLUMNS order. */
  cells: readonly unknown[];
  userDates?: UserDates;
  /** The row's number on its sheet (1-based), as the user sees it. */
  row?: number;
  /** Its result is the demo's, not a real check. */
  demo?: boolean;
  /** The row's country (core/compliance/row-place.ts) and tenancy start: its country's rules, none out of scope. */
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

/**
 * Each property's obligations as last worked out, with the day and windows they were counted with: the Action list and
 * the summary built after one run read the same properties, and each would otherwise count all their obligations again.
 */
const propObligations = new WeakMap<
  BlockProperty,
  { today: string; windows: string; obligations: readonly Obligation[] }
>();

function propertyObligations(prop: BlockProperty, o: Pick<ListOptions, "today" | "windows">): readonly Obligation[] {
  const result = rowResults.get(prop.cells) ?? resultFromBlockRow(prop.cells);
  const country = prop.country ? rulesCountry(prop.country) : undefined;
  // Out of scope (Northern Ireland, the Crown dependencies): no country's deadlines, as the row says.
  if (!result || country === null) return [];
  return obligationsFor(result, {
    today: o.today,
    windows: o.windows,
    userDates: prop.userDates,
    firstReported: firstReportedOf(prop.cells),
    country,
    tenancyStart: prop.tenancyStart,
  });
}

/** The windows as the remembered obligations are keyed by: worked out once per block, not once per property. */
const windowsKey = (o: Pick<ListOptions, "windows">) => JSON.stringify(o.windows ?? null);

/** A property's obligations counted from `today` with `windows` (windowsKey), remembered for the next sheet built. */
function obligationsOf(prop: BlockProperty, o: Pick<ListOptions, "today" | "windows">, windows: string) {
  const seen = propObligations.get(prop);
  if (seen && seen.today === o.today && seen.windows === windows) return seen.obligations;
  const obligations = propertyObligations(prop, o);
  propObligations.set(prop, { today: o.today, windows, obligations });
  return obligations;
}

/** Every obligation of every property of the block, counted from `today`. */
export function blockObligations(
  props: readonly BlockProperty[],
  o: Pick<ListOptions, "today" | "windows">,
): { prop: BlockProperty; ob: Obligation }[] {
  const out: { prop: BlockProperty; ob: Obligation }[] = [];
  const windows = windowsKey(o);
  for (const prop of props) for (const ob of obligationsOf(prop, o, windows)) out.push({ prop, ob });
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
  /** It answers a check the service failed: listed whatever its window (Obligation.failed). */
  failed?: true;
  /** Due now, with no day of its own (Obligation.dueNow). */
  dueNow?: true;
}

/**
 * Every action of each property, in the order of `props`: its checks' obligations with a due date, then its own columns'
 * obligations with something to do (those the law gives no date, "Record when the smoke alarms were checked", have no
 * Due).
 */
export function actionsByProperty(
  props: readonly BlockProperty[],
  o: Pick<ListOptions, "today" | "windows">,
): ListItem[][] {
  const windows = windowsKey(o);
  return props.map((prop) => [...checkActions(obligationsOf(prop, o, windows)), ...ownActions(prop, o)]);
}

function checkActions(obligations: readonly Obligation[]): ListItem[] {
  const out: ListItem[] = [];
  for (const ob of obligations) {
    if (ob.due && ob.action)
      out.push({
        check: ob.check,
        label: CHECK_LABELS[ob.check],
        due: ob.due,
        daysLeft: ob.daysLeft,
        window: ob.window,
        action: ob.action,
        rule: ob.rule,
        ...(ob.failed ? { failed: ob.failed } : {}),
        ...(ob.dueNow ? { dueNow: ob.dueNow } : {}),
      });
  }
  return out;
}

function ownActions(prop: BlockProperty, o: Pick<ListOptions, "today">): ListItem[] {
  const country = prop.country ? rulesCountry(prop.country) : undefined;
  if (!prop.own?.length || country === null) return [];
  const out: ListItem[] = [];
  for (const ob of ownObligations(prop.own, {
    today: o.today,
    country: country ?? "England",
    tenancyStart: prop.tenancyStart,
  })) {
    if (!ob.action) continue;
    out.push({
      check: ob.key,
      label: ob.label,
      due: ob.due,
      daysLeft: ob.daysLeft,
      window: ob.window,
      action: ob.action,
      rule: ob.rule,
      evidence: ob.evidence,
    });
  }
  return out;
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
  /**
   * The table's header row (same columns as the rows): its date columns (core/sheet/row-dates.ts) and Country column are
   * read. Without it, `user` names the date columns.
   */
  header?: readonly unknown[];
  /** 0-based column of the user's Postcode input. */
  postcode?: number;
  /** How the file writes dates (its order) and the day they are read on: the block's rows were read the same way. */
  dates: ReadDateOptions;
  /**
   * The table ends at its first blank row or at the next header row of a results block (another table below it on the
   * same sheet); without this every row given is the table's.
   */
  untilBlank?: boolean;
}

/** The result each property's cells show, as blockProperties read it: its obligations are counted from it, not read again. */
const rowResults = new WeakMap<readonly unknown[], CheckResult>();

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
  // The header's Country column, found once for every row's place.
  const context = c.header ? detectContextColumns(c.header, ours) : {};
  // The same reading of the row's typed dates as the results block's (one rule, the file's order).
  const reading = c.header
    ? dateReading(c.header, c.dates, ours)
    : { ...dateReading(undefined, c.dates), user: c.user ?? {} };
  (c.untilBlank ? rows.slice(0, tableRowCount(rows, c.blockColumn)) : rows).forEach((row, i) => {
    // Every cell of the block, one past the row's end as undefined (a loop: Array.from's callback per cell was slower).
    const cells: unknown[] = new Array(OUTPUT_COLUMNS.length);
    for (let k = 0; k < cells.length; k++) cells[k] = row[c.blockColumn + k];
    const result = resultFromBlockRow(cells);
    if (!result) return;
    rowResults.set(cells, result);
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
      ...(c.user?.assignee !== undefined ? { assignee: text(row[c.user.assignee]).replace(/^'/, "") } : {}),
      cells,
      ...propertyDates(rowDates(row, reading)),
      row: c.firstRow !== undefined ? c.firstRow + i : undefined,
      demo: isDemoRow(cells),
      ...(c.header ? placeOf(c, row, cells, ours, context) : {}),
    });
  });
  return out;
}

/** What a property takes from its row's typed dates. */
function propertyDates(d: ReturnType<typeof rowDates>): Pick<BlockProperty, "userDates" | "tenancyStart" | "own"> {
  return {
    userDates: d.userDates,
    ...(d.tenancyStart ? { tenancyStart: d.tenancyStart } : {}),
    ...(d.own.length ? { own: d.own } : {}),
  };
}

/** A block row's country, by the rule the results block used (core/compliance/row-place.ts). */
function placeOf(
  c: TableColumns,
  row: readonly unknown[],
  cells: readonly unknown[],
  ours: ReadonlySet<number>,
  context: { country?: number },
): Pick<BlockProperty, "country"> {
  const p = rowPlace(
    c.header,
    row,
    { address: text(cells[col("matched_address")]) },
    { postcodeColumn: c.postcode, exclude: ours, context },
  );
  return p.country ? { country: p.country } : {};
}

/**
 * The summary's "as of" stamp in both add-ins: the latest Checked at time of the block's rows ("YYYY-MM-DD hh:mm:ss
 * UTC"), or "not checked yet" when no row has one.
 */
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
  return best ? `${best} UTC` : "not checked yet";
}
