/**
 * Where a run's rows are now: the task pane reads the table again before every write and at Resume, finds the results
 * block (a column inserted left of it, rows inserted above it) and each row's property, for core's matchRows. Reads only.
 */
import {
  OUTPUT_COLUMNS,
  dateReading,
  movedRowCells,
  movedRowNow,
  movedRows,
  propertiesNow,
  rowDates,
  sentence,
  isMonthFirstLocale,
  type Cell,
  type ColumnMapping,
  type RowDates,
  type RowNow,
} from "../../core";
import { readRecordedTable, type RunPlace } from "./recorded-table";

export type { RunPlace };

/**
 * The print (core's resultPrint) of what this run wrote for each property key (and "!" + reason for invalid input),
 * and the Checked at times it wrote.
 */
export interface WrittenRows {
  shown: Map<string, string>;
  stamps: Set<string>;
}

const WIDTH = OUTPUT_COLUMNS.length;

export const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");

/**
 * The table as it is now: where our block and the input columns stand; per sheet row (index = absolute row) the row as
 * core's matchRows sees it (only rows still "Checking…" count), its block values and its input's note.
 */
export interface TableNow {
  /** The sheet's name and Worksheet.id now. */
  sheet: string;
  sheetId: string;
  blockColumn: number;
  headerRow: number | null;
  inputColumns: ColumnMapping;
  rowsNow: RowNow[];
  /** Every data row's property key now ("!" + the reason when its input is invalid), marked or not. */
  keys: (string | undefined)[];
  previous: unknown[][];
  notes: (string | undefined)[];
  /** Each data row's typed dates (EICR date, Deposit received, Tenancy start...), read once by core's rowDates. */
  dates: (RowDates | undefined)[];
  /** The header row and every row as read (same indexes as `previous`), for core's rowPlace (the country). */
  header?: readonly unknown[];
  rows: readonly (readonly unknown[])[];
  ours: ReadonlySet<number>;
}

/**
 * Whether numbers-only text dates in this workbook are month-first: Excel keeps no locale in the file, so the user's
 * Office display language decides (en-US month-first; every other, day-first). Unknown: a date that reads two ways is
 * refused rather than guessed.
 */
export function fileMonthFirst(): boolean | undefined {
  const lang =
    typeof Office !== "undefined"
      ? (Office.context as { displayLanguage?: string } | undefined)?.displayLanguage
      : undefined;
  return isMonthFirstLocale(lang);
}

/**
 * Reads the table as it is now (one chunked read) and where everything stands in it. `day` is the file's day of the
 * check, YYYY-MM-DD: typed dates are read against it.
 */
export async function readTableNow(
  context: Excel.RequestContext,
  run: RunPlace,
  keys: ReadonlySet<string>,
  day: string,
  runId?: string,
): Promise<TableNow> {
  // Found by its id when the run has it, so a sheet renamed during the run is still written.
  const found = await readRecordedTable(context, run);
  if ("problem" in found) throw new Error(`${sentence(found.problem)}, so nothing was written.`);
  const { grid, at } = found;
  const first = at.headerRow === null ? 0 : at.headerRow + 1;
  // Which row holds which property now (the input moved with the block or stayed; duplicates noted): core decides.
  const now = propertiesNow({
    input: grid,
    message: (i) => grid[i][at.blockColumn + MESSAGE],
    first,
    inputColumns: run.inputColumns,
    blockShift: at.blockColumn - run.blockColumn,
    keys,
    rowNumber: (i) => i + 1,
    runId,
  });
  const { inputColumns, rowsNow, notes } = now;
  const rowKeys = now.keys;
  const previous = grid.map((row) => row.slice(at.blockColumn, at.blockColumn + WIDTH));
  const ours = new Set(Array.from({ length: WIDTH }, (_v, k) => at.blockColumn + k));
  const header = at.headerRow === null ? undefined : grid[at.headerRow];
  // Excel hands a date cell over as its serial; text is read by core's one rule, month-first only in a month-first locale.
  const reading = header ? dateReading(header, { monthFirst: fileMonthFirst(), today: day }, ours) : undefined;
  const dates = grid.map((row, i) => (reading && i >= first ? rowDates(row, reading) : undefined));
  return {
    sheet: found.sheet,
    sheetId: found.sheetId,
    blockColumn: at.blockColumn,
    headerRow: at.headerRow,
    inputColumns,
    rowsNow,
    keys: rowKeys,
    previous,
    notes,
    dates,
    header,
    rows: grid,
    ours,
  };
}

/**
 * Before matching: rows whose result this run wrote but whose input now names another property (only the input columns
 * were sorted, or a cell edited after its result arrived), and rows still "Checking…" whose property's result this run
 * already wrote elsewhere. Core's movedRows decides what each gets: the result of its property copied from the row
 * that shows it, the "Checking…" mark (matchRows writes the result when it comes), its unreadable input's error, or
 * ROW_CHANGED_ERROR; core's movedRowCells makes the cells of all but a copy.
 */
export function repairMoved(
  t: TableNow,
  block: Cell[][],
  tally: WrittenRows,
  pending: ReadonlySet<string>,
  at: string,
  runId?: string,
): void {
  const rows = t.previous.map((cells, i) => ({ key: t.keys[i], checking: t.rowsNow[i].checking, cells }));
  const fixes = movedRows(rows, {
    stamped: (s) => tally.stamps.has(s),
    printFor: (k) => tally.shown.get(k),
    prints: new Set(tally.shown.values()),
    pending,
  });
  for (const f of fixes) {
    // A copy as read: date columns come back as serials, text as text (the block's columns keep their formats).
    block[f.row] =
      f.kind === "copy"
        ? t.previous[f.from].map((v) => (v ?? "") as Cell)
        : movedRowCells(f, at, t.previous[f.row], runId);
    const now = movedRowNow(f);
    if (now) t.rowsNow[f.row] = now;
  }
}
