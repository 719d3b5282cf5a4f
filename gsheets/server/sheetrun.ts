/**
 * One check run on a sheet, whoever started it (the sidebar's button or the schedule), once begun (runbegin.ts): step it (find the block, read the rows as they are now, send what core's run engine
 * says is due with one fetchAll, write what arrived where each property now is), and end it (Action list, Run log).
 * The engine decides everything else; bulk.ts (the sidebar) and schedule.ts (the trigger) only call these.
 */
import {
  BLOCK_SEARCH_COLUMNS,
  OUTPUT_COLUMNS,
  acceptReply,
  blockReadWindows,
  waitingRow,
  dueRequests,
  findBlockNow,
  markWritten,
  matchRows,
  nextDueInMs,
  shiftMapping,
  outcomesToWrite,
  propertiesNow,
  outputRow,
  resultRowContext,
  stopRun,
  type Cell,
  type Outcome,
  type RowDates,
  type RowNow,
  type WindowSettings,
  blockNotFound,
  sentence,
  sheetNotFound,
} from "../../core";
import { appendChanges } from "./logs";
import { rowChanges, worseCount, type Change } from "../../core/reports/changes";
import { count, errorText } from "../shared/words";
import { sendFor, sendRunRequests } from "./http";
import { type SheetRun } from "./runstore";
import { afterRun, finishRun, runProblem, save } from "./runend";
export { afterRun, finishRun, runProblem, save };
export { withUserLock } from "./runstore";
import { loadSettings } from "./settings";
import { BLOCK_WIDTH, findSheet } from "./sheet";
import { readRows, writeBlockRows, zoneOnce } from "./block-rows";
import { progressOf, say } from "./progress";
import { placeReader, rowDatesReader, todayInFileZone } from "./days";
import { keyIndex, noteStamp, noteWritten, readPrintCells, repairMoved } from "./written";

export { progressOf, say };

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/**
 * No request is started once a call has run this long: each can hang until UrlFetchApp gives up on it, and Apps
 * Script ends a call at 6 minutes, before the state is saved. The rest wait for the next poll.
 */
export const SEND_BUDGET_MS = 60000;
const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");

export { errorText };

export function isBlankCell(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "string" && v.trim() === "");
}

// ---- the table as it is now ----

interface TableNow {
  blockCol: number;
  headerRow: number;
  /** Sheet row of rowsNow[0]. */
  top: number;
  rowsNow: RowNow[];
  /** Every row's property key now, marked or not. */
  keys: Set<string>;
  /** Each row's property key now ("!" + the reason when its input is invalid), and its block cells that say whose result it shows. */
  rowKeys: (string | undefined)[];
  read: unknown[][];
  /** The spreadsheet's time zone, asked for once. */
  timeZone: () => string;
  notes: (string | undefined)[];
  /** Each row's typed dates (EICR date, Deposit received, Tenancy start...), read once by core's rowDates on `today`. */
  dates: (today: string) => (RowDates | undefined)[];
  /** How far the input columns moved since the last read (a column inserted or deleted left of them). */
  inputShift: number;
  /** The row's country (days.ts placeReader). */
  place: ReturnType<typeof placeReader>;
}

/**
 * Finds the results block again before every write with core's findBlockNow, as the Excel pane does: from its header
 * cells (the header row may have moved with rows inserted or deleted above it), or, in a table without a header row,
 * from what the block's rows hold (Checking… marks, our statuses and times), near where it was. What is read, and in
 * what order, is core's blockReadWindows. A problem sentence when it is gone or changed.
 */
function relocate(
  sheet: Sheet,
  run: SheetRun,
): { headerRow: number; blockCol: number; header?: unknown[] } | { problem: string } {
  const lastRow = sheet.getLastRow();
  if (lastRow < 1) return { problem: sentence(blockNotFound(sheet.getName(), run.blockCol - 1)) };
  const was = { headerRow: run.headerRow ? run.headerRow - 1 : null, blockColumn: run.blockCol - 1 };
  const windows = blockReadWindows({
    lastRow: lastRow - 1,
    lastColumn: Math.max(1, sheet.getLastColumn()) - 1,
    maxColumns: sheet.getMaxColumns(),
    ...was,
    inputColumns: run.mapping,
  });
  let grid: unknown[][] = [];
  for (const w of windows) {
    grid = sheet.getRange(w.firstRow + 1, 1, w.rowCount, w.columnCount).getValues();
    const at = findBlockNow(grid, was, BLOCK_SEARCH_COLUMNS, w.firstRow);
    if (!at) continue;
    const headerRow = at.headerRow === null ? 0 : at.headerRow + 1;
    const header = at.headerRow === null ? undefined : grid[at.headerRow - w.firstRow];
    return { headerRow, blockCol: at.blockColumn + 1, header };
  }
  // Our block still in its header row but changed (a header renamed, a column inserted inside it): core says what
  // changed. The last read is every row.
  const headerNow = run.headerRow && run.headerRow <= grid.length ? grid[run.headerRow - 1] : undefined;
  return { problem: sentence(blockNotFound(sheet.getName(), run.blockCol - 1, headerNow)) };
}

