/**
 * Excel Tables (Insert > Table) in the task pane, I/O only: find the Table a selection is in, and add the results as the
 * Table's own columns (TableColumnCollection.add) so they sort and filter with its rows and can be named in structured
 * references. What it means is decided in core/sheet/tables.ts.
 */
import { OUTPUT_COLUMNS } from "../../core";
import { tableAtCell, tableResultColumns } from "../../core/sheet/tables";
import type { Block } from "./block";

/** A Table the selection is in: its name and its whole range, header row included. */
export interface TableRead {
  name: string;
  block: Block;
}

/**
 * The Table holding a cell, or null. Reads the sheet's Tables (worksheet.tables, ExcelApi 1.1) and their ranges: two
 * syncs, the second only when the sheet has a Table.
 */
export async function tableAt(
  context: Excel.RequestContext,
  sheet: string | Excel.Worksheet,
  cell: { rowIndex: number; columnIndex: number },
): Promise<TableRead | null> {
  const ws = typeof sheet === "string" ? context.workbook.worksheets.getItem(sheet) : sheet;
  if (typeof sheet !== "string") ws.load("name");
  const tables = ws.tables;
  tables.load("items");
  await context.sync();
  if (!tables.items.length) return null;
  const ranges = tables.items.map((t) => {
    const r = t.getRange();
    r.load(["rowIndex", "columnIndex", "rowCount", "columnCount"]);
    return { name: t.name, range: r };
  });
  await context.sync();
  const boxes = ranges.map(({ name, range: r }) => ({
    name,
    box: { rowIndex: r.rowIndex, columnIndex: r.columnIndex, rowCount: r.rowCount, columnCount: r.columnCount },
  }));
  const found = tableAtCell(boxes, cell);
  return found
    ? { name: found.name, block: { sheet: typeof sheet === "string" ? sheet : ws.name, ...found.box } }
    : null;
}

/** Where a check writes in a Table: the offset of the results' first column in it, whether they were added now, and in words. */
export type TablePlace = { at: number; added: boolean; placement: string } | { problem: string };

/**
 * The results' columns in the Table: found where a check put them (updated in place), or added at the Table's end on its
 * first check (one TableColumnCollection.add per column, one sync), named by the output layout.
 */
export async function tableResults(
  context: Excel.RequestContext,
  table: TableRead & { rowsOutside?: number },
  header: readonly unknown[],
): Promise<TablePlace> {
  const plan = tableResultColumns(table.name, header);
  if (plan.kind === "refuse") return { problem: plan.message };
  const outside = table.rowsOutside
    ? ` ${table.rowsOutside} selected row${table.rowsOutside === 1 ? " is" : "s are"} outside the Table and ${table.rowsOutside === 1 ? "was" : "were"} not checked: to check ${table.rowsOutside === 1 ? "it" : "them"}, make ${table.rowsOutside === 1 ? "it" : "them"} part of the Table (Table Design > Resize Table) or select ${table.rowsOutside === 1 ? "it" : "them"} alone.`
    : "";
  const first = OUTPUT_COLUMNS[0].header;
  const last = OUTPUT_COLUMNS[OUTPUT_COLUMNS.length - 1].header;
  const refs = `${table.name}[${first}] to ${table.name}[${last}]`;
  if (plan.kind === "inPlace")
    return {
      at: plan.at,
      added: false,
      placement: `Results: updated in place in the Table ${table.name}'s own columns (${refs}).${outside}`,
    };
  const t = context.workbook.tables.getItem(table.name);
  for (const name of plan.names) t.columns.add(undefined, undefined, name);
  await context.sync();
  return {
    at: plan.at,
    added: true,
    placement: `Results: ${plan.names.length} new columns of the Table ${table.name} (${refs}), so they sort and filter with its rows.${outside}`,
  };
}
