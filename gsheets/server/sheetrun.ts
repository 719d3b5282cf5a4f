/**
 * One check run on a sheet, whoever started it (the sidebar's button or the schedule): begin it (the first submits,
 * the rows marked "Checking…"), step it (find the block, read the rows as they are now, send what core's run engine
 * says is due with one fetchAll, write what arrived where each property now is), and end it (Action list, Run log).
 * The engine decides everything else; bulk.ts (the sidebar) and schedule.ts (the trigger) only call these.
 */
import {
  OUTPUT_COLUMNS,
  acceptReply,
  checkingRow,
  waitingRow,
  createRun,
  describeError,
  dueRequests,
  blockColumnByRows,
  findBlockNow,
  findHeaderBlock,
  looksLikeOurRow,
  markWritten,
  matchRows,
  nextDueInMs,
  shiftMapping,
  outcomesToWrite,
  propertiesNow,
  outputRow,
  readPropertyRows,
  runCounts,
  serviceError,
  stopRun,
  newRunId,
  type Cell,
  type InputRow,
  type Outcome,
  type RowNow,
  type UserDates,
  type WindowSettings,
} from "../../core";
import { appendChanges } from "./logs";
import { rowChanges, worseCount, type Change, type Trigger } from "../../core/changes";
import { count, errorText } from "../shared/words";
import { sendFor, sendRunRequests } from "./http";
import { MANUAL_SLOT, type SheetRun } from "./runstore";
import { afterRun, finishRun, runProblem, save } from "./runend";
export { afterRun, finishRun, runProblem, save };
export { withUserLock } from "./runstore";
import { loadSettings, type Settings } from "./settings";
import {
  BLOCK_WIDTH,
  checkBlock,
  hiddenByFilter,
  columnLetter,
  ensureBlockFits,
  ensureStatusRules,
  findSheet,
  formatTextColumns,
  inspectBlock,
  readRows,
  rememberBlock,
  writeBlockRows,
  writeHeaders,
  type Table,
} from "./sheet";
import { progressOf, say, sheetPhase } from "./progress";
import { placeReader, readOwnDates, todayInFileZone } from "./days";

export { progressOf, say, sheetPhase };

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/**
 * No request is started once a call has run this long: each can hang until UrlFetchApp gives up on it, and Apps
 * Script ends a call at 6 minutes, before the state is saved. The rest wait for the next poll.
 */
export const SEND_BUDGET_MS = 60000;
const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");
/** How far (columns) from where it was last seen a header-less block is looked for. */
const SEARCH_COLUMNS = 16;

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
  notes: (string | undefined)[];
  /** The user's own EICR date / Licence expiry / Deposit received of each row, for the obligations. */
  userDates: (UserDates | undefined)[];
  /** Each row's own dates that could not be read, in words for its Message. */
  dateProblems: (string[] | undefined)[];
  /** How far the input columns moved since the last read (a column inserted or deleted left of them). */
  inputShift: number;
  /** The row's country and tenancy start (days.ts placeReader). */
  place: ReturnType<typeof placeReader>;
}

/**
 * Finds the results block again before every write: from its header cells (the header row may have moved with rows
 * inserted or deleted above it), or, in a table without a header row, from what the block's rows hold (Checking…
 * marks, our statuses and times), near where it was. A problem sentence when it is gone or changed.
 */
function relocate(
  sheet: Sheet,
  run: SheetRun,
): { headerRow: number; blockCol: number; header?: unknown[] } | { problem: string } {
  const lastRow = sheet.getLastRow();
  const gone = {
    problem: `The results columns (${columnLetter(run.blockCol)}:${columnLetter(run.blockCol + BLOCK_WIDTH - 1)}) were deleted or moved during the check`,
  };
  if (run.headerRow) {
    const lastCol = Math.max(1, sheet.getLastColumn());
    const headerNow = run.headerRow <= lastRow ? sheet.getRange(run.headerRow, 1, 1, lastCol).getValues()[0] : null;
    // The block nearest to where it was: another table's block may stand in the same header row.
    const here = headerNow ? inspectBlock(headerNow, findHeaderBlock(headerNow, run.blockCol - 1)) : null;
    if (here && !here.changed.length) return { headerRow: run.headerRow, blockCol: here.start + 1, header: headerNow! };
    if (here) {
      const checked = checkBlock(sheet, run.headerRow, run.blockCol, 0);
      return "problem" in checked ? checked : gone;
    }
    // Rows inserted or deleted above the table moved its header row: look for our intact headers near it.
    const rows = Math.min(lastRow, run.headerRow + 200);
    const grid = rows > 0 ? sheet.getRange(1, 1, rows, lastCol).getValues() : [];
    const at = findBlockNow(grid, { headerRow: run.headerRow - 1, blockColumn: run.blockCol - 1 });
    return at && at.headerRow !== null
      ? { headerRow: at.headerRow + 1, blockCol: at.blockColumn + 1, header: grid[at.headerRow] }
      : gone;
  }
  if (lastRow < 1) return gone;
  const read = (from: number, to: number) => sheet.getRange(1, from, lastRow, to - from + 1).getValues();
  const score = (grid: unknown[][], c: number) => grid.reduce((n, row) => n + (looksLikeOurRow(row, c) ? 1 : 0), 0);
  if (
    run.blockCol + BLOCK_WIDTH - 1 <= sheet.getMaxColumns() &&
    score(read(run.blockCol, run.blockCol + BLOCK_WIDTH - 1), 0) > 0
  )
    return { headerRow: 0, blockCol: run.blockCol };
  // A column inserted (or deleted) left of the block moved it: find it by what its rows hold, nearest first.
  const from = Math.max(1, run.blockCol - SEARCH_COLUMNS);
  const to = Math.min(sheet.getMaxColumns(), run.blockCol + SEARCH_COLUMNS + BLOCK_WIDTH);
  const col = blockColumnByRows(read(from, to), run.blockCol, from, SEARCH_COLUMNS);
  return col === undefined ? gone : { headerRow: 0, blockCol: col };
}