/**
 * The rows as they are now, for core's matchRows: every row under the header (every used row without one), its
 * property key, and whether its Message still says "Checking…" (only those rows take results: a row this run never
 * marked is never written). Columns inserted left of both the input and the block move the input with it.
 */
export function readTableNow(
  sheet: Sheet,
  run: SheetRun,
  at: { headerRow: number; blockCol: number; header?: unknown[] },
  timeZone: () => string = zoneOnce(),
): TableNow {
  const top = at.headerRow ? at.headerRow + 1 : 1;
  const lastRow = sheet.getLastRow();
  const n = Math.max(0, lastRow - top + 1);
  const shift = at.blockCol - run.blockCol;
  const cols = Math.max(1, run.inputCols + Math.max(0, shift));
  const input = n ? readRows(sheet, top, lastRow, cols) : [];
  // The Message (Checking… marks) and the cells that say whose result each row shows, in one read.
  const read = readPrintCells(sheet, top, n, at.blockCol, timeZone);
  // Which row holds which property now (the input moved with the block or stayed; duplicates noted): core decides.
  const now = propertiesNow({
    input,
    message: (i) => read[i][MESSAGE],
    inputColumns: run.mapping,
    blockShift: shift,
    keys: new Set(run.engine.keys),
    rowNumber: (i) => top + i,
    runId: run.engine.runId,
  });
  const { rowsNow, notes } = now;
  const mapping = now.inputColumns;
  const best = now.shift;
  const keys = new Set(now.keys.filter((k): k is string => !!k && !k.startsWith("!")));
  return {
    blockCol: at.blockCol,
    headerRow: at.headerRow,
    top,
    rowsNow,
    keys,
    rowKeys: now.keys,
    read,
    timeZone,
    notes,
    dates: rowDatesReader(sheet, at, top, n, BLOCK_WIDTH),
    inputShift: best,
    place: placeReader(sheet, at, top, n, BLOCK_WIDTH, mapping.postcode, input),
  };
}

/** Writes what the engine hands out where each property is now, then tells the engine what was written. */
export function writeOutcomes(
  sheet: Sheet,
  run: SheetRun,
  t: TableNow,
  nowIso: string,
  windows?: WindowSettings,
): { rows: number; changed: number } {
  const items = outcomesToWrite(run.engine);
  const rows = new Map<number, (prev: unknown[]) => Cell[]>();
  const index = keyIndex(run);
  // Rows that no longer show their own property's result are put right first (core's movedRows, as in Excel).
  repairMoved(sheet, run, t, nowIso, rows, index);
  const { writes, written, changed } = matchRows(run.engine, t.rowsNow, items);
  const interim = new Set(items.filter((i) => !i.final).map((i) => i.key));
  const shown: { key?: string; cells: Cell[] }[] = [];
  const win = windows ?? loadSettings().windows;
  // Days left count from the file's day of the check (its time zone), as the Action list counts from the file's today.
  let day = "";
  const fileDay = () => day || (day = todayInFileZone(Date.parse(nowIso), t.timeZone()));
  for (const w of writes) {
    const sheetRow = t.top + w.row;
    const key = t.rowsNow[w.row].key;
    const outcome: Outcome = w.outcome;
    if (key && interim.has(key) && "error" in outcome) {
      rows.set(sheetRow, (prev) => waitingRow(prev, nowIso, outcome.error, run.engine.runId));
      continue;
    }
    const note = t.notes[w.row];
    const place = t.place(w.row, outcome);
    const context = resultRowContext(t.dates(fileDay())[w.row], {
      windows: win,
      country: place.country,
      day: fileDay(),
    });
    // Each row gets its final result once: counted as it is written (a number, so the stored run stays small).
    if (context.problems) run.unreadDateRows = (run.unreadDateRows ?? 0) + 1;
    rows.set(sheetRow, (prev) => {
      const row = outputRow(outcome, nowIso, prev, note, context);
      changes.push(...rowChanges(prev, row));
      shown.push({ key, cells: row });
      return row;
    });
  }
  const changes: Change[] = [];
  try {
    writeBlockRows(sheet, t.blockCol, rows);
  } catch (e) {
    throw Object.assign(
      new Error(`${count(rows.size, "result")} could not be written to the sheet (${errorText(e)})`),
      { cause: e },
    );
  }
  if (rows.size) noteStamp(run, nowIso);
  noteWritten(run, shown, index);
  // What reached the sheet is logged; the log failing never touches the results.
  if (changes.length) {
    try {
      appendChanges(nowIso, changes);
      run.changed = (run.changed ?? 0) + changes.length;
      run.worse = (run.worse ?? 0) + worseCount(changes);
    } catch (e) {
      if (run.notes.indexOf(CHANGE_LOG_FAILED) < 0) run.notes.push(`${CHANGE_LOG_FAILED} (${errorText(e)})`);
    }
  }
  markWritten(run.engine, written);
  if (changed.length && run.notes.indexOf(INPUT_CHANGED_NOTE) < 0) run.notes.push(INPUT_CHANGED_NOTE);
  return { rows: rows.size, changed: changed.length };
}

