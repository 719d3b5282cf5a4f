/**
 * "Check selected rows", decided: from what the host read around the selection (the table's rows, the same rows out
 * to the last column in use, the selected rows and columns), which rows are the table, its header row and input
 * columns, the rows to check, and where the results block goes. Nothing is read or written here; the host reads the
 * snapshot, asks this, and writes where it says. Columns are 0-based sheet columns; rows are offsets into `values`.
 */
import { OUTPUT_COLUMNS, columnLetters } from "./layout";
import { detectColumns, readPropertyRows, type ColumnMapping, type InputRow } from "./input-rows";
import {
  findBlockByShape,
  findEditedBlockByShape,
  findHeaderBlockOfTable,
  newBlockColumn,
  ourColumns,
} from "./placement";
import {
  detectColumnsInSelection,
  findHeaderRow,
  isAnotherHeader,
  isTitleRow,
  looksLikeHeaderRow,
  rowsOfWholeTable,
  selectionEnd,
  wholeTableSelected,
} from "./table";
import { formatCount } from "../numbers";

const WIDTH = OUTPUT_COLUMNS.length;
const HEADER_SCAN_ROWS = 10;
const HEADER_SCAN_MAX = 500;
const isBlankCell = (v: unknown) => v === "" || v === null || v === undefined || (typeof v === "string" && !v.trim());

export interface TableSnapshot {
  /** The table around the selection as read (Excel: the selection's surrounding region, grown to every selected row). */
  values: unknown[][];
  /** Sheet column of values[r][0]. */
  column: number;
  /** Selected rows, as offsets into `values` (inclusive). */
  rows: [number, number];
  /** Selected columns, as sheet columns (inclusive); undefined when one cell means its whole table. */
  columns?: [number, number];
  /** The same rows from column A out to the last column in use (`wide[r][c]` is sheet column c). */
  wide: unknown[][];
  /** The last column in use in those rows (-1 when none). */
  lastUsed: number;
  /** Columns the sheet has (Excel 16,384). */
  sheetColumns: number;
  mapping?: ColumnMapping;
  hasHeader?: boolean;
}

export type BlockKind = "in-place" | "beside" | "after" | "after-changed";

export interface TablePlan {
  ok: true;
  /** The table's rows start at this offset into the snapshot's values (a title row above the header is left out). */
  top: number;
  /** The table's columns: `first` (sheet column) and how many. */
  first: number;
  count: number;
  /** Offsets into the table's rows (from `top`). */
  headerRow: number | null;
  mapping: ColumnMapping;
  rows: InputRow[];
  blankRowsSkipped: number;
  /** The selection was the header row, or rows above it: the whole table is checked (core checkedRowsNote). */
  whole?: "header" | "above";
  /** The selection ran into another table, whose header row is this offset (from `top`): it is left as it is. */
  anotherTable?: number;
  /** Where the results go (sheet column), and why there; `changedAt` is a block of ours the user changed, left alone. */
  at: number;
  kind: BlockKind;
  /** In place over a block an earlier version wrote with fewer columns: its header row is written again. */
  legacy?: true;
  changedAt?: number;
  /** Without a header row: a block of ours the user edited (sheet column), left alone; the new block goes after it. */
  editedAt?: number;
}

export type TableRefusal = {
  ok: false;
  problem: string;
  offerColumns: boolean;
  found?: ColumnMapping;
  hasHeader?: boolean;
  header?: unknown[];
};

/**
 * The input columns a header row names, also when it names no UPRN or Postcode column (detectColumns answers only
 * when one of those is there): a stand-in "UPRN" past the last column lets it name the Address column, to preselect.
 */
export function columnsNamed(header: readonly unknown[]): ColumnMapping {
  const m = detectColumns([...header, "UPRN"]) ?? {};
  const out: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const)
    if (m[k] !== undefined && m[k]! < header.length) out[k] = m[k];
  return out;
}

/**
 * The last column in use in `rows` (`rows[r][c]` is sheet column c), -1 when none: a cell holding only spaces is not in
 * use, as it is not for the results placed directly beside a table, so both add-ins put a new block in the same column
 * whatever their platform counts as used (Excel's used range counts such a cell, Apps Script's values do not say).
 */
export function lastColumnInUse(rows: readonly (readonly unknown[])[]): number {
  let last = -1;
  for (const r of rows) for (let c = r.length - 1; c > last; c--) if (!isBlankCell(r[c])) last = c;
  return last;
}