/**
 * The rows as they are now, for core's matchRows: every row under the header (every used row without one), its
 * property key, and whether its Message still says "Checking…" (only those rows take results: a row this run never
 * marked is never written). Columns inserted left of both the input and the block move the input with it.
 */
function readTableNow(
  sheet: Sheet,
  run: SheetRun,
  at: { headerRow: number; blockCol: number; header?: unknown[] },
): TableNow {
  const top = at.headerRow ? at.headerRow + 1 : 1;
  const lastRow = sheet.getLastRow();
  const n = Math.max(0, lastRow - top + 1);
  const shift = at.blockCol - run.blockCol;
  const cols = Math.max(1, run.inputCols + Math.max(0, shift));
  const input = n ? readRows(sheet, top, lastRow, cols) : [];
  const marks = n ? sheet.getRange(top, at.blockCol + MESSAGE, n, 1).getValues() : [];
  // Which row holds which property now (the input moved with the block or stayed; duplicates noted): core decides.
  const now = propertiesNow({
    input,
    message: (i) => marks[i][0],
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
  const read = readOwnDates(sheet, at, top, n, BLOCK_WIDTH);
  const dateProblems = read.map((r) => (r.problems.length ? r.problems : undefined));
  return {
    blockCol: at.blockCol,
    headerRow: at.headerRow,
    top,
    rowsNow,
    keys,
    notes,
    userDates: read.map((r) => r.dates),
    dateProblems,
    inputShift: best,
    place: placeReader(sheet, at, top, n, BLOCK_WIDTH, mapping.postcode, input),
  };
}

/** Writes what the engine hands out where each property is now, then tells the engine what was written. */
function writeOutcomes(
  sheet: Sheet,
  run: SheetRun,
  t: TableNow,
  nowIso: string,
  windows?: WindowSettings,
): { rows: number; changed: number } {
  const items = outcomesToWrite(run.engine);
  const { writes, written, changed } = matchRows(run.engine, t.rowsNow, items);
  const interim = new Set(items.filter((i) => !i.final).map((i) => i.key));
  const rows = new Map<number, (prev: unknown[]) => Cell[]>();
  const win = windows ?? loadSettings().windows;
  // Days left count from the file's day of the check (its time zone), as the Action list counts from the file's today.
  let day = "";
  const fileDay = () =>
    day || (day = todayInFileZone(Date.parse(nowIso), SpreadsheetApp.getActive().getSpreadsheetTimeZone()));
  for (const w of writes) {
    const sheetRow = t.top + w.row;
    const key = t.rowsNow[w.row].key;
    const outcome: Outcome = w.outcome;
    if (key && interim.has(key) && "error" in outcome) {
      rows.set(sheetRow, (prev) => waitingRow(prev, nowIso, describeError(outcome.error), run.engine.runId));
      continue;
    }
    const note = t.notes[w.row];
    const place = t.place(w.row, outcome);
    const problems = [...(t.dateProblems[w.row] ?? []), ...place.problems];
    const context = {
      windows: win,
      userDates: t.userDates[w.row],
      problems: problems.length ? problems : undefined,
      country: place.country,
      tenancyStart: place.tenancyStart,
      day: fileDay(),
    };
    // Each row gets its final result once: counted as it is written (a number, so the stored run stays small).
    if (problems.length) run.unreadDateRows = (run.unreadDateRows ?? 0) + 1;
    rows.set(sheetRow, (prev) => {
      const row = outputRow(outcome, nowIso, prev, note, context);
      changes.push(...rowChanges(prev, row));
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
function tableNow(sheet: Sheet, run: SheetRun): TableNow | { problem: string } {
  const at = relocate(sheet, run);
  if ("problem" in at) return at;
  const table = readTableNow(sheet, run, at);
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
    run.phase = "stopped";
    run.message = `${problem}, so the check stopped and nothing more was written. Undo the change and choose Resume, or check again to write fresh results.`;
    return { waitMs: 0, problem, unsent: 0, changed: 0 };
  };
  let table = tableNow(sheet, run);
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
      table = tableNow(sheet, run);
      if ("problem" in table) return stopped(table.problem);
    }
  }
  const written = writeOutcomes(sheet, run, table, nowIso(), windows);
  run.rowsWritten += written.rows;
  run.phase = sheetPhase(run);
  return { waitMs: nextDueInMs(run.engine, Date.now()), unsent, changed: written.changed };
}

export function pollRun(run: SheetRun, callStartMs: number): number {
  const sheet = findSheet(run.sheetId);
  if (!sheet) {
    stopRun(run.engine);
    run.phase = "stopped";
    run.message = `The sheet "${run.sheetName}" was deleted, so the check stopped; nothing else was written.`;
    return 0;
  }
  run.sheetName = sheet.getName(); // renamed mid-run: results still go to the same sheet
  const settings = loadSettings();
  if (!settings.config) {
    stopRun(run.engine, "Not sent: the API key was removed in Settings during the check.");
    const r = step(sheet, run, callStartMs, null);
    run.phase = "stopped";
    run.message = `The API key was removed in Settings, so the check stopped; rows not yet checked say so.${run.engine.phase === "stopped" ? " Add the key again and choose Resume to collect the jobs already sent." : ""}`;
    return r.waitMs;
  }
  const r = step(sheet, run, callStartMs, settings.config, settings.windows);
  if (r.problem) return 0;
  say(run, r.unsent ? ` The service is slow to answer; ${count(r.unsent, "request")} wait for the next update.` : "");
  return r.waitMs;
}

// ---- begin ----

/**
 * The rows from firstRow to endRow of the table's input columns, less the blank tail (whole columns select every row
 * of the sheet; the rows after the last one whose input columns hold anything are not a wall of "empty row" errors).
 */
export function readTableRows(
  sheet: Sheet,
  table: Table,
  firstRow: number,
  endRow: number,
): { values: unknown[][]; endRow: number } {
  const cols = [table.mapping.uprn, table.mapping.postcode, table.mapping.address].filter(
    (c): c is number => c !== undefined,
  );
  if (endRow < firstRow) return { values: [], endRow };
  const values = readRows(sheet, firstRow, endRow, table.inputCols);
  let last = values.length - 1;
  while (last >= 0 && cols.every((c) => isBlankCell(values[last][c]))) last--;
  return { values: values.slice(0, last + 1), endRow: firstRow + last };
}

/** What to check: the rows read from a located table (the sidebar's selection, or a table the schedule re-checks). */
export interface RunPlan {
  sheet: Sheet;
  table: Table;
  /** Sheet rows of values[0] and of its last row. */
  firstRow: number;
  endRow: number;
  values: unknown[][];
  wholeTable: boolean;
  manualMapping: boolean;
  trigger: Trigger;
  /** Where the run's state is stored (runstore.ts). */
  slot: string;
}

/**
 * Creates the run and sends its first submits before anything is written, then every row gets its line ("Checking…",
 * or its input error) and what already arrived. A refused key or plan ends the run with one request: every row says
 * why (core's run policy, as in Excel) and the Run log has the run.
 */
export function beginRun(
  plan: RunPlan,
  settings: Settings & { config: NonNullable<Settings["config"]> },
): { ok: true; run: SheetRun } | { ok: false; message: string } {
  const { sheet, table, firstRow, endRow, values, wholeTable } = plan;
  const hidden = hiddenByFilter(sheet, firstRow, endRow);
  const read = readPropertyRows(values, { mapping: table.mapping, hasHeader: false });
  const rows: InputRow[] = read.rows.filter((r) => !hidden.has(firstRow + r.index));
  const now = Date.now();
  const runId = newRunId(now, Math.random());
  // The plan's batch cap is core's (core/checks.ts PLANS), the same in both add-ins.
  // A re-check nobody waits for (the schedule) keeps to the plan's job size: fewest requests, not the earliest end.
  const engine = createRun(rows, {
    plan: settings.plan,
    nowMs: now,
    runId,
    skippedRows: hidden.size,
    spread: plan.trigger === "manual",
  });
  const validRows = rows.filter((r) => r.key && !r.error).length;
  const run: SheetRun = {
    v: 2,
    runId,
    sheetId: sheet.getSheetId(),
    sheetName: sheet.getName(),
    spreadsheetId: SpreadsheetApp.getActiveSpreadsheet().getId(),
    spreadsheetName: SpreadsheetApp.getActiveSpreadsheet().getName(),
    headerRow: table.headerRow,
    firstRow,
    lastRow: endRow,
    inputCols: table.inputCols,
    ...(table.firstCol > 1 ? { inputFirstCol: table.firstCol } : {}),
    mapping: table.mapping,
    blockCol: table.blockCol,
    phase: engine.phase === "running" ? "running" : "done",
    message: "",
    notes: table.notes.slice(),
    startedAtMs: now,
    rowsWritten: 0,
    duplicateRows: validRows - engine.properties.length,
    engine,
  };
  if (wholeTable) run.wholeTable = true;
  if (plan.manualMapping) run.manualMapping = true;
  if (plan.trigger !== "manual") run.trigger = plan.trigger;
  if (plan.slot !== MANUAL_SLOT) run.slot = plan.slot;

  // The first submit goes alone, before anything is written: a refused key or plan costs one request. Once it is accepted, the other jobs due go at once (one fetchAll), so the service works on them together.
  for (let round = 0; round < 3; round++) {
    // Each round can hang as long as UrlFetchApp lets a request: none starts after the call's sending minute.
    if (round > 0 && Date.now() >= now + SEND_BUDGET_MS) break;
    const due = dueRequests(engine, settings.config, Date.now());
    if (!due.requests.length) break;
    // A scheduled run stores its state before a submit is sent, as step() does: an execution that dies while
    // sending is followed by one that knows the job may exist and never sends it again.
    if (plan.slot !== MANUAL_SLOT) save(run);
    const replies = sendRunRequests(
      due.requests.map((r) => r.request),
      sendFor(settings.config),
      now + SEND_BUDGET_MS,
    );
    due.requests.forEach((r, i) => acceptReply(engine, r.id, replies[i], Date.now()));
    if (engine.fatal) break;
  }

  ensureBlockFits(sheet, table.blockCol);
  // A new block, or one an earlier version wrote with fewer columns, gets today's full header row.
  if (!table.blockExists || table.legacy) writeHeaders(sheet, table.headerRow, table.blockCol);
  formatTextColumns(sheet, table.blockCol, firstRow, endRow);
  ensureStatusRules(sheet, table.blockCol, table.headerRow + 1);
  if (!table.headerRow) {
    rememberBlock(sheet, table.blockCol);
    run.notes.push(
      "No header row: the results columns have no headers; the add-on remembers where they are, so a re-run updates them in place.",
    );
  }
  // Every row gets its line now: input errors at their row, the rest "Checking…" (earlier values kept).
  const nowIso = new Date(now).toISOString();
  const marks = new Map<number, (prev: unknown[]) => Cell[]>();
  rows.forEach((row) => {
    const sheetRow = firstRow + row.index;
    if (row.error || !row.key)
      marks.set(sheetRow, (prev) =>
        outputRow({ error: serviceError("invalid_input", row.error!.code, row.error!.message) }, nowIso, prev),
      );
    else marks.set(sheetRow, (prev) => checkingRow(prev, nowIso, runId));
  });
  writeBlockRows(sheet, table.blockCol, marks);
  run.rowsWritten = marks.size;
  const table2 = readTableNow(sheet, run, {
    headerRow: table.headerRow,
    blockCol: table.blockCol,
    header: table.headerRow ? table.headerValues : undefined,
  });
  run.rowsWritten += writeOutcomes(sheet, run, table2, nowIso, settings.windows).rows;
  run.phase = sheetPhase(run);

  const invalid = runCounts(engine).invalid;
  if (!engine.properties.length) {
    run.phase = "done";
    run.message = `Nothing was sent: none of the ${count(run.engine.rowsTotal, "row")} has a valid UPRN or postcode. Each row's Message says what to fix.`;
  } else {
    say(run);
    if (invalid)
      run.notes.push(`${count(invalid, "row")} with input errors; see ${invalid === 1 ? "its" : "their"} Message.`);
    if (run.duplicateRows)
      run.notes.push(
        `${count(run.duplicateRows, "duplicate row")} ${run.duplicateRows === 1 ? "shares" : "share"} a check with an earlier row.`,
      );
    if (hidden.size)
      run.notes.push(
        `${count(hidden.size, "row")} hidden by a filter ${hidden.size === 1 ? "was" : "were"} skipped: not sent and not written.`,
      );
  }
  if (run.phase !== "running") afterRun(run);
  save(run);
  return { ok: true, run };
}
