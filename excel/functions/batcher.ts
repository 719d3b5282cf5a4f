/**
 * Collects COMPLIANCE.* calls that arrive within a short window, answers fresh ones from a cache, and sends the
 * rest as bulk jobs (one per plan-cap chunk; a plain GET /api/check each when ten or fewer are missing and the rate limit leaves room).
 * No Office globals here: fetch, timers and settings are injected so jest can run it against the real sandbox.
 */
import {
  ComplianceError,
  describeError,
  isAboutProperty,
  normaliseUprn,
  propertyKey,
  serviceError,
  toServiceError,
  type CheckResult,
  type PlanName,
  type RateLimitInfo,
  type RetryHold,
  type ServiceError,
} from "../../core";
import { createServiceClient } from "../service-client";

export interface BatcherConfig {
  baseUrl: string;
  apiKey: string | null;
  plan: PlanName;
}

export interface BatcherOptions {
  /** Read at every flush, so a key set in the task pane applies to the next batch. */
  getConfig: () => Promise<BatcherConfig>;
  fetch: typeof fetch;
  /**
   * Collect window: a batch is sent once no call has arrived for this long (Microsoft's batching sample waits about
   * 100 ms after the first call). Excel hands a recalculation's calls over in bursts, so the window restarts with each
   * call, up to `maxWaitMs` after the first one.
   */
  windowMs?: number;
  /** Longest a call waits for its batch to be sent while calls keep arriving. */
  maxWaitMs?: number;
  /** How long a result answers recalculations without a request. */
  cacheTtlMs?: number;
  /** Upper bound for one flush, so no cell can stay on #BUSY! even if the service never answers. */
  flushTimeoutMs?: number;
  /** Bulk jobs are kept short for cells: past this, the job's unanswered calls get a timeout error. */
  jobTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * A batch of at most this many UPRNs is checked with one GET each, in parallel, while the minute's allowance has
   * room (at least half of it left after them); larger batches, or a tight allowance, go as a bulk job. Measured on
   * the sandbox (`npm run bench`, bench/waiting.ts): 3 or 10 single GETs answer in a few ms, while a bulk job cannot
   * answer before its POST, the processing of every property (20 ms each) and a GET at its end, so singles are
   * several times faster for a handful; a bulk job costs 2 requests whatever its size, so beyond ten it is kinder
   * to the allowance.
   */
  singleCheckLimit?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  onRateLimit?: (info: RateLimitInfo) => void;
}

/** What a cell shows for an error: Excel's #N/A or #VALUE!, each with a message (only these two carry one). */
export interface FunctionError {
  code: "notAvailable" | "invalidValue";
  message: string;
}

/** Map a service error to the cell error the issue specifies: not found and bad UPRN have fixed wording. */
export function toFunctionError(e: unknown): FunctionError {
  const err = toServiceError(e);
  if (err.kind === "not_found" && !aboutProperty(err)) {
    // A 404 that is not the service saying "no such property": the property may well exist, so say what to check.
    return {
      code: "notAvailable",
      message: `HTTP ${err.status ?? 404}${err.message ? `: ${err.message}` : ""}. If every cell says this, check the base URL in Settings (it ends in /v1).`,
    };
  }
  if (err.kind === "not_found")
    return {
      code: "notAvailable",
      message:
        err.code === "property_not_found" || !err.message ? "property not found" : `property not found: ${err.message}`,
    };
  // "invalid UPRN" as the issue words it; our own checks of odd arguments add what is wrong after a colon.
  if (err.code === "invalid_uprn")
    return { code: "invalidValue", message: err.message.startsWith("invalid UPRN:") ? err.message : "invalid UPRN" };
  if (err.kind === "invalid_input") return { code: "invalidValue", message: describeError(err) };
  return { code: "notAvailable", message: describeError(err) };
}

/** A function argument as one value: a 1x1 range is its cell; a larger range is an error (the UPRN is one cell). */
function oneValue(v: unknown): { value: unknown } | { error: string } {
  if (!Array.isArray(v)) return { value: v };
  const cells = v.flat();
  if (cells.length === 1) return { value: cells[0] };
  return { error: `invalid UPRN: give one cell, not a range of ${cells.length} cells` };
}

