/**
 * "Check selected rows" without DOM, as host I/O around core's run engine (core/run.ts, core/run/drive.ts): read and
 * validate the rows, mark them, then read cells, write cells and store the state while the engine decides the rest.
 */
import {
  OUTPUT_COLUMNS,
  formatTimestamp,
  type Cell,
  type ColumnMapping,
  type ComplianceClient,
  type PlanName,
  type RateLimitInfo,
  startRow,
  createRun,
  driveRun,
  loadRunState,
  matchRows,
  resumeRun as resumeEngine,
  runCounts,
  runCaption,
  type OutcomeToWrite,
  type RunState,
  type WrittenProperty,
  DEFAULT_ACTION_LIST_DAYS,
  type WindowSettings,
  type Change,
  runLogEntry,
  worseCount,
  isDemoKey,
  type Trigger,
  keepForResume,
  newRunId,
  runLogProblem,
  beginRunSession,
  sendRequest,
  resultPrint,
  pendingKeys,
  noteEarlierValues,
} from "../../core";
import { actionSheetsFailedLine, changesNotLoggedWords, logsNotWrittenLine } from "../../core/reports/report-words";
import type { UserStore } from "../settings";
import type { ExcelRun, PreparedCheck } from "./prepare";
import { endWords, summarise, summaryText, type RunSummary, type SummaryTally } from "./run-summary";
import { actionSheets, lastBlock } from "./last-block";
import { LAST_BLOCK_KEY, UNFINISHED_KEY, localDay } from "./stored";
import { setAsideStored, storeUnfinished, takeUpStored, type UnfinishedRun } from "./unfinished";
import { keepServiceHold, serviceHoldAt } from "./service-hold";
import { watchedBlocks, workbookSettings } from "./watch-settings";
import { readTableNow, repairMoved, type RunPlace, type WrittenRows } from "./rows-now";
import { outcomeRows } from "./outcome-rows";
import { hiddenRowOffsets, officeErrorText, queueHeaders, writeOutputRows } from "./sheet";

export { summaryText, type RunSummary };
export { actionSheets, lastBlock };
export {
  columnsNamed,
  prepareCheck,
  type ExcelRun,
  type PrepareOptions,
  type PrepareOutcome,
  type PreparedCheck,
  type RowProblem,
} from "./prepare";

/** Counts for the progress bar: rowsChecked (answered) fills it; rows not refreshed or not sent never do. */
export interface RunProgress {
  rowsTotal: number;
  /** Rows settled so far (results received, written or not yet). */
  rowsDone: number;
  rowsChecked: number;
  rowsNotRefreshed: number;
  jobsTotal: number;
  jobsSubmitted: number;
  rateLimit?: RateLimitInfo;
  /** The words beside the bar, as the Sheets sidebar says them (core runCaption: while the run goes, its line). */
  line: string;
}

export interface RunDeps {
  excelRun: ExcelRun;
  client: ComplianceClient;
  plan: PlanName;
  /** Where the run's state is kept for Resume (OfficeRuntime.storage in the pane; never the workbook). */
  store?: UserStore;
  /** The user's window settings for the obligations (core's defaults when absent). */
  windows?: WindowSettings;
  /** The Action list lists actions due within this many days, plus every overdue one (default 30). */
  actionDays?: number;
  /** False: the Action list and Compliance summary are not built after the run (default true). */
  actionSheets?: boolean;
  /** What started the run, for the Run log (default manual) and who ran it, where the host knows. */
  trigger?: Trigger;
  runBy?: string;
  /** Told where the run's results block is once the run has written it (the workbook's list of blocks to re-check on open). */
  onBlockWritten?: (place: RunPlace, startedAt: string) => unknown;
  /** The workbook's remembered tables, which the Action list covers with this run's (default: the workbook's settings). */
  tables?: () => readonly RunPlace[];
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  onProgress?: (p: RunProgress) => void;
  /** A sentence for the user while the run waits on Excel (a cell being edited blocks every write). */
  onNotice?: (text: string) => void;
  signal?: AbortSignal;
  /** How long the last write is retried before the run gives up on it; default 30 s. */
  writeRetryMs?: number;
}

