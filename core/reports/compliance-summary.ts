/**
 * The "Compliance summary" sheet, the same in Excel and Google Sheets: counts by status for each check, by risk level
 * and by window as live COUNTIF formulas over every table's results block, the table of actions due per month that its
 * chart shows, and a line per table of the portfolio. Pure: hosts write the cells it returns.
 */
import { CHECK_NAMES } from "../service/checks";
import { DEMO_NOTE } from "../demo/demo-key";
import { OUTPUT_COLUMNS, columnLetters, safeCellText, type Cell } from "../sheet/layout";
import { CHECK_LABELS, WINDOWS, addMonths } from "../compliance/obligations";
import type { TableCount } from "./action-list";
import { MEMBERS, blockObligations, type BlockProperty, type ListOptions } from "./actions";
import type { BlockRef } from "../sheet/block-ref";
import { COUNT_FORMAT, formatCount } from "../numbers";

const col = (key: string) => OUTPUT_COLUMNS.findIndex((c) => c.key === key);

export type { BlockRef };

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
/** The title of the summary's chart of actions due per month, in both add-ins. */
export const SUMMARY_CHART_TITLE = `Actions due per month (next ${MONTHS_AHEAD} months; Overdue first)`;

export interface SummarySheet {
  /** Cells from A1; strings starting "=" are formulas (hosts write this grid as formulas). */
  cells: Cell[][];
  /** The chart's source: rows and columns of the due-per-month table, 0-based, header row and label column included. */
  chart: { firstRow: number; firstColumn: number; rowCount: number; columnCount: number; title: string };
  /** Where each count table stands (0-based), for tests and hosts that format them. */
  tables: { status: number; risk: number; window: number; months: number; tables: number };
  /** Rows (0-based) of header lines to make bold. */
  headerRows: number[];
  /** The number format of each cell of `cells`: COUNT_FORMAT for every count ("2,500"), General for the rest. */
  numberFormats: string[][];
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
  const g = summaryGrid(7);
  // Over every block: one COUNTIF (or COUNTA) per block, added up.
  const over = (key: string, f: (ref: string) => string) =>
    blocks.length ? blocks.map((b) => f(blockColumnRef(b, key))).join("+") : "0";
  summaryHead(g, blocks, props, o.asOf);
  const status = statusCounts(g, over);
  g.row();
  const risk = riskCounts(g, blocks, over);
  g.row();
  const windowAt = g.header("Window", "Properties");
  for (const w of WINDOWS) g.counts(w, [`=${over("window", (ref) => `COUNTIF(${ref},${q(w)})`)}`]);
  // From the Action list as built (its Done and Evidence columns), when it has an Evidence column.
  if (o.doneWithoutEvidence !== undefined) g.counts(DONE_WITHOUT_EVIDENCE, [o.doneWithoutEvidence]);
  g.row();
  const due = dueByMonth(props, o);
  const months = g.header("Actions due", ...CHECK_NAMES.map((c) => CHECK_LABELS[c]));
  due.labels.forEach((label, i) => g.counts(label, due.counts[i]));
  let tablesAt = -1;
  if (o.tables?.length) {
    g.row();
    tablesAt = tableLines(g, o.tables, o.withinDays);
  }
  return {
    cells: g.cells,
    chart: {
      firstRow: months,
      firstColumn: 0,
      rowCount: due.labels.length + 1,
      columnCount: CHECK_NAMES.length + 1,
      title: SUMMARY_CHART_TITLE,
    },
    tables: { status, risk, window: windowAt, months, tables: tablesAt },
    headerRows: g.headerRows,
    numberFormats: g.formats,
  };
}

/**
 * The summary's cells as they are written, each row padded to `width`, with their number formats: `header` writes a
 * bold row and returns it; `counts` a label, its counts (COUNT_FORMAT) and any words after them.
 */
function summaryGrid(width: number) {
  const cells: Cell[][] = [];
  const formats: string[][] = [];
  const headerRows: number[] = [];
  const row = (...v: Cell[]) => {
    cells.push([...v, ...Array(Math.max(0, width - v.length)).fill("")]);
    formats.push(Array(Math.max(width, v.length)).fill("General"));
  };
  const counts = (label: Cell, n: readonly Cell[], ...after: Cell[]) => {
    row(label, ...n, ...after);
    n.forEach((_v, i) => (formats[formats.length - 1][i + 1] = COUNT_FORMAT));
  };
  const header = (...v: Cell[]) => {
    headerRows.push(cells.length);
    row(...v);
    return headerRows[headerRows.length - 1];
  };
  return { cells, formats, headerRows, row, counts, header };
}
type SummaryGrid = ReturnType<typeof summaryGrid>;
type Over = (key: string, f: (ref: string) => string) => string;

