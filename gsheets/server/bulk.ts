/**
 * The sidebar's bulk check in Google Sheets, in short steps that each fit far inside Apps Script's 6-minute limit:
 * start reads and validates the selected rows and begins the run (sheetrun.ts: the first job sent, the rows marked
 * "Checking…"); each poll steps it once; Stop and Resume. The scheduled re-check (schedule.ts) runs the same steps.
 */
import {
  countWord,
  interruptedRun,
  keepForResume,
  nextDueInMs,
  ownSheetProblem,
  resumeFirstQuestion,
  resumeRun,
  setAsideRefusal,
  shownPhase,
  stopRun,
  unfinishedRunLine,
  type ColumnMapping,
  type HeldRun,
  type RunState,
  sentence,
  sheetNotFound,
} from "../../core";
import { emptySelectionProblem, multiAreaProblem } from "../../core/sheet/check-plan";
import type { ColumnLetters, RunProgress, StartResult, StopResult } from "../shared/api";
import { clearRun, HELD_SLOT, loadRun, MANUAL_SLOT, saveRun, type SheetRun } from "./runstore";
import { loadSettings } from "./settings";
import { a1, columnNumber, findSheet } from "./sheet";
import { planSheetCheck } from "./table-plan";
import { afterRun, errorText, finishRun, pollRun, progressOf, save, say, step, withUserLock } from "./sheetrun";
import { beginRun } from "./runbegin";
import { RUN_DATA_SHEET } from "./runlist";

export { progressOf };

function lettersToMapping(m: ColumnLetters | undefined): ColumnMapping | null | { problem: string } {
  if (!m || (!m.uprn && !m.postcode && !m.address)) return null;
  const out: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const) {
    if (!m[k]) continue;
    const n = columnNumber(m[k]!);
    if (n === null) return { problem: `"${m[k]}" is not a column letter (for ${k}).` };
    out[k] = n - 1;
  }
  if (out.uprn === undefined && out.postcode === undefined) return { problem: "Choose a UPRN or a Postcode column." };
  return out;
}

/** Names the cells the person selected (not the table rows they fall in), and what to select instead. */
function nothingToCheck(selection: GoogleAppsScript.Spreadsheet.Range | null): string {
  return emptySelectionProblem(selection ? selection.getA1Notation() : undefined);
}

function multiAreaMessage(areas: GoogleAppsScript.Spreadsheet.Range[]): string {
  return multiAreaProblem(areas.map((r) => r.getA1Notation()));
}

/**
 * The sidebar's run as this spreadsheet sees it: user properties are shared by all of a user's spreadsheets, so a run
 * of another one is not this sidebar's to show, poll, stop or write (its sheet ids would name sheets of this one).
 */
function here(run: SheetRun | null): SheetRun | null {
  return run && run.spreadsheetId && run.spreadsheetId !== SpreadsheetApp.getActiveSpreadsheet().getId() ? null : run;
}

/** A run of another spreadsheet still going (saved within the last 15 minutes; older, its sidebar was closed). */
function runningElsewhere(run: SheetRun | null): SheetRun | null {
  return run &&
    !here(run) &&
    shownPhase(run.engine) === "running" &&
    Date.now() - (run.savedAtMs || run.startedAtMs) < 15 * 60 * 1000
    ? run
    : null;
}

function describeRun(run: SheetRun): string {
  return `${run.sheetName}!${a1(run.firstRow, run.inputFirstCol || 1, run.lastRow - run.firstRow + 1, run.inputCols - (run.inputFirstCol || 1) + 1)}`;
}

/**
 * Checks one run at a time per user: a second sidebar (or a double click) is refused while a check runs, with the
 * running check's progress, so that the first run's state is never overwritten. Under the user lock.
 */
export function startBulkCheck(opts: { mapping?: ColumnLetters; anyway?: boolean }): StartResult {
  return withUserLock(
    () => startUnlocked(opts),
    () => {
      const run = here(loadRun());
      return {
        ok: false,
        message: "Another check is starting or updating right now; try again in a moment.",
        progress: run ? progressOf(run) : null,
      };
    },
  );
}

type StartRefusal = Extract<StartResult, { ok: false }>;