/** The part of the snapshot that is the table, narrowed step by step: its rows (from `top`), its columns, the selection. */
interface TableWindow {
  values: unknown[][];
  wide: unknown[][];
  from: number;
  to: number;
  top: number;
  first: number;
  count: number;
  /** Columns chosen by hand, and a row at or above the selection reads as their header. */
  mappedHeader: boolean;
}

/** The table starts at row `h` of the snapshot: the rows above it are left out, the selection's offsets follow. */
function startWindowAt(w: TableWindow, h: number): void {
  w.top = h;
  w.values = w.values.slice(h);
  w.wide = w.wide.slice(h);
  w.from = Math.max(0, w.from - h);
  w.to -= h;
}

/**
 * A title row (or a few notes) above the header: the table starts at the header row. The header is looked for in the
 * table's first rows, or down to the selection under a long preamble (at most HEADER_SCAN_MAX rows).
 */
function skipTitleRows(s: TableSnapshot, w: TableWindow): void {
  if (s.mapping || s.hasHeader === false) return;
  const h = findHeaderRow(w.values.slice(0, Math.max(HEADER_SCAN_ROWS, Math.min(w.from + 1, HEADER_SCAN_MAX))), w.from);
  // The header row itself, or only the title rows above it, selected: the whole table (below).
  const titleOnly = w.to < h && w.values.slice(w.from, w.to + 1).every((r) => isTitleRow(r) || r.every(isBlankCell));
  if (h > 0 && (h <= w.to || titleOnly)) startWindowAt(w, h);
}

/**
 * Columns chosen by hand: the header is the nearest row at or above the selection, within the table, that reads as one
 * ("Property ID", "Town"), also under title rows; without one, the first row decides (readPropertyRows).
 */
function startAtMappedHeader(s: TableSnapshot, w: TableWindow): void {
  if (!s.mapping || s.hasHeader === false) return;
  for (let i = w.from; i >= Math.max(0, w.from - HEADER_SCAN_MAX) && !w.values[i].every(isBlankCell); i--) {
    if (!looksLikeHeaderRow(w.values[i])) continue;
    w.mappedHeader = true;
    startWindowAt(w, i);
    break;
  }
}

/** Tables side by side with no blank column between: the selected columns choose the table. */
function chooseSideBySideTable(s: TableSnapshot, w: TableWindow): void {
  if (s.mapping || s.hasHeader === false || !s.columns || !w.values.length) return;
  const chosen = detectColumnsInSelection(w.values[0], {
    first: s.columns[0] - s.column,
    last: s.columns[1] - s.column,
  });
  if (!chosen) return;
  w.first = s.column + chosen.first;
  w.count = chosen.last - chosen.first + 1;
  w.values = w.values.map((r) => r.slice(chosen.first, chosen.last + 1));
}

function tableWindow(s: TableSnapshot): TableWindow {
  const w: TableWindow = {
    values: s.values,
    wide: s.wide,
    from: s.rows[0],
    to: s.rows[1],
    top: 0,
    first: s.column,
    count: Math.max(0, ...s.values.map((r) => r.length)),
    mappedHeader: false,
  };
  skipTitleRows(s, w);
  startAtMappedHeader(s, w);
  chooseSideBySideTable(s, w);
  return w;
}

/** Where a block of ours already is in the table (columns from the table's first): named in its header, or by shape. */
function findOurBlock(s: TableSnapshot, w: TableWindow) {
  const { first, wide } = w;
  const local = (c: number | undefined) => (c === undefined ? undefined : c - first);
  // Tables side by side in one header row each have their own block.
  const header = wide[0] ?? [];
  const found = s.hasHeader === false ? {} : findHeaderBlockOfTable(header, first, wide.slice(1));
  const inHeader = {
    ...found,
    exact: local(found.exact),
    changed: local(found.changed),
    changedColumns: found.changedColumns?.map((c) => c - first),
  };
  const right = wide.map((r) => r.slice(first));
  const mapped = Object.values(s.mapping ?? {}).filter((v): v is number => typeof v === "number");
  const shapeRows =
    s.hasHeader === true || inHeader.exact !== undefined || inHeader.changed !== undefined ? right.slice(1) : right;
  const shapeFrom = Math.max(1, ...mapped.map((m) => m + 1));
  const shape = findBlockByShape(shapeRows, shapeFrom);
  const ours = ourColumns(inHeader, shape, s.hasHeader === false ? undefined : right[0], mapped);
  return { inHeader, shapeRows, shapeFrom, shape, ours };
}

