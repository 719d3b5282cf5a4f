/**
 * The run engine, sans-IO: everything between "these rows were read" and "write these cells" for a bulk check.
 * It keeps a JSON-serialisable RunState and decides which requests are due, what each reply means, when to wait,
 * pause or stop, each property's fate and the summary. Hosts only do I/O: send the requests it hands out (fetch,
 * UrlFetchApp), give back the replies, write the outcomes it hands out where their property now is, and store
 * the state. Both add-ins and createClient().screen drive this one engine, so they follow one policy
 * (docs/service-contract.md, "One run policy").
 */
import type { CheckName, PlanName } from "./checks";
import { describeError, isAboutProperty, serviceError, shortReason, type ServiceError } from "./errors";
import { DEFAULT_JOB_TIMEOUT_MS, acceptResultsPage, checkJobDeadline, failJob, nextJobRequest, startJob, type JobState } from "./jobs";
import { planScreening, type Outcome } from "./plan";
import { parseRateLimit, retryDelay, waitBeforeNextRequest, type HeaderSource, type RateLimitInfo } from "./ratelimit";
import { buildBulkSubmitRequest, type ClientConfig, type HttpRequest } from "./requests";
import { interpretBulkSubmitResponse, interpretResultsResponse, type ResultsPage } from "./responses";
import { OUTPUT_COLUMNS, outputRow, type Cell } from "./layout";
import type { InputRow, PropertyQuery } from "./rows";

const MESSAGE_COLUMN = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");

/** The policy's numbers, one set for every host. */
export const RUN_POLICY = {
  /** A submit is sent again only after a 429 or when it provably never reached the server; at most this often. */
  maxSubmitRetries: 5,
  /** Consecutive transient failures of one job's GETs before its missing rows are given up on (earlier values kept). */
  maxGetFailures: 5,
  /** GETs of one job are at least this far apart (or as far as the service asks). */
  minGetSpacingMs: 1000,
  /** Requests handed out per call of dueRequests at most. */
  maxRequestsPerStep: 10,
  /** A wait longer than this (a daily quota used up, a Retry-After of hours) pauses the run: resumable later. */
  pauseAfterMs: 90_000,
  /** Below this share of the window's limit left, requests are spread evenly over what remains of the window. */
  paceBelowShare: 0.25,
} as const;

export type RunJobPhase = "queued" | "sending" | "polling" | "ended";

export interface RunJob {
  /** Properties (indexes into RunState.properties) of this job, as [start, end) ... */
  start: number;
  end: number;
  /** ... or, once some were dropped before sending (their rows changed), the exact list, in submitted order. */
  members?: number[];
  phase: RunJobPhase;
  /** Submits refused with 429 or that never reached the server. */
  submitRetries: number;
  /** Consecutive transient failures of GETs. */
  getFailures: number;
  /** No request of this job before this time. */
  notBeforeMs: number;
  lastGetAtMs?: number;
  poll?: JobState;
  /** Why the job ended without some of its results (those rows got it). */
  error?: ServiceError;
}

/**
 * A property's fate once its row was written: a answered (a result), e error about the property (not found,
 * ambiguous, refused input), f failed (the service failed: earlier values kept), u unknown (the submit failed
 * after it may have reached the service), c not sent (stopped, or the rows changed), g gone (no row holds the
 * property any more, so nothing was written). "." is not written yet.
 */
export type Fate = "a" | "e" | "f" | "u" | "c" | "g";

export type RunPhase = "running" | "paused" | "stopped" | "ended";

export interface RunState {
  v: 2;
  runId: string;
  createdAtMs: number;
  batchCap: number;
  checks?: CheckName[];
  jobTimeoutMs?: number;
  properties: PropertyQuery[];
  keys: string[];
  /** Rows beyond the first that ask for the same property, by property index (only where > 0). */
  dupes: Record<string, number>;
  /** Rows the run was asked to check, and of them those that never go out (invalid) or were skipped (hidden by a filter). */
  rowsTotal: number;
  invalidRows: number;
  skippedRows: number;
  jobs: RunJob[];
  /** One Fate character per property, "." until its rows were written. */
  fates: string;
  /** Outcomes received and not yet written, by property index. Never stored: storedState rewinds their jobs instead. */
  received: Record<string, Outcome>;
  /** Only in a stored state: the error outcomes not yet written, each error once with the properties it goes to. */
  pendingErrors?: { error: ServiceError; ranges: [number, number][] }[];
  /** Requests handed out and not answered yet. */
  inflight: Record<string, { job: number; kind: "submit" | "results"; sentAtMs: number }>;
  seq: number;
  phase: RunPhase;
  /** Paused until (a quota used up); resumable. */
  pausedUntilMs?: number;
  pauseReason?: ServiceError;
  /** Why the run ended for every row (a refused key, a wrong base URL). */
  fatal?: ServiceError;
  /** The first service failure seen, for the summary. */
  firstFailure?: ServiceError;
  rate?: RateLimitInfo;
  /** No request at all before this time (pacing across the rate-limit window, a 429's Retry-After). */
  nextRequestAtMs: number;
  requests: { submit: number; results: number };
  retries: number;
  warnings: string[];
}

