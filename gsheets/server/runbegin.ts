/**
 * A check run begun on a sheet, for the sidebar (bulk.ts) and the schedule (schedule.ts) alike: the rows read from
 * the located table, the run created, every row given its line ("Checking…", or its input error), then its first
 * submits sent. sheetrun.ts steps it from there.
 */
import {
  acceptReply,
  beginRunSession,
  startRow,
  noteEarlierValues,
  createRun,
  dueRequests,
  readPropertyRows,
  newRunId,
  nothingToSendLine,
  runHold,
  shownPhase,
  startNotes,
  type Cell,
  type HttpRequest,
  type InputRow,
  type RetryHold,
} from "../../core";
import { type Trigger } from "../../core/reports/changes";
import { sendFor, sendRunRequests } from "./http";
import { HELD_SLOT, MANUAL_SLOT, loadRun, type SheetRun } from "./runstore";
import { afterRun, save } from "./runend";
import { type Settings } from "./settings";
import { ensureBlockFits, ensureStatusRules, formatBlockColumns, writeHeaders, type Table } from "./sheet";
import { hiddenByFilter, writeBlockRows } from "./block-rows";
import { say } from "./progress";

import { SEND_BUDGET_MS, readTableNow, writeOutcomes } from "./sheetrun";
import { noteStamp } from "./written";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/**
 * Earlier versions remembered a header-less block's column in document properties; core finds it by its shape now, so
 * a memo left in a file is deleted the first time such a table is checked again, and never read.
 */
function forgetBlockMemo(sheet: Sheet): void {
  const props = PropertiesService.getDocumentProperties();
  for (const key of ["compliance.block.", "compliance.retiredBlockEnd."])
    props.deleteProperty(key + sheet.getSheetId());
}

/** What to check: the rows read from a located table (the sidebar's selection, or a table the schedule re-checks). */
export interface RunPlan {
  sheet: Sheet;
  table: Table;
  /** Sheet rows of values[0] and of its last row. */
  firstRow: number;
  endRow: number;
  values: unknown[][];
  manualMapping: boolean;
  trigger: Trigger;
  /** Where the run's state is stored (runstore.ts). */
  slot: string;
  /** Sets aside the unfinished run this one replaces in its slot (kept for Resume); absent when there is none. */
  setAside?: () => void;
}

/**
 * The wait the service asked of the user's earlier runs (a 503's or 429's Retry-After), still to run: one service
 * for every slot, so a new check sends nothing before it either.
 */
function earlierHold(slot: string, now: number): RetryHold | undefined {
  let hold: RetryHold | undefined;
  for (const s of new Set([MANUAL_SLOT, HELD_SLOT, slot])) {
    const earlier = loadRun(s);
    const h = earlier ? runHold(earlier.engine, now) : undefined;
    if (h && (!hold || (h.untilMs ?? 0) > (hold.untilMs ?? 0))) hold = h;
  }
  return hold;
}

