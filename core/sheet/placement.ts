/**
 * Where the results block is: the one rule both add-ins use to tell our block (intact, or changed by the user)
 * from a user's own columns, by its header cells or, in a table without a header row, by what its rows hold. The
 * same sheet gets the same answer in Excel and in Google Sheets. Pure: rows are arrays of cell values.
 */
import {
  LEGACY_HEADER_COUNTS,
  STATUS_COLOURS,
  columnLetters,
  outputHeaders,
  statusColumnIndexes,
  OUTPUT_COLUMNS,
} from "./layout";
import { detectColumns } from "./input-rows";
import { keyOfCell } from "./table";
import { isCheckingMessage } from "../run";

const WIDTH = OUTPUT_COLUMNS.length;
const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");
const MATCHED_UPRN = OUTPUT_COLUMNS.findIndex((c) => c.header === "Matched UPRN");
const SCORE = OUTPUT_COLUMNS.findIndex((c) => c.key === "compliance_score");
/** Our first column holds a score (a number, or text of one as a cell may hand it back) or nothing. */
const isScore = (v: unknown) =>
  v === null ||
  v === undefined ||
  v === "" ||
  typeof v === "number" ||
  (typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v));
const OUR_HEADERS = outputHeaders().map((h) => h.toLowerCase());
const STATUS_COLS = statusColumnIndexes();
const CHECKED_AT = OUTPUT_COLUMNS.findIndex((c) => c.header.startsWith("Checked at"));
const STATUS_WORDS = new Set<string>(Object.keys(STATUS_COLOURS));
const norm = (v: unknown) => (typeof v === "string" ? v.trim().toLowerCase() : "");
const isBlankCell = (v: unknown) => v === null || v === undefined || (typeof v === "string" && v.trim() === "");
/** A "Checked at" cell: the text we wrote, or the date Sheets reads it back as. */
const isCheckedAt = (v: unknown) =>
  Object.prototype.toString.call(v) === "[object Date]" ||
  /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(String(v ?? "").trim());

/**
 * Headers of ours that a landlord's own sheet does not use: "EPC rating", "Gas expiry" or "Risk level" are common
 * column names in compliance sheets, so only these make a run of our headers our (changed) block.
 */
export const DISTINCTIVE_HEADERS = new Set(
  ["Matched UPRN", "Matched address", "Last updated (UTC)", "Checked at (UTC)", "Message"]
    .map((h) => h.toLowerCase())
    .filter((h) => OUR_HEADERS.includes(h)),
);

export interface HeaderBlock {
  /** Start of every one of our headers, in order, untouched. */
  exact?: number;
  /** The exact block is one an earlier version wrote, with fewer columns: its header must be written again. */
  legacy?: boolean;
  /** Start of our block changed by the user (a column inserted into it, a header renamed). */
  changed?: number;
  /** The columns of that changed block that still carry a header of ours. */
  changedColumns?: number[];
}

/**
 * Where our results block stands in a header row. `exact`: every one of our headers, in order, untouched. `changed`:
 * our headers in our order with gaps (a column inserted, a header renamed), at least three of them and two of the
 * distinctive ones; we must neither overwrite it nor read its columns as the user's input. A user's own "Risk level" or
 * "EPC rating" columns are not our block.
 */