/** What to tell the user when Excel refuses a write; while a cell is being edited, Excel refuses every write. */
export function writeErrorText(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (/InvalidOperationInCellEditMode/i.test(officeErrorText(e))) {
    return "Excel is editing a cell: finish editing the cell (press Enter or Esc) so that the results can be written.";
  }
  return `Excel did not accept the results: ${message}`;
}

const newTally = (): Tally => ({
  byRow: new Map(),
  waiting: new Set(),
  shown: new Map(),
  stamps: new Set(),
  writes: { syncs: 0, chunks: 0, maxChunkBytes: 0 },
  changes: [],
  dateRows: new Set(),
});

interface Tally extends WrittenRows, SummaryTally {
  lastError?: unknown;
  /** What each written row changed since the earlier check (core/reports/changes.ts), for the Change log. */
  changes: (Change & { runAt: string })[];
  /** Rows written with a date of the user's own columns that could not be read (the summary counts them). */
  dateRows: Set<number>;
  /** What the pane said when the run's last save for Resume was refused. */
  saveProblem?: string;
}

function progressOf(state: RunState, nowMs: number, startedAt: string): RunProgress {
  const c = runCounts(state);
  return {
    rowsTotal: c.rows,
    rowsDone: c.rowsDone + c.unwritten,
    rowsChecked: c.answered,
    rowsNotRefreshed: c.failed + c.maybeCreated + c.notSent + c.gone,
    jobsTotal: c.jobsTotal,
    jobsSubmitted: c.jobsSent,
    ...(state.rate ? { rateLimit: state.rate } : {}),
    line: runCaption(state, nowMs, Date.parse(startedAt)),
  };
}

/**
 * Writes the outcomes the engine hands out where their property is now: the table is read again before every write
 * (sorted, rows inserted or deleted, a column inserted left of the block), rows are matched by key (core matchRows),
 * and a row edited during the run gets core's ROW_CHANGED_ERROR instead of another property's result.
 */
function sheetWriter(run: UnfinishedRun, state: RunState, deps: RunDeps, tally: Tally, iso: () => string) {
  const keys = new Set(state.keys);
  let said = "";
  let sheetId: string | undefined;
  // The run's sheet by the id and name it has now: a rename during the run, or before a Resume, loses nothing.
  const follow = (t: { sheet: string; sheetId: string }) => {
    sheetId = t.sheetId;
    run.sheet = t.sheet;
    run.sheetId = t.sheetId;
  };
  // Progress is said when it changed: a write retried while Excel is busy says nothing new.
  const progress = () => {
    const p = progressOf(state, Date.parse(iso()), run.startedAt);
    const text = JSON.stringify(p);
    if (text !== said) {
      said = text;
      deps.onProgress?.(p);
    }
  };
  return {
    async presentKeys(): Promise<ReadonlySet<string> | undefined> {
      try {
        const day = localDay(Date.parse(iso()));
        const t = await deps.excelRun((context) => readTableNow(context, run, keys, day, state.runId));
        follow(t);
        return new Set(t.rowsNow.map((r) => r.key).filter((k): k is string => !!k));
      } catch {
        return undefined; // Excel busy: send the job as planned; rows that changed are caught when writing.
      }
    },
    progress,
    /** The sheet's Worksheet.id as last read (undefined before the table was read). */
    sheetId: () => sheetId,
    async write(items: OutcomeToWrite[]): Promise<WrittenProperty[]> {
      progress();
      try {
        return await deps.excelRun(async (context) => {
          const at = iso();
          const day = localDay(Date.parse(at));
          const t = await readTableNow(context, run, keys, day, state.runId);
          follow(t);
          const block: Cell[][] = [];
          repairMoved(t, block, tally, pendingKeys(state), at, state.runId);
          const m = matchRows(state, t.rowsNow, items);
          const changes = outcomeRows(block, t, m.writes, items, {
            windows: deps.windows,
            tally,
            runId: state.runId,
            at,
            day,
          });
          const rows = Object.keys(block).map(Number);
          const s = await writeOutputRows(
            context,
            { sheet: t.sheet, rowIndex: 0, columnIndex: t.blockColumn },
            block,
            rows,
            { mergeGap: 0 },
          );
          // Only what reached the sheet is a change.
          tally.changes.push(...changes);
          tally.writes.syncs += s.syncs;
          tally.writes.chunks += s.chunks;
          tally.writes.maxChunkBytes = Math.max(tally.writes.maxChunkBytes, s.maxChunkBytes);
          run.blockColumn = t.blockColumn;
          run.headerRow = t.headerRow;
          run.inputColumns = t.inputColumns;
          return m.written;
        });
      } catch (e) {
        tally.lastError = e;
        throw e;
      }
    },
  };
}

