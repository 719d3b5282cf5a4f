/**
 * A run's state and its life cycle: the JSON-serialisable RunState of a bulk check, the one run policy (RUN_POLICY),
 * each property's fate, and the moves between phases (pause, stop, end, resume). Both add-ins and
 * createClient().screen keep this one state (docs/service-contract.md, "One run policy").
 */
import type { CheckName, PlanName } from "../service/checks";
import { isAboutProperty, serviceError, shortReason, type ServiceError } from "../service/errors";
import { DEFAULT_JOB_TIMEOUT_MS, type JobState } from "../service/jobs";
import { planScreening, type Outcome } from "./plan";
import { unavailableUntilError, type RateLimitInfo, type RetryHold } from "../service/ratelimit";
import type { InputRow, PropertyQuery } from "../sheet/input-rows";

/** The policy's numbers, one set for every host. */
export const RUN_POLICY = {
  /** A submit is sent again only after a 429 or when it provably never reached the server; at most this often. */
  maxSubmitRetries: 5,
  /** Consecutive transient failures of one job's GETs before its missing rows are given up on (earlier values kept). */
  maxGetFailures: 5,
  /** A GET retried after a failure waits at least this long (or as long as the service asks). */
  minGetSpacingMs: 1000,
  /** Polls of running jobs spend at most this share of the minute's allowance (the rest is for submits and pages). */
  pollShare: 0.5,
  /** The minute's allowance assumed until the service states its own (the smallest plan's). */
  assumedPerMinute: 60,
  /** 429s in a row, none saying how long to wait, after which the run pauses (resumable) rather than asking on. */
  maxRateLimitedTries: 12,
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
  /** One of the two first jobs of a large run, looked at early to learn whether the service runs jobs side by side. */
  probe?: true;
  /** Not sent until the probe jobs show how the service runs jobs (engine.ts, shapeHeldJobs). */
  held?: true;
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
  /** Nobody waits for this run (a scheduled or on-open re-check): jobs are looked at when they say they end, not early. */
  unattended?: true;
  jobs: RunJob[];
  /** One Fate character per property, "." until its rows were written. */
  fates: string;
  /**
   * Properties every row of which showed values of an earlier check as the run began, as [start, end) ranges (a sheet
   * checked again is one range): their marks keep those values, and so does any reason written over them that is not
   * about the property, until a result replaces them (core noteEarlierValues). Absent on a first check.
   */
  earlier?: [number, number][];
  /** Properties only some of whose rows showed earlier values (a property on several rows): how many did. */
  earlierSome?: Record<string, number>;
  /** The status words of the rows written with a result, over the whole run, Resumes included (core countStatuses). */
  statuses?: Record<string, number>;
  /** Outcomes received and not yet written, by property index. Never stored: storedState rewinds their jobs instead. */
  received: Record<string, Outcome>;
  /** Only in a stored state: the error outcomes not yet written, each error once with the properties it goes to. */
  pendingErrors?: { error: ServiceError; ranges: [number, number][] }[];
  /** Requests handed out and not answered yet. */
  inflight: Record<string, { job: number; kind: "submit" | "results"; sentAtMs: number }>;
  seq: number;
  phase: RunPhase;
  /**
   * Stopped before it ended by itself (the user's Stop, or its host's: the sheet gone, the key removed): shown as
   * stopped (core shownPhase) even once nothing is left to collect. A Resume clears it.
   */
  stoppedEarly?: true;
  /** Paused until (a quota used up); resumable. */
  pausedUntilMs?: number;
  pauseReason?: ServiceError;
  /** Why the run ended for every row (a refused key, a wrong base URL). */
  fatal?: ServiceError;
  /** The first service failure seen, for the summary. */
  firstFailure?: ServiceError;
  rate?: RateLimitInfo;
  /** No request at all before this time (pacing across the rate-limit window, a 429's or a 503's Retry-After). */
  nextRequestAtMs: number;
  /** Why nextRequestAtMs holds the run, when a 503 set it: said if the wait pauses the run (dueRequests). */
  holdReason?: ServiceError;
  /** Polls the minute's allowance still grants (a bucket refilled at RUN_POLICY.pollShare of the limit a minute). */
  pollTokens?: { n: number; atMs: number; windowMs?: number };
  /** The size held jobs are cut to if the service turns out to run jobs side by side (see RunJob.held). */
  splitSize?: number;
  /** Requests answered 429 in a row. */
  rateLimitedInARow?: number;
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
  /** false for a re-check nobody waits for: the plan's job size, no probe jobs (see planScreening). */
  spread?: boolean;
  /** A wait the service asked an earlier run for (a 503's or 429's Retry-After): this run sends nothing before it. */
  hold?: RetryHold;
}

