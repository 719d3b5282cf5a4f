/**
 * What a run has written, for core's movedRows: the Checked at texts it stamped and the print (core resultPrint) of
 * each property's result, kept with the run between polls. With these, a row that no longer shows its own property's
 * result (only the input columns sorted, an input edited after its result arrived) is found and put right, as in Excel.
 */
import {
  MAX_PRINTED_PROPERTIES,
  keepsPrint,
  PRINT_COLUMNS,
  PRINT_LENGTH,
  formatTimestamp,
  movedRowCells,
  movedRowNow,
  movedRows,
  pendingKeys,
  resultPrint,
  type Cell,
  type RowNow,
  type RunWritten,
} from "../../core";
import { datesAsText } from "./block-rows";
import type { SheetRun } from "./runstore";
import { BLOCK_WIDTH } from "./sheet";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Checked at texts kept: one per write, far more than a run makes. */
const MAX_STAMPS = 2000;

const BLANK = " ".repeat(PRINT_LENGTH);

function written(run: SheetRun): NonNullable<SheetRun["written"]> {
  return (run.written ??= { stamps: [], prints: "" });
}

/** This run stamped rows with the time of this write (its ISO time). */
export function noteStamp(run: SheetRun, iso: string): void {
  const w = written(run);
  const text = formatTimestamp(iso);
  if (!w.stamps.includes(text) && w.stamps.length < MAX_STAMPS) w.stamps.push(text);
}

/** A lookup from a property key to its index in the run, built on first use. */
export function keyIndex(run: SheetRun): (key: string) => number {
  let map: Map<string, number> | null = null;
  return (key) => {
    if (!map) map = new Map(run.engine.keys.map((k, i) => [k, i]));
    return map.get(key) ?? -1;
  };
}

/** Rows written (each with its property key now and its cells as written): their prints are kept. */
export function noteWritten(
  run: SheetRun,
  rows: readonly { key?: string; cells: readonly Cell[] }[],
  index: (k: string) => number,
): void {
  if (!rows.length) return;
  const w = written(run);
  // Core's rule: the prints of the run's first MAX_PRINTED_PROPERTIES properties, six characters each by index.
  const n = Math.min(run.engine.properties.length, MAX_PRINTED_PROPERTIES);
  const slots = w.prints.padEnd(n * PRINT_LENGTH, " ").match(new RegExp(`.{${PRINT_LENGTH}}`, "g")) ?? [];
  for (const r of rows) {
    if (!r.key) continue;
    const p = index(r.key);
    if (keepsPrint(p) && p < slots.length) slots[p] = resultPrint(r.cells);
  }
  if (slots.length) w.prints = slots.join("");
}

/** What core's movedRows needs to know of the run. */
export function runWritten(run: SheetRun, pending: ReadonlySet<string>, index: (k: string) => number): RunWritten {
  const w = run.written ?? { stamps: [], prints: "" };
  const printAt = (p: number): string | undefined => {
    const s = p < 0 ? "" : w.prints.slice(p * PRINT_LENGTH, (p + 1) * PRINT_LENGTH);
    return s.length === PRINT_LENGTH && s !== BLANK ? s : undefined;
  };
  const prints = new Set<string>();
  for (let p = 0; p * PRINT_LENGTH < w.prints.length; p++) {
    const s = printAt(p);
    if (s) prints.add(s);
  }
  const stamps = new Set(w.stamps);
  return {
    stamped: (s) => stamps.has(s),
    printFor: (key) => printAt(index(key)),
    prints,
    pending,
  };
}

/**
 * The block cells core's movedRows reads (Matched UPRN to Message, one getValues), each as a full-width block row
 * with its times as the text written (Sheets reads them back as dates).
 */
export function readPrintCells(
  sheet: Sheet,
  top: number,
  n: number,
  blockCol: number,
  timeZone: () => string,
): unknown[][] {
  if (!n) return [];
  const { first, last } = PRINT_COLUMNS;
  const got = sheet.getRange(top, blockCol + first, n, last - first + 1).getValues();
  return got.map((part) => {
    const row: unknown[] = new Array(BLOCK_WIDTH).fill("");
    part.forEach((v, k) => (row[first + k] = v));
    return datesAsText(row, timeZone);
  });
}

/**
 * Before the outcomes are matched: rows this run wrote that no longer show their property's result, and rows still
 * "Checking…" whose result was written elsewhere, as core's movedRows decides (the same rule as in Excel). Their new
 * cells join `rows` (the write about to be made); a row given the "Checking…" mark again takes its result when it comes.
 */
export function repairMoved(
  sheet: Sheet,
  run: SheetRun,
  t: {
    top: number;
    blockCol: number;
    rowsNow: RowNow[];
    rowKeys: (string | undefined)[];
    read: unknown[][];
    timeZone: () => string;
  },
  nowIso: string,
  rows: Map<number, (prev: unknown[]) => Cell[]>,
  index: (k: string) => number,
): void {
  if (!run.written) return;
  const fixes = movedRows(
    t.read.map((cells, i) => ({ key: t.rowKeys[i], checking: t.rowsNow[i].checking, cells })),
    runWritten(run, pendingKeys(run.engine), index),
  );
  if (!fixes.length) return;
  // The rows copied from, whole, as read before anything is written (one getValues over their span).
  const from = fixes.flatMap((f) => (f.kind === "copy" ? [f.from] : []));
  let source: (i: number) => Cell[] = () => [];
  if (from.length) {
    const lo = Math.min(...from);
    const hi = Math.max(...from);
    const grid = sheet.getRange(t.top + lo, t.blockCol, hi - lo + 1, BLOCK_WIDTH).getValues();
    source = (i) => datesAsText(grid[i - lo], t.timeZone) as Cell[];
  }
  for (const f of fixes) {
    if (f.kind === "copy") {
      const cells = source(f.from);
      rows.set(t.top + f.row, () => cells);
    } else rows.set(t.top + f.row, (prev) => movedRowCells(f, nowIso, prev, run.engine.runId));
    const now = movedRowNow(f);
    if (now) t.rowsNow[f.row] = now;
  }
}