export function findHeaderBlock(row: readonly unknown[], near = 0): HeaderBlock {
  const out: HeaderBlock = {};
  // Where there are several intact blocks, the one nearest to where ours was last seen.
  for (let i = 0; i + WIDTH <= row.length; i++) {
    if (
      OUR_HEADERS.every((h, k) => norm(row[i + k]) === h) &&
      (out.exact === undefined || Math.abs(i - near) < Math.abs(out.exact - near))
    )
      out.exact = i;
  }
  // A block an earlier version wrote: our first headers of that time, and blank header cells where the newer columns go.
  if (out.exact === undefined) {
    for (const count of LEGACY_HEADER_COUNTS) {
      for (let i = 0; i + count <= row.length; i++) {
        const prefix = OUR_HEADERS.slice(0, count).every((h, k) => norm(row[i + k]) === h);
        const room = Array.from({ length: WIDTH - count }, (_, k) => row[i + count + k]).every(isBlankCell);
        if (prefix && room && (out.exact === undefined || Math.abs(i - near) < Math.abs(out.exact - near)))
          out.exact = i;
      }
      if (out.exact !== undefined) {
        out.legacy = true;
        break;
      }
    }
  }
  const inExact = (i: number) => out.exact !== undefined && i >= out.exact && i < out.exact + WIDTH;
  const ourIndex = (i: number) => (inExact(i) ? -1 : OUR_HEADERS.indexOf(norm(row[i])));
  for (let i = 0; i < row.length; i++) {
    if (ourIndex(i) < 0) continue;
    // Follow our headers in our order; one out of order starts another block (or was the user's own column).
    const members: number[] = [];
    for (let k = i, last = -1; k < Math.min(row.length, i + WIDTH + 5); k++) {
      const idx = ourIndex(k);
      if (idx < 0) continue;
      if (idx <= last) break;
      members.push(k);
      last = idx;
    }
    const distinctive = members.filter((k) => DISTINCTIVE_HEADERS.has(norm(row[k]))).length;
    if (members.length >= 3 && distinctive >= 2) return { ...out, changed: i, changedColumns: members };
  }
  return out;
}

/**
 * The columns (offsets into the row) that are ours and so never the user's input: an intact block, the headers of a
 * changed one, a block without a header. A column the user mapped, or whose header names an input column ("UPRN",
 * "Postcode", which no header of ours does), stays the user's whatever stands around it.
 */
export function ourColumns(
  found: HeaderBlock,
  shape: number | undefined,
  header: readonly unknown[] | undefined,
  mapped: readonly number[],
): Set<number> {
  const cols = new Set<number>();
  const span = (start: number | undefined) => {
    if (start !== undefined) for (let k = 0; k < WIDTH; k++) cols.add(start + k);
  };
  span(found.exact);
  span(shape);
  for (const c of found.changedColumns ?? []) cols.add(c);
  for (const m of mapped) cols.delete(m);
  for (const c of [...cols]) {
    const h = header?.[c];
    if (!OUR_HEADERS.includes(norm(h)) && detectColumns([h]) !== null) cols.delete(c);
  }
  return cols;
}

/**
 * Where our block stands in rows without a header (we write no header row then): the first column from which every
 * non-blank row holds status words in our status columns and a "YYYY-MM-DD hh:mm:ss" time in Checked at.
 */
export function findBlockByShape(rows: readonly (readonly unknown[])[], from: number): number | undefined {
  const width = Math.max(0, ...rows.map((r) => r.length));
  for (let s = Math.max(0, from); s + CHECKED_AT < width; s++) {
    let matched = 0;
    let ok = true;
    for (const r of rows) {
      const cells = r.slice(s, s + WIDTH);
      if (cells.every(isBlankCell)) continue;
      const statuses = STATUS_COLS.map((c) => norm(cells[c]));
      if (
        ((statuses.every((w) => STATUS_WORDS.has(w)) && isCheckedAt(cells[CHECKED_AT])) ||
          isCheckingMessage(cells[MESSAGE])) &&
        isScore(cells[SCORE])
      )
        matched++;
      else if (!(statuses.every((w) => w === "") && isBlankCell(cells[CHECKED_AT]))) {
        ok = false;
        break;
      }
    }
    if (ok && matched > 0) return s;
  }
  return undefined;
}

/** Columns a user may insert inside a header-less block of ours for it still to be known (and left alone) by its rows. */
const INSERTED_MAX = 3;

/**
 * A block of ours without a header row that the user edited (a status cell retyped, a column inserted): the first
 * column from `from` where some non-blank rows still look like ours (looksLikeOurRow) though findBlockByShape no longer
 * takes the block as ours, and its last column. It is left as it is, and a new block goes after its whole width. A
 * column inserted inside it moves its status words and Checked at time right of where they were: a row with a score,
 * then status words and a time up to INSERTED_MAX columns further on, is ours too, and the block that much wider.
 */
