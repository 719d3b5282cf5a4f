/**
 * The client for hosts that have fetch (Excel, Node, tests): the whole bulk flow (plan, submit, poll,
 * paginate, retry, pace by rate limits) over the sans-IO pieces. Timers come from the host.
 */
import type { CheckName, PlanName } from "./checks";
import { ComplianceError, serviceError, toServiceError, type ServiceError } from "./errors";
import { driveRun } from "../run/drive";
import { holdUntil } from "../run/state";
import { createRun, endRun, outcomesToWrite, runCounts } from "../run";
import { fanOut, planScreening, rowsForProperties, type Outcome } from "../run/plan";
import {
  retryAfterUntil,
  retryDelay,
  spendOne,
  unavailableUntilError,
  waitBeforeNextRequest,
  type HeaderSource,
  type RateLimitInfo,
  type RetryHold,
} from "./ratelimit";
import {
  buildAddressLookupRequest,
  buildBulkResultsRequest,
  buildBulkSubmitRequest,
  buildCheckRequest,
  type ClientConfig,
  type HttpRequest,
} from "./requests";
import {
  interpretAddressResponse,
  interpretBulkSubmitResponse,
  interpretCheckResponse,
  interpretResultsResponse,
  type Interpreted,
} from "./responses";
import type { ResultsPage } from "./results-page";
import { normaliseProperty, type InputRow, type PropertyQuery } from "../sheet/input-rows";
import type { AddressList, BulkJob, CheckResult } from "./schemas";
import { isDemoKey } from "../demo/demo-key";
import type { AbortSignalLike, FetchLike, Sleep } from "./transport";

export type { AbortSignalLike, FetchLike, Sleep } from "./transport";

export interface ClientOptions extends ClientConfig {
  fetch: FetchLike;
  /** Host timer; by default the global setTimeout where the host has one. */
  sleep?: Sleep;
  now?: () => number;
  /** Per request, default 30 s (Excel desktop gives up on a request at about 60 s). */
  requestTimeoutMs?: number;
  /** Retries of a GET (and of a 429 on a POST), default 4. */
  maxRetries?: number;
  /** Longest single wait the client accepts (rate-limit reset, Retry-After) before failing instead, default 90 s. */
  maxWaitMs?: number;
  /** Where a Retry-After's hold is kept, so that a later client of the same host keeps to it too (default: this client's own). */
  hold?: RetryHold;
  onRateLimit?(info: RateLimitInfo): void;
}

export interface ScreenProgress {
  jobsTotal: number;
  jobsSubmitted: number;
  propertiesTotal: number;
  propertiesDone: number;
  /** Rows (indexes into the properties passed to screen) newly settled since the last call. */
  completed: { index: number; outcome: Outcome }[];
  rateLimit?: RateLimitInfo;
}

export interface ScreenOptions {
  plan?: PlanName | number;
  checks?: CheckName[];
  signal?: AbortSignalLike;
  jobTimeoutMs?: number;
  onProgress?(p: ScreenProgress): void;
}

/** A wait on the host's setTimeout that ends early when the signal aborts (Cancel must not wait out a poll interval). */
export function hostSleep(ms: number, signal?: AbortSignalLike): Promise<void> {
  const timer = (globalThis as { setTimeout?: (fn: () => void, ms: number) => unknown }).setTimeout;
  const clear = (globalThis as { clearTimeout?: (h: unknown) => void }).clearTimeout;
  if (!timer) return Promise.reject(new Error("No timer on this host: pass `sleep` to createClient"));
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const handle = timer(
      () => {
        signal?.removeEventListener?.("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    function onAbort() {
      clear?.(handle);
      resolve();
    }
    signal?.addEventListener?.("abort", onAbort, { once: true });
  });
}