const CHANGE_LOG_FAILED = "Some changes could not be added to the Change log";

const INPUT_CHANGED_NOTE =
  "Some rows changed during the check: results went to the rows that hold each property now, and the changed rows say to check them again.";

interface StepResult {
  waitMs: number;
  /** The results block is gone or changed: nothing was written. */
  problem?: string;
  /** Requests not started for lack of time in this call: they go with the next poll. */
  unsent: number;
  /** Rows whose input changed during the run (they were told to check again). */
  changed: number;
}

/**
 * The block found again and the rows read as they are now; the run's positions follow what moved (the block, the
 * header row, and the input columns when a column was inserted or deleted left of them), so later reads start there.
 */
function tableNow(sheet: Sheet, run: SheetRun, timeZone: () => string): TableNow | { problem: string } {
  const at = relocate(sheet, run);
  if ("problem" in at) return at;
  const table = readTableNow(sheet, run, at, timeZone);
  if (table.inputShift) {
    run.mapping = shiftMapping(run.mapping, table.inputShift);
    run.inputCols = Math.max(1, run.inputCols + table.inputShift);
    if (run.inputFirstCol) run.inputFirstCol = Math.max(1, run.inputFirstCol + table.inputShift);
  }
  run.blockCol = at.blockCol;
  run.headerRow = at.headerRow;
  return table;
}

export function step(
  sheet: Sheet,
  run: SheetRun,
  callStartMs: number,
  apiConfig: { baseUrl: string; apiKey: string } | null,
  windows?: WindowSettings,
): StepResult {
  const nowIso = () => new Date(Date.now()).toISOString();
  const stopped = (problem: string): StepResult => {
    // Nothing is written; the state is kept, so Resume can collect once the block is back (Undo).
    stopRun(run.engine, "Not sent: the results columns were changed during the check; run the check again.");
    run.message = `${problem}, so the check stopped and nothing more was written. Undo the change and choose Resume, or check again to write fresh results.`;
    return { waitMs: 0, problem, unsent: 0, changed: 0 };
  };
  const timeZone = zoneOnce();
  let table = tableNow(sheet, run, timeZone);
  if ("problem" in table) return stopped(table.problem);
  let unsent = 0;
  if (run.engine.phase === "running" && apiConfig) {
    const due = dueRequests(run.engine, apiConfig, Date.now(), { presentKeys: table.keys });
    if (due.requests.length) {
      // The state goes to storage before a submit is sent: an execution that dies meanwhile resumes knowing the job may exist.
      if (due.requests.some((r) => r.kind === "submit")) save(run);
      const replies = sendRunRequests(
        due.requests.map((r) => r.request),
        sendFor(apiConfig),
        callStartMs + SEND_BUDGET_MS,
      );
      due.requests.forEach((r, i) => acceptReply(run.engine, r.id, replies[i], Date.now()));
      unsent = replies.filter((r) => "failure" in r && r.failure === "not_sent").length;
      // The sheet may have changed while the requests were out: found again, as before them.
      table = tableNow(sheet, run, timeZone);
      if ("problem" in table) return stopped(table.problem);
    }
  }
  const written = writeOutcomes(sheet, run, table, nowIso(), windows);
  run.rowsWritten += written.rows;
  return { waitMs: nextDueInMs(run.engine, Date.now()), unsent, changed: written.changed };
}

export function pollRun(run: SheetRun, callStartMs: number): number {
  const sheet = findSheet(run.sheetId);
  if (!sheet) {
    stopRun(run.engine);
    run.message = `${sentence(sheetNotFound(run.sheetName))}, so the check stopped; nothing else was written.`;
    return 0;
  }
  run.sheetName = sheet.getName(); // renamed mid-run: results still go to the same sheet
  const settings = loadSettings();
  if (!settings.config) {
    stopRun(run.engine, "Not sent: the API key was removed in Settings during the check.");
    const r = step(sheet, run, callStartMs, null);
    run.message = `The API key was removed in Settings, so the check stopped; rows not yet checked say so.${run.engine.phase === "stopped" ? " Add the key again and choose Resume to collect the jobs already sent." : ""}`;
    return r.waitMs;
  }
  const r = step(sheet, run, callStartMs, settings.config, settings.windows);
  if (r.problem) return 0;
  say(run, r.unsent ? ` The service is slow to answer; ${count(r.unsent, "request")} wait for the next update.` : "");
  return r.waitMs;
}