export interface CreateRunOptions {
  plan?: PlanName | number;
  nowMs: number;
  runId?: string;
  checks?: CheckName[];
  jobTimeoutMs?: number;
  /** Rows of the selection left out before reading (hidden by a filter): counted and said in the summary. */
  skippedRows?: number;
}

/** A run of the rows read: each distinct valid property once, in jobs no larger than the plan's cap. */
export function createRun(rows: readonly InputRow[], opts: CreateRunOptions): RunState {
  const plan = planScreening(rows, { plan: opts.plan });
  const dupes: Record<string, number> = {};
  plan.rowsByProperty.forEach((r, p) => {
    if (r.length > 1) dupes[p] = r.length - 1;
  });
  const state: RunState = {
    v: 2,
    runId: opts.runId ?? `run_${opts.nowMs.toString(36)}`,
    createdAtMs: opts.nowMs,
    batchCap: plan.batchCap,
    properties: plan.properties,
    keys: plan.keys,
    dupes,
    rowsTotal: rows.length,
    invalidRows: rows.filter((r) => r.error || !r.key).length,
    skippedRows: opts.skippedRows ?? 0,
    jobs: plan.jobs.map((j) => ({ start: j.start, end: j.end, phase: "queued" as const, submitRetries: 0, getFailures: 0, notBeforeMs: 0 })),
    fates: ".".repeat(plan.properties.length),
    received: {},
    inflight: {},
    seq: 0,
    phase: plan.jobs.length ? "running" : "ended",
    nextRequestAtMs: 0,
    requests: { submit: 0, results: 0 },
    retries: 0,
    warnings: [],
  };
  if (opts.checks) state.checks = opts.checks;
  if (opts.jobTimeoutMs !== undefined) state.jobTimeoutMs = opts.jobTimeoutMs;
  return state;
}

// ---- members and fates ----

function members(job: RunJob): number[] {
  if (job.members) return job.members;
  const out: number[] = [];
  for (let p = job.start; p < job.end; p++) out.push(p);
  return out;
}

function setFate(state: RunState, p: number, fate: Fate | "."): void {
  state.fates = state.fates.slice(0, p) + fate + state.fates.slice(p + 1);
}

function isSettled(state: RunState, p: number): boolean {
  return state.fates[p] !== "." || String(p) in state.received;
}

function receive(state: RunState, p: number, outcome: Outcome): void {
  if (isSettled(state, p)) return;
  state.received[p] = outcome;
  if ("error" in outcome && !isAboutProperty(outcome.error) && outcome.error.kind !== "cancelled") state.firstFailure ??= outcome.error;
}

function settleJob(state: RunState, job: RunJob, error: ServiceError): void {
  job.phase = "ended";
  job.error ??= error;
  for (const p of members(job)) receive(state, p, { error });
}

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

/** Pause the run: what was sent stays collectable and what was not stays queued, for a Resume after `untilMs`. */
function pause(state: RunState, untilMs: number, reason: ServiceError): void {
  state.phase = "paused";
  state.pausedUntilMs = untilMs;
  state.pauseReason = reason;
}