/** A run of the rows read: each distinct valid property once, in jobs no larger than the plan's cap. */
export function createRun(rows: readonly InputRow[], opts: CreateRunOptions): RunState {
  const plan = planScreening(rows, { plan: opts.plan, spread: opts.spread });
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
    ...(opts.spread === false ? { unattended: true as const } : {}),
    jobs: plan.jobs.map((j) => ({
      start: j.start,
      end: j.end,
      phase: "queued" as const,
      submitRetries: 0,
      getFailures: 0,
      notBeforeMs: 0,
      ...(j.probe ? { probe: true as const } : {}),
      ...(j.held ? { held: true as const } : {}),
    })),
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
  if (plan.splitSize !== undefined) state.splitSize = plan.splitSize;
  const until = opts.hold?.untilMs ?? 0;
  if (until > opts.nowMs) holdUntil(state, until, opts.hold?.status === 503 ? unavailableUntilError(until) : undefined);
  return state;
}

/**
 * Holds every request of the run until `untilMs` when that is later than the hold already set; the later wait is then
 * the one to name: a 503's own reason with it, or none (the plan's rate limit). A 503's reason is never left on a wait
 * that came after it.
 */
export function holdUntil(state: RunState, untilMs: number, reason?: ServiceError): void {
  if (!(untilMs > state.nextRequestAtMs)) return;
  state.nextRequestAtMs = untilMs;
  if (reason) state.holdReason = reason;
  else delete state.holdReason;
}

/** The wait the service asked of this run that is still to run at nowMs: the next run on the same service keeps it. */
export function runHold(state: RunState, nowMs: number): RetryHold | undefined {
  if (!(state.nextRequestAtMs > nowMs)) return undefined;
  return { untilMs: state.nextRequestAtMs, status: state.holdReason ? 503 : 429 };
}

// ---- members and fates ----

export function members(job: RunJob): number[] {
  if (job.members) return job.members;
  const out: number[] = [];
  for (let p = job.start; p < job.end; p++) out.push(p);
  return out;
}

export function setFate(state: RunState, p: number, fate: Fate | "."): void {
  state.fates = state.fates.slice(0, p) + fate + state.fates.slice(p + 1);
}

export function isSettled(state: RunState, p: number): boolean {
  return state.fates[p] !== "." || String(p) in state.received;
}

export function receive(state: RunState, p: number, outcome: Outcome): void {
  if (isSettled(state, p)) return;
  state.received[p] = outcome;
  if ("error" in outcome && !isAboutProperty(outcome.error) && outcome.error.kind !== "cancelled")
    state.firstFailure ??= outcome.error;
}

export function settleJob(state: RunState, job: RunJob, error: ServiceError): void {
  job.phase = "ended";
  job.error ??= error;
  for (const p of members(job)) receive(state, p, { error });
}

// ---- the run's phases: every move between them, in one table ----

/**
 * What moves a run from one phase to another. finish: nothing is left to send or collect; pause: a wait too long to
 * hold the pane or sidebar (a quota); stop: the user's Stop with jobs sent still collectable; stop_spent: Stop with
 * nothing left to collect; fail: a failure that ends the run for every row (a refused key); end: ended by its
 * caller; collected: the last results of a stopped run were written; resume: the user's Resume (or a stored run
 * taken up again).
 */
export type RunEvent = "finish" | "pause" | "stop" | "stop_spent" | "fail" | "end" | "collected" | "resume";

/** The run's phase moves, as one table: phase, then event, then the phase it moves to. Absent: not a move. */
export const RUN_TRANSITIONS: { readonly [P in RunPhase]: { readonly [E in RunEvent]?: RunPhase } } = {
  running: {
    finish: "ended",
    pause: "paused",
    stop: "stopped",
    stop_spent: "ended",
    fail: "ended",
    end: "ended",
    resume: "running",
  },
  paused: { stop: "stopped", stop_spent: "ended", fail: "ended", end: "ended", resume: "running" },
  stopped: { stop: "stopped", stop_spent: "ended", fail: "ended", end: "ended", collected: "ended", resume: "running" },
  ended: { fail: "ended", end: "ended", resume: "running" },
};

