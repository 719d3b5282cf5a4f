/** A run's progress and last word: counts by row, a view of each job, and when "Done" may be said. */
import { displayStatus } from "../service/checks";
import { describeError, isAboutProperty, serviceError } from "../service/errors";
import { isSettled, members, unwrittenResult, type RunState } from "./state";
import { countWord, formatCount, utcMinute } from "../numbers";

// ---- progress and summary ----

export interface JobView {
  jobId: string | null;
  status: "queued" | "sending" | "running" | "completed" | "failed" | "timed_out" | "stopped" | "not_sent";
  received: number;
  total: number;
}

export interface RunCounts {
  /** Rows the run was asked to check (invalid ones included; hidden ones not). */
  rows: number;
  /** Rows with their final value or reason on the sheet. */
  rowsDone: number;
  /** Rows answered: a result, or the service's answer about the row (not found, ambiguous), or invalid input. */
  answered: number;
  withResult: number;
  rowErrors: number;
  invalid: number;
  skipped: number;
  /** Rows the service failed to answer (earlier values kept where there were some). */
  failed: number;
  /** Rows whose job may have been created though its submit failed. */
  maybeCreated: number;
  /** Rows not sent (stopped, or changed while the check ran). */
  notSent: number;
  /** Rows edited or deleted while the check ran: nothing written. */
  gone: number;
  /** Rows whose result arrived and is not on the sheet yet. */
  unwritten: number;
  /** Rows that a Resume can still fill (jobs sent, results not collected; or jobs queued while paused). */
  resumable: number;
  /**
   * Rows not refreshed that still show the values of an earlier check, each once: the service failed them, they were
   * not sent, or (paused, stopped) they wait for a Resume under their "Checking…" mark.
   */
  kept: number;
  properties: number;
  jobsTotal: number;
  jobsSent: number;
}

function rowsOf(state: RunState, p: number): number {
  return 1 + (state.dupes[p] ?? 0);
}

/** How many rows of each property showed earlier values as the run began (state.earlier, state.earlierSome). */
function earlierRows(state: RunState): (p: number) => number {
  const all = new Set<number>();
  for (const [a, b] of state.earlier ?? []) for (let p = a; p < b; p++) all.add(p);
  return (p) => (all.has(p) ? rowsOf(state, p) : (state.earlierSome?.[p] ?? 0));
}

/**
 * Adds the status words of a row written with a result (its status cells), `rows` times, to `into`; a row's "error"
 * is its Message's, not a status.
 */
export function countStatuses(
  into: Record<string, number>,
  words: readonly unknown[],
  rows = 1,
): Record<string, number> {
  for (const w of words) {
    if (typeof w !== "string" || !w || w === "error") continue;
    const k = displayStatus(w) === "unknown" ? "unknown" : w;
    into[k] = (into[k] ?? 0) + rows;
  }
  return into;
}

export function runCounts(state: RunState): RunCounts {
  const c: RunCounts = {
    rows: state.rowsTotal,
    rowsDone: state.invalidRows,
    answered: state.invalidRows,
    withResult: 0,
    rowErrors: 0,
    invalid: state.invalidRows,
    skipped: state.skippedRows,
    failed: 0,
    maybeCreated: 0,
    notSent: 0,
    gone: 0,
    unwritten: 0,
    resumable: 0,
    kept: 0,
    properties: state.properties.length,
    jobsTotal: state.jobs.length,
    jobsSent: state.jobs.filter((j) => !!j.poll).length,
  };
  const earlier = earlierRows(state);
  for (let p = 0; p < state.fates.length; p++) {
    const n = rowsOf(state, p);
    const f = state.fates[p];
    if (f === "f" || f === "u" || f === "c") c.kept += earlier(p);
    if (f === ".") {
      if (String(p) in state.received) c.unwritten += n;
      continue;
    }
    c.rowsDone += n;
    if (f === "a") {
      c.withResult += n;
      c.answered += n;
    } else if (f === "e") {
      c.rowErrors += n;
      c.answered += n;
    } else if (f === "f") c.failed += n;
    else if (f === "u") c.maybeCreated += n;
    else if (f === "c") c.notSent += n;
    else if (f === "g") c.gone += n;
  }
  if (state.phase === "paused" || state.phase === "stopped") {
    for (const job of state.jobs)
      for (const p of members(job))
        if ((job.phase !== "ended" && !isSettled(state, p)) || unwrittenResult(state, p)) {
          c.resumable += rowsOf(state, p);
          c.kept += earlier(p);
        }
  }
  return c;
}

export function jobViews(state: RunState): JobView[] {
  return state.jobs.map((job) => {
    const list = members(job);
    // Answered only: a result or the service's word about the property; failures and rows not sent do not count.
    const answered = (p: number) => {
      const o = state.received[p];
      return state.fates[p] === "a" || state.fates[p] === "e" || (!!o && ("result" in o || isAboutProperty(o.error)));
    };
    const received = list.filter(answered).length;
    let status: JobView["status"];
    if (job.phase === "queued") status = "queued";
    else if (job.phase === "sending") status = "sending";
    else if (job.phase === "polling") status = state.phase === "stopped" ? "stopped" : "running";
    else if (!job.poll) status = job.error?.kind === "cancelled" ? "not_sent" : "failed";
    else if (job.error?.kind === "cancelled") status = "stopped";
    else status = job.poll.status === "running" ? "failed" : job.poll.status;
    return { jobId: job.poll?.jobId ?? null, status, received, total: list.length };
  });
}