/** How the run's requests go: the client's transport, with the pane's sleep and Stop. */
function transportOf(deps: RunDeps) {
  const t = deps.client.transport;
  return {
    fetch: t.fetch,
    sleep: (ms: number, signal?: unknown) =>
      deps.sleep ? deps.sleep(ms, signal as AbortSignal | undefined) : t.sleep(ms, signal as AbortSignal | undefined),
    signal: deps.signal,
    requestTimeoutMs: t.requestTimeoutMs,
  };
}

/** Stores the run for Resume (with its changes), never in the workbook. Refused, the pane says so; before a bulk job
 * is sent, the run stops: a Resume from the last save must not pay for that job twice. */
function saver(run: UnfinishedRun, deps: RunDeps, tally: Tally) {
  return async (s: RunState) => {
    const refused = deps.store ? await storeUnfinished(deps.store, { ...run, state: s, changes: tally.changes }) : null;
    if (refused && s.jobs.some((j) => j.phase === "sending")) throw new Error(refused.stop);
    if (refused && !tally.saveProblem) deps.onNotice?.(refused.notice);
    tally.saveProblem = refused?.notice;
  };
}

/** Drives core's engine to its end with the sheet as the host, then says how it went. */
async function drive(run: UnfinishedRun, state: RunState, deps: RunDeps, tally: Tally): Promise<RunSummary> {
  const now = deps.now ?? deps.client.transport.now;
  try {
    return await driveOnce(run, state, deps, tally);
  } finally {
    keepServiceHold(state, now());
  }
}

/** The Action list and Compliance summary built again from the block; gives the summary's line about them. */
async function rebuildActionSheets(run: UnfinishedRun, deps: RunDeps, now: () => number): Promise<string> {
  const tables = (deps.tables ?? (() => watchedBlocks(workbookSettings())))();
  const options = {
    today: localDay(now()),
    withinDays: deps.actionDays ?? DEFAULT_ACTION_LIST_DAYS,
    windows: deps.windows,
    tables,
  };
  const built = await actionSheets().then(
    (m) => m.buildActionSheets(deps.excelRun, run, options),
    (e: unknown) => ({
      line: actionSheetsFailedLine(e instanceof Error ? e.message : String(e)),
    }),
  );
  return built.line;
}