function jobDueAt(state: RunState, job: RunJob): number | null {
  if (job.phase === "queued") return job.notBeforeMs;
  if (job.phase === "polling" && job.poll && job.poll.status === "running") {
    const spacing = job.lastGetAtMs === undefined ? 0 : job.lastGetAtMs + RUN_POLICY.minGetSpacingMs;
    return Math.max(job.notBeforeMs, job.poll.nextPollAtMs, spacing);
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
  const open = state.jobs.some((job, j) => job.phase === "queued" || job.phase === "sending" || (job.phase === "polling" && job.poll?.status === "running") || jobInFlight(state, j));
  if (!open) {
    state.phase = "ended";
    return { requests: [], waitMs: 0, finished: true };
  }
  const wait = rateWait(state, nowMs);
  if (wait > RUN_POLICY.pauseAfterMs && Object.keys(state.inflight).length === 0) {
    pause(state, nowMs + wait, serviceError("rate_limited", "quota_exhausted", `The plan's request quota is used up until ${new Date(nowMs + wait).toISOString().slice(0, 16).replace("T", " ")} UTC.`, { retryAfterMs: wait }));
    return { requests: [], waitMs: 0, finished: true };
  }
  const requests: DueRequest[] = [];
  let soonest = Infinity;
  if (wait > 0) return { requests, waitMs: wait, finished: false };
  const max = Math.max(1, Math.min(opts.max ?? RUN_POLICY.maxRequestsPerStep, state.rate?.remaining !== undefined && state.rate.remaining > 0 ? state.rate.remaining : Infinity));
  for (let j = 0; j < state.jobs.length; j++) {
    const job = state.jobs[j];
    if (jobInFlight(state, j)) continue;
    const at = jobDueAt(state, job);
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
    if (job.phase === "queued" && !state.jobs.some((q) => q.poll) && (state.jobs.some((q) => q.phase === "sending") || requests.some((r) => r.kind === "submit"))) continue;
    if (job.phase === "queued" && opts.presentKeys) {
      const keep = members(job).filter((p) => opts.presentKeys!.has(state.keys[p]));
      if (keep.length < members(job).length) {
        for (const p of members(job)) if (!keep.includes(p)) receive(state, p, { error: serviceError("cancelled", "input_changed", "This row changed while the check ran, so it was not sent; run the check again for it.") });
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
      request = buildBulkSubmitRequest(cfg, members(job).map((p) => state.properties[p]), state.checks ? { checks: state.checks } : {});
      job.phase = "sending";
      state.inflight[id] = { job: j, kind: "submit", sentAtMs: nowMs };
      state.requests.submit++;
    } else {
      request = nextJobRequest(cfg, job.poll!)!;
      job.lastGetAtMs = nowMs;
      state.inflight[id] = { job: j, kind: "results", sentAtMs: nowMs };
      state.requests.results++;
    }
    requests.push({ id, kind: state.inflight[id].kind, request });
    pace(state, nowMs);
  }
  const waitMs = requests.length ? 0 : Number.isFinite(soonest) ? Math.max(1, soonest - nowMs) : Object.keys(state.inflight).length ? 0 : RUN_POLICY.minGetSpacingMs;
  return { requests, waitMs, finished: false };
}

/** How long until the engine will hand out a request (0 when one is due now), without handing any out. */
export function nextDueInMs(state: RunState, nowMs: number): number {
  if (state.phase !== "running") return 0;
  let soonest = Infinity;
  state.jobs.forEach((job, j) => {
    if (jobInFlight(state, j)) return;
    const at = jobDueAt(state, job);
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
export type TransportFailure = { failure: "not_sent" | "unreachable" | "timeout" | "dropped" | "aborted"; message?: string };
export type Reply = { status: number; headers: HeaderSource; text: string } | TransportFailure;

/**
 * Whether an error a transport threw proves the request never left: a refused connection or a name that did not
 * resolve (Node's codes; Apps Script's "DNS error" / "Connection refused" texts). A browser's "Failed to fetch"
 * proves nothing, so it counts as maybe sent.
 */
export function classifyTransportError(e: unknown): TransportFailure {
  const codes: string[] = [];
  let message = "";
  for (let x = e as { code?: unknown; cause?: unknown; message?: unknown; name?: unknown } | undefined, depth = 0; x && depth < 4; x = x.cause as typeof x, depth++) {
    if (typeof x.code === "string") codes.push(x.code);
    if (!message && typeof x.message === "string") message = x.message;
    if (x.name === "AbortError") return { failure: "aborted", message: "Cancelled." };
  }
  if (!message) message = String(e);
  const text = `${codes.join(" ")} ${message}`;
  // Apps Script refuses a URL outside urlFetchWhitelist before sending anything.
  // Apps Script's "Address unavailable" is said for dropped connections too: it proves nothing.
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EAI_NONAME|DNS error|Connection refused|getaddrinfo|whitelist|allowlist/i.test(text)) return { failure: "unreachable", message };
  if (/timed? ?out|ETIMEDOUT|Timeout/i.test(text)) return { failure: "timeout", message };
  return { failure: "dropped", message };
}

function transportError(f: TransportFailure): ServiceError {
  const detail = f.message ? `: ${f.message.replace(/[\s.]+$/, "")}` : "";
  if (f.failure === "timeout") return serviceError("timeout", "request_timeout", `The service did not answer in time${detail}`);
  if (f.failure === "aborted") return serviceError("cancelled", "cancelled", "Cancelled.");
  return serviceError("network", f.failure === "unreachable" ? "unreachable" : "connection_dropped", `Could not reach the compliance service${detail}`);
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

function endRunWith(state: RunState, error: ServiceError): void {
  state.fatal ??= error;
  for (const job of state.jobs) if (job.phase !== "ended") settleJob(state, job, error);
  state.phase = "ended";
}

function noteRate(state: RunState, headers: HeaderSource, nowMs: number): void {
  const rl = parseRateLimit(headers, nowMs);
  if (rl.limit !== undefined || rl.remaining !== undefined || rl.resetAtMs !== undefined) state.rate = rl;
}

/** A submit that failed after it may have reached the service: never sent again automatically. */
function maybeCreated(e: ServiceError): ServiceError {
  // The failure's own kind and code are kept (a 500 is still a server error); details say the job may exist.
  return {
    kind: e.kind === "cancelled" ? "network" : e.kind,
    code: e.code,
    message: `Not checked: sending this row's bulk job failed (${shortReason(e)}), and the service may have created the job anyway. Run the check again to try again`,
    ...(e.status !== undefined ? { status: e.status } : {}),
    details: { maybe_created: true },
  };
}

/** Whether an error says its job may have been created though the submit failed. */
export function isMaybeCreated(e: ServiceError): boolean {
  return !!e.details && typeof e.details === "object" && (e.details as { maybe_created?: unknown }).maybe_created === true;
}

function asJobFailure(e: ServiceError, jobId: string): ServiceError {
  return serviceError("job_failed", e.code, `Bulk job ${jobId}: ${describeError(e).replace(/[\s.]+$/, "")}`, e.status !== undefined ? { status: e.status } : {});
}

/** Take the reply to a request handed out by dueRequests. Unknown ids (a reply after the run was stored and resumed) are ignored. */
export function acceptReply(state: RunState, id: string, reply: Reply, nowMs: number): void {
  const f = state.inflight[id];
  if (!f) return;
  delete state.inflight[id];
  const job = state.jobs[f.job];
  if ("failure" in reply) {
    if (f.kind === "submit") return submitFailed(state, job, transportError(reply), reply.failure === "not_sent" || reply.failure === "unreachable", reply.failure === "not_sent", nowMs);
    if (reply.failure === "not_sent" || reply.failure === "aborted") return; // due again; nothing reached the job
    return getFailed(state, job, transportError(reply), nowMs);
  }
  noteRate(state, reply.headers, nowMs);
  if (f.kind === "submit") {
    const r = interpretBulkSubmitResponse(reply.status, reply.headers, reply.text, nowMs);
    if (r.ok) {
      const list = members(job);
      job.poll = startJob(r.value, { offset: 0, count: list.length, nowMs, jobTimeoutMs: state.jobTimeoutMs, checks: state.checks });
      job.notBeforeMs = 0;
      // A run ended meanwhile (a refused key on another request) has given these rows their answer already.
      if (job.phase === "sending") job.phase = "polling";
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
  const step = acceptResultsPage(job.poll!, page, nowMs, list.map((p) => state.properties[p]));
  job.poll = step.state;
  job.getFailures = 0;
  for (const it of step.items) receive(state, list[it.index], it.outcome);
  for (const w of step.warnings) if (state.warnings.length < 20) state.warnings.push(w);
  if (step.done) {
    job.phase = "ended";
    if (step.state.error) job.error = step.state.error;
  } else job.poll.nextPollAtMs = nowMs + Math.max(step.waitMs, 0);
}

function submitFailed(state: RunState, job: RunJob, e: ServiceError, resendable: boolean, free: boolean, nowMs: number): void {
  if (isFatal(e)) return endRunWith(state, e);
  const sent = members(job).length;
  const cap = smallerCap(e, sent);
  if (cap) {
    // The refused slice, and every slice still queued, go again at the size the server takes (no job was made).
    // Jobs are cut in place and the rest appended, so the indexes of requests in flight stay true.
    const cut = (q: RunJob) => {
      const list = members(q);
      if (list.length <= cap) return;
      const first = compactMembers({ ...q, members: list.slice(0, cap) });
      delete q.members;
      Object.assign(q, first);
      for (let i = cap; i < list.length; i += cap) state.jobs.push(compactMembers({ start: 0, end: 0, members: list.slice(i, i + cap), phase: "queued", submitRetries: 0, getFailures: 0, notBeforeMs: 0 }));
    };
    job.phase = "queued";
    cut(job);
    for (const q of state.jobs.slice()) if (q.phase === "queued" && q !== job) cut(q);
    return;
  }
  if (resendable) {
    if (!free) {
      job.submitRetries++;
      state.retries++;
    }
    if (job.submitRetries > RUN_POLICY.maxSubmitRetries) return settleJob(state, job, e);
    const wait = e.kind === "rate_limited" ? (e.retryAfterMs ?? retryDelay(job.submitRetries)) : free ? 0 : retryDelay(job.submitRetries);
    job.phase = "queued";
    job.notBeforeMs = nowMs + wait;
    if (e.kind === "rate_limited") state.nextRequestAtMs = Math.max(state.nextRequestAtMs, job.notBeforeMs);
    return;
  }
  // 400 / 409 / 413 for one property: the service refused this job; it says nothing about other jobs.
  if (e.kind === "invalid_input" || e.kind === "ambiguous" || e.kind === "not_found" || e.status === 413) return settleJob(state, job, { ...e, kind: "job_failed" });
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
  // Not an answer about the job yet: a 429, or a results URL saying "not ready" (409 Conflict, 425 Too Early). Asked
  // again, but never past the job's deadline: a server refusing every poll does not keep the rows waiting for ever.
  if (e.kind === "rate_limited" || e.status === 409 || e.status === 425) {
    if (nowMs > poll.deadlineMs) {
      return end(
        serviceError("timeout", "job_timeout", `Bulk job ${poll.jobId} did not finish in time: the service kept answering "${e.message}" (HTTP ${e.status ?? 429}) when asked for its results; check these rows again later.`),
      );
    }
    state.retries++;
    // Waits what the server asks (a 429's own wait holds every request), else 1-2 s; the last ask comes past the deadline.
    const at = nowMs + Math.max(RUN_POLICY.minGetSpacingMs, e.retryAfterMs ?? (e.kind === "rate_limited" ? 0 : retryDelay(2)));
    job.notBeforeMs = Math.min(at, Math.max(nowMs + RUN_POLICY.minGetSpacingMs, poll.deadlineMs + 1));
    if (e.kind === "rate_limited") state.nextRequestAtMs = Math.max(state.nextRequestAtMs, job.notBeforeMs);
    return;
  }
  const transient = ["server", "network", "timeout", "malformed_response"].includes(e.kind);
  if (!transient || ++job.getFailures >= RUN_POLICY.maxGetFailures) return end(asJobFailure(e, poll.jobId));
  state.retries++;
  job.notBeforeMs = nowMs + Math.max(RUN_POLICY.minGetSpacingMs, retryDelay(job.getFailures, e.retryAfterMs));
}

/** A members list that is one contiguous run is kept as [start, end), so stored states stay small. */
function compactMembers(job: RunJob): RunJob {
  const m = job.members!;
  if (m.every((p, i) => i === 0 || p === m[i - 1] + 1)) {
    const { members: _m, ...rest } = job;
    return { ...rest, start: m[0], end: m[m.length - 1] + 1 };
  }
  return job;
}

// ---- stop, pause, resume ----

/**
 * Stop (the user's Stop or Cancel): nothing more is sent. Jobs not yet sent end ("not sent; run again"); jobs already
 * sent stay collectable, so a Resume fetches their results without submitting again.
 */
export function stopRun(state: RunState, reason = "Stopped before this row was sent; run the check again for it."): void {
  if (state.phase === "ended") return;
  for (const job of state.jobs) if (job.phase === "queued") settleJob(state, job, serviceError("cancelled", "not_sent", reason));
  state.phase = collectable(state) ? "stopped" : "ended";
}

/** End the run now: every property not answered gets `error` (screen()'s callers want an answer for every property). */
export function endRun(state: RunState, error: ServiceError): void {
  for (const job of state.jobs) if (job.phase !== "ended") settleJob(state, job, error);
  state.inflight = {};
  state.phase = "ended";
}

/**
 * Jobs sent whose results are not all on the sheet: a Resume collects them (results received but not written
 * count too: a stored state rewinds their jobs, so they are fetched again).
 */
function collectable(state: RunState): boolean {
  return state.jobs.some((j) => {
    const list = members(j);
    if (j.phase === "polling" || j.phase === "sending") return list.some((p) => !isSettled(state, p) || unwrittenResult(state, p));
    return !!j.poll && list.some((p) => unwrittenResult(state, p));
  });
}

function unwrittenResult(state: RunState, p: number): boolean {
  const o = state.received[p];
  return state.fates[p] === "." && !!o && "result" in o;
}

/** A stopped or paused run (or one loaded from storage) goes on: jobs sent are collected, jobs queued are sent. */
export function resumeRun(state: RunState, nowMs: number): void {
  if (state.phase === "ended" && !collectable(state) && !state.jobs.some((j) => j.phase === "queued")) return;
  state.phase = "running";
  delete state.pausedUntilMs;
  delete state.pauseReason;
  state.nextRequestAtMs = 0;
  state.rate = undefined;
  for (const job of state.jobs) {
    // A submit that was in flight when the state was stored: the job may exist; never sent again blindly.
    if (job.phase === "sending") settleJob(state, job, maybeCreated(serviceError("network", "interrupted", "the pane or sidebar closed while it was being sent")));
    if (job.phase === "polling" && job.poll) {
      job.notBeforeMs = 0;
      job.getFailures = 0;
      // The user is back: the job gets a fresh window from now (the service has usually finished it long ago).
      job.poll = { ...job.poll, nextPollAtMs: nowMs, deadlineMs: Math.max(job.poll.deadlineMs, nowMs + (state.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS)) };
    }
  }
  state.inflight = {};
}

/**
 * The state to store: outcomes received but not yet written are not kept (they can be large, and they are the
 * service's to give again): their jobs are rewound to their first results page, so a Resume fetches them again
 * with GETs only. Jobs whose every result is written are left as they are.
 */
export function storedState(state: RunState): RunState {
  const out: RunState = JSON.parse(JSON.stringify(state));
  out.received = {};
  out.inflight = {};
  // Errors waiting to be written are small and often the same: kept once each, with the properties they go to.
  const errors = new Map<string, { error: ServiceError; ranges: [number, number][] }>();
  const results = new Set<number>();
  for (const k of Object.keys(state.received).map(Number).sort((a, b) => a - b)) {
    const o = state.received[k];
    if ("result" in o) {
      results.add(k);
      continue;
    }
    const id = JSON.stringify(o.error);
    const group = errors.get(id) ?? { error: o.error, ranges: [] };
    errors.set(id, group);
    const last = group.ranges[group.ranges.length - 1];
    if (last && last[1] === k) last[1] = k + 1;
    else group.ranges.push([k, k + 1]);
  }
  if (errors.size) out.pendingErrors = [...errors.values()];
  else delete out.pendingErrors;
  out.jobs.forEach((job) => {
    const list = members(job);
    const unwritten = list.some((p) => results.has(p));
    // A submit in flight stays "sending": resumeRun says its job may have been created. Nothing else to rewind.
    if (job.phase === "sending" || !job.poll || !unwritten) return;
    const received: [number, number][] = [];
    list.forEach((p, i) => {
      if (state.fates[p] === "." && !(String(p) in state.received && !results.has(p))) return;
      const last = received[received.length - 1];
      if (last && last[1] === i) last[1] = i + 1;
      else received.push([i, i + 1]);
    });
    const poll: JobState = { ...job.poll, cursor: job.poll.resultsUrl, status: "running", received, nextPollAtMs: 0 };
    delete poll.pageStart;
    delete poll.error;
    delete (poll as { seen?: unknown }).seen;
    job.poll = poll;
    job.phase = "polling";
    delete job.error;
  });
  return out;
}

/** A stored state back (JSON text or object); null when it is not one of ours. */
export function loadRunState(raw: unknown): RunState | null {
  try {
    const s = (typeof raw === "string" ? JSON.parse(raw) : JSON.parse(JSON.stringify(raw))) as RunState;
    if (!(s && s.v === 2 && Array.isArray(s.jobs) && typeof s.fates === "string")) return null;
    s.received ??= {};
    s.inflight ??= {};
    for (const g of s.pendingErrors ?? []) for (const [a, b] of g.ranges) for (let p = a; p < b; p++) if (s.fates[p] === ".") s.received[p] = { error: g.error };
    delete s.pendingErrors;
    return s;
  } catch {
    return null;
  }
}

// ---- writing ----

export interface OutcomeToWrite {
  property: number;
  key: string;
  outcome: Outcome;
  /** Final outcomes are marked written by markWritten; interim ones (paused, stopped but collectable) are said and not marked. */
  final: boolean;
}

/** What to write now: every outcome received and not written yet, and, for a paused or stopped run, why the rest wait. */
export function outcomesToWrite(state: RunState): OutcomeToWrite[] {
  const out: OutcomeToWrite[] = [];
  for (const k of Object.keys(state.received)) {
    const p = Number(k);
    out.push({ property: p, key: state.keys[p], outcome: state.received[k], final: true });
  }
  if (state.phase === "paused" || state.phase === "stopped") {
    const why =
      state.phase === "paused"
        ? serviceError("rate_limited", "run_paused", `Waiting: ${describeError(state.pauseReason ?? serviceError("rate_limited", "rate_limited", "")).replace(/[\s.]+$/, "")}. Choose Resume after then to collect this row (no new job is sent)`)
        : serviceError("cancelled", "run_stopped", "Stopped before this row's result arrived. Choose Resume to collect it (no new job is sent)");
    for (const job of state.jobs) {
      if (job.phase === "ended") continue;
      for (const p of members(job)) if (!isSettled(state, p)) out.push({ property: p, key: state.keys[p], outcome: { error: why }, final: false });
    }
  }
  return out.sort((a, b) => a.property - b.property);
}

/** The fate an outcome gives its property once written. */
export function fateOf(outcome: Outcome): Fate {
  if ("result" in outcome) return "a";
  const e = outcome.error;
  if (isAboutProperty(e)) return "e";
  if (isMaybeCreated(e)) return "u";
  if (e.kind === "cancelled") return "c";
  return "f";
}

/**
 * The host wrote these properties' outcomes (to every row that holds them now), or found no row holding them
 * (`present` false: the row was edited or deleted during the run, so nothing was written).
 */
export function markWritten(state: RunState, written: readonly { property: number; present: boolean }[]): void {
  for (const w of written) {
    const outcome = state.received[w.property];
    if (!outcome || state.fates[w.property] !== ".") continue;
    setFate(state, w.property, w.present ? fateOf(outcome) : "g");
    delete state.received[w.property];
  }
  if (state.phase === "stopped" && !collectable(state)) state.phase = "ended";
}

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
  properties: number;
  jobsTotal: number;
  jobsSent: number;
}

function rowsOf(state: RunState, p: number): number {
  return 1 + (state.dupes[p] ?? 0);
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
    properties: state.properties.length,
    jobsTotal: state.jobs.length,
    jobsSent: state.jobs.filter((j) => !!j.poll).length,
  };
  for (let p = 0; p < state.fates.length; p++) {
    const n = rowsOf(state, p);
    const f = state.fates[p];
    if (f === ".") {
      if (String(p) in state.received) c.unwritten += n;
      continue;
    }
    c.rowsDone += n;
    if (f === "a") (c.withResult += n), (c.answered += n);
    else if (f === "e") (c.rowErrors += n), (c.answered += n);
    else if (f === "f") c.failed += n;
    else if (f === "u") c.maybeCreated += n;
    else if (f === "c") c.notSent += n;
    else if (f === "g") c.gone += n;
  }
  if (state.phase === "paused" || state.phase === "stopped") {
    for (const job of state.jobs) for (const p of members(job)) if ((job.phase !== "ended" && !isSettled(state, p)) || unwrittenResult(state, p)) c.resumable += rowsOf(state, p);
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

const rowsWord = (n: number) => `${n.toLocaleString("en-GB")} row${n === 1 ? "" : "s"}`;

function utcTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/**
 * The run's last word, the same in both add-ins. "Done" only when every row has its result or its own reason on
 * the sheet; otherwise what is missing, why, and what to do (Resume, or run the check again).
 */
export function runSummary(state: RunState): { done: boolean; title: string; lines: string[]; counts: RunCounts } {
  const c = runCounts(state);
  const lines: string[] = [];
  const done = isRunDone(state);
  let title: string;
  const problems = c.rowErrors + c.invalid;
  if (c.skipped) lines.push(`${rowsWord(c.skipped)} hidden by a filter ${c.skipped === 1 ? "was" : "were"} skipped: not sent and not written.`);
  if (state.fatal) {
    title = "Failed";
    lines.unshift(describeError(state.fatal));
  } else if (state.phase === "paused") {
    title = "Paused";
    lines.unshift(
      `${describeError(state.pauseReason ?? serviceError("rate_limited", "rate_limited", "")).replace(/[\s.]+$/, "")}. ${c.answered.toLocaleString("en-GB")} of ${rowsWord(c.rows)} checked; choose Resume after ${utcTime(state.pausedUntilMs ?? Date.now())} to collect the other ${rowsWord(c.resumable)} (jobs already sent are not sent again).`,
    );
  } else if (state.phase === "stopped") {
    title = "Stopped";
    lines.unshift(`${c.answered.toLocaleString("en-GB")} of ${rowsWord(c.rows)} checked. ${rowsWord(c.resumable)} are in jobs already sent: choose Resume to collect them (no new job is sent).`);
  } else if (state.phase === "running") {
    title = "Checking";
    lines.unshift(`${c.rowsDone.toLocaleString("en-GB")} of ${rowsWord(c.rows)} written.`);
  } else if (done && !c.failed && !c.maybeCreated && !c.notSent && !c.gone) {
    title = "Done";
    lines.unshift(`${rowsWord(c.rows)} checked${problems ? `, ${problems.toLocaleString("en-GB")} with errors (see the Message column)` : ""}.`);
  } else {
    title = c.unwritten ? "Not all written" : "Finished with problems";
    lines.unshift(`${c.answered.toLocaleString("en-GB")} of ${rowsWord(c.rows)} checked${problems ? ` (${problems.toLocaleString("en-GB")} with errors, see the Message column)` : ""}.`);
  }
  if (state.phase !== "running") {
    if (c.failed && !state.fatal) lines.push(`${rowsWord(c.failed)} not refreshed because the service failed${state.firstFailure ? ` (${describeError(state.firstFailure).replace(/[\s.]+$/, "")})` : ""}; earlier values are kept where there were some.`);
    if (c.maybeCreated) lines.push(`${rowsWord(c.maybeCreated)} not checked: sending their job failed and the service may have created it; run the check again for them.`);
    if (c.notSent) lines.push(`${rowsWord(c.notSent)} not sent; run the check again for them.`);
    if (c.gone) lines.push(`${rowsWord(c.gone)} changed or deleted while the check ran; their results were not written. Run the check again for them.`);
    if (c.unwritten) lines.push(`${rowsWord(c.unwritten)} received but not written to the sheet yet; choose Resume to write them (they are fetched again, no new job).`);
  }
  return { done, title, lines, counts: c };
}

// ---- rows as they are now ----

/** What a row's Message cell says while its result is on the way: a row that still says it after the run changed. */
export const CHECKING_MESSAGE = "Checking… (the result is written here when it arrives)";

export function isCheckingMessage(v: unknown): boolean {
  return typeof v === "string" && v.startsWith("Checking…");
}

/** The row a host writes into each row being checked at the start: earlier values kept, Message says it is on the way. */
export function checkingRow(previous: readonly unknown[] | undefined, checkedAtIso: string): Cell[] {
  const row = outputRow(undefined, checkedAtIso, previous);
  row[MESSAGE_COLUMN] = CHECKING_MESSAGE;
  return row;
}

/** The row of a result that waits (paused, stopped): still "Checking…", so a Resume finds it and its property, and why. */
export function waitingRow(previous: readonly unknown[] | undefined, checkedAtIso: string, why: string): Cell[] {
  const row = checkingRow(previous, checkedAtIso);
  row[MESSAGE_COLUMN] = `Checking… ${why.replace(/[\s.]+$/, "")}.`;
  return row;
}

export const ROW_CHANGED_ERROR: ServiceError = serviceError("cancelled", "input_changed", "This row changed while the check ran, so its result was not written here; run the check again for it.");

export interface RowNow {
  /** The property key the row's input cells give now (core normaliseProperty), none when blank or invalid. */
  key?: string;
  /** Its Message cell still says CHECKING_MESSAGE. */
  checking?: boolean;
}

/**
 * Where each outcome goes, from the rows as they are now (read just before the write): to every row that holds its
 * property, wherever sorting, inserted or deleted rows moved it. A property no row holds any more is reported as
 * not present (nothing is written for it). A row still marked "Checking…" whose input no longer names a property
 * of this run changed during the run: it gets ROW_CHANGED_ERROR, never another property's result.
 */
export function matchRows(state: RunState, rowsNow: readonly RowNow[], items: readonly OutcomeToWrite[]): { writes: { row: number; outcome: Outcome }[]; written: { property: number; present: boolean }[]; changed: number[] } {
  const rowsByKey = new Map<string, number[]>();
  rowsNow.forEach((r, i) => {
    if (!r.key) return;
    const list = rowsByKey.get(r.key);
    if (list) list.push(i);
    else rowsByKey.set(r.key, [i]);
  });
  const writes: { row: number; outcome: Outcome }[] = [];
  const written: { property: number; present: boolean }[] = [];
  for (const it of items) {
    const rows = rowsByKey.get(it.key) ?? [];
    for (const row of rows) writes.push({ row, outcome: it.outcome });
    if (it.final) written.push({ property: it.property, present: rows.length > 0 });
  }
  const runKeys = new Set(state.keys);
  const changed: number[] = [];
  rowsNow.forEach((r, i) => {
    if (r.checking && (!r.key || !runKeys.has(r.key))) changed.push(i);
  });
  for (const row of changed) writes.push({ row, outcome: { error: ROW_CHANGED_ERROR } });
  return { writes, written, changed };
}
