/**
 * A run's life cycle around the engine, decided once for both add-ins: its id, when the whole run failed, what is
 * kept for Resume, a check begun while another run is unfinished (the user is asked to resume it first; checking
 * other rows anyway keeps it aside, its jobs still collectable), and the line the Run log gets. Hosts read and write
 * the sheet and their stores; they ask these functions what to do.
 */
import { describeError, type ServiceError } from "../errors";
import { runCounts, runSummary } from "./report";
import { runTag } from "./rows";
import type { RunState } from "./state";

/** A run's id: the time it began and a random part (two checks begun in the same millisecond still differ). */
export function newRunId(nowMs: number, random: number): string {
  return `run_${nowMs.toString(36)}_${Math.floor(Math.abs(random) * 1e6).toString(36)}`;
}

/**
 * The whole run failed: one failure ended it for every row (a refused key, a wrong base URL), or the service failed
 * every row sent (earlier values kept everywhere). Counted by rows, in both add-ins. Rows the service answered
 * with an error about the property were checked: they never make the whole run a failure. Undefined otherwise.
 */
export function wholeRunFailure(state: RunState): ServiceError | undefined {
  if (state.fatal) return state.fatal;
  if (state.phase === "running" || !state.firstFailure) return undefined;
  const c = runCounts(state);
  const sent = c.rows - c.invalid;
  return sent > 0 && c.failed + c.maybeCreated === sent ? state.firstFailure : undefined;
}

/** The whole run's failure in words, said once (a banner, the sidebar's error box); "" when it did not fail whole. */
export function wholeRunFailureText(state: RunState): string {
  const f = wholeRunFailure(state);
  return f ? describeError(f) : "";
}

/**
 * Whether the run's stored state must be kept: a Resume can still collect or send something (paused, stopped with
 * jobs sent), or results arrived that are not on the sheet yet (a write refused).
 */
export function keepForResume(state: RunState, writesPending = false): boolean {
  return (
    writesPending ||
    state.phase === "paused" ||
    state.phase === "stopped" ||
    Object.keys(state.received).length > 0 ||
    runCounts(state).resumable > 0
  );
}

/**
 * Why the run did not check everything, for the Run log's Problem column (and a re-check's staleness): the whole
 * run's failure; or, when it is not "Done" (stopped, paused, rows failed, not sent or changed), the host's line for
 * the run when it has one, else core's title. "" when it ended well (rows the service answered with an error about
 * the property were checked: they are no problem of the run).
 */
export function runLogProblem(state: RunState, said = ""): string {
  const whole = wholeRunFailure(state);
  if (whole) return describeError(whole);
  const s = runSummary(state);
  return s.title === "Done" ? "" : said || s.title;
}

// ---- a check begun while another run is unfinished ----

/** Where an unfinished run is, in words the user knows: its sheet and when it began. */
export interface UnfinishedPlace {
  sheet: string;
  startedAtMs: number;
}

/**
 * The question put to the user who starts a check while another run is unfinished: resume it first? Whatever they
 * answer, its jobs stay collectable (checking other rows keeps it aside, and Resume still collects it, GETs only).
 * Empty when there is nothing to ask (no run, or one with nothing left to collect or send).
 */
export function resumeFirstQuestion(state: RunState | null | undefined, where: UnfinishedPlace): string {
  if (!state || !keepForResume(state)) return "";
  const c = runCounts(state);
  const started = new Date(where.startedAtMs).toISOString().slice(0, 16).replace("T", " ");
  const waiting = c.resumable + c.unwritten;
  return (
    `A check of ${c.rows.toLocaleString("en-GB")} row${c.rows === 1 ? "" : "s"} on ${where.sheet} (started ${started} UTC, run ${runTag(state.runId)}) is unfinished` +
    `${waiting ? `: ${waiting.toLocaleString("en-GB")} row${waiting === 1 ? " waits" : "s wait"} for results already paid for` : ""}. ` +
    "Resume it first? If you check these rows now instead, it stays ready to Resume and its rows are left as they are."
  );
}

/**
 * The runs set aside for a later Resume, after `run` is set aside too: each run once (by id), only runs a Resume can
 * still use, newest last, at most `max` (the oldest are dropped first when the store is full).
 */
export function setAside<T>(held: readonly T[], run: T, stateOf: (t: T) => RunState, max = 5): T[] {
  const id = stateOf(run).runId;
  const out = held.filter((h) => stateOf(h).runId !== id && keepForResume(stateOf(h)));
  if (keepForResume(stateOf(run))) out.push(run);
  return out.slice(Math.max(0, out.length - max));
}

/** The runs set aside, less the one with this id (taken up again by Resume, or finished). */
export function takeOut<T>(held: readonly T[], runId: string, stateOf: (t: T) => RunState): T[] {
  return held.filter((h) => stateOf(h).runId !== runId);
}
