/**
 * What the sidebar shows of a run: its phase, counts, jobs and the line that says how it goes (core's summary),
 * and how soon the sidebar should poll again.
 */
import {
  jobViews,
  runCaption,
  runCounts,
  runEndWords,
  shownPhase,
  wholeRunFailureText,
  type RunEndWords,
} from "../../core";
import type { RunProgress } from "../shared/api";
import type { SheetRun } from "./runstore";
import { BLOCK_WIDTH, a1 } from "./sheet";

/** Never ask the sidebar to come back sooner than this, or later than a minute. */
const MIN_WAIT_MS = 250;
const MAX_WAIT_MS = 60000;

function nextWaitMs(run: SheetRun, waitMs: number): number {
  return shownPhase(run.engine) === "running" ? Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, waitMs)) : 0;
}

/** The run's end in core's words, from its engine and what the sidebar's writes counted and built. */
export function endWordsOf(run: SheetRun): RunEndWords {
  return runEndWords(run.engine, {
    unreadDateRows: run.unreadDateRows,
    ...(run.notWritten ? { notWritten: run.notWritten } : {}),
    notes: run.endNote ? [run.endNote] : [],
    ...(run.listLine ? { actionSheets: run.listLine } : {}),
    ...(run.logLine ? { runLog: run.logLine } : {}),
  });
}

export function progressOf(run: SheetRun, waitMs = 1000): RunProgress {
  const phase = shownPhase(run.engine);
  const end = phase === "running" ? null : endWordsOf(run);
  const c = runCounts(run.engine);
  const views = jobViews(run.engine);
  const failed = views.filter((j) => j.status === "failed" || j.status === "timed_out").length;
  return {
    runId: run.runId,
    sheetName: run.sheetName,
    rangeA1: a1(
      run.firstRow,
      run.inputFirstCol || 1,
      run.lastRow - run.firstRow + 1,
      run.inputCols - (run.inputFirstCol || 1) + 1,
    ),
    outputA1: a1(
      run.headerRow || run.firstRow,
      run.blockCol,
      run.lastRow - (run.headerRow || run.firstRow) + 1,
      BLOCK_WIDTH,
    ),
    phase,
    rows: c.rows,
    invalidRows: c.invalid,
    duplicateRows: run.duplicateRows,
    properties: c.properties,
    propertiesDone: views.reduce((n, j) => n + j.received, 0),
    rowsWritten: run.rowsWritten,
    jobs: views.map((j) => ({
      jobId: j.jobId,
      status: j.status === "queued" || j.status === "sending" ? "submitting" : j.status,
      processed: j.received,
      total: j.total,
    })),
    waitMs: nextWaitMs(run, waitMs),
    message: run.message,
    // Beside the bar, core's words as the Excel pane shows them: while the run goes, its line as last said.
    caption: phase === "running" ? run.message : runCaption(run.engine, Date.now(), run.startedAtMs),
    rowsChecked: c.answered,
    complete: !!end && end.complete,
    details: end ? end.details : [],
    rateLimited: run.engine.nextRequestAtMs > Date.now(),
    notes: run.notes,
    failedJobs: phase === "running" ? 0 : failed,
    // Why, when the whole run failed (core's one rule: a refused key, the service down): said once, in the error box.
    problem: phase === "done" ? wholeRunFailureText(run.engine) : "",
    resumable: c.resumable > 0,
    ...(run.endDue ? { endDue: true } : {}),
  };
}

/**
 * The run's line for the sidebar: while it runs, what it waits for (`extra`: a note of this poll's); once it has
 * ended, core's headline (its details go with progressOf).
 */
export function say(run: SheetRun, extra = ""): void {
  if (shownPhase(run.engine) === "running") {
    // Core's line, as the Excel pane shows it: a 503's stated hold is named with its time, the plan's limit in seconds.
    run.message = `${runCaption(run.engine, Date.now(), run.startedAtMs)}${extra}`;
    return;
  }
  run.message = endWordsOf(run).headline;
}

// ---- one step ----