/** Arguments Excel passes that are no UPRN whatever their text: an empty cell, TRUE/FALSE, too many digits. */
function oddUprn(v: unknown): string | null {
  if (v === null || v === undefined || (typeof v === "string" && v.trim() === ""))
    return "invalid UPRN: the cell is empty";
  if (typeof v === "boolean") return `invalid UPRN: ${v ? "TRUE" : "FALSE"} is a logical value, not a UPRN`;
  const digits =
    typeof v === "number" && Number.isInteger(v) && v >= 0
      ? String(v)
      : typeof v === "string"
        ? v.trim().replace(/[\s\u00a0]+/g, "")
        : "";
  if (/^\d{13,}$/.test(digits)) return `invalid UPRN: ${digits.length} digits; a UPRN has at most 12`;
  if (typeof v === "number" && !Number.isInteger(v)) return "invalid UPRN: a UPRN is a whole number of up to 12 digits";
  return null;
}

interface CacheEntry {
  outcome: { result: CheckResult; checkedAt: string } | { error: ServiceError };
  expiresAt: number;
}

/** Settles the calls of one batch: `finish` one key (once), or `failAll` that are left with one error. */
interface Settlement {
  finish(key: string, outcome: { result: CheckResult } | { error: ServiceError }, checkedAt: string): void;
  failAll(error: ServiceError): void;
}

type ServiceClient = Awaited<ReturnType<typeof createServiceClient>>;

interface Waiter {
  resolve: (v: { result: CheckResult; checkedAt: string }) => void;
  reject: (e: ComplianceError) => void;
}

/**
 * The codes the service contract gives to facts about a property: no such property, several at that postcode, a UPRN or
 * postcode that cannot be one. Any other 404 or 400 is about the request or its address: an unknown path (`not_found`),
 * or another server's page at a wrong base URL, such as Fastify's "Route GET:/v1/api/check?uprn=... not found", which
 * names a UPRN and so passes for a property answer.
 */
const PROPERTY_FACTS = new Set(["property_not_found", "ambiguous_property", "invalid_uprn", "invalid_postcode"]);

/** A fact about the property asked for (core's isAboutProperty, in the contract's own words), true until its data changes. */
function aboutProperty(e: ServiceError): boolean {
  return isAboutProperty(e) && PROPERTY_FACTS.has(e.code);
}

/**
 * Only facts about a property are cached like results. A server, network or configuration error (wrong base URL, bad
 * key, a proxy's 404 page) is never cached: once it is fixed, the next recalculation must ask again.
 */
function cacheable(e: ServiceError): boolean {
  return aboutProperty(e);
}

export class CheckBatcher {
  private readonly cache = new Map<string, CacheEntry>();
  /** A Retry-After the service sent (429 or 503), kept across the client each batch makes: no request before it. */
  private readonly hold: RetryHold = {};
  /** Calls waiting for the next flush, by property key. */
  private pending = new Map<string, { uprn: string; waiters: Waiter[] }>();
  /** Calls already sent, by property key: a repeat joins them instead of asking again. */
  private readonly inFlight = new Map<string, Promise<{ result: CheckResult; checkedAt: string }>>();
  private timer: unknown = undefined;
  /** When the first call of the batch being collected arrived. */
  private collectingSince = 0;
  private generation = 0;
  /** The service's last word on the rate limit, to tell whether single checks can be afforded. */
  private rate: RateLimitInfo | undefined;
  private readonly o: Required<Omit<BatcherOptions, "onRateLimit" | "sleep">> &
    Pick<BatcherOptions, "onRateLimit" | "sleep">;

  constructor(options: BatcherOptions) {
    this.o = {
      windowMs: 100,
      maxWaitMs: 1000,
      cacheTtlMs: 10 * 60_000,
      flushTimeoutMs: 5 * 60_000,
      jobTimeoutMs: 4 * 60_000,
      requestTimeoutMs: 30_000,
      singleCheckLimit: 10,
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      now: () => Date.now(),
      ...options,
    };
  }

