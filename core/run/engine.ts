/**
 * The run engine, sans-IO: which requests are due, what each reply means, when to wait or pace, and which failures
 * end a job or the run. Hosts send the requests it hands out (fetch, UrlFetchApp) and give back the replies.
 */
import { describeError, serviceError, type ServiceError } from "../errors";
import { acceptResultsPage, checkJobDeadline, failJob, nextJobRequest, startJob } from "../jobs";
import {
  parseRateLimit,
  retryDelay,
  serverClockOffsetMs,
  waitBeforeNextRequest,
  type HeaderSource,
} from "../ratelimit";
import { buildBulkSubmitRequest, type ClientConfig, type HttpRequest } from "../requests";
import { interpretBulkSubmitResponse, interpretResultsResponse } from "../responses";
import type { ResultsPage } from "../results-page";
import {
  RUN_POLICY,
  compactMembers,
  endRunWith,
  maybeCreated,
  members,
  moveRun,
  pause,
  receive,
  settleJob,
  type RunJob,
  type RunState,
} from "./state";

// ---- requests ----

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
  state.nextRequestAtMs = Math.max(state.nextRequestAtMs, nowMs + Math.ceil(spacing));
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
  // A job whose deadline passed after a poll saw it unfinished is given up on (its rows keep earlier values).
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
    pause(
      state,
      nowMs + wait,
      serviceError(
        "rate_limited",
        "quota_exhausted",
        `The plan's request quota is used up until ${new Date(nowMs + wait).toISOString().slice(0, 16).replace("T", " ")} UTC.`,
        { retryAfterMs: wait },
      ),
    );
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
    if (job.phase === "queued" && opts.presentKeys) {
      const keep = members(job).filter((p) => opts.presentKeys!.has(state.keys[p]));
      if (keep.length < members(job).length) {
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
        if (!keep.length) {
          job.phase = "ended";
          continue;
        }
      }
    }
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
    requests.push({ id, kind: state.inflight[id].kind, request });
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

// ---- replies ----

/**
 * What became of a request that brought no HTTP response. `not_sent`: the host never started it; `unreachable`:
 * provably never reached the server (connection refused, DNS failure); `timeout`, `dropped`: it may have reached
 * the server (a timeout, a connection dropped after sending, a fetchAll that threw after sending); `aborted`: the
 * host cancelled it in flight (it may have reached the server too).
 */
export type TransportFailure = {
  failure: "not_sent" | "unreachable" | "timeout" | "dropped" | "aborted";
  message?: string;
};
export type Reply = { status: number; headers: HeaderSource; text: string } | TransportFailure;

/**
 * Whether an error a transport threw proves the request never left: a refused connection or a name that did not
 * resolve (Node's codes; Apps Script's "DNS error" / "Connection refused" texts). A browser's "Failed to fetch"
 * proves nothing, so it counts as maybe sent.
 */
export function classifyTransportError(e: unknown): TransportFailure {
  const codes: string[] = [];
  let message = "";
  for (
    let x = e as { code?: unknown; cause?: unknown; message?: unknown; name?: unknown } | undefined, depth = 0;
    x && depth < 4;
    x = x.cause as typeof x, depth++
  ) {
    if (typeof x.code === "string") codes.push(x.code);
    if (!message && typeof x.message === "string") message = x.message;
    if (x.name === "AbortError") return { failure: "aborted", message: "Cancelled." };
  }
  if (!message) message = String(e);
  const text = `${codes.join(" ")} ${message}`;
  // Apps Script refuses a URL outside urlFetchWhitelist before sending anything.
  // Apps Script's "Address unavailable" is said for dropped connections too: it proves nothing.
  if (
    /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EAI_NONAME|DNS error|Connection refused|getaddrinfo|whitelist|allowlist/i.test(
      text,
    )
  )
    return { failure: "unreachable", message };
  if (/timed? ?out|ETIMEDOUT|Timeout/i.test(text)) return { failure: "timeout", message };
  return { failure: "dropped", message };
}

function transportError(f: TransportFailure): ServiceError {
  const detail = f.message ? `: ${f.message.replace(/[\s.]+$/, "")}` : "";
  if (f.failure === "timeout")
    return serviceError("timeout", "request_timeout", `The service did not answer in time${detail}`);
  if (f.failure === "aborted") return serviceError("cancelled", "cancelled", "Cancelled.");
  return serviceError(
    "network",
    f.failure === "unreachable" ? "unreachable" : "connection_dropped",
    `Could not reach the compliance service${detail}`,
  );
}

/** The batch size to try after a 413: the one the server names when below what was sent, else half; undefined for one property. */
function smallerCap(err: ServiceError, sent: number): number | undefined {
  if (err.status !== 413) return undefined;
  const d = err.details && typeof err.details === "object" ? (err.details as Record<string, unknown>) : {};
  const cap = Number(d.max_batch_size ?? d.max_properties ?? d.limit);
  if (Number.isInteger(cap) && cap >= 1 && cap < sent) return cap;
  return sent > 1 ? Math.ceil(sent / 2) : undefined;
}