async function driveOnce(run: UnfinishedRun, state: RunState, deps: RunDeps, tally: Tally): Promise<RunSummary> {
  const now = deps.now ?? deps.client.transport.now;
  const iso = () => new Date(now()).toISOString();
  const writer = sheetWriter(run, state, deps, tally, iso);
  const save = saver(run, deps, tally);
  const { writesPending } = await driveRun(state, {
    cfg: deps.client.config,
    ...transportOf(deps),
    now,
    presentKeys: () => writer.presentKeys(),
    write: (items) => writer.write(items),
    save,
    onStep: () => writer.progress(),
    onWriteError: (e) =>
      deps.onNotice?.(`${writeErrorText(e)} Results are kept and written as soon as Excel accepts them.`),
    writeRetryMs: deps.writeRetryMs,
  });
  // The state stays stored until every row's result is on the sheet, or while a Resume can still collect some.
  const keep = keepForResume(state, writesPending);
  if (deps.store) {
    if (keep) await save(state);
    else await deps.store.removeItem(UNFINISHED_KEY).catch(() => undefined);
  }
  writer.progress();
  if (writesPending) {
    const next = deps.store ? " Then choose Resume to write them." : " Then run Check again.";
    throw new Error(`Some results could not be written to the sheet. ${writeErrorText(tally.lastError)}${next}`);
  }
  const summary = summarise(state, tally, !!deps.signal?.aborted, keep && !!deps.store);
  summary.unreadDateRows = tally.dateRows.size;
  const notes = keep && tally.saveProblem ? [tally.saveProblem] : [];
  const place: RunPlace = {
    sheet: run.sheet,
    ...(writer.sheetId() ? { sheetId: writer.sheetId() } : {}),
    headerRow: run.headerRow,
    blockColumn: run.blockColumn,
    inputColumns: run.inputColumns,
  };
  await deps.store?.setItem(LAST_BLOCK_KEY, JSON.stringify(place)).catch(() => undefined);
  if (tally.byRow.size + tally.waiting.size > 0)
    await Promise.resolve(deps.onBlockWritten?.(place, run.startedAt)).catch(() => undefined);
  // The two sheets follow the block: built again from it whenever this run wrote rows (a failure there is said, not thrown).
  if (deps.actionSheets !== false && tally.byRow.size + tally.waiting.size > 0)
    summary.actionSheets = await rebuildActionSheets(run, deps, now);
  // The Change log and the Run log: every run that got this far is logged, changes or not.
  const entry = runLogEntry(state, {
    startedAt: run.startedAt,
    endedAt: iso(),
    trigger: deps.trigger ?? "manual",
    runBy: deps.runBy ?? "",
    changed: tally.changes.length,
    worse: worseCount(tally.changes),
    // The Run log's Problem is the run's headline, as the Sheets sidebar logs it.
    problem: runLogProblem(state, endWords(state, summary).headline),
    demo: isDemoKey(deps.client.config.apiKey),
  });
  // How many of the run's changes are in the Change log: a large run's go in several syncs, and Excel may refuse one.
  let logged = 0;
  const resumes = keep && !!deps.store;
  summary.runLog = await actionSheets()
    .then((m) => m.appendRunLogs(deps.excelRun, tally.changes, entry, (n) => (logged = n)))
    .catch((e: unknown) =>
      logsNotWrittenLine(
        "Change log and Run log",
        officeErrorText(e),
        resumes ? "Resume logs its changes." : changesNotLoggedWords(tally.changes.length - logged),
      ),
    );
  // A run kept for Resume: the changes now in the Change log are not logged again by it.
  if (logged && resumes) {
    tally.changes = tally.changes.slice(logged);
    await save(state);
  }
  summary.words = endWords(state, summary, notes);
  return summary;
}

/** Writes the header row, per-row errors and the Checking… marks before anything is sent, retrying while Excel is busy. */
async function startRows(
  deps: RunDeps,
  origin: PreparedCheck["origin"],
  block: Cell[][],
  rows: number[],
  headers: boolean,
): Promise<string> {
  const sleep = deps.sleep ?? deps.client.transport.sleep;
  const budget = deps.writeRetryMs ?? 30_000;
  for (let waited = 0, delay = 250; ; delay = Math.min(delay * 2, 4_000)) {
    try {
      return await deps.excelRun(async (context) => {
        // The sheet's id comes with the marks' sync: the run finds its sheet by it, whatever it is called meanwhile.
        const ws = context.workbook.worksheets.getItem(origin.sheet);
        ws.load("id");
        if (headers) queueHeaders(context, origin);
        await writeOutputRows(context, origin, block, rows, { mergeGap: 0 });
        await context.sync();
        return ws.id;
      });
    } catch (e) {
      deps.onNotice?.(`${writeErrorText(e)} The check starts as soon as Excel accepts it.`);
      // eslint-disable-next-line preserve-caught-error -- the message carries the cause's text; Error's `cause` option is ES2022, past the pane's target.
      if (waited >= budget) throw new Error(`Nothing was sent. ${writeErrorText(e)} Then run Check again.`);
      const ms = Math.min(delay, budget - waited);
      await sleep(ms);
      waited += ms;
    }
  }
}

