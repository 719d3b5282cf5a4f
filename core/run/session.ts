/**
 * A run's life cycle around the engine, decided once for both add-ins: its id, when the whole run failed, what is
 * kept for Resume, a check begun while another run is unfinished (the user is asked to resume it first; checking
 * other rows anyway keeps it aside, its jobs still collectable), and the line the Run log gets. Hosts read and write
 * the sheet and their stores; they ask these functions what to do.
 */
import { describeError, type ServiceError } from "../service/errors";
import { runCounts, runSummary } from "./report";
import { runTag } from "./rows";
import { stopRun, type RunState } from "./state";
import { formatCount, utcMinute } from "../numbers";

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
 * A run's phase as both add-ins show it: the engine's, where "ended" is "done", or "stopped" when the run was stopped
 * before it ended by itself (nothing left to collect, but the user's Stop or a problem ended it, not the last result).
 */
export type ShownPhase = "running" | "paused" | "stopped" | "done";

export function shownPhase(state: RunState): ShownPhase {
  if (state.phase !== "ended") return state.phase;
  return state.stoppedEarly ? "stopped" : "done";
}

/**
 * A run stored by an earlier version of the Sheets add-in kept its own phase beside the engine's (`stored`): one it
 * showed as stopped whose engine had ended is marked stopped early, so that it reads as it did. Any other is the
 * engine's already.
 */
export function adoptStoredPhase(state: RunState, stored: unknown): RunState {
  if (stored === "stopped" && state.phase === "ended") state.stoppedEarly = true;
  return state;
}

/**
 * A stored run whose phase is still "running" with a job not ended: the pane or sidebar driving it closed (or was
 * reloaded) mid-run. Its jobs sent are paid for, so it is as resumable as a stopped run.
 */
export function leftMidRun(state: RunState): boolean {
  return state.phase === "running" && state.jobs.some((j) => j.phase !== "ended");
}

/**
 * A stored run as a pane or sidebar that is not driving it finds it: one left mid-run is read as stopped by its pane
 * closing (a copy), so it is offered for Resume, asked about and set aside exactly as a stopped run is. Jobs sent stay
 * collectable (Resume fetches them, GETs only); jobs not yet sent end "not sent", said at their rows. Any other run is
 * returned as it is.
 */
export function interruptedRun(state: RunState): RunState {
  if (!leftMidRun(state)) return state;
  const copy = JSON.parse(JSON.stringify(state)) as RunState;
  stopRun(
    copy,
    "Not sent: the check was interrupted (its pane or sidebar closed) before this row's job went; run the check again for it.",
  );
  return copy;
}

/**
 * Whether the run's stored state must be kept: a Resume can still collect or send something (paused, stopped with
 * jobs sent, left mid-run), or results arrived that are not on the sheet yet (a write refused).
 */
export function keepForResume(state: RunState, writesPending = false): boolean {
  return (
    writesPending ||
    state.phase === "paused" ||
    state.phase === "stopped" ||
    leftMidRun(state) ||
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
  const c = runCounts(interruptedRun(state));
  const waiting = c.resumable + c.unwritten;
  return (
    `A check of ${formatCount(c.rows)} row${c.rows === 1 ? "" : "s"} on ${where.sheet} (started ${utcMinute(where.startedAtMs)}, run ${runTag(state.runId)}) is unfinished` +
    `${waiting ? `: ${formatCount(waiting)} row${waiting === 1 ? " waits" : "s wait"} for results already paid for` : ""}. ` +
    "Resume it first? If you check these rows now instead, it stays ready to Resume and its rows are left as they are."
  );
}

/**
 * How many runs a check may set aside, in both add-ins. One: the user is asked to resume an unfinished run before
 * every new check, so two unfinished checks are already one more than they meant to leave; a third check is refused
 * (setAsideRefusal) until one is resumed, so no run's paid jobs are ever dropped to make room. One run also fits
 * Google Sheets' property store, where each value is limited in size.
 */
export const MAX_SET_ASIDE = 1;

/** A run that may be set aside: its state and where it is, in the user's words. */
export interface HeldRun {
  state: RunState;
  where: UnfinishedPlace;
}

function describeHeld(h: HeldRun): string {
  const rows = h.state.rowsTotal;
  return `${formatCount(rows)} row${rows === 1 ? "" : "s"} on ${h.where.sheet}, started ${utcMinute(h.where.startedAtMs)}, run ${runTag(h.state.runId)}`;
}

/**
 * Whether a new check may set `current` aside: "" when it may (it has nothing to resume, or there is room); else the
 * refusal both add-ins show, naming every unfinished run, so the user resumes one first. Nothing is dropped.
 */
export function setAsideRefusal(held: readonly HeldRun[], current: HeldRun | null): string {
  if (!current || !keepForResume(current.state)) return "";
  const waiting = held.filter((h) => h.state.runId !== current.state.runId && keepForResume(h.state));
  if (waiting.length < MAX_SET_ASIDE) return "";
  const all = [...waiting, current];
  return (
    `${all.length === 2 ? "Two" : all.length} checks are unfinished already (${all.map(describeHeld).join("; and ")}). ` +
    "Choose Resume to finish one first, so that no job already paid for is lost; then check these rows."
  );
}

/**
 * The runs set aside for a later Resume, after `run` is set aside too: each run once (by id), only runs a Resume can
 * still use, newest last. Hosts ask setAsideRefusal first; past MAX_SET_ASIDE this throws that refusal rather than
 * drop a run whose jobs are paid for.
 */
export function setAside<T>(
  held: readonly T[],
  run: T,
  stateOf: (t: T) => RunState,
  whereOf: (t: T) => UnfinishedPlace,
): T[] {
  const id = stateOf(run).runId;
  const refused = setAsideRefusal(
    held.map((h) => ({ state: stateOf(h), where: whereOf(h) })),
    { state: stateOf(run), where: whereOf(run) },
  );
  if (refused) throw new Error(refused);
  const out = held.filter((h) => stateOf(h).runId !== id && keepForResume(stateOf(h)));
  if (keepForResume(stateOf(run))) out.push(run);
  return out;
}

/** The runs set aside, less the one with this id (taken up again by Resume, or finished). */
export function takeOut<T>(held: readonly T[], runId: string, stateOf: (t: T) => RunState): T[] {
  return held.filter((h) => stateOf(h).runId !== runId);
}
