/**
 * Polling one bulk job, sans-IO: a JSON-serialisable state, the next request to make, and what a results
 * page means (new outcomes, where to look next, how long to wait). The async client and the Apps Script
 * sidebar's short polls both drive it.
 */
import type { CheckName } from "./checks";
import { isAboutProperty, serviceError, type ServiceError } from "./errors";
import type { Outcome } from "../run/plan";
import { buildBulkResultsRequest, type ClientConfig, type HttpRequest } from "./requests";
import type { ResultsItem, ResultsPage } from "./results-page";
import { placeResults } from "./result-identity";
import { propertyKey, type PropertyQuery } from "../sheet/input-rows";
import { parseCheckResult, type BulkJob } from "./schemas";
import { withQuery } from "./url";
import { formatCount } from "../numbers";

export type JobStatus = "running" | "completed" | "failed" | "timed_out";

export interface JobState {
  jobId: string;
  resultsUrl: string;
  /** Properties submitted in this job. */
  total: number;
  /** Index of the job's first property in the screening plan's property list. */
  offset: number;
  /** The results page being polled. */
  cursor: string;
  status: JobStatus;
  processed: number;
  /** Job-local indexes received so far, as merged [start, end) ranges. */
  received: [number, number][];
  deadlineMs: number;
  nextPollAtMs: number;
  /** On our clock: the server's estimate less clockOffsetMs. */
  estimatedCompletionMs?: number;
  /** Nobody waits for the results: the job is first looked at when its estimate says it ends, not early. */
  patient?: true;
  /** How far the server's clock was ahead of ours when the job was accepted (see serverClockOffsetMs). */
  clockOffsetMs?: number;
  /** When the job was accepted: with `processed`, the rate the service works at, from which its end is predicted. */
  startedAtMs?: number;
  polls: number;
  /** Position of the current page's first item in the job, for cursor pages without page numbers. */
  pageStart?: number;
  /** The server numbers its results pages from 0 (it sent a page 0). */
  pagesFrom0?: boolean;
  /** When the last results page arrived; the deadline only fails a job that was seen unfinished past it. */
  lastPollAtMs?: number;
  error?: ServiceError;
  checks?: CheckName[];
  /**
   * Short hashes of the results links followed so far (the last MAX_SEEN), to tell a loop from progress. Polling
   * the same cursor again while the job runs is not following a link and adds nothing here.
   */
  seen?: string[];
  /** The current page was reached by following a link (its hash is the last in `seen`). */
  followed?: boolean;
  /** A short signature of the last page taken, to tell a page sent again from the next one. */
  lastPage?: string;
  /** Links followed since the first page (counted with `seen`: a state without `seen` starts again at 0). */
  follows?: number;
  /** Pages reached by a link in a row that brought nothing: no new result, nothing pending, nothing unmatched. */
  idle?: number;
}

export const DEFAULT_JOB_TIMEOUT_MS = 10 * 60 * 1000;
/** How far ahead an estimated_completion is believed: 6 hours (10,000 properties at 2 s each take 5.6). */
export const MAX_ESTIMATE_MS = 6 * 60 * 60 * 1000;

export function startJob(
  job: BulkJob,
  opts: {
    offset: number;
    count: number;
    nowMs: number;
    jobTimeoutMs?: number;
    checks?: CheckName[];
    clockOffsetMs?: number;
    patient?: boolean;
  },
): JobState {
  const est = job.estimated_completion ? Date.parse(job.estimated_completion) - (opts.clockOffsetMs ?? 0) : NaN;
  const estMs = Number.isFinite(est) ? est : undefined;
  const resultsUrl = job.results_url || `/api/check/bulk/${encodeURIComponent(job.job_id)}/results`;
  const state: JobState = {
    jobId: job.job_id,
    resultsUrl,
    total: opts.count,
    offset: opts.offset,
    cursor: resultsUrl,
    status: "running",
    processed: 0,
    received: [],
    // The estimate is trusted up to MAX_ESTIMATE_MS ahead: a server whose estimate is far off does not keep rows waiting for days.
    deadlineMs:
      Math.max(opts.nowMs, Math.min(estMs ?? opts.nowMs, opts.nowMs + MAX_ESTIMATE_MS)) +
      (opts.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS),
    nextPollAtMs: opts.nowMs,
    polls: 0,
    startedAtMs: opts.nowMs,
  };
  if (estMs !== undefined) state.estimatedCompletionMs = estMs;
  if (opts.clockOffsetMs) state.clockOffsetMs = opts.clockOffsetMs;
  if (opts.patient) state.patient = true;
  state.nextPollAtMs = opts.nowMs + pollDelay(state, opts.nowMs);
  if (opts.checks) state.checks = opts.checks;
  return state;
}