/**
 * The user's stored run, before a new one starts: refused while one runs (here or in another spreadsheet); one left
 * unfinished is asked about first, or set aside. Gives the run to set aside, and one of another spreadsheet moved away.
 */
function earlierRun(opts: { anyway?: boolean }): StartRefusal | { aside: SheetRun | null; away: SheetRun | null } {
  const stored = loadRun();
  const other = runningElsewhere(stored);
  if (other) {
    return {
      ok: false,
      message: `A check of ${countWord(other.lastRow - other.firstRow + 1, "row")} is running in another of your spreadsheets ("${other.spreadsheetName || "untitled"}"): one check runs at a time for each user. Wait for it to finish there (or press Stop in that spreadsheet's sidebar), then check again.`,
    };
  }
  const existing = here(stored);
  // A run of another spreadsheet left unfinished (its sidebar closed mid-run, or stopped): its jobs are paid for, so
  // it is set aside for a Resume there, never overwritten; the new run says where it went.
  const away =
    stored && !existing && (shownPhase(stored.engine) === "running" || keepForResume(stored.engine)) ? stored : null;
  // A run of this spreadsheet whose end was never built (the sidebar closed right after its last poll): built now.
  if (existing && existing.endDue) {
    finishRun(existing);
    save(existing);
  }
  if (existing && shownPhase(existing.engine) === "running") {
    return {
      ok: false,
      message: `A check of ${describeRun(existing)} is already running (started from this or another sidebar). Wait for it to finish, or press Stop, then check again.`,
      progress: progressOf(existing),
    };
  }
  // An unfinished run (stopped, paused, results not written): asked to resume it first; checking anyway sets it aside.
  const question = existing
    ? resumeFirstQuestion(existing.engine, { sheet: existing.sheetName, startedAtMs: existing.startedAtMs })
    : "";
  if (question && !(opts && opts.anyway))
    return { ok: false, message: question, askResume: true, progress: progressOf(existing!) };
  const aside = question ? existing : away ? stoppedAside(away) : null;
  if (aside) {
    // Past core's cap the user is told to resume one first: the run already set aside may be another spreadsheet's.
    const held = heldAnywhere();
    const refused = setAsideRefusal(held ? [heldOf(held)] : [], heldOf(aside));
    if (refused) return { ok: false, message: refused, progress: existing ? progressOf(existing) : null };
  }
  return { aside, away };
}

/** The active sheet's selected rows planned as a check (planSheetCheck), or why they cannot be checked. */
function planSelection(manual: ColumnMapping | null) {
  const sheet = SpreadsheetApp.getActiveSheet();
  const own =
    ownSheetProblem(sheet.getName()) ||
    (sheet.getName() === RUN_DATA_SHEET
      ? `"${RUN_DATA_SHEET}" holds what unfinished checks need for Resume, so its rows cannot be checked. Select rows of your own table of properties, then check again.`
      : undefined);
  if (own) return { ok: false as const, message: own };
  // getActiveRange() is only the last area of a Ctrl+click selection: the others would be silently left out.
  const areas = sheet.getActiveRangeList();
  const areaList = areas ? areas.getRanges() : [];
  if (areaList.length > 1) return { ok: false as const, message: multiAreaMessage(areaList) };
  const selection = areaList.length ? areaList[0] : sheet.getActiveRange();
  // Without a selection, the whole sheet's data is what is selected.
  const planned = planSheetCheck(sheet, {
    selection: selection
      ? {
          row: selection.getRow(),
          col: selection.getColumn(),
          rows: selection.getNumRows(),
          cols: selection.getNumColumns(),
        }
      : { row: 1, col: 1, rows: Math.max(1, sheet.getLastRow()), cols: Math.max(1, sheet.getLastColumn()) },
    manual,
  });
  if ("nothing" in planned) return { ok: false as const, message: nothingToCheck(selection) };
  if ("problem" in planned) return { ok: false as const, message: planned.problem, needsMapping: planned.offerColumns };
  return { ok: true as const, sheet, planned };
}

