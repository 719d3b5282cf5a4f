/**
 * The run engine's sending half, sans-IO: which requests are due now, paced to the rate limit's window, and how long
 * until the next may go. Hosts send what it hands out (fetch, UrlFetchApp); engine.ts reads the replies.
 */
import { serviceError } from "../service/errors";
import { checkJobDeadline, nextJobRequest } from "../service/jobs";
import { waitBeforeNextRequest } from "../service/ratelimit";
import { buildBulkSubmitRequest, type ClientConfig, type HttpRequest } from "../service/requests";
import { RUN_POLICY, holdUntil, members, moveRun, pause, receive, type RunJob, type RunState } from "./state";

import { shapeHeldJobs } from "./probes";
import { utcMinute } from "../numbers";

export interface DueRequest {
  id: string;
  kind: "submit" | "results";
  request: HttpRequest;
}

export interface DueOptions {
  max?: number;
  /**
   * The property keys the rows hold now, when the host has just read them: a queued job leaves out properties no
   * row asks for any more (a cell edited mid-run) and is still sent with the rest.
   */
  presentKeys?: ReadonlySet<string>;
}

export interface Due {
  requests: DueRequest[];
  /** When nothing is due: how long until something may be (0 when there is nothing left to send). */
  waitMs: number;
  /** Nothing more will be sent: every job has ended (or the run was paused or stopped). */
  finished: boolean;
}

/** The wait the rate limit imposes on the next request, and the spacing that spreads what is left over the window. */
function rateWait(state: RunState, nowMs: number): number {
  return Math.max(0, state.nextRequestAtMs - nowMs, waitBeforeNextRequest(state.rate, nowMs));
}

function pace(state: RunState, nowMs: number): void {
  const rl = state.rate;
  if (!rl || rl.remaining === undefined) return;
  if (rl.remaining > 0) rl.remaining -= 1;
  if (rl.resetAtMs === undefined || rl.resetAtMs <= nowMs || rl.limit === undefined) return;
  if (rl.remaining >= rl.limit * RUN_POLICY.paceBelowShare) return;
  const spacing = rl.remaining > 0 ? (rl.resetAtMs - nowMs) / (rl.remaining + 1) : rl.resetAtMs - nowMs;
  holdUntil(state, nowMs + Math.ceil(spacing));
}

/** The window's allowance for polls: RUN_POLICY.pollShare of the limit the service states (or the smallest plan's a minute). */
function pollAllowance(state: RunState): number {
  return Math.max(2, (state.rate?.limit ?? RUN_POLICY.assumedPerMinute) * RUN_POLICY.pollShare);
}

/**
 * The rate-limit window's length: the longest time to a reset seen (a fresh window shows nearly all of it), a minute
 * until one is seen. A service whose window is a second gets its polls paced per second, not per minute.
 */
function windowMs(state: RunState): number {
  const rl = state.rate;
  const seen =
    rl?.resetAtMs !== undefined && rl.observedAtMs !== undefined
      ? Math.min(60_000, Math.max(1000, Math.ceil((rl.resetAtMs - rl.observedAtMs) / 1000) * 1000))
      : 0;
  return Math.max(seen, state.pollTokens?.windowMs ?? 0) || 60_000;
}

/** Polls granted now: the bucket refills at the allowance a window, up to one window's worth. */
function pollTokens(state: RunState, nowMs: number): number {
  const cap = pollAllowance(state);
  const b = state.pollTokens;
  if (!b) return cap;
  return Math.min(cap, b.n + (Math.max(0, nowMs - b.atMs) * cap) / windowMs(state));
}

function spendPoll(state: RunState, nowMs: number): void {
  const w = state.rate?.resetAtMs !== undefined ? windowMs(state) : undefined;
  state.pollTokens = { n: pollTokens(state, nowMs) - 1, atMs: nowMs, ...(w !== undefined ? { windowMs: w } : {}) };
}

/** A poll of a running job asks whether it has moved on; following a results link takes a page already made. */
function isPoll(job: RunJob): boolean {
  return !!job.poll && !job.poll.followed;
}

function jobDueAt(state: RunState, job: RunJob, nowMs: number): number | null {
  if (job.phase === "queued") return job.held ? null : job.notBeforeMs;
  if (job.phase === "polling" && job.poll && job.poll.status === "running") {
    const at = Math.max(job.notBeforeMs, job.poll.nextPollAtMs);
    if (!isPoll(job)) return at;
    // Polls are paced over the minute's allowance, shared by however many jobs are running: ten jobs that each want a
    // look every half second wait their turn rather than spend the requests that submits and pages need.
    const tokens = pollTokens(state, Math.max(nowMs, at));
    return tokens >= 1 ? at : Math.max(at, nowMs) + Math.ceil(((1 - tokens) * windowMs(state)) / pollAllowance(state));
  }
  return null;
}

function jobInFlight(state: RunState, j: number): boolean {
  for (const id in state.inflight) if (state.inflight[id].job === j) return true;
  return false;
}