export function findEditedBlockByShape(
  rows: readonly (readonly unknown[])[],
  from: number,
): { start: number; end: number } | undefined {
  const width = Math.max(0, ...rows.map((r) => r.length));
  for (let s = Math.max(0, from); s + CHECKED_AT < width; s++) {
    if (rows.some((r) => looksLikeOurRow(r, s))) return { start: s, end: s + WIDTH - 1 };
  }
  for (let s = Math.max(0, from); s + CHECKED_AT < width; s++) {
    let inserted = 0;
    for (const r of rows) inserted = Math.max(inserted, insertedInside(r, s));
    if (inserted) return { start: s, end: s + WIDTH - 1 + inserted };
  }
  return undefined;
}

/** How many columns were inserted inside our row that starts at `start` (0 when it does not look like ours so). */
function insertedInside(cells: readonly unknown[], start: number): number {
  if (isBlankCell(cells[start + SCORE]) || !isScore(cells[start + SCORE])) return 0;
  for (let a = 0; a <= INSERTED_MAX; a++) {
    if (!STATUS_WORDS.has(norm(cells[start + STATUS_COLS[0] + a]))) continue;
    for (let b = Math.max(1, a); b <= INSERTED_MAX; b++) if (isCheckedAt(cells[start + CHECKED_AT + b])) return b;
  }
  return 0;
}

/** What both add-ins say when they write results beside a table without a header row. */
export const NO_HEADER_NOTE =
  "No header row: the results columns have no headers either, so the rows stay aligned; a re-run finds them and updates them in place.";

/** What both add-ins say when a header-less block of ours was edited and a new block is written after it. */
export const EDITED_BLOCK_NOTE =
  "The results columns from the last check were changed since (a column inserted or edited inside them), so they are left as they are and fresh results go in a new block after them.";

/**
 * One row of our block without a header, by what it holds: a Checking… mark, or our status words and a Checked at
 * time; and its first column a score or blank (a user's column inserted at the block's start is not ours).
 */
export function looksLikeOurRow(cells: readonly unknown[], start: number): boolean {
  if (!isScore(cells[start + SCORE])) return false;
  if (isCheckingMessage(cells[start + MESSAGE])) return true;
  return STATUS_WORDS.has(norm(cells[start + STATUS_COLS[0]])) && isCheckedAt(cells[start + CHECKED_AT]);
}

/**
 * Where a results block without a header row is now, from what its rows hold: the column it was in (`was`) if its
 * rows still look like ours, else the column within `search` columns of it whose rows look most like ours (the nearer
 * on a tie); undefined when none does. `grid[r][0]` is the sheet's column `offset`, in the same numbering as `was`
 * (0-based in Excel, 1-based in Sheets). Both add-ins find a moved header-less block with this.
 */
export function blockColumnByRows(
  grid: readonly (readonly unknown[])[],
  was: number,
  offset = 0,
  search = 16,
): number | undefined {
  const scoreAt = (c: number) => grid.reduce((n, row) => n + (looksLikeOurRow(row, c - offset) ? 1 : 0), 0);
  if (scoreAt(was) > 0) return was;
  const width = grid.length ? grid[0].length : 0;
  let best: { c: number; score: number } | undefined;
  for (let c = Math.max(offset, was - search); c <= was + search && c - offset + WIDTH <= width; c++) {
    const score = scoreAt(c);
    if (
      score > 0 &&
      (!best || score > best.score || (score === best.score && Math.abs(c - was) < Math.abs(best.c - was)))
    )
      best = { c, score };
  }
  return best?.c;
}

/**
 * Where a new results block goes (0-based column): directly right of the table when those columns are free, else
 * one blank column after the last column in use, so a user's column is never written over and the table's edge
 * stays visible. Both add-ins place new blocks with this.
 */
export function newBlockColumn(o: { tableEnd: number; lastUsed: number; freeBeside: boolean }): number {
  return o.freeBeside ? o.tableEnd + 1 : Math.max(o.lastUsed, o.tableEnd) + 2;
}

