/**
 * Where a run's rows are now, from what the host read again before a write: the results block (moved by a column
 * inserted left of it or rows inserted above it), the input columns (moved with it or not), and which row holds which
 * property, for the run engine's matchRows. Pure; both add-ins read the grid and ask these.
 */
import { inputShiftNow, shiftMapping } from "./input-shift";
import { normaliseProperty, type ColumnMapping } from "./input-rows";
import { isCheckingMessage, type RowNow } from "../run";
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
 * Finds the results block again in a grid read from row 0 and column 0: from its header row when it has one (the
 * intact block nearest to where it was, in the row nearest to where the header was), else from what the block's rows
 * hold (Checking… marks, our statuses and times) within `search` columns. Undefined when it is nowhere.
 */
export function findBlockNow(
  grid: readonly (readonly unknown[])[],
  was: BlockAt,
  search = BLOCK_SEARCH_COLUMNS,
): BlockAt | undefined {
  if (was.headerRow !== null) {
    const order = grid.map((_r, i) => i).sort((a, b) => Math.abs(a - was.headerRow!) - Math.abs(b - was.headerRow!));
    for (const i of order) {
      const found = findHeaderBlock(grid[i], was.blockColumn).exact;
      if (found !== undefined) return { blockColumn: found, headerRow: i };
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