/** A signal we can abort ourselves that also follows the caller's. */
function linkedSignal(parent?: AbortSignalLike): { signal: AbortSignalLike; abort(): void } {
  const listeners: (() => void)[] = [];
  const signal = {
    aborted: false,
    addEventListener(_type: "abort", fn: () => void) {
      listeners.push(fn);
    },
    removeEventListener(_type: "abort", fn: () => void) {
      const i = listeners.indexOf(fn);
      if (i >= 0) listeners.splice(i, 1);
    },
  };
  const abort = () => {
    if (signal.aborted) return;
    signal.aborted = true;
    listeners.splice(0).forEach((fn) => fn());
  };
  if (parent?.aborted) abort();
  else parent?.addEventListener?.("abort", abort, { once: true });
  return { signal, abort };
}

/** An AbortController where the host has one (browsers, Node), so a timed-out fetch is really ended. */
function requestController(): { signal: unknown; abort(): void } | undefined {
  const AC = (globalThis as { AbortController?: new () => { signal: unknown; abort(): void } }).AbortController;
  return AC ? new AC() : undefined;
}

const RETRYABLE_GET = ["server", "network", "timeout", "malformed_response", "rate_limited"];

/**
 * The demo key never reaches the network: its requests are answered in process by core/demo/demo.ts, loaded only when the
 * key is used (a chunk of its own in the Excel add-in, so the page does not carry the demo's data).
 */
const demoTransport: FetchLike = (url, init) =>
  import(/* webpackChunkName: "demo" */ "../demo/demo").then((m) => m.demoFetch()(url, init));

/**
 * What every request of one client shares: its settings and host timers, the rate-limit headers last seen, the
 * Retry-After hold and the gate's queue. One object, so the client's steps below can be functions of their own.
 */
interface ClientState {
  opts: ClientOptions;
  cfg: ClientConfig;
  sleep: Sleep;
  now: () => number;
  requestTimeoutMs: number;
  maxRetries: number;
  maxWaitMs: number;
  rate: RateLimitInfo | undefined;
  // A Retry-After on a 429 or a 503 holds every request of this client until it has passed (core/service/ratelimit.ts).
  hold: RetryHold;
  gateChain: Promise<void>;
}

function clientState(options: ClientOptions): ClientState {
  const opts: ClientOptions = isDemoKey(options.apiKey) ? { ...options, fetch: demoTransport } : options;
  return {
    opts,
    cfg: { baseUrl: opts.baseUrl, apiKey: opts.apiKey },
    sleep: opts.sleep ?? hostSleep,
    now: opts.now ?? (() => Date.now()),
    requestTimeoutMs: opts.requestTimeoutMs ?? 30000,
    maxRetries: opts.maxRetries ?? 4,
    maxWaitMs: opts.maxWaitMs ?? 90000,
    rate: undefined,
    hold: opts.hold ?? {},
    gateChain: Promise.resolve(),
  };
}

function holdError(st: ClientState, untilMs: number): ServiceError {
  return { ...unavailableUntilError(untilMs), retryAfterMs: Math.max(0, untilMs - st.now()) };
}

const cancelled = () => serviceError("cancelled", "cancelled", "Cancelled before this property was checked.");

/** The refusal of a wait longer than the client accepts: the 503's own words while a 503 holds, else the used-up quota. */
function waitTooLongError(st: ClientState, wait: number, held: number): ServiceError {
  const { hold, rate, now } = st;
  if (held === wait && hold.status === 503) return holdError(st, hold.untilMs!);
  return serviceError(
    "rate_limited",
    "rate_limit_exhausted",
    `The request quota is used up until ${new Date(held === wait ? hold.untilMs! : (rate?.resetAtMs ?? now() + wait)).toISOString()}.`,
    {
      retryAfterMs: wait,
    },
  );
}

