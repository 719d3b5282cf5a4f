/**
 * X-RateLimit-* and Retry-After parsing, and the pure policy of how long to wait. The spec does not say
 * whether X-RateLimit-Reset is seconds to wait or a Unix time: both are read, and a date too (see
 * docs/service-contract.md); a server using the IETF draft's RateLimit-* headers instead is read alike.
 */

import { serviceError, type ServiceError } from "./errors";
import { utcMinute } from "../numbers";

export interface RateLimitInfo {
  limit?: number;
  remaining?: number;
  /** When the announced window resets, ms since the epoch. */
  resetAtMs?: number;
  /** From Retry-After, ms to wait from when the response arrived. */
  retryAfterMs?: number;
  observedAtMs?: number;
}

export type HeaderSource =
  | { get(name: string): string | null }
  | Record<string, string | string[] | number | undefined | null>
  | undefined
  | null;

/** Read one header from a fetch Headers object or a plain object of any key casing (UrlFetchApp's). */
export function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  const h = headers as { get?: unknown };
  if (typeof h.get === "function") {
    const v = (headers as { get(n: string): string | null }).get(name);
    return v === null || v === undefined ? undefined : String(v);
  }
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() !== lower || v === undefined || v === null) continue;
    return Array.isArray(v) ? String(v[0]) : String(v);
  }
  return undefined;
}

/**
 * How far the server's clock is ahead of ours (ms; negative when behind), from the response's Date header, or 0 when
 * the two agree within the header's one-second resolution (2 s allowed) or there is no Date. A job's
 * estimated_completion is the server's time: read with this, a client whose clock is days off still polls on time.
 */
export function serverClockOffsetMs(headers: HeaderSource, nowMs: number): number {
  const date = Date.parse(headerValue(headers, "Date") ?? "");
  if (!Number.isFinite(date)) return 0;
  const offset = date - nowMs;
  return Math.abs(offset) > 2000 ? offset : 0;
}

function num(s: string | undefined): number | undefined {
  const first = s === undefined ? "" : String(s).split(",")[0].trim();
  // A blank header says nothing (Number("") would read it as 0: "no requests left").
  if (first === "") return undefined;
  const n = Number(first);
  return Number.isFinite(n) ? n : undefined;
}

/** Reset as delta seconds (the sandbox), Unix seconds (> 1e9) or Unix milliseconds (> 1e12). */
export function resetToEpochMs(raw: number, nowMs: number): number {
  if (raw > 1e12) return raw;
  if (raw > 1e9) return raw * 1000;
  return nowMs + Math.max(0, raw) * 1000;
}

/** Retry-After is delta seconds or an HTTP date. */
export function parseRetryAfter(raw: string | undefined, nowMs: number): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw.trim());
  if (Number.isFinite(n)) return Math.max(0, n * 1000);
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - nowMs) : undefined;
}

/** The IETF draft's single header, `RateLimit: limit=60, remaining=0, reset=30` (older drafts: "r=0, t=30"). */
function draftField(headers: HeaderSource, names: string[]): string | undefined {
  const combined = headerValue(headers, "ratelimit");
  if (!combined) return undefined;
  for (const part of combined.split(/[;,]/)) {
    const [k, v] = part.split("=").map((x) => x.trim().toLowerCase());
    if (v !== undefined && names.includes(k)) return v.replace(/^"|"$/g, "");
  }
  return undefined;
}

/** X-RateLimit-* (the spec's), else the IETF draft's RateLimit-* or its one RateLimit header. */
function rateHeader(
  headers: HeaderSource,
  name: "limit" | "remaining" | "reset",
  draftNames: string[],
): string | undefined {
  return (
    headerValue(headers, `x-ratelimit-${name}`) ??
    headerValue(headers, `ratelimit-${name}`) ??
    draftField(headers, draftNames)
  );
}