type OurBlock = ReturnType<typeof findOurBlock>;
type TableRead = ReturnType<typeof readPropertyRows>;

/** A refusal that offers to choose the input columns, with those the header row names preselected. */
function chooseColumnsRefusal(problem: string, w: TableWindow, input: unknown[][], hasHeader: boolean): TableRefusal {
  return {
    ok: false,
    problem,
    offerColumns: true,
    found: columnsNamed(input[0] ?? []),
    hasHeader,
    header: w.values[0] ?? [],
  };
}

/** The rows the selection means, and whether it meant the whole table or ran into another one below. */
function selectedSpan(
  w: TableWindow,
  headerRow: number | null,
): { from: number; to: number; whole?: TablePlan["whole"]; anotherTable?: number } {
  const under = headerRow === null ? 0 : headerRow + 1;
  if (wholeTableSelected(w.to, headerRow)) {
    // The header row selected (or a title above it) means the whole table, to its first fully blank row.
    return {
      from: under,
      to: under - 1 + rowsOfWholeTable(w.values.slice(under)),
      whole: w.to === headerRow ? "header" : "above",
    };
  }
  // A selection running into a second table below (a whole column, or across the blank rows) keeps to the first.
  const end = Math.max(w.from - 1, under + selectionEnd(w.values.slice(under), w.to - under));
  const next = end < w.to ? w.values.slice(end + 1, w.to + 1).findIndex(isAnotherHeader) : -1;
  return { from: w.from, to: end, ...(next >= 0 ? { anotherTable: end + 1 + next } : {}) };
}

/** Blank rows at the end of a selection are left out and counted; a blank row in the middle gets its message. */
function rowsToCheck(read: TableRead, span: { from: number; to: number }, input: unknown[][], ours: OurBlock["ours"]) {
  const selected = read.rows.filter((r) => r.index >= span.from && r.index <= span.to);
  let end = selected.length;
  const userBlank = (r: readonly unknown[]) => r.every((v, c) => ours.has(c) || isBlankCell(v));
  while (end > 0 && selected[end - 1].error?.code === "empty_row" && userBlank(input[selected[end - 1].index])) end--;
  return { rows: selected.slice(0, end), selected: selected.length, skipped: selected.length - end };
}

type PlanBase = Omit<TablePlan, "at" | "kind" | "legacy" | "changedAt" | "editedAt">;

/** Our block where it already is, else directly right of the data if free, else after the last column in use. */
function placeBlock(
  s: TableSnapshot,
  w: TableWindow,
  read: TableRead & { mapping: ColumnMapping },
  block: OurBlock,
  input: unknown[][],
  base: PlanBase,
): TablePlan | TableRefusal {
  const { first, count, wide } = w;
  const { inHeader, shape, shapeRows, shapeFrom } = block;
  const existing = inHeader.exact ?? (read.headerRow === null ? shape : undefined);
  if (existing !== undefined) {
    const inputs = Object.values(read.mapping).filter((v): v is number => typeof v === "number");
    const overlap = inputOverlapProblem(
      inputs.map((c) => first + c),
      first + existing,
    );
    if (overlap) return chooseColumnsRefusal(overlap, w, input, read.headerRow !== null);
    const legacy = existing === inHeader.exact && inHeader.legacy ? { legacy: true as const } : {};
    return { ...base, at: first + existing, kind: "in-place", ...legacy };
  }
  const beside = first + count;
  const changed = inHeader.changed ?? shape;
  const free = changed === undefined && wide.every((r) => r.slice(beside, beside + WIDTH).every(isBlankCell));
  if (free) return { ...base, at: beside, kind: "beside" };
  // Without a header row, a block of ours the user edited: its whole width counts as used (its Message column may be
  // blank, columns may have been inserted inside it), so the new block stands one blank column after it.
  const edited =
    read.headerRow === null && shape === undefined ? findEditedBlockByShape(shapeRows, shapeFrom) : undefined;
  const lastUsed = edited === undefined ? s.lastUsed : Math.max(s.lastUsed, first + edited.end);
  const at = newBlockColumn({ tableEnd: beside - 1, lastUsed, freeBeside: false });
  if (at + WIDTH > s.sheetColumns)
    return {
      ok: false,
      problem: `There is no room for the ${WIDTH} result columns right of your data on this sheet: clear some columns to the right.`,
      offerColumns: false,
    };
  return changed !== undefined
    ? { ...base, at, kind: "after-changed", changedAt: first + changed }
    : { ...base, at, kind: "after", ...(edited !== undefined ? { editedAt: first + edited.start } : {}) };
}

