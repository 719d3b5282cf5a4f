/**
 * "Check selected rows" in Google Sheets, first half: read the snapshot core's planTable asks for (the selection's data
 * region, grown to every selected row, and the same rows from column A to the last column in use), and turn its answer
 * into sheet rows and columns. Which rows, header, input columns and results block: core decides, as in Excel.
 */
import { lastColumnInUse, planTable, rowsAfterBlank, type ColumnMapping } from "../../core";
import type { Table } from "./sheet";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Columns a sheet can have (A to ZZZ): a results block that would pass them has no room. */
export const SHEET_COLUMNS = 18_278;
/** Rows the table's blank row leaves out: at most this many below it are read (a note counts them, nothing more). */
const BELOW_READ_MAX = 5_000;

/** What to check, from the sidebar's selection or a table the schedule re-checks. Rows and columns are 1-based. */
export interface CheckRequest {
  selection: { row: number; col: number; rows: number; cols: number };
  /** Input columns chosen by hand, 0-based from column A. */
  manual: ColumnMapping | null;
  /** The table has no header row (a scheduled re-check of a table that had none). */
  hasHeader?: false;
  /** The scheduled re-check: the selection is the table's header cell, so the whole table is checked, and nobody is told which rows. */
  whole?: boolean;
}

export interface SheetCheck {
  table: Table;
  /** Sheet rows of the first and last row checked, and those rows from column A to the last input column. */
  firstRow: number;
  endRow: number;
  values: unknown[][];
}

/**
 * The snapshot core's planTable asks for, read in one go (the selection's data region, grown to every selected row,
 * and the same rows from column A to the last column in use), and its answer.
 */
function readAndPlan(sheet: Sheet, req: CheckRequest) {
  const lastRow = sheet.getLastRow();
  const lastCol = sheet.getLastColumn();
  const s = req.selection;
  const single = s.rows === 1 && s.cols === 1;
  // The selected cells in use: A:C on a sheet of 51 rows is A1:C51, not a thousand rows.
  const sel = single
    ? s
    : { ...s, rows: Math.min(s.rows, lastRow - s.row + 1), cols: Math.min(s.cols, lastCol - s.col + 1) };
  if (sel.rows < 1 || sel.cols < 1) return { nothing: true as const };
  // The table: the data region of the selection's first cell, grown to every selected row and column (a selection may
  // run past a blank row of the table) and to the columns chosen by hand.
  const around = sheet.getRange(sel.row, sel.col).getDataRegion();
  const chosen = Object.values(req.manual ?? {}).filter((c): c is number => typeof c === "number");
  const top = Math.min(around.getRow(), sel.row);
  const bottom = Math.max(around.getLastRow(), sel.row + sel.rows - 1);
  const left = Math.min(around.getColumn(), sel.col, ...chosen.map((c) => c + 1));
  const right = Math.max(around.getLastColumn(), sel.col + sel.cols - 1, ...chosen.map((c) => c + 1));
  // One read: those rows from column A to the last column in use (our block wherever it stands, the tables beside).
  const grid = sheet.getRange(top, 1, bottom - top + 1, Math.max(right, lastCol, 1)).getValues();
  const lastUsed = lastColumnInUse(grid);
  const wide = grid.map((r) => r.slice(0, Math.max(right, lastUsed + 1)));
  const rows: [number, number] = [sel.row - top, sel.row + sel.rows - 1 - top];
  const mapping = req.manual ? relative(req.manual, left - 1) : undefined;
  const plan = planTable({
    values: grid.map((r) => r.slice(left - 1, right)),
    column: left - 1,
    rows,
    columns: [sel.col - 1, sel.col + sel.cols - 2],
    wide,
    lastUsed,
    sheetColumns: SHEET_COLUMNS,
    mapping,
    hasHeader: req.hasHeader,
  });
  return { plan, grid, wide, top, rows, sel, single, lastRow };
}

export function planSheetCheck(
  sheet: Sheet,
  req: CheckRequest,
): SheetCheck | { problem: string; offerColumns: boolean } | { nothing: true } {
  const read = readAndPlan(sheet, req);
  if (read.nothing) return { nothing: true };
  const { plan, grid, wide, top, rows, single, lastRow } = read;
  if (!plan.ok) return { problem: plan.problem, offerColumns: plan.offerColumns };
  const tableTop = top + plan.top;
  const rowNo = (i: number) => tableTop + i;
  const firstRow = rowNo(plan.rows[0].index);
  const endRow = rowNo(plan.rows[plan.rows.length - 1].index);
  const absolute: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const)
    if (plan.mapping[k] !== undefined) absolute[k] = plan.mapping[k]! + plan.first;
  const inputs = Object.values(absolute).filter((c): c is number => typeof c === "number");
  const inputCols = Math.max(...inputs) + 1;
  const headerRow = plan.headerRow === null ? 0 : rowNo(plan.headerRow);
  // Cells left of this table (another table in the same header row) are not its own.
  const headerValues = headerRow ? wide[headerRow - top].map((v, c) => (c < plan.first ? "" : v)) : [];
  const firstCol = plan.first + 1;
  // Rows of data below the blank row that ends the whole table are not checked, and the user is told (core's rule).
  const leftBelow =
    plan.whole && !req.whole && lastRow > endRow
      ? rowsAfterBlank(
          sheet
            .getRange(endRow + 1, firstCol, Math.min(lastRow - endRow, BELOW_READ_MAX), Math.max(1, plan.count))
            .getValues(),
          endRow,
        )
      : undefined;
  const table: Table = {
    sheet,
    headerRow,
    headerValues,
    mapping: absolute,
    blockCol: plan.at + 1,
    blockExists: plan.kind === "in-place",
    legacy: !!plan.legacy,
    inputCols,
    firstCol,
    // What the user is told as the run begins (core's startNotes); a scheduled re-check selects nothing of its own.
    start: { plan, firstRow: top, selection: req.whole ? undefined : { rows, oneCell: single }, leftBelow },
  };
  const values = grid.slice(firstRow - top, endRow - top + 1).map((r) => r.slice(0, inputCols));
  return { table, firstRow, endRow, values };
}

function relative(m: ColumnMapping, first: number): ColumnMapping {
  const out: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const) if (m[k] !== undefined) out[k] = m[k]! - first;
  return out;
}