export function parseRateLimit(headers: HeaderSource, nowMs: number): RateLimitInfo {
  const info: RateLimitInfo = { observedAtMs: nowMs };
  const limit = num(rateHeader(headers, "limit", ["limit", "l"]));
  const remaining = num(rateHeader(headers, "remaining", ["remaining", "r"]));
  const resetText = rateHeader(headers, "reset", ["reset", "t"]);
  const reset = num(resetText);
  const retryAfter = parseRetryAfter(headerValue(headers, "retry-after"), nowMs);
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = Math.max(0, remaining);
  if (reset !== undefined) info.resetAtMs = resetToEpochMs(reset, nowMs);
  else if (resetText && /[a-z]/i.test(resetText)) {
    // A date (ISO 8601 or an HTTP date) rather than a number.
    const at = Date.parse(resetText);
    if (Number.isFinite(at)) info.resetAtMs = at;
  }
  if (retryAfter !== undefined) info.retryAfterMs = retryAfter;
  return info;
}

/**
 * How long to wait before the next request so as never to exceed an announced limit: nothing while
 * requests remain; until the reset (or Retry-After) when none do. Unknown headers: no wait.
 */
export function waitBeforeNextRequest(info: RateLimitInfo | undefined, nowMs: number): number {
  if (!info) return 0;
  const observed = info.observedAtMs ?? nowMs;
  let wait = 0;
  if (info.retryAfterMs !== undefined && info.remaining === 0)
    wait = Math.max(wait, observed + info.retryAfterMs - nowMs);
  if (info.remaining !== undefined && info.remaining <= 0) {
    if (info.resetAtMs !== undefined) wait = Math.max(wait, info.resetAtMs - nowMs);
    else if (info.retryAfterMs === undefined) wait = Math.max(wait, observed + 1000 - nowMs);
  }
  return Math.max(0, Math.ceil(wait));
}

/**
 * Delay before retry number `attempt` (1-based): the server's Retry-After in full if given (never cut: a caller that
 * will not wait that long fails or pauses instead), else capped exponential.
 */
export function retryDelay(attempt: number, retryAfterMs?: number, baseMs = 500, maxMs = 20000): number {
  if (retryAfterMs !== undefined) return Math.max(retryAfterMs, 0);
  const exp = Math.min(maxMs, baseMs * Math.pow(2, Math.max(0, attempt - 1)));
  return Math.round(exp / 2 + Math.random() * (exp / 2));
}

/** Record one request sent: the remaining count we know of goes down, so concurrent callers pace too. */
export function spendOne(info: RateLimitInfo | undefined): RateLimitInfo | undefined {
  if (!info || info.remaining === undefined) return info;
  return { ...info, remaining: Math.max(0, info.remaining - 1) };
}

/** A wait the service asked for, kept by a host across the clients it makes (Excel's functions make one per batch). */
export interface RetryHold {
  untilMs?: number;
  /** The status that asked for it: 429 (too many requests) or 503 (unavailable). */
  status?: number;
}

/**
 * Until when no request may go out after a reply, by its Retry-After: on a 429 (too many requests) and a 503 (service
 * unavailable) alike, whatever the rate-limit headers say. Undefined when the reply names no wait. Both the client and
 * the run engine hold every request of theirs until then.
 */
export function retryAfterUntil(status: number, info: RateLimitInfo, nowMs: number): number | undefined {
  if ((status !== 429 && status !== 503) || info.retryAfterMs === undefined) return undefined;
  return (info.observedAtMs ?? nowMs) + Math.max(0, info.retryAfterMs);
}

/**
 * Why nothing is sent until `untilMs` after a 503 with a Retry-After: the service's own request, said with the time
 * (UTC), for a cell, a run's pause or a row.
 */
export function unavailableUntilError(untilMs: number): ServiceError {
  return serviceError(
    "server",
    "service_unavailable",
    `The compliance service is unavailable (HTTP 503) and asked for no retry before ${utcMinute(untilMs)}`,
    { status: 503 },
  );
}
