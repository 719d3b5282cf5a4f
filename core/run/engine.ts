/**
 * The run engine's reading half, sans-IO: what each reply means, when to wait, and which failures end a job or the
 * run. Hosts give back the replies to the requests due.ts handed out.
 */
import { describeError, serviceError, type ServiceError } from "../service/errors";
import { acceptResultsPage, failJob, startJob } from "../service/jobs";
import {
  parseRateLimit,
  retryAfterUntil,
  retryDelay,
  serverClockOffsetMs,
  unavailableUntilError,
  type HeaderSource,
} from "../service/ratelimit";
import { interpretBulkSubmitResponse, interpretResultsResponse } from "../service/responses";
import type { ResultsPage } from "../service/results-page";
import {
  RUN_POLICY,
  endRunWith,
  holdUntil,
  maybeCreated,
  members,
  pause,
  receive,
  settleJob,
  type RunJob,
  type RunState,
} from "./state";

import { PROBE_LOOK_MS, cutJob, shapeHeldJobs } from "./probes";
import { utcMinute } from "../numbers";

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

function noteRate(state: RunState, status: number, headers: HeaderSource, nowMs: number): void {
  const rl = parseRateLimit(headers, nowMs);
  if (rl.limit !== undefined || rl.remaining !== undefined || rl.resetAtMs !== undefined) state.rate = rl;
  // A 429's or a 503's Retry-After holds every request of the run, not only the one refused; a long one pauses it.
  const until = retryAfterUntil(status, rl, nowMs);
  if (until !== undefined) holdUntil(state, until, status === 503 ? unavailableUntilError(until) : undefined);
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
  noteRate(state, reply.status, reply.headers, nowMs);
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

/** How soon a job of a run of one or two jobs is first looked at, so its first rows fill while the rest runs. */
const PROGRESS_LOOK_MS = 5000;

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
  holdUntil(state, at);
  if ((giveUp || tries >= RUN_POLICY.maxRateLimitedTries) && state.phase === "running") {
    pause(
      state,
      state.nextRequestAtMs,
      serviceError(
        "rate_limited",
        "rate_limited_repeatedly",
        `The service refused ${tries} requests in a row as too many (HTTP 429), so the check is paused; results already received are kept. Resume after ${utcMinute(state.nextRequestAtMs)} to collect the rest without sending its rows again.`,
        { retryAfterMs: state.nextRequestAtMs - nowMs },
      ),
    );
  }
  return at;
}