/** Where a check's results go, as both add-ins say it: a plan's kind and columns (0-based), lettered as the user sees them. */
export function resultsPlaceNote(p: {
  kind: "in-place" | "beside" | "after" | "after-changed";
  /** The block's first column. */
  at: number;
  /** The data's first column. */
  dataFirst: number;
  /** The first column of a block of ours the user changed (after-changed). */
  changedAt?: number;
}): string {
  const span = (from: number) => `${columnLetters(from)}:${columnLetters(from + WIDTH - 1)}`;
  if (p.kind === "in-place") return `Results are updated in place in columns ${span(p.at)}.`;
  if (p.kind === "beside")
    return `Results go in columns ${span(p.at)}, right of your data in ${columnLetters(p.dataFirst)}:${columnLetters(p.at - 1)}.`;
  // A new block stands one blank column after the last column in use (newBlockColumn).
  const after = `Results go in columns ${span(p.at)}, after the last column in use (${columnLetters(p.at - 2)}), so none of your columns is overwritten.`;
  return p.kind === "after-changed" && p.changedAt !== undefined
    ? `The results columns from an earlier check (${span(p.changedAt)}) were changed (a column inserted or a header renamed), so they are left as they are and fresh results go in a new block.\n${after}`
    : after;
}

/** A header of ours the user changed: the column (0-based), what it says now, and what we wrote. */
export interface HeaderChange {
  column: number;
  found: string;
  expected: string;
}

/**
 * Our block in a header row, and whether it is still exactly ours: `changes` empty for an intact block, else each of
 * our headers the user changed (a column inserted inside it, a header renamed), so it is never written over. Null when
 * the row holds no block of ours. `found` is findHeaderBlock's answer for the row, when the caller has it.
 */
export function inspectHeaderBlock(
  row: readonly unknown[],
  found: HeaderBlock = findHeaderBlock(row),
): { start: number; changes: HeaderChange[]; legacy?: boolean } | null {
  if (found.exact !== undefined)
    return found.legacy ? { start: found.exact, changes: [], legacy: true } : { start: found.exact, changes: [] };
  if (found.changed === undefined) return null;
  const start = found.changed;
  const changes: HeaderChange[] = [];
  outputHeaders().forEach((h, k) => {
    const v = row[start + k];
    if (norm(v) !== h.toLowerCase())
      changes.push({ column: start + k, found: v === undefined || v === null ? "" : String(v), expected: h });
  });
  return { start, changes };
}

/**
 * A checked table's sheet that is not there, in the words both add-ins use (lower case). Both find a sheet by its own
 * id, which a rename keeps, so it was deleted; a record kept by name only (an earlier version's) may have been renamed.
 */
export function sheetNotFound(sheet: string, recordedByName = false): string {
  return `the sheet "${sheet}" was deleted${recordedByName ? ", or renamed before its id was recorded" : ""}`;
}

/**
 * A recorded table's first input column (UPRN, Postcode or Address) not where the record says, whether it moved with
 * the results block or stayed: in the words of sheetNotFound and blockNotFound (lower case, naming the sheet).
 */
export function inputColumnNotFound(sheet: string): string {
  return `the UPRN or Postcode column of the table on "${sheet}" was not found`;
}

/**
 * Why a table's results block is not where core looks for it, in the words both add-ins use (lower case, to go on in a
 * sentence). `blockColumn` is where it was (0-based); `header`, the row its header was in, as read now (none for a
 * table without a header row). Our columns still in that row but changed: which column now says what; else they were
 * deleted, or moved where they cannot be told from the user's own columns.
 */
export function blockNotFound(sheet: string, blockColumn: number, header?: readonly unknown[]): string {
  const where = `the results columns (${columnLetters(blockColumn)}:${columnLetters(blockColumn + WIDTH - 1)}) on "${sheet}"`;
  const change = header ? inspectHeaderBlock(header, findHeaderBlock(header, blockColumn))?.changes[0] : undefined;
  return change
    ? `${where} were changed: column ${columnLetters(change.column)} is headed "${change.found}" where "${change.expected}" was expected`
    : `${where} were deleted or moved`;
}

