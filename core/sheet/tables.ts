/**
 * Excel Tables (Insert > Table) as the add-in reads them: which Table a selection is in, which of its rows the selection
 * means, and where the results go inside it (the Table's own columns, named by the output layout). Pure: the host reads
 * the Tables' ranges and the header row, and does what this returns.
 */
import { outputHeaders } from "./layout";
import { findHeaderBlock } from "./placement";

/** A rectangle of a sheet in 0-based indexes (a Table's range includes its header row). */
export interface GridBox {
  rowIndex: number;
  columnIndex: number;
  rowCount: number;
  columnCount: number;
}

/** The Table (by name) whose range holds the cell, if any; Excel Tables never overlap, so there is at most one. */
export function tableAtCell<T extends { name: string; box: GridBox }>(
  tables: readonly T[],
  cell: { rowIndex: number; columnIndex: number },
): T | undefined {
  return tables.find(
    ({ box: b }) =>
      cell.rowIndex >= b.rowIndex &&
      cell.rowIndex < b.rowIndex + b.rowCount &&
      cell.columnIndex >= b.columnIndex &&
      cell.columnIndex < b.columnIndex + b.columnCount,
  );
}

/**
 * The rows a selection means, as offsets into the Table's range (0 is its header row): the header row means the whole
 * Table (blank rows in it too), and so does `whole` (a re-check from the Table's header cell); rows, or one cell
 * (oneCellNote), mean those of them inside the Table (rows selected below it are not the Table's, and not checked).
 */
export function tableSelectedOffsets(table: GridBox, selection: GridBox, whole: boolean): [number, number] {
  const last = table.rowCount - 1;
  if (whole || selection.rowIndex + selection.rowCount - 1 <= table.rowIndex) return [0, last];
  return [
    Math.max(0, selection.rowIndex - table.rowIndex),
    Math.min(last, selection.rowIndex + selection.rowCount - 1 - table.rowIndex),
  ];
}

/** How many selected rows lie outside the Table (above or below it): they are not the Table's, and are not checked. */
export function selectedRowsOutside(table: GridBox, selection: GridBox, whole: boolean): number {
  if (whole) return 0;
  const [from, to] = tableSelectedOffsets(table, selection, false);
  if (selection.rowIndex + selection.rowCount - 1 <= table.rowIndex)
    return Math.max(0, table.rowIndex - selection.rowIndex);
  return Math.max(0, selection.rowCount - Math.max(0, to - from + 1));
}

/**
 * Where the results go in a Table, from its header row: `inPlace` at the offset of our columns when the Table already
 * has every one of them, in order (a re-run updates them); `add` these columns at the Table's end on its first check;
 * `refuse` when our columns were changed (one inserted among them, renamed or deleted) or a column of the user's
 * already has one of our names (a Table's column names are unique): adding a second set would break the names that
 * formulas such as `=COUNTIF(Properties[EPC status],"fail")` use.
 */
export type TableResults =
  { kind: "inPlace"; at: number } | { kind: "add"; at: number; names: string[] } | { kind: "refuse"; message: string };

export function tableResultColumns(tableName: string, header: readonly unknown[]): TableResults {
  const found = findHeaderBlock(header);
  if (found.exact !== undefined && !found.legacy) return { kind: "inPlace", at: found.exact };
  if (found.changed !== undefined) {
    return {
      kind: "refuse",
      message: `The results columns of the Table ${tableName} were changed (a column inserted among them, or one renamed or deleted), so nothing is written. Put them back in order, or delete them all to start afresh, and check again.`,
    };
  }
  const names = outputHeaders();
  const taken = new Set(
    header.map((h) => (typeof h === "string" ? h.trim().toLowerCase() : String(h ?? "").toLowerCase())),
  );
  const clash = names.filter((n) => taken.has(n.toLowerCase()));
  if (clash.length) {
    const list = clash.map((n) => `"${n}"`).join(", ");
    return {
      kind: "refuse",
      message: `The Table ${tableName} already has ${clash.length === 1 ? "a column" : "columns"} named ${list}, which the results need for their own (a Table's column names are unique). Rename ${clash.length === 1 ? "it" : "them"} (for example "My ${clash[0]}") and check again.`,
    };
  }
  return { kind: "add", at: header.length, names };
}