export function planTable(s: TableSnapshot): TablePlan | TableRefusal {
  const w = tableWindow(s);
  const block = findOurBlock(s, w);
  // Our own columns are hidden from header detection only: "Matched UPRN" is never taken for the user's UPRN.
  const input = w.values.map((r, i) => (i === 0 ? r.map((v, c) => (block.ours.has(c) ? "" : v)) : r));
  const read = readPropertyRows(input, { mapping: s.mapping, hasHeader: s.hasHeader ?? (w.mappedHeader || undefined) });
  if (read.problem || !read.mapping) {
    const hasHeader = read.headerRow !== null || looksLikeHeaderRow(input[0] ?? []);
    return chooseColumnsRefusal(read.problem ?? "No UPRN or Postcode column.", w, input, hasHeader);
  }
  const span = selectedSpan(w, read.headerRow);
  const { rows, selected, skipped } = rowsToCheck(read, span, input, block.ours);
  if (rows.length === 0) {
    return {
      ok: false,
      problem: selected
        ? "The selected rows are empty: select the rows to check (or the table's header row, to check all of it)."
        : "The selection has no data rows: select the rows to check (or the table's header row, to check all of it).",
      offerColumns: false,
    };
  }
  const base: PlanBase = {
    ok: true as const,
    top: w.top,
    first: w.first,
    count: w.count,
    headerRow: read.headerRow,
    mapping: read.mapping,
    rows,
    blankRowsSkipped: skipped,
    ...(span.whole ? { whole: span.whole } : {}),
    ...(span.anotherTable !== undefined ? { anotherTable: span.anotherTable } : {}),
  };
  return placeBlock(s, w, { ...read, mapping: read.mapping }, block, input, base);
}

/**
 * Input columns chosen inside our results block (its Matched UPRN taken for the UPRN, say) would be written over by the
 * results: refused, with what to do. Columns are 0-based sheet columns; `at` is the block's first.
 */
function inputOverlapProblem(inputColumns: readonly number[], at: number): string | undefined {
  return inputColumns.some((c) => c >= at && c < at + WIDTH)
    ? `The chosen input columns overlap the results block at ${columnLetters(at)}; choose other columns.`
    : undefined;
}

/**
 * What both add-ins say as a check begins about the rows that are not sent as they stand: rows with input errors (each
 * row's Message says what to fix), rows sharing a property with an earlier row (checked once), rows hidden by a filter
 * (neither sent nor written). One sentence each, only for counts above zero.
 */
export function rowsAsideNotes(c: { invalid: number; duplicates: number; hidden: number }): string[] {
  const n = (k: number, one: string) => `${formatCount(k)} ${k === 1 ? one : `${one}s`}`;
  const notes: string[] = [];
  if (c.invalid)
    notes.push(`${n(c.invalid, "row")} with input errors; see ${c.invalid === 1 ? "its" : "their"} Message.`);
  if (c.duplicates)
    notes.push(
      `${n(c.duplicates, "duplicate row")} ${c.duplicates === 1 ? "shares" : "share"} a check with an earlier row.`,
    );
  if (c.hidden)
    notes.push(
      `${n(c.hidden, "row")} hidden by a filter ${c.hidden === 1 ? "was" : "were"} skipped: not sent and not written.`,
    );
  return notes;
}

/** A selection of several separate areas (`addresses`, in the host's notation) is refused: one block of rows is checked. */
export function multiAreaProblem(addresses: readonly string[]): string {
  const list = addresses.join(", ");
  return `You selected ${addresses.length} separate areas (${list.length > 80 ? `${list.slice(0, 77)}...` : list}). Select one block of rows (click the first row, Shift+click the last), or the table's header row to check all of it, and check again.`;
}

/** A selection with nothing in it (`address` in the host's notation): nothing is checked, and the user is told what to select. */
export function emptySelectionProblem(address?: string): string {
  return `Nothing to check in ${address ? `${address}, ` : ""}the cells you selected: no UPRN, postcode or address there. Select rows of your table (with its header row or the rows under it), then check again.`;
}