export function isJobDone(state: JobState): boolean {
  return state.status !== "running";
}

export function nextJobRequest(cfg: ClientConfig, state: JobState): HttpRequest | null {
  return isJobDone(state) ? null : buildBulkResultsRequest(cfg, state.cursor);
}

// ---- received ranges ----

function has(ranges: [number, number][], i: number): boolean {
  return ranges.some(([a, b]) => i >= a && i < b);
}

function add(ranges: [number, number][], i: number): [number, number][] {
  const out = [...ranges, [i, i + 1] as [number, number]].sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const r of out) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

export function receivedCount(state: JobState): number {
  return state.received.reduce((n, [a, b]) => n + (b - a), 0);
}

function missing(state: JobState): number[] {
  const out: number[] = [];
  for (let i = 0; i < state.total; i++) if (!has(state.received, i)) out.push(i);
  return out;
}

/** Polls of one running job are at least this far apart (the run engine paces them over the minute's allowance too). */
export const MIN_POLL_MS = 20;
/** The first look at a job whose estimate is this near: estimates come rounded up to a whole second, so it may be done long before. */
const NEAR_ESTIMATE_MS = 2000;
/** How soon a job with a near (or no) estimate is first looked at: long enough for a small job to be done or to show its pace. */
const FIRST_LOOK_MS = 40;
/** A running job is looked at least this often, so progress shows (pacing may space looks further). */
const MAX_POLL_MS = 30_000;
/** How many followed links a job remembers; a longer cycle is caught because its pages bring nothing new. */
const MAX_SEEN = 100;
/** Pages reached by links in a row that bring nothing new before the links are taken for a loop. */
const MAX_IDLE_PAGES = 3;

/**
 * When to look at a running job again. Once it shows progress, its end is predicted from the pace so far (a little
 * after, and never sooner than an eighth of its age, so a job that slows costs a handful of looks, not dozens).
 * Before that, a far estimate is believed (looked at then, or every MAX_POLL_MS); a near one, or none, is checked
 * early (FIRST_LOOK_MS) and then at twice the job's age each time, up to MAX_POLL_MS.
 */
function pollDelay(state: JobState, nowMs: number): number {
  const age = state.startedAtMs !== undefined ? Math.max(0, nowMs - state.startedAtMs) : undefined;
  const clamp = (ms: number) => Math.round(Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, ms)));
  if (age !== undefined && age > 0 && state.processed > 0 && state.processed < state.total) {
    const left = ((state.total - state.processed) * age) / state.processed;
    return clamp(Math.max(left * 1.05 + 10, age / 8));
  }
  const ahead = state.estimatedCompletionMs !== undefined ? state.estimatedCompletionMs - nowMs : undefined;
  if (ahead !== undefined && ahead > NEAR_ESTIMATE_MS) return clamp(ahead);
  // Estimates come rounded up, so at the estimate a job is done: one look instead of a few early ones.
  if (state.patient && state.polls === 0 && ahead !== undefined && ahead > 0) return clamp(ahead);
  if (state.polls === 0) return clamp(ahead !== undefined ? Math.min(ahead, FIRST_LOOK_MS) : FIRST_LOOK_MS);
  if (age !== undefined)
    return clamp(
      ahead !== undefined && ahead > 0 ? Math.min(ahead, Math.max(age, FIRST_LOOK_MS)) : Math.max(age, FIRST_LOOK_MS),
    );
  return clamp(500 * Math.pow(1.5, Math.min(10, state.polls)));
}

