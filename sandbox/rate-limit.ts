/**
 * Rate limiting on @fastify/rate-limit: the plugin's own hook is the minute window (counting, the
 * X-RateLimit-* headers, Retry-After and the 429 through `errorResponseBuilder`), and a second limiter
 * from `fastify.createRateLimit()` is the day window. Both count in a store driven by the sandbox clock.
 * What the plugin cannot do alone, `limitRequest` adds: the day window's 429 (scope "day"), and the
 * headers naming the day window when it is closer to running out than the minute window.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import rateLimit, {
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
  normalizeIP,
} from "@fastify/rate-limit";
import { ApiError } from "./errors";
import { type PlanLimits, authenticate } from "./plans";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export interface RateLimits {
  /**
   * Counts `req` against its caller's minute and day windows and sets the X-RateLimit-* headers on
   * `reply`; throws the contract's 429 (Retry-After set) when a window is spent. A refused request is
   * counted in neither window.
   */
  limitRequest(req: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Clears every window. */
  reset(): void;
}

interface Window {
  start: number;
  count: number;
}

/**
 * A store class for the plugin: fixed windows from a caller's first counted request, timed by `clock`
 * (the plugin's LocalStore reads Date.now()). A request over the limit is reported (current = max + 1)
 * but not counted, as the contract says. Every instance (the plugin's and its children) shares one map,
 * under a prefix of its own, so `reset` clears them all.
 */
function clockStore(clock: () => number): { Store: FastifyRateLimitStoreCtor; reset(): void } {
  const windows = new Map<string, Window>();
  let instances = 0;

  class ClockStore implements FastifyRateLimitStore {
    private readonly prefix = `${instances++}:`;

    incr(
      key: string,
      cb: (err: Error | null, res?: { current: number; ttl: number }) => void,
      timeWindow: number,
      max: number,
    ): void {
      const now = clock();
      let w = windows.get(this.prefix + key);
      if (!w || now - w.start >= timeWindow) {
        w = { start: now, count: 0 };
        windows.set(this.prefix + key, w);
      }
      const ttl = w.start + timeWindow - now;
      if (w.count >= max) return cb(null, { current: max + 1, ttl });
      w.count++;
      cb(null, { current: w.count, ttl });
    }

    /** The non-mutating peek behind `{ increment: false }`. */
    read(
      key: string,
      cb: (err: Error | null, res?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      const now = clock();
      const w = windows.get(this.prefix + key);
      if (!w || now - w.start >= timeWindow) return cb(null, { current: 0, ttl: 0 });
      cb(null, { current: w.count, ttl: w.start + timeWindow - now });
    }

    child(): FastifyRateLimitStore {
      return new ClockStore();
    }
  }

  return { Store: ClockStore, reset: () => windows.clear() };
}

function setHeaders(reply: FastifyReply, limit: number, remaining: number, reset: number): void {
  reply.header("x-ratelimit-limit", limit);
  reply.header("x-ratelimit-remaining", remaining);
  reply.header("x-ratelimit-reset", reset);
}

/** Registers @fastify/rate-limit on `app` (not on its routes: `limitRequest` is called by the app's hook). */
export async function registerRateLimits(
  app: FastifyInstance,
  clock: () => number,
  limits: Record<"professional" | "enterprise", PlanLimits>,
): Promise<RateLimits> {
  /** Who a request counts against: its valid API key, else its IP (normalised as the plugin does) with the professional numbers. */
  const callers = new WeakMap<FastifyRequest, { id: string; limits: PlanLimits }>();
  const callerOf = (req: FastifyRequest) => {
    let caller = callers.get(req);
    if (!caller) {
      const auth = authenticate(req.headers.authorization);
      caller =
        auth.kind === "ok"
          ? { id: `key:${auth.key}`, limits: limits[auth.plan] }
          : { id: `ip:${normalizeIP(req.ip)}`, limits: limits.professional };
      callers.set(req, caller);
    }
    return caller;
  };
  const store = clockStore(clock);
  await app.register(rateLimit, {
    // Not per route: the app's onRequest hook calls the limiter for every request it limits (unknown
    // paths and undecodable URLs included) before authentication, and around it the day window.
    global: false,
    store: store.Store,
    keyGenerator: (req) => callerOf(req).id,
    max: (req) => callerOf(req).limits.perMinute,
    timeWindow: MINUTE_MS,
    errorResponseBuilder: (_req, ctx) => {
      const retryAfter = Math.ceil(ctx.ttl / 1000);
      return new ApiError(
        429,
        "rate_limited",
        `Rate limit exceeded (${ctx.max} requests per minute); retry in ${retryAfter} s.`,
        { scope: "minute", retry_after: retryAfter },
        retryAfter,
      );
    },
  });
  const perMinute = app.rateLimit();
  const perDay = app.createRateLimit({ timeWindow: DAY_MS, max: (req) => callerOf(req).limits.perDay });

  return {
    async limitRequest(req, reply) {
      // Peek first so that a request refused for the day is not counted in the minute window. The store
      // answers synchronously, so nothing runs between this peek and the count below.
      const day = await perDay(req, { increment: false });
      if (!day.isAllowed && day.remaining === 0) {
        const retryAfter = day.ttlInSeconds;
        setHeaders(reply, day.max, 0, retryAfter);
        throw new ApiError(
          429,
          "rate_limited",
          `Rate limit exceeded (${day.max} requests per day); retry in ${retryAfter} s.`,
          { scope: "day", retry_after: retryAfter },
          retryAfter,
        );
      }
      await perMinute.call(app, req, reply);
      const counted = await perDay(req);
      if (counted.isAllowed) return;
      const minuteLeft = Number(reply.getHeader("x-ratelimit-remaining"));
      if (counted.remaining < minuteLeft) setHeaders(reply, counted.max, counted.remaining, counted.ttlInSeconds);
    },
    reset: store.reset,
  };
}