/** Errors after which nothing else can succeed with this key or these settings: the run ends for every row. */
function isFatal(e: ServiceError): boolean {
  return e.kind === "auth" || e.kind === "forbidden" || e.code === "endpoint_not_found";
}

function noteRate(state: RunState, headers: HeaderSource, nowMs: number): void {
  const rl = parseRateLimit(headers, nowMs);
  if (rl.limit !== undefined || rl.remaining !== undefined || rl.resetAtMs !== undefined) state.rate = rl;
}

function asJobFailure(e: ServiceError, jobId: string): ServiceError {
  return serviceError(
    "job_failed",
    e.code,
    `Bulk job ${jobId}: ${describeError(e).replace(/[\s.]+$/, "")}`,
    e.status !== undefined ? { status: e.status } : {},
  );
}

/** Take the reply to a request handed out by dueRequests. Unknown ids (a reply after the run was stored and resumed) are ignored. */
export function acceptReply(state: RunState, id: string, reply: Reply, nowMs: number): void {
  const f = state.inflight[id];
  if (!f) return;
  delete state.inflight[id];
  const job = state.jobs[f.job];
  if ("failure" in reply) {
    if (f.kind === "submit")
      return submitFailed(
        state,
        job,
        transportError(reply),
        reply.failure === "not_sent" || reply.failure === "unreachable",
        reply.failure === "not_sent",
        nowMs,
      );
    if (reply.failure === "not_sent" || reply.failure === "aborted") return; // due again; nothing reached the job
    return getFailed(state, job, transportError(reply), nowMs);
  }
  noteRate(state, reply.headers, nowMs);
  if (reply.status !== 429) delete state.rateLimitedInARow;
  if (f.kind === "submit") {
    const r = interpretBulkSubmitResponse(reply.status, reply.headers, reply.text, nowMs);
    if (r.ok) {
      const list = members(job);
      const clockOffsetMs = serverClockOffsetMs(reply.headers, nowMs);
      job.poll = startJob(r.value, {
        offset: 0,
        count: list.length,
        nowMs,
        jobTimeoutMs: state.jobTimeoutMs,
        checks: state.checks,
        clockOffsetMs,
        patient: state.unattended,
      });
      job.notBeforeMs = 0;
      // A run ended meanwhile (a refused key on another request) has given these rows their answer already.
      if (job.phase === "sending") job.phase = "polling";
      // A probe is looked at soon, whatever its estimate: its progress beside the other's decides the held jobs' size.
      if (job.probe && state.jobs.some((q) => q.held))
        job.poll.nextPollAtMs = Math.min(job.poll.nextPollAtMs, nowMs + PROBE_LOOK_MS);
      // A run of one or two jobs is someone watching a few rows: its first results show within PROGRESS_LOOK_MS, whatever
      // the estimate (a look or two more); a run of many jobs is looked at by its estimates, so polls stay near one a job.
      if (state.jobs.length <= 2) job.poll.nextPollAtMs = Math.min(job.poll.nextPollAtMs, nowMs + PROGRESS_LOOK_MS);
      // Answered with the results at once: they are the job's only page.
      if (r.value.inline && job.phase === "polling") takePage(state, job, r.value.inline, nowMs);
      return;
    }
    return submitFailed(state, job, r.error, reply.status === 429, false, nowMs);
  }
  const r = interpretResultsResponse(reply.status, reply.headers, reply.text, nowMs);
  if (!r.ok) return getFailed(state, job, r.error, nowMs);
  takePage(state, job, r.value, nowMs);
}

function takePage(state: RunState, job: RunJob, page: ResultsPage, nowMs: number): void {
  const list = members(job);
  const step = acceptResultsPage(
    job.poll!,
    page,
    nowMs,
    list.map((p) => state.properties[p]),
  );
  job.poll = step.state;
  job.getFailures = 0;
  for (const it of step.items) receive(state, list[it.index], it.outcome);
  for (const w of step.warnings) if (state.warnings.length < 20) state.warnings.push(w);
  if (step.done) {
    job.phase = "ended";
    if (step.state.error) job.error = step.state.error;
  } else job.poll.nextPollAtMs = nowMs + Math.max(step.waitMs, 0);
  if (job.probe) {
    shapeHeldJobs(state);
    // Not decided yet (neither has moved): looked at again at twice its age, not at its far estimate.
    const age = nowMs - (job.poll.startedAtMs ?? nowMs);
    if (!step.done && state.jobs.some((q) => q.held))
      job.poll.nextPollAtMs = Math.min(job.poll.nextPollAtMs, nowMs + Math.max(PROBE_LOOK_MS, age));
  }
}