function outcomeOf(item: ResultsItem, checks: readonly string[] | undefined): Outcome {
  if (item.error) return { error: item.error };
  const parsed = parseCheckResult(item.result, checks);
  if (!parsed.ok) return { error: serviceError("malformed_response", "malformed_result", parsed.message) };
  return parsed.warnings.length ? { result: parsed.value, warnings: parsed.warnings } : { result: parsed.value };
}

export interface AcceptResult {
  state: JobState;
  /** New outcomes; index is into the screening plan's property list (offset applied). */
  items: { index: number; outcome: Outcome }[];
  waitMs: number;
  done: boolean;
  warnings: string[];
}

/**
 * Error outcomes for every property not received yet, and the job marked ended. An error that would read
 * as a fact about a property (a 404 or 400 on the results URL) is about the job here, so it becomes job_failed.
 */
export function failJob(
  state: JobState,
  error: ServiceError,
  _nowMs?: number,
): { state: JobState; items: { index: number; outcome: Outcome }[] } {
  if (isAboutProperty(error)) error = { ...error, kind: "job_failed" };
  const items = missing(state).map((i) => ({ index: state.offset + i, outcome: { error } as Outcome }));
  const received: [number, number][] = state.total > 0 ? [[0, state.total]] : [];
  return { state: { ...state, status: error.kind === "timeout" ? "timed_out" : "failed", error, received }, items };
}

/**
 * Past the job's deadline: fail what is missing with a timeout; otherwise null. Only once a poll made after
 * the deadline still found the job unfinished: a run resumed hours later (a reopened pane or sidebar, a
 * laptop back from sleep) looks at the job first, and the server has usually finished it long ago.
 */
export function checkJobDeadline(state: JobState, nowMs: number) {
  if (isJobDone(state) || nowMs <= state.deadlineMs) return null;
  if (state.lastPollAtMs === undefined || state.lastPollAtMs < state.deadlineMs) return null;
  return failJob(
    state,
    serviceError(
      "timeout",
      "job_timeout",
      `Bulk job ${state.jobId} did not finish in time (${formatCount(receivedCount(state))} of ${formatCount(state.total)} done); check these rows again later.`,
    ),
    nowMs,
  );
}

/** A short hash of a link (two 32-bit FNV-1a hashes): what `seen` keeps, so a stored state stays small. */
function linkHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return a.toString(36) + "." + b.toString(36);
}

/** Was this link followed already for this job (or is it the first page again)? Older states kept whole links. */
function followedBefore(s: JobState, link: string): boolean {
  if (link === s.resultsUrl) return true;
  const seen = s.seen ?? [];
  return seen.includes(linkHash(link)) || seen.includes(link);
}

/** The current page was reached by following a link. A rewound state (cursor back to the first page) was not. */
function reachedByLink(s: JobState): boolean {
  const seen = s.seen ?? [];
  return (
    s.followed === true &&
    seen.length > 0 &&
    (seen[seen.length - 1] === linkHash(s.cursor) || seen[seen.length - 1] === s.cursor)
  );
}

/** Move to the next page; an unnumbered (cursor) page starts where the items seen so far end. */
function follow(s: JobState, next: string, numbered: boolean, nextStart: number): JobState {
  const fresh = !s.seen;
  const out: JobState = {
    ...s,
    cursor: next,
    followed: true,
    seen: [...(s.seen ?? []), linkHash(next)].slice(-MAX_SEEN),
    follows: (fresh ? 0 : (s.follows ?? 0)) + 1,
  };
  if (numbered) delete out.pageStart;
  else out.pageStart = nextStart;
  return out;
}

/**
 * A short signature of a page's items: equal pages (a server that ignores the page or cursor) have equal ones. It
 * reads each item's index and property and the first and last items whole, not every result: a page of 1,000 is
 * signed in well under a millisecond, so following a finished job's pages costs little more than fetching them.
 */
