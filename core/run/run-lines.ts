/**
 * What both add-ins say of a run while it goes and when it is left unfinished (its first line is report.ts's
 * checkingLine): one sentence for each fact, so that the pane and the sidebar never word the same run two ways. Hosts
 * pass the clock in (`nowMs`).
 */
import { countWord, formatCount, utcMinute } from "../numbers";
import { runCounts, runSummary } from "./report";
import { interruptedRun, type UnfinishedPlace } from "./session";
import type { RunState } from "./state";

const noStop = (s: string) => s.replace(/[\s.]+$/, "");

/**
 * The line while a run goes: its rows and jobs, how many rows are checked, what it waits for (a 503's stated hold,
 * named with its time, or the plan's rate limit, in seconds from `nowMs`) and the retries so far. Rows checked are
 * rows answered, as the progress bar and the run's last word count them; rows the service failed are said apart, so
 * a run that is failing never reads as one that goes well.
 */
export function runProgressLine(state: RunState, nowMs: number, startedAtMs: number): string {
  const c = runCounts(state);
  const missing = c.failed + c.maybeCreated + c.notSent + c.gone;
  const jobs = c.jobsTotal ? ` in ${countWord(c.jobsTotal, "bulk job")}` : "";
  const head = `Checking ${countWord(c.rows, "row")} (${countWord(c.properties, "distinct property", "distinct properties")})${jobs}: ${formatCount(c.answered)} of ${countWord(c.rows, "row")} checked${missing ? `, ${formatCount(missing)} not refreshed` : ""}.`;
  const waitMs = state.nextRequestAtMs - nowMs;
  const waits =
    waitMs <= 0
      ? ""
      : state.holdReason
        ? ` Waiting: ${noStop(state.holdReason.message)}.`
        : ` Waiting for the plan's rate limit (${formatCount(Math.ceil(waitMs / 1000))} s).`;
  const retries = state.retries
    ? ` Retried ${countWord(state.retries, "request")} so far (${formatCount(Math.max(0, Math.round((nowMs - startedAtMs) / 1000)))} s since the check started).`
    : "";
  return `${head}${waits}${retries}`;
}

/**
 * The sentence for a run left unfinished (stopped, paused, or its pane or sidebar closed mid-run): which rows, on which
 * sheet, begun when, and what a Resume collects (core's runSummary words).
 */
export function unfinishedRunLine(state: RunState, where: UnfinishedPlace): string {
  const s = runSummary(interruptedRun(state));
  return `A check of ${countWord(state.rowsTotal, "row")} on ${where.sheet}, started ${utcMinute(where.startedAtMs)}, is unfinished. ${s.lines[0] ?? ""}`.trim();
}

/**
 * The words beside the progress bar, in both add-ins: while the run goes, its line (runProgressLine); once it has
 * stopped, paused or ended, the rows the bar counts (rows answered) and those the service did not refresh.
 */
export function runCaption(state: RunState, nowMs: number, startedAtMs: number): string {
  if (state.phase === "running") return runProgressLine(state, nowMs, startedAtMs);
  const c = runCounts(state);
  const missing = c.failed + c.maybeCreated + c.notSent + c.gone;
  return `${formatCount(c.answered)} of ${countWord(c.rows, "row")} checked${missing ? `, ${formatCount(missing)} not refreshed` : ""}`;
}
