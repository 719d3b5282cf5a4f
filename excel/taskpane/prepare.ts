/**
 * "Check selected rows", first half: read the selection (or, for re-check on open, the table around a cell), find the
 * input columns and our results block, and validate every row with core. Nothing is sent; check-run.ts runs it.
 */
import { OUTPUT_COLUMNS, detectColumns, looksLikeHeaderRow, planScreening, readPropertyRows, rowsOfWholeTable, wholeTableSelected, findBlockByShape, findHeaderBlockOfTable, newBlockColumn, ourColumns, type ColumnMapping, type InputRow, type PlanName } from "../../core";
import { SHEET_COLUMNS, a1, columnLetter, isBlankCell, lastUsedColumn, readBlock, readSelection, readTableAround, type Block } from "./sheet";
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
  /** One sentence saying where the results go (and why there, when it is not directly right of the data). */
  placement: string;
  /** Blank rows at the end of the selection, left out (not a row error each). */
  blankRowsSkipped: number;
}

/**
 * A refused selection. `headers` (every column of the table, to offer in the column chooser) is empty when choosing
 * columns by hand cannot help (nothing selected, no room for the results); `found` is what the headers did name (an
 * Address column, say), to preselect, and `hasHeader` whether the first row reads as a header.
 */
export type PrepareOutcome = { ok: true; check: PreparedCheck } | { ok: false; message: string; headers: string[]; found?: ColumnMapping; hasHeader?: boolean };

export interface PrepareOptions {
  mapping?: ColumnMapping;
  hasHeader?: boolean;
  plan: PlanName;
  /** Check the whole table around this cell instead of the selection (re-check on open: no user, no selection). */
  at?: { sheet: string; rowIndex: number; columnIndex: number; inputColumns?: ColumnMapping };
}

const WIDTH = OUTPUT_COLUMNS.length;

/**
 * The input columns a header row names, also when it names no UPRN or Postcode column (core's detectColumns answers
 * only when one of those is there): a stand-in "UPRN" past the last column lets it name the Address column, to preselect.
 */
export function columnsNamed(header: readonly unknown[]): ColumnMapping {
  const m = detectColumns([...header, "UPRN"]) ?? {};
  const out: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const) if (m[k] !== undefined && m[k]! < header.length) out[k] = m[k];
  return out;
}

/** Whether a row reads as a header (words, no UPRN or postcode values), for the chooser's "First row is a header". */