  /** The check result of one UPRN, with the time it was fetched. Rejects with a ComplianceError. */
  check(uprnInput: unknown): Promise<{ result: CheckResult; checkedAt: string }> {
    const arg = oneValue(uprnInput);
    const value = "error" in arg ? undefined : arg.value;
    const odd = "error" in arg ? arg.error : oddUprn(value);
    if (odd) return Promise.reject(new ComplianceError(serviceError("invalid_input", "invalid_uprn", odd)));
    const u = normaliseUprn(value);
    if ("error" in u)
      return Promise.reject(new ComplianceError(serviceError("invalid_input", "invalid_uprn", u.error.message)));
    const key = propertyKey({ uprn: u.uprn });
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > this.o.now()) {
      return "error" in cached.outcome
        ? Promise.reject(new ComplianceError(cached.outcome.error))
        : Promise.resolve(cached.outcome);
    }
    const flying = this.inFlight.get(key);
    if (flying) return flying;
    return new Promise((resolve, reject) => {
      const entry = this.pending.get(key) ?? { uprn: u.uprn, waiters: [] };
      entry.waiters.push({ resolve, reject });
      this.pending.set(key, entry);
      this.scheduleFlush();
    });
  }

  /** (Re)start the collect window: sent after a quiet `windowMs`, or at `maxWaitMs` after the first call at the latest. */
  private scheduleFlush(): void {
    const now = this.o.now();
    if (this.timer === undefined) this.collectingSince = now;
    else this.o.clearTimer(this.timer);
    const wait = Math.max(0, Math.min(this.o.windowMs, this.collectingSince + this.o.maxWaitMs - now));
    this.timer = this.o.setTimer(() => {
      this.timer = undefined;
      void this.flush();
    }, wait);
  }

  /** Forget every cached answer (the task pane's Refresh); calls already sent still settle. */
  clear(): void {
    this.cache.clear();
    this.generation++;
  }

  cacheSize(): number {
    return this.cache.size;
  }

  private noteRate(rl: RateLimitInfo): void {
    this.rate = rl;
    this.o.onRateLimit?.(rl);
  }

  /** Single checks for n UPRNs leave at least half the window's allowance (always, until the service has stated one). */
  private singlesAffordable(n: number): boolean {
    const rl = this.rate;
    if (!rl || rl.limit === undefined || rl.remaining === undefined) return true;
    if (rl.resetAtMs !== undefined && rl.resetAtMs <= this.o.now()) return true;
    return rl.remaining - n >= rl.limit / 2;
  }

  /** Takes the calls collected so far out of the collect window (undefined when there are none). */
  private takeBatch(): Map<string, { uprn: string; waiters: Waiter[] }> | undefined {
    if (this.timer !== undefined) {
      this.o.clearTimer(this.timer);
      this.timer = undefined;
    }
    const batch = this.pending;
    this.pending = new Map();
    return batch.size === 0 ? undefined : batch;
  }

  /**
   * One shared promise per key of the batch, so that calls arriving while it is out join it; `finish` settles a key
   * (once) and caches its answer, `failAll` settles every key not yet settled with one error.
   */
  private settlement(batch: Map<string, { uprn: string; waiters: Waiter[] }>): Settlement {
    const generation = this.generation;
    const outcomes = new Map<string, Waiter>();
    for (const key of batch.keys()) {
      const p = new Promise<{ result: CheckResult; checkedAt: string }>((resolve, reject) =>
        outcomes.set(key, { resolve, reject }),
      );
      p.catch(() => undefined); // a key nobody else joins must not raise an unhandled rejection
      this.inFlight.set(key, p);
      p.then(
        (v) => batch.get(key)!.waiters.forEach((w) => w.resolve(v)),
        (e) => batch.get(key)!.waiters.forEach((w) => w.reject(e)),
      );
    }
    const finish = (key: string, outcome: { result: CheckResult } | { error: ServiceError }, checkedAt: string) => {
      const o = outcomes.get(key);
      if (!o) return;
      outcomes.delete(key);
      this.inFlight.delete(key);
      if ("error" in outcome) {
        if (cacheable(outcome.error) && generation === this.generation) {
          this.cache.set(key, { outcome: { error: outcome.error }, expiresAt: this.o.now() + this.o.cacheTtlMs });
        }
        o.reject(new ComplianceError(outcome.error));
      } else {
        const value = { result: outcome.result, checkedAt };
        if (generation === this.generation)
          this.cache.set(key, { outcome: value, expiresAt: this.o.now() + this.o.cacheTtlMs });
        o.resolve(value);
      }
    };
    const failAll = (error: ServiceError) => {
      for (const key of [...outcomes.keys()]) finish(key, { error }, new Date(this.o.now()).toISOString());
    };
    return { finish, failAll };
  }

  /** One GET per UPRN, in parallel, each cell settled by its own answer. */
  private async checkSingly(client: ServiceClient, keys: string[], uprns: string[], s: Settlement): Promise<void> {
    await Promise.all(
      keys.map(async (key, i) => {
        try {
          const result = await client.check({ uprn: uprns[i] });
          s.finish(key, { result }, new Date(this.o.now()).toISOString());
        } catch (e) {
          s.finish(key, { error: toServiceError(e) }, new Date(this.o.now()).toISOString());
        }
      }),
    );
  }

  /** Bulk jobs for the batch; cells are settled as their results arrive rather than when the last job ends. */
  private async screenInBulk(
    client: ServiceClient,
    cfg: BatcherConfig,
    keys: string[],
    uprns: string[],
    s: Settlement,
  ): Promise<void> {
    await client
      .screen(
        uprns.map((uprn) => ({ uprn })),
        {
          plan: cfg.plan,
          jobTimeoutMs: this.o.jobTimeoutMs,
          onProgress: (p) => {
            const at = new Date(this.o.now()).toISOString();
            for (const c of p.completed) s.finish(keys[c.index], c.outcome, at);
            if (p.rateLimit) this.noteRate(p.rateLimit);
          },
        },
      )
      .then((all) => {
        const at = new Date(this.o.now()).toISOString();
        all.forEach((outcome, i) => s.finish(keys[i], outcome, at));
      });
  }

  /** Asks the service about the batch with the settings of the moment: single checks when few and affordable, else bulk. */
  private async send(batch: Map<string, { uprn: string; waiters: Waiter[] }>, s: Settlement): Promise<void> {
    const keys = [...batch.keys()];
    const cfg = await this.o.getConfig();
    if (!cfg.apiKey) {
      s.failAll(
        serviceError("auth", "missing_api_key", "No API key set. Open Home > Compliance Check and enter your key"),
      );
      return;
    }
    const client = await createServiceClient({
      baseUrl: cfg.baseUrl,
      apiKey: cfg.apiKey,
      fetch: this.o.fetch,
      now: this.o.now,
      ...(this.o.sleep ? { sleep: this.o.sleep } : {}),
      requestTimeoutMs: this.o.requestTimeoutMs,
      hold: this.hold,
    });
    const uprns = keys.map((k) => batch.get(k)!.uprn);
    if (keys.length <= this.o.singleCheckLimit && this.singlesAffordable(keys.length))
      await this.checkSingly(client, keys, uprns, s);
    else await this.screenInBulk(client, cfg, keys, uprns, s);
    const rl = client.lastRateLimit();
    if (rl) this.noteRate(rl);
  }

  /** Send everything collected so far. Every waiter is settled, whatever happens. */
  async flush(): Promise<void> {
    const batch = this.takeBatch();
    if (!batch) return;
    const s = this.settlement(batch);
    const guard = this.o.setTimer(() => {
      s.failAll(
        serviceError(
          "timeout",
          "timeout",
          `No answer from the compliance service within ${Math.round(this.o.flushTimeoutMs / 1000)} s.`,
        ),
      );
    }, this.o.flushTimeoutMs);
    try {
      await this.send(batch, s);
    } catch (e) {
      s.failAll(toServiceError(e));
    } finally {
      // Anything the service left unanswered still gets an answer.
      this.o.clearTimer(guard);
      s.failAll(serviceError("malformed_response", "no_result", "The service returned no result for this property."));
    }
  }
}