/** Requests pass one at a time through the gate, which waits out an exhausted window. */
function gate(st: ClientState, signal?: AbortSignalLike): Promise<void> {
  const turn = st.gateChain.then(async () => {
    const held = Math.max(0, (st.hold.untilMs ?? 0) - st.now());
    const wait = Math.max(held, waitBeforeNextRequest(st.rate, st.now()));
    if (wait > st.maxWaitMs) throw new ComplianceError(waitTooLongError(st, wait, held));
    if (wait > 0) await st.sleep(wait, signal);
    st.rate = spendOne(st.rate);
  });
  st.gateChain = turn.catch(() => undefined);
  return turn;
}

type Interpret<T> = (s: number, h: HeaderSource, t: string, n: number) => Interpreted<T>;
type RawResponse = { status: number; headers: HeaderSource; text: string };

/**
 * One fetch, raced against the request timeout. The fetch gets its own controller, aborted by the caller's signal or
 * by our timeout, so a request that timed out does not stay in flight beside its retry.
 */
async function fetchWithTimeout(st: ClientState, req: HttpRequest, signal?: AbortSignalLike): Promise<RawResponse> {
  let timedOut = false;
  const controller = requestController();
  const onCallerAbort = () => controller?.abort();
  if (controller) {
    if (signal?.aborted) controller.abort();
    else signal?.addEventListener?.("abort", onCallerAbort, { once: true });
  }
  const fetchSignal = controller ? controller.signal : signal;
  const response = st.opts
    .fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: fetchSignal })
    .then(async (res) => ({
      status: res.status,
      headers: res.headers,
      text: await res.text(),
    }));
  // The timeout's timer is released as soon as the response arrives, so it never outlives the request.
  const timer = linkedSignal(signal);
  const timeout = st.sleep(st.requestTimeoutMs, timer.signal).then(() => {
    if (!timer.signal.aborted) timedOut = true;
  });
  const res = await Promise.race([response, timeout]).finally(() => {
    timer.abort();
    signal?.removeEventListener?.("abort", onCallerAbort);
  });
  if (signal?.aborted) throw new ComplianceError(cancelled());
  if (!res || timedOut) {
    response.catch(() => undefined);
    controller?.abort();
    throw new ComplianceError(
      serviceError(
        "timeout",
        "request_timeout",
        `The service did not answer within ${Math.round(st.requestTimeoutMs / 1000)} s.`,
      ),
    );
  }
  return res;
}

/** Keeps a response's Retry-After as the client's hold and its rate-limit headers as the client's rate. */
function noteRateLimit(st: ClientState, status: number, rateLimit: RateLimitInfo): void {
  const until = retryAfterUntil(status, rateLimit, st.now());
  if (until !== undefined && until > (st.hold.untilMs ?? 0)) Object.assign(st.hold, { untilMs: until, status });
  if (rateLimit.limit !== undefined || rateLimit.remaining !== undefined || rateLimit.retryAfterMs !== undefined) {
    st.rate = rateLimit;
    st.opts.onRateLimit?.(st.rate);
  }
}

async function once<T>(
  st: ClientState,
  req: HttpRequest,
  interpret: Interpret<T>,
  signal?: AbortSignalLike,
): Promise<Interpreted<T>> {
  const res = await fetchWithTimeout(st, req, signal);
  const out = interpret(res.status, res.headers, res.text, st.now());
  noteRateLimit(st, res.status, out.rateLimit);
  return out;
}