/** Move the run by the table; an event that is no move from its phase is a defect of the caller (thrown). */
export function moveRun(state: RunState, event: RunEvent): void {
  const next = RUN_TRANSITIONS[state.phase][event];
  if (!next) throw new Error(`A ${state.phase} run cannot ${event}.`);
  state.phase = next;
}

/** Pause the run: what was sent stays collectable and what was not stays queued, for a Resume after `untilMs`. */
export function pause(state: RunState, untilMs: number, reason: ServiceError): void {
  moveRun(state, "pause");
  state.pausedUntilMs = untilMs;
  state.pauseReason = reason;
}

export function endRunWith(state: RunState, error: ServiceError): void {
  state.fatal ??= error;
  for (const job of state.jobs) if (job.phase !== "ended") settleJob(state, job, error);
  moveRun(state, "fail");
}

/** A submit that failed after it may have reached the service: never sent again automatically. */
export function maybeCreated(e: ServiceError): ServiceError {
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
  return (
    !!e.details && typeof e.details === "object" && (e.details as { maybe_created?: unknown }).maybe_created === true
  );
}

/** A members list that is one contiguous run is kept as [start, end), so stored states stay small. */
export function compactMembers(job: RunJob): RunJob {
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
export function stopRun(
  state: RunState,
  reason = "Stopped before this row was sent; run the check again for it.",
): void {
  if (state.phase === "ended") return;
  for (const job of state.jobs)
    if (job.phase === "queued") settleJob(state, job, serviceError("cancelled", "not_sent", reason));
  moveRun(state, collectable(state) ? "stop" : "stop_spent");
  state.stoppedEarly = true;
}

/** End the run now: every property not answered gets `error` (screen()'s callers want an answer for every property). */
export function endRun(state: RunState, error: ServiceError): void {
  for (const job of state.jobs) if (job.phase !== "ended") settleJob(state, job, error);
  state.inflight = {};
  moveRun(state, "end");
}

/**
 * Jobs sent whose results are not all on the sheet: a Resume collects them (results received but not written
 * count too: a stored state rewinds their jobs, so they are fetched again).
 */
export function collectable(state: RunState): boolean {
  return state.jobs.some((j) => {
    const list = members(j);
    if (j.phase === "polling" || j.phase === "sending")
      return list.some((p) => !isSettled(state, p) || unwrittenResult(state, p));
    return !!j.poll && list.some((p) => unwrittenResult(state, p));
  });
}

export function unwrittenResult(state: RunState, p: number): boolean {
  const o = state.received[p];
  return state.fates[p] === "." && !!o && "result" in o;
}

/** A stopped or paused run (or one loaded from storage) goes on: jobs sent are collected, jobs queued are sent. */
export function resumeRun(state: RunState, nowMs: number): void {
  if (state.phase === "ended" && !collectable(state) && !state.jobs.some((j) => j.phase === "queued")) return;
  // A wait the service asked for (a Retry-After, a quota's reset) still holds: nothing goes out before it.
  const heldUntil = state.pausedUntilMs !== undefined && state.pausedUntilMs > nowMs ? state.pausedUntilMs : 0;
  moveRun(state, "resume");
  delete state.stoppedEarly;
  delete state.pausedUntilMs;
  delete state.pauseReason;
  delete state.rateLimitedInARow;
  state.nextRequestAtMs = heldUntil;
  if (!heldUntil) delete state.holdReason;
  state.rate = undefined;
  for (const job of state.jobs) {
    // A submit that was in flight when the state was stored: the job may exist; never sent again blindly.
    if (job.phase === "sending")
      settleJob(
        state,
        job,
        maybeCreated(serviceError("network", "interrupted", "the pane or sidebar closed while it was being sent")),
      );
    if (job.phase === "polling" && job.poll) {
      job.notBeforeMs = 0;
      job.getFailures = 0;
      // The user is back: the job gets a fresh window from now (the service has usually finished it long ago).
      job.poll = {
        ...job.poll,
        nextPollAtMs: nowMs,
        deadlineMs: Math.max(job.poll.deadlineMs, nowMs + (state.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS)),
      };
    }
  }
  state.inflight = {};
}