/** How soon a probe job is first looked at. */
const PROBE_LOOK_MS = 1000;
/** How soon a job of a run of one or two jobs is first looked at, so its first rows fill while the rest runs. */
const PROGRESS_LOOK_MS = 5000;

/**
 * What the probe jobs' progress says of the service: both moved about as far, it runs jobs side by side; one well
 * on (two properties done, or finished) while the other has barely begun, one at a time; else nothing yet. A probe
 * that failed, or was never sent, says nothing to wait for: the held jobs go as they are.
 */
function probeVerdict(state: RunState): "side_by_side" | "one_at_a_time" | null {
  const probes = state.jobs.filter((j) => j.probe);
  if (
    probes.length < 2 ||
    probes.some(
      (p) =>
        (p.phase === "ended" && (!p.poll || p.poll.status === "failed" || p.poll.status === "timed_out")) ||
        (p.phase === "queued" && state.phase !== "running"),
    )
  ) {
    return "one_at_a_time";
  }
  if (!probes.every((p) => p.poll && p.poll.polls > 0)) return null;
  // Share of its properties done: a finished job counts whole.
  const done = (p: RunJob) => (p.poll!.status !== "running" ? 1 : p.poll!.processed / Math.max(1, p.poll!.total));
  const [lo, hi] = probes.map(done).sort((a, b) => a - b);
  const wellOn = probes.some((p) => p.poll!.processed >= 2 || p.poll!.status !== "running");
  // Side by side, the two move together; one at a time, the second has barely begun when the first is well on (a
  // look that falls just as the first ends and the second starts is read right too).
  if (lo > 0 && lo >= hi / 2) return "side_by_side";
  if (wellOn && lo < hi / 10) return "one_at_a_time";
  return null;
}

/**
 * Release the held jobs once the probes have spoken: side by side, each is cut to the run's split size and they all
 * go together (the run finishes in about the time of one of them); one at a time, they go as they are (fewer, larger
 * jobs: the same time, fewer requests).
 */
function shapeHeldJobs(state: RunState): void {
  if (!state.jobs.some((j) => j.held)) return;
  const verdict = probeVerdict(state);
  if (!verdict) return;
  const held = state.jobs.filter((j) => j.held);
  for (const j of held) delete j.held;
  if (verdict === "side_by_side" && state.splitSize) {
    // Each held job in equal parts of about the split size (8,000 in eight of 1,000; 2,500 in five of 500).
    for (const j of held) {
      const n = members(j).length;
      if (j.phase === "queued") cutJob(state, j, Math.ceil(n / Math.ceil(n / state.splitSize)));
    }
  }
}

/** Cut a queued job to `cap` properties in place; the rest are appended as new queued jobs (indexes in flight stay true). */
function cutJob(state: RunState, q: RunJob, cap: number): void {
  const list = members(q);
  if (list.length <= cap) return;
  const first = compactMembers({ ...q, members: list.slice(0, cap) });
  delete q.members;
  Object.assign(q, first);
  for (let i = cap; i < list.length; i += cap) {
    state.jobs.push(
      compactMembers({
        start: 0,
        end: 0,
        members: list.slice(i, i + cap),
        phase: "queued",
        submitRetries: 0,
        getFailures: 0,
        notBeforeMs: 0,
        ...(q.held ? { held: true as const } : {}),
      }),
    );
  }
}

function submitFailed(
  state: RunState,
  job: RunJob,
  e: ServiceError,
  resendable: boolean,
  free: boolean,
  nowMs: number,
): void {
  if (isFatal(e)) return endRunWith(state, e);
  const sent = members(job).length;
  const cap = smallerCap(e, sent);
  if (cap) {
    // The refused slice, and every slice still queued, go again at the size the server takes (no job was made).
    // Jobs are cut in place and the rest appended, so the indexes of requests in flight stay true.
    job.phase = "queued";
    cutJob(state, job, cap);
    for (const q of state.jobs.slice()) if (q.phase === "queued" && q !== job) cutJob(state, q, cap);
    if (state.splitSize !== undefined) state.splitSize = Math.min(state.splitSize, cap);
    return;
  }
  if (e.kind === "rate_limited") {
    // Refused, so no job was made: queued again, and past RUN_POLICY.maxSubmitRetries the run pauses (resumable).
    job.phase = "queued";
    job.submitRetries++;
    job.notBeforeMs = rateLimited(state, e, nowMs, job.submitRetries > RUN_POLICY.maxSubmitRetries);
    return;
  }
  if (resendable) {
    if (!free) {
      job.submitRetries++;
      state.retries++;
    }
    if (job.submitRetries > RUN_POLICY.maxSubmitRetries) return settleJob(state, job, e);
    job.phase = "queued";
    job.notBeforeMs = nowMs + (free ? 0 : retryDelay(job.submitRetries));
    return;
  }
  // 400 / 409 / 413 for one property: the service refused this job; it says nothing about other jobs.
  if (e.kind === "invalid_input" || e.kind === "ambiguous" || e.kind === "not_found" || e.status === 413)
    return settleJob(state, job, { ...e, kind: "job_failed" });
  // 5xx, a timeout, a dropped connection, an unreadable body: the job may exist. Never a second job automatically.
  settleJob(state, job, maybeCreated(e));
}