/**
 * Runs a prepared check: rows hidden by a filter are left out, every row to send is marked "Checking…" (earlier values
 * kept), and core's engine sends the jobs and hands out results, written where their property is at that moment.
 */
export async function runCheck(prepared: PreparedCheck, deps: RunDeps): Promise<RunSummary> {
  const now = deps.now ?? deps.client.transport.now;
  const iso = new Date(now()).toISOString();
  const { region, origin } = prepared;
  // Rows hidden by a filter inside the selection: not sent, not written (Range.rowHidden, ExcelApi 1.2).
  const hidden = new Set(await deps.excelRun((context) => hiddenRowOffsets(context, region)));
  const rows = prepared.rows.filter((r) => !hidden.has(r.index));
  const skippedRows = prepared.rows.length - rows.length;
  // A re-check nobody waits for (on opening the file) keeps to the plan's job size: fewest requests, not the earliest end.
  const state = createRun(rows, {
    plan: deps.plan,
    nowMs: now(),
    skippedRows,
    runId: newRunId(now(), Math.random()),
    spread: (deps.trigger ?? "manual") === "manual",
    hold: serviceHoldAt(now()),
  });
  const block: Cell[][] = prepared.previous.map((r) => OUTPUT_COLUMNS.map((_c, i) => (r[i] ?? "") as Cell));
  const start: number[] = [];
  const tally: Tally = newTally();
  tally.stamps.add(formatTimestamp(iso));
  for (const r of rows) {
    block[r.index] = startRow(r, prepared.previous[r.index], iso, state.runId);
    start.push(r.index);
    if (!r.error) continue;
    tally.byRow.set(origin.rowIndex + r.index, { error: true });
    tally.shown.set(`!${r.error.message}`, resultPrint(block[r.index]));
  }
  noteEarlierValues(
    state,
    rows.map((r) => ({ key: r.key, error: r.error, previous: prepared.previous[r.index] })),
  );
  const inputColumns: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const)
    if (prepared.mapping[k] !== undefined) inputColumns[k] = region.columnIndex + prepared.mapping[k]!;
  const run: UnfinishedRun = {
    version: 2,
    startedAt: iso,
    plan: deps.plan,
    sheet: origin.sheet,
    headerRow: prepared.headerRow === null ? null : origin.rowIndex + prepared.headerRow,
    blockColumn: origin.columnIndex,
    inputColumns,
    state,
  };
  // Core's order (core/run/begin.ts): the unfinished run set aside, the marks, the run stored, the first submit.
  await beginRunSession(state, {
    cfg: deps.client.config,
    now,
    setAside: deps.store ? () => setAsideStored(deps.store!, state.runId) : undefined,
    writeMarks: async () => {
      run.sheetId = await startRows(deps, origin, block, start, prepared.headerRow !== null);
    },
    save: saver(run, deps, tally),
    send: (requests) => Promise.all(requests.map((r) => sendRequest(transportOf(deps), r))),
  });
  deps.onProgress?.(progressOf(state, now(), iso));
  return drive(run, state, deps, tally);
}

/**
 * Goes on with an unfinished run: jobs already sent are collected (never sent again), jobs not yet sent are sent, and
 * results are written where their rows are now, found again on the sheet (sorted, moved, a column inserted).
 */
export async function resumeRun(saved: UnfinishedRun, deps: RunDeps): Promise<RunSummary> {
  const now = deps.now ?? deps.client.transport.now;
  const state = loadRunState(saved.state);
  if (!state) throw new Error("The unfinished check could not be read; select the rows and run Check again.");
  resumeEngine(state, now());
  const run: UnfinishedRun = { ...saved, state };
  // Taken up again: out of the runs set aside, and another unfinished run stored meanwhile is set aside in its place.
  if (deps.store) await takeUpStored(deps.store, state.runId);
  const tally = newTally();
  // Changes of rows written before the pane closed (or Excel refused a write) are logged with the rest.
  if (Array.isArray(saved.changes)) tally.changes.push(...saved.changes);
  return drive(run, state, deps, tally);
}