/**
 * Our block in a header row that may hold several tables side by side (A:B and D:E, both "UPRN / Postcode"), each with
 * its own block. A block belongs to the table whose UPRNs its Matched UPRN column holds, row for row (`rows`: the rows
 * under the header, in the same columns as `row`); else, as a block is written right of its table (beside it, or after
 * the last column in use), to the nearest table left of it that has none yet. `tableFirst` is where the table being
 * checked starts; cells left of it are still read (another table's block may stand right of this one) but never taken
 * for this table's. A row holding one table (the usual case, also with a blank header cell inside it) gets
 * findHeaderBlock's answer for the cells from `tableFirst`. Both add-ins use it, so a check of one table never writes
 * over the other's results.
 */
export function findHeaderBlockOfTable(
  row: readonly unknown[],
  tableFirst = 0,
  rows: readonly (readonly unknown[])[] = [],
): HeaderBlock {
  const blocks: number[] = [];
  for (let i = 0; i + WIDTH <= row.length; i++) {
    if (OUR_HEADERS.every((h, k) => norm(row[i + k]) === h)) {
      blocks.push(i);
      i += WIDTH - 1;
    }
  }
  const inBlock = (i: number) => blocks.some((b) => i >= b && i < b + WIDTH);
  // Tables: header cells outside our blocks, split by a blank cell or a block when the next cells name a UPRN or
  // Postcode column again, or by a cell naming a UPRN or Postcode column the table already names (no gap between).
  const tables: { first: number; keys: Set<string>; uprn?: number }[] = [];
  let gap = true;
  for (let i = 0; i < row.length; i++) {
    if (inBlock(i) || isBlankCell(row[i])) {
      gap = true;
      continue;
    }
    const k = keyOfCell(row[i]);
    const cur = tables[tables.length - 1];
    const blockBetween = cur && blocks.some((b) => b > cur.first && b < i);
    if (!cur || (k && cur.keys.has(k)) || (blockBetween && (k || gap)))
      tables.push({ first: i, keys: new Set(k ? [k] : []), ...(k === "uprn" ? { uprn: i } : {}) });
    else if (k) {
      cur.keys.add(k);
      if (k === "uprn" && cur.uprn === undefined) cur.uprn = i;
    }
    gap = false;
  }
  const keyed = tables.filter((t) => t.keys.size);
  const fromFirst = () => findHeaderBlock(row.map((v, i) => (i < tableFirst ? "" : v)));
  if (keyed.length <= 1) return fromFirst();
  const owner = new Map<number, number>();
  // By what the blocks hold: the table whose UPRNs a block's Matched UPRN cells repeat.
  const uprnKey = (v: unknown) =>
    String(v ?? "")
      .trim()
      .replace(/^0+(?=\d)/, "");
  for (const b of blocks) {
    let best: { t: number; score: number } | undefined;
    let tie = false;
    for (const t of keyed) {
      if (t.uprn === undefined || t.first > b || owner.has(t.first)) continue;
      const score = rows.filter(
        (r) => uprnKey(r[t.uprn!]) !== "" && uprnKey(r[t.uprn!]) === uprnKey(r[b + MATCHED_UPRN]),
      ).length;
      if (score && (!best || score > best.score)) {
        best = { t: t.first, score };
        tie = false;
      } else if (score && best && score === best.score) tie = true;
    }
    if (best && !tie) owner.set(best.t, b);
  }
  // The rest left to right: each block goes to the latest table still without one.
  const waiting: number[] = [];
  const owned = new Set(owner.values());
  const events = [
    ...keyed.filter((t) => !owner.has(t.first)).map((t) => ({ at: t.first, table: t.first })),
    ...blocks.filter((b) => !owned.has(b)).map((b) => ({ at: b, block: b })),
  ].sort((a, b) => a.at - b.at);
  for (const e of events) {
    if ("table" in e) waiting.push(e.table);
    else if (waiting.length) owner.set(waiting.pop()!, e.block);
  }
  const mine = [...keyed].reverse().find((t) => t.first <= tableFirst) ?? keyed[0];
  const own = owner.get(mine.first);
  if (own === undefined) return {};
  const found = findHeaderBlock(row.map((v, i) => (i < own ? "" : v)));
  return found.exact === own ? { exact: own } : {};
}