function startUnlocked(opts: { mapping?: ColumnLetters; anyway?: boolean }): StartResult {
  const settings = loadSettings();
  if (!settings.config)
    return { ok: false, message: "No API key yet: add your key under Settings (it is stored only for you)." };
  const earlier = earlierRun(opts);
  if ("ok" in earlier) return earlier;
  const { aside, away } = earlier;
  const manual = lettersToMapping(opts && opts.mapping);
  if (manual && "problem" in manual) return { ok: false, message: manual.problem, needsMapping: true };
  const selected = planSelection(manual);
  if (!selected.ok) return selected;
  const { sheet, planned } = selected;
  const { table, firstRow, endRow, values } = planned;

  const begun = beginRun(
    {
      sheet,
      table,
      firstRow,
      endRow,
      values,
      manualMapping: !!manual,
      trigger: "manual",
      slot: MANUAL_SLOT,
      setAside: aside ? () => saveRun(aside, HELD_SLOT) : undefined,
    },
    { ...settings, config: settings.config },
  );
  if (!begun.ok) return begun;
  if (away) {
    begun.run.notes.push(awayNote(away));
    save(begun.run);
  }
  const engine = begun.run.engine;
  return {
    ok: true,
    jobIds: engine.jobs.filter((j) => j.poll).map((j) => j.poll!.jobId),
    progress: withHeld(progressOf(begun.run, nextDueInMs(engine, Date.now()))),
  };
}

// ---- poll, stop, resume ----

/** One short step of a running check; the sidebar calls it again after the returned waitMs. */
export function pollBulkCheck(): RunProgress | null {
  const callStartMs = Date.now();
  return withUserLock(
    () => {
      const run = here(loadRun());
      if (!run) return null;
      if (shownPhase(run.engine) !== "running") return progressOf(run);
      let waitMs = 1000;
      try {
        waitMs = pollRun(run, callStartMs);
        // The Action list, summary and Run log are built by the next call (finishBulkCheck), not in this one.
        if (shownPhase(run.engine) !== "running") run.endDue = true;
      } catch (e) {
        // A sheet that cannot be read or written would fail every poll the same way: stop, say why, keep the state.
        stopRun(run.engine);
        run.message = `The check stopped: ${/could not be written/.test(errorText(e)) ? errorText(e) : `the sheet could not be read or written (${errorText(e)})`}. Results not written are kept: choose Resume to write them, or check again.`;
      }
      save(run);
      return withHeld(progressOf(run, waitMs));
    },
    () => {
      const run = here(loadRun());
      return run ? { ...progressOf(run), waitMs: 1000 } : null;
    },
  );
}

/**
 * After the poll that wrote a run's last results: its Action list, Compliance summary and Run log, built once from
 * the results block (a constant number of sheet calls). The sidebar calls it as soon as a poll says endDue.
 */
export function finishBulkCheck(): RunProgress | null {
  return withUserLock(
    () => {
      const run = here(loadRun());
      if (!run) return null;
      if (run.endDue) {
        finishRun(run);
        save(run);
      }
      return withHeld(progressOf(run));
    },
    () => {
      const run = here(loadRun());
      return run ? { ...progressOf(run), waitMs: 1000 } : null;
    },
  );
}

/**
 * Stop always ends the run and saves it, even when the sheet cannot be read or written. Jobs already sent stay
 * collectable (Resume). While a poll holds the lock the answer is "busy": the sidebar asks again.
 */
export function cancelBulkCheck(): StopResult | null {
  return withUserLock(
    () => {
      const run = here(loadRun());
      if (!run) return null;
      if (shownPhase(run.engine) === "running") {
        // Core's words for a row Stop kept from being sent, as the Excel pane writes them.
        stopRun(run.engine);
        const sheet = findSheet(run.sheetId);
        let problem: string | undefined;
        try {
          if (sheet) problem = step(sheet, run, Date.now(), null).problem;
          else problem = sentence(sheetNotFound(run.sheetName));
        } catch (e) {
          run.endNote = `However, the rows could not be updated (${errorText((e as { cause?: unknown }).cause ?? e)}).`;
        }
        if (problem) run.notWritten = problem;
        say(run);
        if (!problem) afterRun(run);
        save(run);
      }
      return progressOf(run);
    },
    () => {
      const run = here(loadRun());
      if (!run) return null;
      return {
        ...progressOf(run),
        busy: true,
        message: "The add-on is updating the sheet right now; stopping as soon as it is done…",
      };
    },
  );
}