function pageSignature(page: ResultsPage): string {
  const items = page.items;
  const ids = items
    .map((it) => `${it.index ?? ""}:${it.uprn ?? (it.input ? propertyKey(it.input) : "")}:${it.pending ? "p" : ""}`)
    .join("|");
  const text = ids + JSON.stringify(items[0] ?? null) + JSON.stringify(items[items.length - 1] ?? null);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${page.items.length}:${h.toString(16)}`;
}

/** The job's missing rows end with a loop error: the service's links go round, or it sends one page again. */
function loopError(s: JobState): ServiceError {
  const left = s.total - receivedCount(s);
  return serviceError(
    "job_failed",
    "results_loop",
    `The service kept sending the same page of results for bulk job ${s.jobId}, so ${left === s.total ? "its" : `${formatCount(left)} of its`} ${formatCount(s.total)} ${s.total === 1 ? "row was" : "rows were"} not checked; run the check again for them.`,
  );
}

/**
 * Take one results page. Items are placed by their index; else by their input echo or the result's uprn;
 * else (a postcode query) by the postcode and first line in the result's address; else, on a finished job
 * whose items carry no indexes, by position, where that cannot contradict what the item says
 * (core/service/result-identity.ts). Pages are followed by their next link once full or once the job has ended.
 */
export function acceptResultsPage(
  state: JobState,
  page: ResultsPage,
  nowMs: number,
  jobProperties?: readonly PropertyQuery[],
): AcceptResult {
  let s: JobState = {
    ...state,
    polls: state.polls + 1,
    lastPollAtMs: nowMs,
    received: state.received.map((r) => [r[0], r[1]] as [number, number]),
  };
  const warnings: string[] = [];
  // Reached by a link and the same as the page before it: a server that ignores the page or cursor parameter.
  // (Polling one cursor again while the job runs is not following a link: it may well send the same page.)
  const byLink = reachedByLink(state);
  const signature = pageSignature(page);
  const named = page.items.some((it) => it.index !== undefined || it.input || it.uprn || it.result !== undefined);
  if (byLink && named && signature === state.lastPage) {
    const ended = failJob(s, loopError(s), nowMs);
    return { state: ended.state, items: ended.items, waitMs: 0, done: true, warnings };
  }
  s.lastPage = signature;
  s.followed = false;
  const { base, numbered, pageStart } = pagePosition(s, page);
  const taken = s.received;
  const { placed, unmatched } = placeResults(page.items, {
    total: s.total,
    properties: jobProperties,
    taken: (i) => has(taken, i),
    pageStart,
    finished: page.status !== "running",
  });
  const items = placed.map(({ item, local }) => {
    s.received = add(s.received, local);
    return { index: s.offset + local, outcome: outcomeOf(item, s.checks) };
  });
  if (unmatched) warnings.push(`${unmatched} result(s) of job ${s.jobId} could not be matched to a property`);
  s.processed = Math.max(s.processed, page.processed ?? 0, receivedCount(s));
  if (page.estimatedCompletionMs !== undefined)
    s.estimatedCompletionMs = page.estimatedCompletionMs - (s.clockOffsetMs ?? 0);

  const next = nextPageLink(s, page, base);
  const pageEnd = page.perPage ? Math.min(s.total, pageStart + page.perPage) : s.total;
  let pageFull = true;
  for (let i = pageStart; i < pageEnd; i++) if (!has(s.received, i)) pageFull = false;

  // Items not done yet are not results: the page is polled again until they are. A finished job that still lists
  // items as pending: poll again for them (bounded by the job's deadline).
  // Every row of the job has its final result: nothing is left to wait for, whatever the job's word (one we do not know
  // reads as running).
  const pendingItems = page.items.filter((it) => it.pending).length;
  const allIn = s.total > 0 && receivedCount(s) >= s.total;
  const stillRunning =
    !allIn && (page.status === "running" || (page.status === "completed" && pendingItems > 0 && !pageFull));
  // About to follow a link already followed (or back to the first page), after pages that bring nothing, or past
  // any count a real job could need (every page holds at least one result): the links go round.
  const following = !!next && !allIn && (pageFull || !stillRunning);
  // Pages reached by a link, in a row, that brought nothing at all (empty, or results already taken) and lead on.
  const nothing = items.length === 0 && pendingItems === 0 && unmatched === 0;
  s.idle = following && byLink && nothing ? (s.seen ? (s.idle ?? 0) : 0) + 1 : 0;
  const follows = s.seen ? (s.follows ?? 0) : 0;
  const linksGoRound = following && (followedBefore(s, next!) || s.idle >= MAX_IDLE_PAGES || follows > s.total + 10);
  if (linksGoRound) {
    // A failed job's own reason says more than its links do.
    const ended = failJob(s, page.status === "failed" && page.error ? page.error : loopError(s), nowMs);
    return { state: ended.state, items: [...items, ...ended.items], waitMs: 0, done: true, warnings };
  }
  if (stillRunning && next && pageFull) {
    s = follow(s, next, numbered, pageStart + page.items.length);
    return { state: s, items, waitMs: 0, done: false, warnings };
  }
  if (stillRunning) return pollAgain(s, items, nowMs, warnings);
  if (next && !allIn) {
    s = follow(s, next, numbered, pageStart + page.items.length);
    if (page.status === "failed" && page.error) s.error = page.error;
    return { state: s, items, waitMs: 0, done: false, warnings };
  }
  return jobEnded(s, page, items, nowMs, warnings);
}

/** Where the page stands in the job: pages are numbered from 1 unless the server has sent a page 0. */
function pagePosition(s: JobState, page: ResultsPage): { base: number; numbered: boolean; pageStart: number } {
  if (page.page === 0) s.pagesFrom0 = true;
  const base = s.pagesFrom0 ? 0 : 1;
  const numbered = page.page !== undefined && page.page >= base && !!page.perPage;
  const pageStart = numbered ? (page.page! - base) * page.perPage! : (s.pageStart ?? 0);
  return { base, numbered, pageStart };
}

/** The job still runs: the same page is polled again after a wait, unless the job's time is up. */
function pollAgain(s: JobState, items: AcceptResult["items"], nowMs: number, warnings: string[]): AcceptResult {
  const late = checkJobDeadline(s, nowMs);
  if (late) return { state: late.state, items: [...items, ...late.items], waitMs: 0, done: true, warnings };
  // Never sleep past the deadline: a job that does not end is given up on when its time is up.
  // Near it, the last poll still waits: polls of one job are never closer than MIN_POLL_MS.
  const waitMs = Math.max(MIN_POLL_MS, Math.min(pollDelay(s, nowMs), s.deadlineMs + 1 - nowMs));
  s.nextPollAtMs = nowMs + waitMs;
  return { state: s, items, waitMs, done: false, warnings };
}

/**
 * The page's next link, made whole (a query-only link is relative to the page it came from, RFC 3986), else the next
 * numbered page; null for none.
 */
function nextPageLink(s: JobState, page: ResultsPage, base: number): string | null {
  const link = page.next && page.next.startsWith("?") ? s.cursor.replace(/[?#].*$/, "") + page.next : page.next;
  if (link && link !== s.cursor) return link;
  if (page.page !== undefined && page.page >= base && page.totalPages && page.page - base + 1 < page.totalPages)
    return withQuery(s.resultsUrl, { page: page.page + 1, per_page: page.perPage });
  return null;
}

/** The job has ended and there are no more pages: each row still without a result gets the job's error. */
function jobEnded(
  s: JobState,
  page: ResultsPage,
  items: AcceptResult["items"],
  nowMs: number,
  warnings: string[],
): AcceptResult {
  const error =
    page.status === "failed"
      ? (page.error ?? s.error ?? serviceError("job_failed", "job_failed", `Bulk job ${s.jobId} failed.`))
      : serviceError(
          "server",
          "missing_result",
          `The service finished job ${s.jobId} without a result for this property.`,
        );
  if (page.status === "failed") s.error = error;
  const ended = failJob(s, error, nowMs);
  return {
    state: {
      ...ended.state,
      status: page.status === "failed" ? "failed" : "completed",
      error: page.status === "failed" ? error : undefined,
    },
    items: [...items, ...ended.items],
    waitMs: 0,
    done: true,
    warnings,
  };
}