/** Reads the selection and validates every selected row with the core; nothing is sent. */
export async function prepareCheck(excelRun: ExcelRun, opts: PrepareOptions): Promise<PrepareOutcome> {
  return excelRun(async (context) => {
    const sel = opts.at ? await readTableAround(context, opts.at.sheet, opts.at.rowIndex, opts.at.columnIndex) : await readSelection(context);
    if ("problem" in sel) return { ok: false, message: sel.problem, headers: [] };
    let { region, values } = sel;
    // A table without a header row: its input columns are known (absolute), so they are given as the mapping.
    if (opts.at?.inputColumns) {
      const mapping: ColumnMapping = {};
      for (const k of ["uprn", "postcode", "address"] as const) {
        const c = opts.at.inputColumns[k];
        if (c !== undefined && c >= region.columnIndex && c < region.columnIndex + region.columnCount) mapping[k] = c - region.columnIndex;
      }
      opts = { ...opts, mapping, hasHeader: false };
    }
    let [from, to] = sel.selectedOffsets;
    // A title row (or a few notes) above the header: the table starts at the header row.
    if (!opts.mapping && opts.hasHeader !== false) {
      const h = values.slice(0, 10).findIndex((r) => detectColumns(r) !== null);
      if (h > 0 && h < to) {
        values = values.slice(h);
        region = { ...region, rowIndex: region.rowIndex + h, rowCount: region.rowCount - h };
        from = Math.max(0, from - h);
        to -= h;
      }
    }
    // The same rows as far right as anything is used, to see our block wherever it stands (it may sit past a gap).
    const lastUsed = await lastUsedColumn(context, region, region.columnIndex);
    const wideCount = Math.max(region.columnCount, lastUsed - region.columnIndex + 1);
    const wide = wideCount > region.columnCount ? await readBlock(context, { ...region, columnCount: wideCount }) : values;
    // Tables side by side in one header row each have their own block (core's rule, the same in Sheets).
    const inHeader = opts.hasHeader === false ? {} : findHeaderBlockOfTable(wide[0] ?? []);
    const mapped = Object.values(opts.mapping ?? {}).filter((v): v is number => typeof v === "number");
    const shapeRows = opts.hasHeader === true || inHeader.exact !== undefined || inHeader.changed !== undefined ? wide.slice(1) : wide;
    const shape = findBlockByShape(shapeRows, Math.max(1, ...mapped.map((m) => m + 1)));
    const ours = ourColumns(inHeader, shape, opts.hasHeader === false ? undefined : wide[0], mapped);
    // Every column of the table is offered and read; our own columns are hidden from header detection only, so that
    // "Matched UPRN" is never taken for the user's UPRN and a column of the user's past our block is still found.
    const columnNames = (values[0] ?? []).map((v, i) => `${columnLetter(region.columnIndex + i)}${typeof v === "string" && v.trim() ? ` (${v.trim()})` : ""}`);
    const input = values.map((r, i) => (i === 0 ? r.map((v, c) => (ours.has(c) ? "" : v)) : r));
    const read = readPropertyRows(input, { mapping: opts.mapping, hasHeader: opts.hasHeader });
    if (read.problem || !read.mapping) {
      return { ok: false, message: read.problem ?? "No UPRN or Postcode column.", headers: columnNames, found: columnsNamed(input[0] ?? []), hasHeader: read.headerRow !== null || looksLikeHeaderRow(input[0] ?? []) };
    }
    // The header row selected (or a title above it) means the whole table, to its first fully blank row: core's rule,
    // as in Google Sheets (one cell of the table already meant that: its surrounding region).
    if (wholeTableSelected(to, read.headerRow)) {
      from = read.headerRow! + 1;
      to = read.headerRow! + rowsOfWholeTable(values.slice(from));
    }
    const selected = read.rows.filter((r) => r.index >= from && r.index <= to);
    // Blank rows at the end of a selection are left out and counted; a blank row in the middle gets its message.
    let end = selected.length;
    const userBlank = (r: readonly unknown[]) => r.every((v, c) => ours.has(c) || isBlankCell(v) || (typeof v === "string" && !v.trim()));
    while (end > 0 && selected[end - 1].error?.code === "empty_row" && userBlank(input[selected[end - 1].index])) end--;
    const rows = selected.slice(0, end);
    const blankRowsSkipped = selected.length - end;
    if (rows.length === 0) {
      return {
        ok: false,
        message: selected.length ? "The selected rows are empty: select the rows to check (or one cell of the table)." : "The selection has no data rows: select the rows to check (or one cell of the table).",
        headers: [],
      };
    }

    // Where the results go: our block where it already is, else directly right of the data if free, else after the
    // last column in use in these rows. Never over a column of the user's, and never over a block the user changed.
    const rowsOf = (col: number) => ({ sheet: region.sheet, rowIndex: region.rowIndex, columnIndex: col, rowCount: region.rowCount, columnCount: WIDTH });
    const existing = inHeader.exact ?? (read.headerRow === null ? shape : undefined);
    let at: number;
    let placement: string;
    // In an Excel Table the results are the Table's own columns (added on its first check).
    const inTable = sel.table ? await tableResults(context, sel.table, values[0] ?? []) : undefined;
    if (inTable && "problem" in inTable) return { ok: false, message: inTable.problem, headers: [] };
    if (inTable) {
      at = region.columnIndex + inTable.at;
      placement = inTable.placement;
      if (inTable.added) region = { ...region, columnCount: region.columnCount + WIDTH };
    } else if (existing !== undefined) {
      at = region.columnIndex + existing;
      placement = `Results: updated in place in ${a1(rowsOf(at))}.`;
    } else {
      const beside = region.columnIndex + region.columnCount;
      const changed = inHeader.changed ?? shape;
      const free = changed === undefined && wide.every((r) => r.slice(region.columnCount, region.columnCount + WIDTH).every(isBlankCell));
      if (free) {
        at = beside;
        placement = `Results: ${a1(rowsOf(at))}, right of your data.`;
      } else {
        at = newBlockColumn({ tableEnd: beside - 1, lastUsed, freeBeside: false });
        if (at + WIDTH > SHEET_COLUMNS) {
          return { ok: false, message: `There is no room for the ${WIDTH} result columns right of your data on this sheet: clear some columns to the right.`, headers: [] };
        }
        placement =
          changed !== undefined
            ? `Results: new block at ${a1(rowsOf(at))}. The results block at ${a1(rowsOf(region.columnIndex + changed))} was changed (a column inserted or a header renamed), so it is left as it is.`
            : `Results: new block at ${a1(rowsOf(at))}, after your last column, because the columns right of your data (${a1(rowsOf(beside))}) are not empty. Nothing of yours is overwritten.`;
      }
    }
    const origin = { sheet: region.sheet, rowIndex: region.rowIndex, columnIndex: at };
    const previous = await readBlock(context, rowsOf(at));
    const problems = rows.filter((r) => r.error).map((r) => ({ row: region.rowIndex + r.index + 1, message: r.error!.message }));
    const plan = planScreening(rows, { plan: opts.plan });
    return {
      ok: true,
      check: { region, headerRow: read.headerRow, mapping: read.mapping, rows, problems, origin, inPlace: inTable ? !inTable.added : existing !== undefined, previous, distinct: plan.properties.length, placement, blankRowsSkipped },
    };
  });
}