/** Done: the run has ended and every row asked for has its result or its own reason on the sheet. */
export function isRunDone(state: RunState): boolean {
  return state.phase === "ended" && Object.keys(state.received).length === 0 && !state.fates.includes(".");
}

const rowsWord = (n: number) => `${formatCount(n)} row${n === 1 ? "" : "s"}`;

/** runSummary's words: `lines[0]` is `lead`, then `then` (what to do about it) when there is more to say. */
export interface RunSummaryWords {
  done: boolean;
  title: string;
  lines: string[];
  counts: RunCounts;
  /** What happened, in one sentence (the first of lines[0]). */
  lead: string;
  /** The rest of lines[0]: what is left and what to do about it; "" when the lead says it all. */
  then: string;
}

/**
 * The run's last word, the same in both add-ins. "Done" only when every row has its result or its own reason on
 * the sheet; otherwise what is missing, why, and what to do (Resume, or run the check again).
 */
export function runSummary(state: RunState): RunSummaryWords {
  const c = runCounts(state);
  const lines: string[] = [];
  const done = isRunDone(state);
  let title: string;
  let lead: string;
  let then = "";
  const problems = c.rowErrors + c.invalid;
  if (c.skipped)
    lines.push(
      `${rowsWord(c.skipped)} hidden by a filter ${c.skipped === 1 ? "was" : "were"} skipped: not sent and not written.`,
    );
  if (state.fatal) {
    title = "Failed";
    lead = describeError(state.fatal);
  } else if (state.phase === "paused") {
    title = "Paused";
    lead = `${describeError(state.pauseReason ?? serviceError("rate_limited", "rate_limited", "")).replace(/[\s.]+$/, "")}.`;
    then = `${formatCount(c.answered)} of ${rowsWord(c.rows)} checked; choose Resume${state.pausedUntilMs === undefined ? "" : ` after ${utcMinute(state.pausedUntilMs)}`} to collect the other ${rowsWord(c.resumable)} (jobs already sent are not sent again).`;
  } else if (state.phase === "stopped") {
    title = "Stopped";
    lead = `${formatCount(c.answered)} of ${rowsWord(c.rows)} checked.`;
    then = `${rowsWord(c.resumable)} ${c.resumable === 1 ? "is" : "are"} in jobs already sent: choose Resume to collect them (no new job is sent).`;
  } else if (state.phase === "running") {
    title = "Checking";
    lead = `${formatCount(c.rowsDone)} of ${rowsWord(c.rows)} written.`;
  } else if (done && !c.failed && !c.maybeCreated && !c.notSent && !c.gone) {
    title = "Done";
    lead = `${rowsWord(c.rows)} checked${problems ? `, ${formatCount(problems)} with errors (see the Message column)` : ""}.`;
  } else {
    title = c.unwritten ? "Not all written" : "Finished with problems";
    lead = `${formatCount(c.answered)} of ${rowsWord(c.rows)} checked${problems ? ` (${formatCount(problems)} with errors, see the Message column)` : ""}.`;
  }
  lines.unshift(then ? `${lead} ${then}` : lead);
  if (state.phase !== "running") {
    if (c.failed && !state.fatal)
      lines.push(
        `${rowsWord(c.failed)} not refreshed because the service failed${state.firstFailure ? ` (${describeError(state.firstFailure).replace(/[\s.]+$/, "")})` : ""}; earlier values are kept where there were some.`,
      );
    if (c.maybeCreated)
      lines.push(
        `${rowsWord(c.maybeCreated)} not checked: sending their job failed and the service may have created it; run the check again for them.`,
      );
    if (c.notSent) lines.push(`${rowsWord(c.notSent)} not sent; run the check again for them.`);
    if (c.gone)
      lines.push(
        `${rowsWord(c.gone)} changed or deleted while the check ran; their results were not written. Run the check again for them.`,
      );
    if (c.unwritten)
      lines.push(
        `${rowsWord(c.unwritten)} received but not written to the sheet yet; choose Resume to write them (they are fetched again, no new job).`,
      );
  }
  return { done, title, lines, counts: c, lead, then };
}

/** The line as a check begins: the rows that go to the service and the distinct properties they make. */
export function checkingLine(rows: number, properties: number): string {
  return `Checking ${countWord(rows, "row")} (${countWord(properties, "distinct property", "distinct properties")})…`;
}

/**
 * What both add-ins say instead of "Checking…" when none of the rows to check (`rows`, those hidden by a filter left
 * out) has a valid UPRN or postcode: nothing goes to the service, and each row's Message says what to fix.
 */
export function nothingToSendLine(rows: number): string {
  return `Nothing was sent: none of the ${countWord(rows, "row")} has a valid UPRN or postcode. Each row's Message says what to fix.`;
}