/** The title, the "as of" stamp with the blocks counted, and a line saying how many results come from the demo key. */
function summaryHead(g: SummaryGrid, blocks: readonly BlockRef[], props: readonly BlockProperty[], asOf: string): void {
  const where = (b: BlockRef) =>
    `${b.sheet}!${columnLetters(b.column)}${b.firstRow + 1}:${columnLetters(b.column + OUTPUT_COLUMNS.length - 1)}${b.lastRow + 1}`;
  g.row("Compliance summary");
  // Shown, not used in a formula: the sheet's name as it is (a leading apostrophe would be taken for a text prefix).
  g.row(
    "As of",
    safeCellText(asOf),
    blocks.length === 1 ? "Results block" : "Results blocks",
    safeCellText(blocks.map(where).join("; ")),
  );
  g.row(
    "Counts are live formulas over the results blocks; the table of actions due per month is as of the last check.",
  );
  const demo = props.filter((p) => p.demo).length;
  if (demo)
    g.row(
      safeCellText(
        `${DEMO_NOTE}: ${formatCount(demo)} of ${formatCount(props.length)} properties here have demo results, not real checks.`,
      ),
    );
  g.row();
}

/** Each check's results by status, with the errors and the total. Returns the table's header row. */
function statusCounts(g: SummaryGrid, over: Over): number {
  const at = g.header("Check", ...SUMMARY_STATUSES, "error / unknown", "Total");
  for (const [name, statusKey] of MEMBERS) {
    const r = g.cells.length + 1;
    g.counts(CHECK_LABELS[name], [
      ...SUMMARY_STATUSES.map((s) => `=${over(statusKey, (ref) => `COUNTIF(${ref},${q(s)})`)}`),
      `=${over(statusKey, (ref) => `COUNTIF(${ref},"error")+COUNTIF(${ref},"unknown")`)}`,
      `=SUM(B${r}:F${r})`,
    ]);
  }
  return at;
}

/** Properties by risk level, those with none, and the average score. Returns the table's header row. */
function riskCounts(g: SummaryGrid, blocks: readonly BlockRef[], over: Over): number {
  const at = g.header("Risk level", "Properties");
  for (const level of ["low", "medium", "high"])
    g.counts(level, [`=${over("risk_level", (ref) => `COUNTIF(${ref},${q(level)})`)}`]);
  // Both sides in brackets: over two blocks, "a-b+c" would add the second block's counts it must take away.
  g.counts("other / none", [
    `=(${over("checked_at", (ref) => `COUNTA(${ref})`)})-(${["low", "medium", "high"].map((l) => over("risk_level", (ref) => `COUNTIF(${ref},${q(l)})`)).join("+")})`,
  ]);
  // A score of 0 to 100, not a count: its average keeps the spreadsheet's own General format (a fraction shows).
  g.row(
    "Average score",
    blocks.length ? `=IFERROR(AVERAGE(${blocks.map((b) => blockColumnRef(b, "compliance_score")).join(",")}),"")` : "",
  );
  return at;
}

/** A line per table of the portfolio (a table no longer found says so), then their total. Returns the header row. */
function tableLines(g: SummaryGrid, tables: readonly TableCount[], withinDays: number | undefined): number {
  const at = g.header(
    "Table",
    "Properties",
    "Overdue",
    `Listed${withinDays ? ` (within ${withinDays} days)` : ""}`,
    "Later",
    "Closed",
    "State",
  );
  const total = { properties: 0, overdue: 0, open: 0, later: 0, closed: 0 };
  for (const t of tables) {
    for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += t[k];
    const state = t.found
      ? t.demo
        ? `${DEMO_NOTE} (${formatCount(t.demo)} demo results)`
        : "Checked"
      : `No longer found${t.problem ? ` (${t.problem.replace(/[.\s]+$/, "")})` : ""}: ${formatCount(t.kept)} of its actions kept on the Action list`;
    g.counts(safeCellText(t.label), [t.properties, t.overdue, t.open, t.later, t.closed], safeCellText(state));
  }
  g.counts("Total", [total.properties, total.overdue, total.open, total.later, total.closed], "");
  return at;
}