/** Goes on with a paused or stopped run: jobs already sent are collected (GETs only), jobs not sent are sent. */
export function resumeBulkCheck(): RunProgress | null {
  return withUserLock(
    () => {
      const stored = loadRun();
      let run = here(stored);
      const held = heldRun();
      // Another spreadsheet's unfinished run in the sidebar's slot trades places with the one set aside: both kept.
      let swap: SheetRun | null = null;
      // The sidebar's own run first; when it has nothing left, the run set aside by a later check is taken up again.
      if (held && !(run && keepForResume(run.engine))) {
        const other =
          stored && !run && (shownPhase(stored.engine) === "running" || keepForResume(stored.engine)) ? stored : null;
        if (other && runningElsewhere(other))
          return {
            ...progressOf(held),
            message: `A check is running in your spreadsheet "${other.spreadsheetName || "untitled"}": one check runs at a time for each user. Resume this one when it has finished.`,
          };
        run = held;
        swap = other;
        if (!swap) clearRun(HELD_SLOT, true);
      }
      if (!run) return null;
      // The part already done gets its end (Action list, Run log) first, as it had before the end was its own call.
      if (run.endDue) finishRun(run);
      resumeRun(run.engine, Date.now());
      delete run.notWritten;
      delete run.endNote;
      say(run);
      save(run);
      if (swap) saveRun(stoppedAside(swap), HELD_SLOT);
      return progressOf(run, 0);
    },
    () => {
      const run = here(loadRun());
      return run ? { ...progressOf(run), waitMs: 1000 } : null;
    },
  );
}

/** A run as core's set-aside rule reads it; another spreadsheet's is named with its file. */
function heldOf(run: SheetRun): HeldRun {
  const sheet = here(run) ? run.sheetName : `${run.sheetName} in "${run.spreadsheetName || "another spreadsheet"}"`;
  return { state: run.engine, where: { sheet, startedAtMs: run.startedAtMs } };
}

/** The run set aside, of whichever of the user's spreadsheets, while a Resume can still use it. */
function heldAnywhere(): SheetRun | null {
  const held = loadRun(HELD_SLOT);
  return held && keepForResume(held.engine) ? held : null;
}

/**
 * Another spreadsheet's run as it is set aside for a later Resume. One left mid-run is read as interrupted (core
 * interruptedRun, as the Excel pane reads its own): nothing polls it while it waits, and its Resume collects the jobs
 * already sent (GETs only).
 */
function stoppedAside(run: SheetRun): SheetRun {
  if (shownPhase(run.engine) !== "running") return run;
  const engine = interruptedRun(run.engine);
  return {
    ...run,
    engine,
    message: "Set aside, unfinished, by a check begun in another spreadsheet: choose Resume to finish it.",
  };
}

/** What the new run's sidebar says of another spreadsheet's unfinished run it set aside. */
function awayNote(run: SheetRun): string {
  return `Your unfinished check of ${describeRun(run)} in "${run.spreadsheetName || "another spreadsheet"}" is kept: open that spreadsheet and choose Resume in its sidebar to collect its rows (no job already sent is sent again).`;
}

/** The run set aside by a check begun while it was unfinished, when it is this spreadsheet's and still resumable. */
function heldRun(): SheetRun | null {
  const held = here(loadRun(HELD_SLOT));
  return held && keepForResume(held.engine) ? held : null;
}

/** The sidebar's run, offering Resume too when a run set aside waits for it. */
function withHeld(p: RunProgress): RunProgress {
  if (p.phase === "running" || p.resumable) return p;
  const held = heldRun();
  return held
    ? {
        ...p,
        resumable: true,
        notes: [
          ...p.notes,
          // Core's sentence, as the Excel pane says it of its own unfinished run.
          unfinishedRunLine(held.engine, { sheet: held.sheetName, startedAtMs: held.startedAtMs }),
        ],
      }
    : p;
}

export function currentRun(): RunProgress | null {
  const run = here(loadRun());
  if (run) return withHeld(progressOf(run));
  const held = heldRun();
  return held ? progressOf(held) : null;
}

export function forgetRun(): void {
  clearRun();
}

/** For tests and the bench: the engine state of the stored run. */
export function storedEngine(): RunState | null {
  const run = here(loadRun());
  return run ? run.engine : null;
}
