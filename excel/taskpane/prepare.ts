/**
 * "Check selected rows", first half: read the selection (or, for re-check on open, the table around a cell), find the
 * input columns and our results block, and validate every row with core. Nothing is sent; check-run.ts runs it.
 */
import {
  OUTPUT_COLUMNS,
  columnsNamed,
  lastColumnInUse,
  planScreening,
  planTable,
  rowsAfterBlank,
  startNotes,
  type ColumnMapping,
  type InputRow,
  type PlanName,
  type TablePlan,
  type TableRefusal,
} from "../../core";
import {
  SHEET_COLUMNS,
  columnLetter,
  hiddenRowOffsets,
  lastUsedColumn,
  readBlock,
  readSelection,
  readTableAround,
  type Block,
  type SelectionRead,
} from "./sheet";
import { tableResults } from "./tables";

export type ExcelRun = <T>(fn: (context: Excel.RequestContext) => Promise<T>) => Promise<T>;

export interface RowProblem {
  /** 1-based sheet row number, as the user sees it. */
  row: number;
  message: string;
}

export interface PreparedCheck {
  region: Block;
  headerRow: number | null;
  mapping: ColumnMapping;
  /** Selected data rows; `index` is the offset into the region. */
  rows: InputRow[];
  problems: RowProblem[];
  /** Top-left of our output block (its header row is the region's first row when there is a header). */
  origin: { sheet: string; rowIndex: number; columnIndex: number };
  /** Whether the block was already there (a re-run updates it in place). */
  inPlace: boolean;
  previous: unknown[][];
  distinct: number;
  /** What the user is told as the check begins, one line each (core's startNotes): where the results go, and more. */
  placement: string;
  /** Blank rows at the end of the selection, left out (not a row error each). */
  blankRowsSkipped: number;
  /** Offsets of the rows hidden by a filter when the check was prepared (runCheck reads them again as it starts). */
  hidden?: number[];
}

/**
 * A refused selection. `headers` (every column of the table, to offer in the column chooser) is empty when choosing
 * columns by hand cannot help (nothing selected, no room for the results); `found` is what the headers did name (an
 * Address column, say), to preselect, and `hasHeader` whether the first row reads as a header.
 */
export type PrepareOutcome =
  | { ok: true; check: PreparedCheck }
  | { ok: false; message: string; headers: string[]; found?: ColumnMapping; hasHeader?: boolean };

export interface PrepareOptions {
  mapping?: ColumnMapping;
  hasHeader?: boolean;
  plan: PlanName;
  /** Check the whole table around this cell instead of the selection (re-check on open: no user, no selection). */
  at?: { sheet: string; rowIndex: number; columnIndex: number; inputColumns?: ColumnMapping };
}

const WIDTH = OUTPUT_COLUMNS.length;

export { columnsNamed };

/** Reads the selection and the rows around it, asks core's planTable what to check and where, and reads the block there. */
export async function prepareCheck(excelRun: ExcelRun, opts: PrepareOptions): Promise<PrepareOutcome> {
  return excelRun(async (context) => {
    const sel = opts.at
      ? await readTableAround(context, opts.at.sheet, opts.at.rowIndex, opts.at.columnIndex)
      : await readSelection(context);
    if ("problem" in sel) return { ok: false, message: sel.problem, headers: [] };
    const { region, values } = sel;
    // A table without a header row: its input columns are known (absolute), so they are given as the mapping.
    if (opts.at?.inputColumns)
      opts = { ...opts, mapping: mappingWithin(opts.at.inputColumns, region), hasHeader: false };
    // The same rows from column A to the last column in use: our block wherever it stands, and the tables beside.
    const lastUsed = await lastUsedColumn(context, region, 0);
    const wide = await readBlock(context, {
      ...region,
      columnIndex: 0,
      columnCount: Math.max(region.columnIndex + region.columnCount, lastUsed + 1),
    });
    const plan = planTable({
      values,
      column: region.columnIndex,
      rows: sel.selectedOffsets,
      columns: sel.table ? undefined : sel.selectedColumns,
      wide,
      // Excel's used range bounds the read; what counts as in use there is core's rule (a cell of spaces does not).
      lastUsed: lastColumnInUse(wide),
      sheetColumns: SHEET_COLUMNS,
      mapping: opts.mapping,
      hasHeader: opts.hasHeader,
    });
    if (!plan.ok) return refusal(plan, region.columnIndex);
    // In an Excel Table the results are the Table's own columns (added on its first check).
    const inTable = sel.table ? await tableResults(context, sel.table, values[0] ?? []) : undefined;
    if (inTable && "problem" in inTable) return { ok: false, message: inTable.problem, headers: [] };
    const table: Block = {
      sheet: region.sheet,
      rowIndex: region.rowIndex + plan.top,
      columnIndex: plan.first,
      rowCount: region.rowCount - plan.top,
      columnCount: plan.count + (inTable?.added ? WIDTH : 0),
    };
    const at = inTable ? region.columnIndex + inTable.at : plan.at;
    // Rows of data below the blank row that ends the whole table are not checked, and the user is told (core's rule);
    // a re-check on open tells nobody, and an Excel Table ends where the Table does.
    const lastRow = table.rowIndex + plan.rows[plan.rows.length - 1].index + 1;
    const leftBelow =
      plan.whole && !sel.table && !opts.at
        ? await rowsBelow(context, table.sheet, lastRow, plan.first, plan.count)
        : undefined;
    const previous = await readBlock(context, { ...table, columnIndex: at, columnCount: WIDTH });
    // Rows hidden by a filter inside the table: neither sent nor written (Range.rowHidden), and said so before the check.
    const hidden = new Set(await hiddenRowOffsets(context, table));
    return {
      ok: true,
      check: preparedCheck({
        sel,
        plan,
        inTable,
        table,
        at,
        leftBelow,
        previous,
        hidden,
        planName: opts.plan,
        selected: !opts.at,
      }),
    };
  });
}