/** Send with bounded retries: GETs on transient failures; a POST only on 429 (the server refused it, so no job was made). */
async function send<T>(
  st: ClientState,
  req: HttpRequest,
  interpret: Interpret<T>,
  signal?: AbortSignalLike,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw new ComplianceError(cancelled());
    let error: ServiceError;
    try {
      await gate(st, signal);
      const out = await once(st, req, interpret, signal);
      if (out.ok) return out.value;
      error = out.error;
    } catch (e) {
      error = toServiceError(e);
    }
    if (error.kind === "cancelled" || signal?.aborted) throw new ComplianceError(cancelled());
    // A wrong address stays wrong: asking again only delays the message that says to fix the base URL.
    const retryable =
      req.method === "GET"
        ? RETRYABLE_GET.includes(error.kind) && error.code !== "endpoint_not_found"
        : error.kind === "rate_limited";
    if (!retryable || attempt > st.maxRetries) throw new ComplianceError(error);
    const delay = retryDelay(attempt, error.retryAfterMs);
    if (delay > st.maxWaitMs)
      throw new ComplianceError(
        error.status === 503 && st.hold.status === 503 && st.hold.untilMs !== undefined
          ? holdError(st, st.hold.untilMs)
          : error,
      );
    await st.sleep(delay, signal);
  }
}

/** One screening run: its rows, their plan and run state, and what each property has settled to so far. */
interface Screening {
  rows: InputRow[];
  plan: ReturnType<typeof planScreening>;
  state: ReturnType<typeof createRun>;
  byProperty: (Outcome | undefined)[];
  done: number;
}

function startScreening(st: ClientState, properties: readonly PropertyQuery[], o: ScreenOptions): Screening {
  const rows: InputRow[] = properties.map((p, i) => ({
    ...normaliseProperty(p?.uprn, p?.postcode, p?.address),
    index: i,
  }));
  const plan = planScreening(rows, { plan: o.plan });
  const state = createRun(rows, { plan: o.plan, nowMs: st.now(), checks: o.checks, jobTimeoutMs: o.jobTimeoutMs });
  return { rows, plan, state, byProperty: new Array(plan.properties.length), done: 0 };
}

/** Tells the caller which rows settled since the last report (the properties given and any rows besides). */
function reportProgress(
  st: ClientState,
  sc: Screening,
  o: ScreenOptions,
  propertyIdxs: number[],
  extraRows: number[] = [],
) {
  const rowIdxs = [...rowsForProperties(sc.plan, propertyIdxs), ...extraRows];
  sc.done += rowIdxs.length;
  if (!o.onProgress || !rowIdxs.length) return;
  const perRow = fanOut(sc.plan, sc.rows, sc.byProperty);
  const c = runCounts(sc.state);
  o.onProgress({
    jobsTotal: c.jobsTotal,
    jobsSubmitted: c.jobsSent,
    propertiesTotal: sc.rows.length,
    propertiesDone: sc.done,
    completed: rowIdxs.sort((a, b) => a - b).map((r) => ({ index: r, outcome: perRow[r]! })),
    rateLimit: st.rate,
  });
}

/** A wait asked for before this run still holds it; one asked for during it that paused it holds what follows. */
function applyHeldWait(st: ClientState, state: Screening["state"]): void {
  const { hold } = st;
  if (hold.untilMs !== undefined && hold.untilMs > st.now()) {
    holdUntil(state, hold.untilMs, hold.status === 503 ? unavailableUntilError(hold.untilMs) : undefined);
  }
}

/** Runs the bulk jobs, keeping each property's first final outcome and reporting it as it comes. */
function driveScreening(st: ClientState, sc: Screening, o: ScreenOptions) {
  return driveRun(sc.state, {
    cfg: st.cfg,
    fetch: st.opts.fetch,
    sleep: st.sleep,
    now: st.now,
    signal: o.signal,
    requestTimeoutMs: st.requestTimeoutMs,
    onRateLimit: (rl) => {
      if (rl) {
        st.rate = rl;
        st.opts.onRateLimit?.(rl);
      }
    },
    write: async (items) => {
      const fresh: number[] = [];
      for (const it of items) {
        if (!it.final || sc.byProperty[it.property]) continue;
        sc.byProperty[it.property] = it.outcome;
        fresh.push(it.property);
      }
      reportProgress(st, sc, o, fresh);
      return items.map((it) => ({ property: it.property, present: true }));
    },
  });
}