function getFailed(state: RunState, job: RunJob, e: ServiceError, nowMs: number): void {
  if (isFatal(e)) return endRunWith(state, e);
  const poll = job.poll!;
  const end = (error: ServiceError) => {
    const ended = failJob(poll, error, nowMs);
    job.poll = ended.state;
    job.phase = "ended";
    job.error = ended.state.error;
    const list = members(job);
    for (const it of ended.items) receive(state, list[it.index], it.outcome);
  };
  // A 429: no request before the wait it names; none named, backed off; refused for ever, the run pauses (resumable).
  if (e.kind === "rate_limited") {
    // Without a stated wait, the job's deadline still holds: refused past it, its rows end with a timeout.
    if (e.retryAfterMs === undefined && nowMs > poll.deadlineMs) {
      return end(
        serviceError(
          "timeout",
          "job_timeout",
          `Bulk job ${poll.jobId} did not finish in time: the service kept answering "${e.message}" (HTTP 429) when asked for its results; check these rows again later.`,
        ),
      );
    }
    const at = rateLimited(state, e, nowMs);
    job.notBeforeMs = e.retryAfterMs === undefined ? Math.min(at, Math.max(nowMs + 1, poll.deadlineMs + 1)) : at;
    return;
  }
  // Not an answer about the job yet: a results URL saying "not ready" (409 Conflict, 425 Too Early). Asked
  // again, but never past the job's deadline: a server refusing every poll does not keep the rows waiting for ever.
  if (e.status === 409 || e.status === 425) {
    if (nowMs > poll.deadlineMs) {
      return end(
        serviceError(
          "timeout",
          "job_timeout",
          `Bulk job ${poll.jobId} did not finish in time: the service kept answering "${e.message}" (HTTP ${e.status ?? 429}) when asked for its results; check these rows again later.`,
        ),
      );
    }
    state.retries++;
    // Waits what the server asks, else 1-2 s; the last ask comes past the deadline.
    const at = nowMs + Math.max(RUN_POLICY.minGetSpacingMs, e.retryAfterMs ?? retryDelay(2));
    job.notBeforeMs = Math.min(at, Math.max(nowMs + RUN_POLICY.minGetSpacingMs, poll.deadlineMs + 1));
    return;
  }
  const transient = ["server", "network", "timeout", "malformed_response"].includes(e.kind);
  if (!transient || ++job.getFailures >= RUN_POLICY.maxGetFailures) return end(asJobFailure(e, poll.jobId));
  state.retries++;
  job.notBeforeMs = nowMs + Math.max(RUN_POLICY.minGetSpacingMs, retryDelay(job.getFailures, e.retryAfterMs));
}

/**
 * A request answered 429. Its Retry-After (or the window's reset) holds every request of the run until it has passed,
 * however long: a wait beyond RUN_POLICY.pauseAfterMs pauses the run until then (dueRequests), resumable. Without a
 * stated wait the run backs off (0.5, 1, 2 ... 20 s, jittered); after RUN_POLICY.maxRateLimitedTries refusals in a row
 * it pauses, resumable, rather than ask on. Returns when the refused request may go again.
 */
function rateLimited(state: RunState, e: ServiceError, nowMs: number, giveUp = false): number {
  state.retries++;
  const tries = (state.rateLimitedInARow ?? 0) + 1;
  state.rateLimitedInARow = tries;
  const at =
    nowMs + (e.retryAfterMs !== undefined ? Math.max(0, e.retryAfterMs) : retryDelay(tries, undefined, 500, 20_000));
  state.nextRequestAtMs = Math.max(state.nextRequestAtMs, at);
  if ((giveUp || tries >= RUN_POLICY.maxRateLimitedTries) && state.phase === "running") {
    const until = new Date(state.nextRequestAtMs).toISOString().slice(11, 16);
    pause(
      state,
      state.nextRequestAtMs,
      serviceError(
        "rate_limited",
        "rate_limited_repeatedly",
        `The service refused ${tries} requests in a row as too many (HTTP 429), so the check is paused; results already received are kept. Resume after ${until} UTC to collect the rest without sending its rows again.`,
        { retryAfterMs: state.nextRequestAtMs - nowMs },
      ),
    );
  }
  return at;
}
