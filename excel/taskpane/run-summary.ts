/**
 * How a run of "Check selected rows" went, for the pane: core's summary of the engine's state (statuses and earlier
 * values kept included) plus what the sheet writes showed (row errors), and the words the pane shows for it.
 */
import {
  runEndWords,
  runSummary,
  shownPhase,
  wholeRunFailureText,
  type RunCounts,
  type RunState,
  type ServiceError,
  type ShownPhase,
  type RunEndWords,
} from "../../core";
import type { WriteStats } from "./sheet";

/** What the run's writes counted, per sheet row (check-run.ts keeps it while writing). */
export interface SummaryTally {
  /** Rows written with their final outcome, and whether their status cells read `error`. */
  byRow: Map<number, { error: boolean }>;
  /** Rows whose result waits (paused, stopped). */
  waiting: Set<number>;
  writes: WriteStats;
}

/**
 * core's runSummary (done, title, lines, counts; Done only when every row has its result or its own reason on the
 * sheet), whether the stored state was kept for Resume, and the pane's counts: rows sent, refreshed (a result or the
 * service's answer about the row), row errors (those and invalid rows), not refreshed (the service failed, or the job
 * may exist), cancelled (stopped or not sent), kept (earlier values still shown), the statuses of the rows answered.
 */
export interface RunSummary {
  /** The run's phase as both add-ins show it (core shownPhase). */
  phase: ShownPhase;
  done: boolean;
  title: string;
  lines: string[];
  counts: RunCounts;
  resumable: boolean;
  pausedUntilMs?: number;
  rowsWritten: number;
  rowsSent: number;
  refreshed: number;
  byStatus: Record<string, number>;
  /** Rows written whose status cells read `error`. */
  errors: number;
  rowErrors: number;
  notRefreshed: number;
  cancelledRows: number;
  skippedRows: number;
  kept: number;
  cancelled: boolean;
  writes: WriteStats;
  failure?: ServiceError;
  /** One message for the whole run when one failure hit every row sent (a bad key, a wrong base URL, the service down). */
  fatal?: string;
  /** What became of the Action list and Compliance summary after the run, in a line. */
  actionSheets?: string;
  /** The run's line of the Run log (or why the logs could not be written). */
  runLog?: string;
  /** Rows written with a date of the user's own columns that could not be read (their Message says which). */
  unreadDateRows?: number;
  /** The run's end in core's words (runEndWords), the same as the Sheets sidebar's; made again once its sheets are built. */
  words: RunEndWords;
}

export function summarise(state: RunState, tally: SummaryTally, cancelled: boolean, resumable: boolean): RunSummary {
  const s = runSummary(state);
  const c = s.counts;
  const phase = shownPhase(state);
  let errors = 0;
  for (const r of tally.byRow.values()) if (r.error) errors++;
  const rowsSent = c.rows - c.invalid;
  const notRefreshed = c.failed + c.maybeCreated;
  const failure = state.fatal ?? state.firstFailure;
  const out: Omit<RunSummary, "words"> = {
    phase,
    done: s.done,
    title: s.title,
    lines: s.lines,
    counts: c,
    resumable,
    rowsWritten: c.rowsDone,
    rowsSent,
    refreshed: c.answered - c.invalid,
    byStatus: { ...state.statuses },
    errors,
    rowErrors: c.rowErrors + c.invalid,
    notRefreshed,
    cancelledRows: c.notSent + (phase === "stopped" ? c.resumable : 0),
    skippedRows: c.skipped,
    kept: c.kept,
    cancelled,
    writes: tally.writes,
  };
  if (phase === "paused" && state.pausedUntilMs !== undefined) out.pausedUntilMs = state.pausedUntilMs;
  if (failure) out.failure = failure;
  // One failure on every row sent says nothing about the rows: it is the key, the address or the service. Say it once.
  const whole = wholeRunFailureText(state);
  if (whole) out.fatal = whole;
  return { ...out, words: endWords(state, out) };
}

/**
 * The pane's status for a run: core's headline, then its details (the pane's say() shows the first line and keeps the
 * rest under Details).
 */
export function summaryText(s: RunSummary): string {
  return [s.words.headline, ...s.words.details].join("\n");
}

/** The run's end in core's words, from the engine's state and what the pane counted and built. */
export function endWords(state: RunState, s: Omit<RunSummary, "words">, notes: string[] = []): RunEndWords {
  return runEndWords(state, {
    unreadDateRows: s.unreadDateRows,
    notes,
    ...(s.actionSheets ? { actionSheets: s.actionSheets } : {}),
    ...(s.runLog ? { runLog: s.runLog } : {}),
  });
}
