/**
 * Where a run's rows are now, from what the host read again before a write: the results block (moved by a column
 * inserted left of it or rows inserted above it), the input columns (moved with it or not), and which row holds which
 * property, for the run engine's matchRows. Pure; both add-ins read the grid and ask these.
 */
import { inputShiftNow, shiftMapping } from "./input-shift";
import { normaliseProperty, type ColumnMapping } from "./input-rows";
import { isCheckingMessage, type RowNow } from "../run";
import { OUTPUT_COLUMNS } from "./layout";
import { blockColumnByRows, findHeaderBlock } from "./placement";
import { joinNotes, sameAsNotes } from "./table";

/** Where the results block stands: its first column, and its header row (null when it has none). */
export interface BlockAt {
  blockColumn: number;
  headerRow: number | null;
}

/**
 * How far (columns) from where it was a block without a header row is looked for: a host reads this many columns past
 * the block, and findBlockNow searches them.
 */
export const BLOCK_SEARCH_COLUMNS = 16;

/**
 * How many rows either side of where the header row was a first, smaller read covers. The header row is the one
 * nearest to where it was, so one found within this many rows of it is the one a read of every row finds too.
 */
export const NEAR_HEADER_ROWS = 200;

/** Rows and columns to read, 0-based: `rowCount` rows from `firstRow`, and columns 0 to `columnCount` - 1. */
export interface ReadWindow {
  firstRow: number;
  rowCount: number;
  columnCount: number;
}

/**
 * What a host reads to find the results block again, in order, until findBlockNow finds it; the last is every row in
 * use, so no number of rows inserted above the table loses it. Its columns: every column in use, the input columns, and
 * the block where it was and BLOCK_SEARCH_COLUMNS past it (a block without a header row may have moved right, its last
 * columns blank; past those and the columns in use every cell is blank), within the sheet's `maxColumns`. With a header
 * row, and more rows in use than NEAR_HEADER_ROWS either side of it, the rows near it are read first, in the columns in
 * use (where header cells are): that smaller read is what a run's every write costs while nobody inserts hundreds of
 * rows. `wholeSheet`: one read of every row, for a host that needs them all anyway. Every argument 0-based; `lastRow`
 * and `lastColumn` are the last ones in use.
 */
export function blockReadWindows(o: {
  lastRow: number;
  lastColumn: number;
  maxColumns: number;
  headerRow: number | null;
  blockColumn: number;
  inputColumns: ColumnMapping;
  wholeSheet?: boolean;
}): ReadWindow[] {
  const inputs = Object.values(o.inputColumns).filter((v): v is number => typeof v === "number");
  const blockEnd = o.blockColumn + OUTPUT_COLUMNS.length - 1;
  const widest = Math.max(o.lastColumn, ...inputs, blockEnd + BLOCK_SEARCH_COLUMNS);
  const whole = { firstRow: 0, rowCount: o.lastRow + 1, columnCount: Math.min(o.maxColumns, widest + 1) };
  if (o.headerRow === null || o.wholeSheet) return [whole];
  const firstRow = Math.max(0, o.headerRow - NEAR_HEADER_ROWS);
  const endRow = Math.min(o.lastRow, o.headerRow + NEAR_HEADER_ROWS);
  if (firstRow === 0 && endRow === o.lastRow) return [whole];
  const near = { firstRow, rowCount: endRow - firstRow + 1, columnCount: Math.min(o.maxColumns, o.lastColumn + 1) };
  return near.rowCount > 0 ? [near, whole] : [whole];
}

/**
 * Finds the results block again in a grid read from row `top` (0 unless it is a window of blockReadWindows) and column
 * 0: from its header row when it has one (the intact block nearest to where it was, in the row nearest to where the
 * header was), else from what the block's rows hold (Checking… marks, our statuses and times) within `search` columns.
 * Undefined when it is nowhere. Rows are the sheet's, counted from 0, in what is returned as in `was`.
 */
export function findBlockNow(
  grid: readonly (readonly unknown[])[],
  was: BlockAt,
  search = BLOCK_SEARCH_COLUMNS,
  top = 0,
): BlockAt | undefined {
  if (was.headerRow !== null) {
    const away = (i: number) => Math.abs(top + i - was.headerRow!);
    const order = grid.map((_r, i) => i).sort((a, b) => away(a) - away(b));
    for (const i of order) {
      const found = findHeaderBlock(grid[i], was.blockColumn).exact;
      if (found !== undefined) return { blockColumn: found, headerRow: top + i };
    }
    return undefined;
  }
  const c = blockColumnByRows(grid, was.blockColumn, 0, search);
  return c === undefined ? undefined : { blockColumn: c, headerRow: null };
}

export interface PropertiesNow {
  /** The input columns now, and how far they moved since the last read. */
  inputColumns: ColumnMapping;
  shift: number;
  /** Per row: only rows still "Checking…" take results. */
  rowsNow: RowNow[];
  /** Every row's property key now ("!" + the reason when its input is invalid), marked or not. */
  keys: (string | undefined)[];
  /** What each row's Message adds: a postcode read another way, "Same property as row N; checked once." */
  notes: (string | undefined)[];
}

/**
 * Which row holds which property now. `input[i]` is a row as read (its input columns in `inputColumns`' numbering, as
 * last seen); `message(i)` its Message cell; rows before `first` are above the table. `blockShift` is how far the block
 * moved: the input moved with it (a column inserted left of both) or stayed (inserted between them), as the rows still
 * waiting for this run's `keys` say. `rowNumber(i)` is the sheet's row number of input[i], for the duplicates' note.
 */
export function propertiesNow(o: {
  input: readonly (readonly unknown[])[];
  message: (i: number) => unknown;
  first?: number;
  inputColumns: ColumnMapping;
  blockShift: number;
  keys: ReadonlySet<string>;
  rowNumber: (i: number) => number;
  /** The run whose rows these are: rows marked "Checking…" by another run are not this run's. */
  runId?: string;
}): PropertiesNow {
  const first = o.first ?? 0;
  const waiting = (i: number) => i >= first && isCheckingMessage(o.message(i), o.runId);
  const shift = inputShiftNow(o.input, o.inputColumns, o.blockShift, waiting, o.keys);
  const inputColumns = shiftMapping(o.inputColumns, shift);
  const rowsNow: RowNow[] = [];
  const keys: (string | undefined)[] = [];
  const notes: (string | undefined)[] = [];
  o.input.forEach((row, i) => {
    const cell = (c: number | undefined) => (c === undefined ? undefined : row[c]);
    const r =
      i >= first
        ? normaliseProperty(cell(inputColumns.uprn), cell(inputColumns.postcode), cell(inputColumns.address))
        : undefined;
    keys.push(r?.key ?? (r?.error ? `!${r.error.message}` : undefined));
    notes.push(r?.note);
    rowsNow.push(!waiting(i) ? {} : r?.key ? { key: r.key, checking: true } : { checking: true });
  });
  // Several rows of one property: the first is checked, the others say so.
  sameAsNotes(
    rowsNow.map((r) => r.key),
    o.rowNumber,
  ).forEach((same, i) => (notes[i] = joinNotes(notes[i], same)));
  return { inputColumns, shift, rowsNow, keys, notes };
}
