/**
 * The end of a check run on a sheet, and what is kept of it: the Action list and Compliance summary built again, the
 * schedule told, the Run log row (core's runLogEntry and runLogProblem), and the run stored for the sidebar or Resume.
 */
import {
  logsNotWrittenLine,
  runLogEntry,
  runLogProblem,
  shownPhase,
  storedState,
  type PortfolioTable,
} from "../../core";
import { refreshLists, withSheetCache } from "./actions";
import { appendRunLog, runBy } from "./logs";
import { errorText } from "../shared/words";
import { MANUAL_SLOT, saveRun, type SheetRun } from "./runstore";
import { recordWatch } from "./watch";

/** `lists: false`: the Action list and summary are left for later (a scheduled pass builds them once, for all its tables). */
export interface RunEndOptions {
  lists?: boolean;
  /** Given the tables the Action list was built from, when it was (a scheduled pass's digest lists from them). */
  listed?: (tables: PortfolioTable[]) => void;
}

/**
 * When a run ends with rows written: the Action list and the Compliance summary are built again from the whole block.
 * Their failure never touches the results block; it is said in the run's notes. A manual run that ended well is
 * recorded for the schedule to re-check (watch.ts). Returns the Run log's line, empty when it could not be written.
 */
export function afterRun(run: SheetRun, o: RunEndOptions = {}): string {
  // The spreadsheet, its time zone and the sheets written are looked up once for the Action list, summary and Run log.
  return withSheetCache(() => endRun(run, o));
}

function endRun(run: SheetRun, o: RunEndOptions): string {
  if (run.rowsWritten && o.lists !== false) {
    const { line, tables } = refreshLists(run);
    if (line) run.listLine = line;
    if (tables && o.listed) o.listed(tables);
  }
  if (shownPhase(run.engine) === "done" && run.trigger !== "scheduled" && run.engine.properties.length) {
    try {
      recordWatch(run);
    } catch (_e) {
      // Only the schedule's list of tables is not updated; the check itself is complete.
    }
  }
  // Every run that ends gets its Run log row, written or not.
  try {
    const line = appendRunLog(
      runLogEntry(run.engine, {
        startedAt: new Date(run.startedAtMs).toISOString(),
        endedAt: new Date(Date.now()).toISOString(),
        trigger: run.trigger ?? "manual",
        runBy: runBy(),
        changed: run.changed ?? 0,
        worse: run.worse ?? 0,
        problem: runProblem(run),
      }),
    );
    run.logLine = line;
    return line;
  } catch (e) {
    run.logLine = logsNotWrittenLine("Run log", errorText(e));
    return "";
  }
}

/**
 * The end of a run whose last poll wrote its last results (and marked the end due): the Action list, summary and Run
 * log built once, in their own server call, so that the last poll costs no more than any other. Done once.
 */
export function finishRun(run: SheetRun, o: RunEndOptions = {}): void {
  if (!run.endDue) return;
  delete run.endDue;
  afterRun(run, o);
}

/**
 * Why the run did not check everything, for the Run log (and the schedule's staleness): core's one rule
 * (runLogProblem), in the sidebar's words for the run; empty when it ended well.
 */
export function runProblem(run: SheetRun): string {
  return runLogProblem(run.engine, run.message);
}

/** The run is kept until every row's result is on the sheet; a finished run is kept for the sidebar to show. */
export function save(run: SheetRun): void {
  run.savedAtMs = Date.now();
  const stored = { ...run, engine: storedState(run.engine) };
  saveRun(stored, run.slot ?? MANUAL_SLOT);
  // The list went to the hidden sheet with the first save that needed it: later saves leave it there.
  if (stored.listPieces) run.listPieces = stored.listPieces;
}