/** A header-less table's input columns (0-based sheet columns) as a mapping into the region read, those inside it. */
function mappingWithin(inputColumns: ColumnMapping, region: Block): ColumnMapping {
  const mapping: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const) {
    const c = inputColumns[k];
    if (c !== undefined && c >= region.columnIndex && c < region.columnIndex + region.columnCount)
      mapping[k] = c - region.columnIndex;
  }
  return mapping;
}

/** core's refusal, with the table's columns to choose from when choosing them by hand can help. */
function refusal(plan: TableRefusal, firstColumn: number): PrepareOutcome {
  const headers = plan.offerColumns
    ? (plan.header ?? []).map(
        (v, i) => `${columnLetter(firstColumn + i)}${typeof v === "string" && v.trim() ? ` (${v.trim()})` : ""}`,
      )
    : [];
  return {
    ok: false,
    message: plan.problem,
    headers,
    ...(plan.offerColumns ? { found: plan.found, hasHeader: plan.hasHeader } : {}),
  };
}

/**
 * The check as read: its rows (those hidden by a filter set aside), each invalid row's problem, and what the user is
 * told first (core's startNotes, as in Sheets).
 */
function preparedCheck(r: {
  sel: SelectionRead;
  plan: TablePlan;
  inTable: { at: number; added: boolean; placement: string } | undefined;
  table: Block;
  at: number;
  leftBelow: Awaited<ReturnType<typeof rowsBelow>>;
  previous: unknown[][];
  hidden: ReadonlySet<number>;
  planName: PlanName;
  /** The user selected the rows (not a re-check on open). */
  selected: boolean;
}): PreparedCheck {
  const { sel, plan, inTable, table } = r;
  const rowNo = (i: number) => table.rowIndex + i + 1;
  const hidden = plan.rows.filter((row) => r.hidden.has(row.index)).map((row) => row.index);
  const shown = plan.rows.filter((row) => !r.hidden.has(row.index));
  const problems = shown
    .filter((row) => row.error)
    .map((row) => ({ row: rowNo(row.index), message: row.error!.message }));
  const notes = startNotes({
    plan,
    firstRow: sel.region.rowIndex + 1,
    selection: r.selected ? { rows: sel.selectedOffsets, oneCell: !!sel.oneCell } : undefined,
    leftBelow: r.leftBelow,
    ownPlace: inTable?.placement,
    rows: shown,
    hidden: hidden.length,
  });
  return {
    region: table,
    headerRow: plan.headerRow,
    mapping: plan.mapping,
    rows: plan.rows,
    problems,
    origin: { sheet: table.sheet, rowIndex: table.rowIndex, columnIndex: r.at },
    inPlace: inTable ? !inTable.added : plan.kind === "in-place",
    previous: r.previous,
    distinct: planScreening(shown, { plan: r.planName }).properties.length,
    placement: notes.map((n) => n.text).join("\n"),
    hidden,
    blankRowsSkipped: plan.blankRowsSkipped,
  };
}

/**
 * The rows below a table's last row (1-based), over its columns, up to the sheet's last row in use (at most 5,000: a
 * note counts them, nothing more), as core's rowsAfterBlank reads them.
 */
async function rowsBelow(
  context: Excel.RequestContext,
  sheet: string,
  lastRow: number,
  columnIndex: number,
  columnCount: number,
) {
  const used = context.workbook.worksheets.getItem(sheet).getUsedRangeOrNullObject(true);
  used.load(["rowIndex", "rowCount"]);
  await context.sync();
  if (used.isNullObject) return undefined;
  const rowCount = Math.min(used.rowIndex + used.rowCount - lastRow, 5_000);
  if (rowCount <= 0) return undefined;
  return rowsAfterBlank(
    await readBlock(context, { sheet, rowIndex: lastRow, columnIndex, rowCount, columnCount }),
    lastRow,
  );
}