/** The requests due now, marked as in flight. The host sends them all (in parallel where it can) and answers each. */
export function dueRequests(state: RunState, cfg: ClientConfig, nowMs: number, opts: DueOptions = {}): Due {
  if (state.phase !== "running") return { requests: [], waitMs: 0, finished: true };
  endLateJobs(state, nowMs);
  shapeHeldJobs(state);
  const open = state.jobs.some(
    (job, j) =>
      job.phase === "queued" ||
      job.phase === "sending" ||
      (job.phase === "polling" && job.poll?.status === "running") ||
      jobInFlight(state, j),
  );
  if (!open) {
    moveRun(state, "finish");
    return { requests: [], waitMs: 0, finished: true };
  }
  const wait = rateWait(state, nowMs);
  if (wait > RUN_POLICY.pauseAfterMs && Object.keys(state.inflight).length === 0) {
    pauseForWait(state, nowMs, wait);
    return { requests: [], waitMs: 0, finished: true };
  }
  const requests: DueRequest[] = [];
  let soonest = Infinity;
  if (wait > 0) return { requests, waitMs: wait, finished: false };
  const max = Math.max(
    1,
    Math.min(
      opts.max ?? RUN_POLICY.maxRequestsPerStep,
      state.rate?.remaining !== undefined && state.rate.remaining > 0 ? state.rate.remaining : Infinity,
    ),
  );
  for (let j = 0; j < state.jobs.length; j++) {
    const job = state.jobs[j];
    if (jobInFlight(state, j)) continue;
    const at = jobDueAt(state, job, nowMs);
    if (at === null) continue;
    if (at > nowMs) {
      soonest = Math.min(soonest, at);
      continue;
    }
    if (requests.length >= max || rateWait(state, nowMs) > 0) {
      soonest = Math.min(soonest, Math.max(nowMs + 1, state.nextRequestAtMs));
      continue;
    }
    // Until one submit of this run has succeeded, one at a time: a refused key or a wrong address costs one request.
    if (
      job.phase === "queued" &&
      !state.jobs.some((q) => q.poll) &&
      (state.jobs.some((q) => q.phase === "sending") || requests.some((r) => r.kind === "submit"))
    )
      continue;
    if (job.phase === "queued" && opts.presentKeys && !keepPresentRows(state, job, opts.presentKeys)) continue;
    requests.push(sendJobRequest(state, cfg, j, nowMs));
    pace(state, nowMs);
  }
  const waitMs = requests.length
    ? 0
    : Number.isFinite(soonest)
      ? Math.max(1, soonest - nowMs)
      : Object.keys(state.inflight).length
        ? 0
        : RUN_POLICY.minGetSpacingMs;
  return { requests, waitMs, finished: false };
}

/** A job whose deadline passed after a poll saw it unfinished is given up on (its rows keep earlier values). */
function endLateJobs(state: RunState, nowMs: number): void {
  state.jobs.forEach((job, j) => {
    if (job.phase !== "polling" || !job.poll || jobInFlight(state, j)) return;
    const late = checkJobDeadline(job.poll, nowMs);
    if (!late) return;
    job.poll = late.state;
    job.phase = "ended";
    job.error = late.state.error;
    const list = members(job);
    for (const it of late.items) receive(state, list[it.index], it.outcome);
  });
}

/** The run pauses until `wait` has passed: a 503's Retry-After (the service's outage), or the plan's quota. */
function pauseForWait(state: RunState, nowMs: number, wait: number): void {
  const outage = state.holdReason && state.nextRequestAtMs - nowMs >= wait ? state.holdReason : undefined;
  pause(
    state,
    nowMs + wait,
    outage
      ? { ...outage, retryAfterMs: wait }
      : serviceError(
          "rate_limited",
          "quota_exhausted",
          `The plan's request quota is used up until ${utcMinute(nowMs + wait)}.`,
          { retryAfterMs: wait },
        ),
  );
}

/**
 * A queued job sends only the rows still in the sheet as they were (`present`): each other row is answered "changed
 * while the check ran". False when none is left, and the job ends unsent.
 */
function keepPresentRows(state: RunState, job: RunJob, present: ReadonlySet<string>): boolean {
  const keep = members(job).filter((p) => present.has(state.keys[p]));
  if (keep.length === members(job).length) return true;
  for (const p of members(job))
    if (!keep.includes(p))
      receive(state, p, {
        error: serviceError(
          "cancelled",
          "input_changed",
          "This row changed while the check ran, so it was not sent; run the check again for it.",
        ),
      });
  job.members = keep;
  if (keep.length) return true;
  job.phase = "ended";
  return false;
}

/** Job `j`'s next request (its submit, or a poll or page of its results), marked as in flight and counted. */
function sendJobRequest(state: RunState, cfg: ClientConfig, j: number, nowMs: number): DueRequest {
  const job = state.jobs[j];
  const id = `${state.runId}:${++state.seq}`;
  let request: HttpRequest;
  if (job.phase === "queued") {
    request = buildBulkSubmitRequest(
      cfg,
      members(job).map((p) => state.properties[p]),
      state.checks ? { checks: state.checks } : {},
    );
    job.phase = "sending";
    state.inflight[id] = { job: j, kind: "submit", sentAtMs: nowMs };
    state.requests.submit++;
  } else {
    request = nextJobRequest(cfg, job.poll!)!;
    if (isPoll(job)) spendPoll(state, nowMs);
    job.lastGetAtMs = nowMs;
    state.inflight[id] = { job: j, kind: "results", sentAtMs: nowMs };
    state.requests.results++;
  }
  return { id, kind: state.inflight[id].kind, request };
}

/** How long until the engine will hand out a request (0 when one is due now), without handing any out. */
export function nextDueInMs(state: RunState, nowMs: number): number {
  if (state.phase !== "running") return 0;
  let soonest = Infinity;
  state.jobs.forEach((job, j) => {
    if (jobInFlight(state, j)) return;
    const at = jobDueAt(state, job, nowMs);
    if (at !== null) soonest = Math.min(soonest, at);
  });
  const at = Math.max(Number.isFinite(soonest) ? soonest : nowMs, nowMs + rateWait(state, nowMs));
  return Math.max(0, at - nowMs);
}
