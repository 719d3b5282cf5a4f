/**
 * The portfolio's tables as they are now, for the Action list and the summary: each remembered table's sheet found by
 * its id (a rename keeps it) or its old name, its results block found again by its header or its rows' shape, its
 * rows' properties read, and each table named by core's tableIds. A sheet or block not found says why instead.
 */
import {
  OUTPUT_COLUMNS,
  portfolioTables,
  legacyTableId,
  shiftMapping,
  tableAnchor,
  blockProperties,
  unreadOwnColumns,
  detectUserColumns,
  tableRowCount,
  type PortfolioTable,
  type BlockProperty,
} from "../../core";
import { readRecordedTable, type RecordedTable, type RunPlace } from "./recorded-table";
import { fileMonthFirst } from "./rows-now";
import { tableAt } from "./tables";
import { keepSheetIds, workbookSettings } from "./watch-settings";

const WIDTH = OUTPUT_COLUMNS.length;

const firstColumn = (inputColumns: RunPlace["inputColumns"], blockColumn: number) => {
  const inputs = Object.values(inputColumns).filter((v): v is number => typeof v === "number");
  return inputs.length ? Math.min(...inputs) : blockColumn;
};

/** Every table of the portfolio read as it is now (a sheet or block not found says why), named by core's tableIds. */
export async function readPortfolio(
  context: Excel.RequestContext,
  run: RunPlace,
  others: readonly RunPlace[],
  today: string,
): Promise<{ tables: PortfolioTable[]; reads: BlockRead[] }> {
  const read: { p: RunPlace; r: BlockRead | { problem: string }; sheetId: string }[] = [];
  const seen: { was: RunPlace; sheet: string; sheetId: string }[] = [];
  for (const p of [...others, run]) {
    let r: BlockRead | { problem: string };
    let sheetId = p.sheetId ?? p.sheet;
    try {
      const found = await readRecordedTable(context, p);
      if ("problem" in found) {
        r = { problem: found.problem };
        sheetId = p.sheetId ?? found.sheetId ?? sheetId;
      } else {
        sheetId = found.sheetId;
        r = readResults(found, p, today);
        if (p !== run) seen.push({ was: p, sheet: found.sheet, sheetId });
      }
    } catch (e) {
      r = { problem: `the sheet could not be read (${e instanceof Error ? e.message : String(e)})` };
    }
    read.push({ p, r, sheetId });
  }
  // The records keep the ids and names their sheets were found by, so that a record of an earlier version, found by
  // name, is found by its id after a rename. A failed save loses only that: the tables are read all the same.
  await keepSheetIds(workbookSettings(), seen).catch(() => undefined);
  const named = portfolioTables(read.slice(0, -1), read[read.length - 1], ({ p, r, sheetId }) => {
    const at = "problem" in r ? p : r.at;
    const first = firstColumn(at.inputColumns, at.blockColumn);
    return { sheetId, headerRow: at.headerRow, firstColumn: first, ordinal: p.ordinal };
  });
  const tables: PortfolioTable[] = [];
  const reads: BlockRead[] = [];
  for (const {
    table: { p, r, sheetId },
    id,
  } of named) {
    const formerIds = [
      legacyTableId({
        host: "excel",
        sheet: p.sheet,
        headerRow: p.headerRow,
        blockColumn: p.blockColumn,
        firstInput: firstColumn(p.inputColumns, p.blockColumn),
      }),
    ];
    const where = "problem" in r ? p : r.at;
    const anchor = tableAnchor(firstColumn(where.inputColumns, where.blockColumn), where.headerRow);
    if ("problem" in r)
      tables.push({ id, formerIds, sheetId, sheet: p.sheet, anchor, props: null, problem: r.problem });
    else {
      reads.push(r);
      const b = r.place;
      // A block that is an Excel Table's own columns (its header the Table's): the summary's formulas name them.
      const t =
        p.headerRow !== null
          ? await tableAt(context, b.sheet, { rowIndex: b.firstRow - 1, columnIndex: b.blockColumn })
          : null;
      const table = t && t.block.rowIndex === b.firstRow - 1 ? { table: t.name } : {};
      tables.push({
        id,
        formerIds,
        sheetId,
        sheet: b.sheet,
        anchor,
        props: r.props,
        ownerHeader: r.ownerHeader,
        unreadColumns: r.unreadColumns,
        block: { sheet: b.sheet, column: b.blockColumn, firstRow: b.firstRow, lastRow: b.lastRow, ...table },
      });
    }
  }
  return { tables, reads };
}
export interface BlockRead {
  /** Where the table stands now: its header row, results block and input columns, found again. */
  at: Pick<RunPlace, "headerRow" | "blockColumn" | "inputColumns">;
  props: BlockProperty[];
  ownerHeader?: string;
  unreadColumns: ReturnType<typeof unreadOwnColumns>;
  place: { sheet: string; blockColumn: number; firstRow: number; lastRow: number };
}

/**
 * The results block as core found it again on its sheet (by its header or, without one, by what its rows hold), its
 * rows' typed dates read as the block's own were (the file's order, `today` the file's day).
 */
function readResults(found: RecordedTable, run: RunPlace, today: string): BlockRead {
  const { grid, at } = found;
  // A column inserted left of the block moved it; the input moved with it, or stayed when the column was between them.
  const input = shiftMapping(run.inputColumns, found.inputShift ?? 0);
  const first = at.headerRow === null ? 0 : at.headerRow + 1;
  const header = at.headerRow === null ? [] : grid[at.headerRow];
  const ours = new Set(Array.from({ length: WIDTH }, (_v, k) => at.blockColumn + k));
  const user = detectUserColumns(header, ours);
  const props = blockProperties(grid.slice(first), {
    blockColumn: at.blockColumn,
    uprn: input.uprn,
    address: input.address ?? user.address,
    user,
    firstRow: first + 1,
    untilBlank: at.headerRow !== null,
    header,
    postcode: input.postcode,
    dates: { monthFirst: fileMonthFirst(), today },
  });
  const ownerHeader = user.owner !== undefined ? String(header[user.owner]).trim() : undefined;
  const last = at.headerRow !== null ? first + tableRowCount(grid.slice(first), at.blockColumn) - 1 : grid.length - 1;
  return {
    at: { headerRow: at.headerRow, blockColumn: at.blockColumn, inputColumns: input },
    props,
    ownerHeader,
    unreadColumns: unreadOwnColumns(header, ours),
    place: { sheet: found.sheet, blockColumn: at.blockColumn, firstRow: first, lastRow: Math.max(first, last) },
  };
}