/** A paused run (a quota used up for longer than a caller should wait) or a stopped one answers every property now. */
function settleUnfinished(st: ClientState, sc: Screening, o: ScreenOptions): void {
  const { state, byProperty } = sc;
  if (state.phase === "paused" && state.pausedUntilMs !== undefined && state.pausedUntilMs > (st.hold.untilMs ?? 0))
    Object.assign(st.hold, {
      untilMs: state.pausedUntilMs,
      status: state.pauseReason?.code === "service_unavailable" ? 503 : 429,
    });
  if (state.phase !== "ended") {
    endRun(state, state.phase === "paused" && state.pauseReason ? state.pauseReason : cancelled());
    const rest: number[] = [];
    for (const it of outcomesToWrite(state)) {
      if (byProperty[it.property]) continue;
      byProperty[it.property] = it.outcome;
      rest.push(it.property);
    }
    reportProgress(st, sc, o, rest);
  }
}

/** Anything still unsettled (should not happen) is said, not dropped. */
function settleMissing(st: ClientState, sc: Screening, o: ScreenOptions): void {
  const rest: number[] = [];
  for (let p = 0; p < sc.plan.properties.length; p++) {
    if (sc.byProperty[p]) continue;
    sc.byProperty[p] = { error: serviceError("server", "no_result", "No result was received for this property.") };
    rest.push(p);
  }
  reportProgress(st, sc, o, rest);
}

async function screen(st: ClientState, properties: readonly PropertyQuery[], o: ScreenOptions): Promise<Outcome[]> {
  const sc = startScreening(st, properties, o);
  reportProgress(
    st,
    sc,
    o,
    [],
    sc.rows.map((r, i) => (r.error ? i : -1)).filter((i) => i >= 0),
  );
  applyHeldWait(st, sc.state);
  await driveScreening(st, sc, o);
  settleUnfinished(st, sc, o);
  settleMissing(st, sc, o);
  return fanOut(sc.plan, sc.rows, sc.byProperty) as Outcome[];
}

export function createClient(options: ClientOptions) {
  const st = clientState(options);
  const { cfg } = st;
  const client = {
    config: cfg,
    /** What hosts driving the run engine themselves (driveRun) send with: the same fetch, timer and clock. */
    transport: { fetch: st.opts.fetch, sleep: st.sleep, now: st.now, requestTimeoutMs: st.requestTimeoutMs },
    lastRateLimit: () => st.rate,

    check(q: PropertyQuery, o: { signal?: AbortSignalLike } = {}): Promise<CheckResult> {
      return send(st, buildCheckRequest(cfg, q), interpretCheckResponse, o.signal);
    },

    submitBulk(
      properties: PropertyQuery[],
      o: { checks?: CheckName[]; callbackUrl?: string; signal?: AbortSignalLike } = {},
    ): Promise<BulkJob> {
      return send(st, buildBulkSubmitRequest(cfg, properties, o), interpretBulkSubmitResponse, o.signal);
    },

    getBulkResults(resultsUrlOrPath: string, o: { signal?: AbortSignalLike } = {}): Promise<ResultsPage> {
      return send(st, buildBulkResultsRequest(cfg, resultsUrlOrPath), interpretResultsResponse, o.signal);
    },

    lookupAddresses(
      q: { postcode?: string; query?: string; limit?: number },
      o: { signal?: AbortSignalLike } = {},
    ): Promise<AddressList> {
      return send(st, buildAddressLookupRequest(cfg, q), interpretAddressResponse, o.signal);
    },

    /**
     * Screen many properties with bulk jobs. The result has the same length and order as `properties`;
     * each element is { result } or { error }. Service failures become errors on their rows, never a rejection.
     */
    screen(properties: readonly PropertyQuery[], o: ScreenOptions = {}): Promise<Outcome[]> {
      return screen(st, properties, o);
    },
  };
  return client;
}

export type ComplianceClient = ReturnType<typeof createClient>;