/** The run's stored record, its engine created over the rows to check (hidden rows left out and counted). */
function newSheetRun(plan: RunPlan, settings: Settings, rows: InputRow[], hiddenRows: number, now: number): SheetRun {
  const { sheet, table, firstRow, endRow } = plan;
  const runId = newRunId(now, Math.random());
  // The plan's batch cap is core's (core/service/checks.ts PLANS), the same in both add-ins.
  // A re-check nobody waits for (the schedule) keeps to the plan's job size: fewest requests, not the earliest end.
  const engine = createRun(rows, {
    plan: settings.plan,
    nowMs: now,
    runId,
    skippedRows: hiddenRows,
    spread: plan.trigger === "manual",
    hold: earlierHold(plan.slot, now),
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
    message: "",
    // What the user is told as the run begins, in core's words and order, as in Excel.
    notes: startNotes({ ...table.start, rows, hidden: hiddenRows }).map((n) => n.text),
    startedAtMs: now,
    rowsWritten: 0,
    duplicateRows: validRows - engine.properties.length,
    engine,
  };
  if (plan.manualMapping) run.manualMapping = true;
  if (plan.trigger !== "manual") run.trigger = plan.trigger;
  if (plan.slot !== MANUAL_SLOT) run.slot = plan.slot;
  return run;
}

/**
 * Every row gets its line before anything is sent: input errors at their row, the rest "Checking…" (earlier values
 * kept), under the block's header row and formats.
 */
function markRows(plan: RunPlan, run: SheetRun, rows: InputRow[], nowIso: string): void {
  const { sheet, table, firstRow, endRow } = plan;
  ensureBlockFits(sheet, table.blockCol);
  // A new block, or one an earlier version wrote with fewer columns, gets today's full header row.
  if (!table.blockExists || table.legacy) writeHeaders(sheet, table.headerRow, table.blockCol);
  formatBlockColumns(sheet, table.blockCol, firstRow, endRow);
  ensureStatusRules(sheet, table.blockCol, table.headerRow + 1);
  if (!table.headerRow) forgetBlockMemo(sheet);
  const marks = new Map<number, (prev: unknown[]) => Cell[]>();
  const before: Parameters<typeof noteEarlierValues>[1][number][] = [];
  rows.forEach((row) => {
    const sheetRow = firstRow + row.index;
    marks.set(sheetRow, (prev) => {
      before.push({ key: row.key, error: row.error, previous: prev });
      return startRow(row, prev, nowIso, run.runId);
    });
  });
  writeBlockRows(sheet, table.blockCol, marks);
  noteEarlierValues(run.engine, before);
  // Their time, so that core's movedRows knows these rows for this run's.
  noteStamp(run, nowIso);
  run.rowsWritten = marks.size;
  // Apps Script may hold writes back until the call ends: the marks reach the sheet before the submit goes, so a
  // sort or an edit while it is out moves or meets them on their rows.
  if (rows.some((r) => r.key && !r.error)) SpreadsheetApp.flush();
}

/** Once the first is accepted, the other jobs due go at once (one fetchAll), so the service works on them together. */
function sendDueJobs(
  run: SheetRun,
  settings: Settings & { config: NonNullable<Settings["config"]> },
  send: (requests: HttpRequest[]) => ReturnType<typeof sendRunRequests>,
  now: number,
): void {
  const { engine } = run;
  for (let round = 1; round < 3 && !engine.fatal; round++) {
    // Each round can hang as long as UrlFetchApp lets a request: none starts after the call's sending minute.
    if (Date.now() >= now + SEND_BUDGET_MS) break;
    const due = dueRequests(engine, settings.config, Date.now());
    if (!due.requests.length) break;
    // The run is stored before a submit is sent: an execution that dies while sending is followed by one that knows
    // the job may exist and never sends it again.
    if (due.requests.some((r) => r.kind === "submit")) save(run);
    const replies = send(due.requests.map((r) => r.request));
    due.requests.forEach((r, i) => acceptReply(engine, r.id, replies[i], Date.now()));
  }
}

/**
 * Creates the run and begins it in core's order (core/run/begin.ts): the unfinished run set aside, every row's line
 * ("Checking…", or its input error), the run stored, then the first submit alone. A refused key or plan ends the run
 * with one request: every row says why, over its mark (core's run policy, as in Excel), and the Run log has the run.
 */
export function beginRun(
  plan: RunPlan,
  settings: Settings & { config: NonNullable<Settings["config"]> },
): { ok: true; run: SheetRun } | { ok: false; message: string } {
  const { sheet, table, firstRow, endRow, values } = plan;
  const hidden = hiddenByFilter(sheet, firstRow, endRow);
  const read = readPropertyRows(values, { mapping: table.mapping, hasHeader: false });
  const rows: InputRow[] = read.rows.filter((r) => !hidden.has(firstRow + r.index));
  const now = Date.now();
  const run = newSheetRun(plan, settings, rows, hidden.size, now);
  const { engine } = run;
  const nowIso = new Date(now).toISOString();
  const send = (requests: HttpRequest[]) => sendRunRequests(requests, sendFor(settings.config), now + SEND_BUDGET_MS);
  // Core's order (core/run/begin.ts): the unfinished run set aside, the marks, the run stored, the first submit.
  beginRunSession(engine, {
    cfg: settings.config,
    now: () => Date.now(),
    setAside: plan.setAside,
    writeMarks: () => markRows(plan, run, rows, nowIso),
    save: () => save(run),
    send,
  });
  sendDueJobs(run, settings, send, now);
  const table2 = readTableNow(sheet, run, {
    headerRow: table.headerRow,
    blockCol: table.blockCol,
    header: table.headerRow ? table.headerValues : undefined,
  });
  run.rowsWritten += writeOutcomes(sheet, run, table2, nowIso, settings.windows).rows;

  if (!engine.properties.length) {
    run.message = nothingToSendLine(run.engine.rowsTotal);
  } else say(run);
  if (shownPhase(engine) !== "running") afterRun(run);
  save(run);
  return { ok: true, run };
}
