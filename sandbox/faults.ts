/**
 * Fault rules switched on at run time (over /__sandbox/faults or the startSandbox handle) so that
 * clients can be tested against slow, failing, throttled, garbled and stuck responses.
 */
import { ApiError } from "./errors";

export const FAULT_KINDS = [
  "latency",
  "error_500",
  "error_503",
  "rate_limit",
  "malformed_json",
  "job_fail",
  "job_stall",
  // The job IS created, then the answer fails: a 504 from a gateway, a garbled body, or the connection dropped.
  "created_504",
  "created_garbled",
  "created_drop",
] as const;
/** Faults that hit a bulk submit after its job was made (the client must not POST it again). */
export const AFTER_CREATE_FAULTS = ["created_504", "created_garbled", "created_drop"] as const;
export type AfterCreateFault = (typeof AFTER_CREATE_FAULTS)[number];
export type FaultKind = (typeof FAULT_KINDS)[number];
export const FAULT_ROUTES = ["check", "bulk_submit", "bulk_results", "addresses", "any"] as const;
export type FaultRoute = (typeof FAULT_ROUTES)[number];
/** The API routes a request can belong to; `other` is an unknown path (faults never apply). */
export type ApiRoute = Exclude<FaultRoute, "any"> | "other";

export interface FaultRule {
  kind: FaultKind;
  /** Which requests it hits; default `any`. Ignored by job_fail / job_stall, which hit new jobs. */
  route?: FaultRoute;
  /** How many matching requests (or new jobs) it hits; default every one. */
  count?: number;
  /** For `latency`: the delay in ms (default 1000). */
  latency_ms?: number;
  /** For `error_503`: a Retry-After of this many seconds (none by default). */
  retry_after?: number;
}

interface ActiveRule extends Required<Pick<FaultRule, "kind" | "route">> {
  remaining: number; // Infinity = every one
  latency_ms: number;
  retry_after?: number;
}

/** What a request should suffer: a delay, and at most one replacing fault. */
export interface RequestFault {
  latencyMs: number;
  fault: null | "error_500" | "error_503" | "rate_limit" | "malformed_json";
  /** Seconds for the fault's Retry-After, when its rule gives one. */
  retryAfter?: number;
}

/** Validates rules from a request body (or a test); throws ApiError 400 invalid_request. */
export function parseFaultRules(input: unknown): FaultRule[] {
  const list = Array.isArray(input) ? input : undefined;
  if (!list) throw new ApiError(400, "invalid_request", 'Body must be { "rules": [ { "kind": ... } ] }.');
  return list.map((raw, i) => {
    const r = raw as Record<string, unknown>;
    if (typeof r !== "object" || r === null)
      throw new ApiError(400, "invalid_request", `rules[${i}] must be an object.`);
    if (!FAULT_KINDS.includes(r.kind as FaultKind)) {
      throw new ApiError(400, "invalid_request", `rules[${i}].kind must be one of ${FAULT_KINDS.join(", ")}.`);
    }
    if (r.route !== undefined && !FAULT_ROUTES.includes(r.route as FaultRoute)) {
      throw new ApiError(400, "invalid_request", `rules[${i}].route must be one of ${FAULT_ROUTES.join(", ")}.`);
    }
    if (r.count !== undefined && r.count !== null && !(Number.isInteger(r.count) && (r.count as number) > 0)) {
      throw new ApiError(400, "invalid_request", `rules[${i}].count must be a positive integer.`);
    }
    if (r.latency_ms !== undefined && !(Number.isInteger(r.latency_ms) && (r.latency_ms as number) >= 0)) {
      throw new ApiError(400, "invalid_request", `rules[${i}].latency_ms must be a non-negative integer.`);
    }
    if (r.retry_after !== undefined && !(Number.isInteger(r.retry_after) && (r.retry_after as number) >= 0)) {
      throw new ApiError(400, "invalid_request", `rules[${i}].retry_after must be a non-negative integer.`);
    }
    const rule: FaultRule = { kind: r.kind as FaultKind };
    if (typeof r.retry_after === "number") rule.retry_after = r.retry_after;
    if (r.route !== undefined) rule.route = r.route as FaultRoute;
    if (typeof r.count === "number") rule.count = r.count;
    if (typeof r.latency_ms === "number") rule.latency_ms = r.latency_ms;
    return rule;
  });
}

export class FaultStore {
  private rules: ActiveRule[] = [];

  add(rules: FaultRule[]): void {
    for (const r of parseFaultRules(rules)) {
      this.rules.push({
        kind: r.kind,
        route: r.route ?? "any",
        remaining: r.count ?? Infinity,
        latency_ms: r.latency_ms ?? 1000,
        ...(r.retry_after !== undefined ? { retry_after: r.retry_after } : {}),
      });
    }
  }

  clear(): void {
    this.rules = [];
  }

  /** The rules still active, as given (count = hits left, absent = unlimited). */
  list(): FaultRule[] {
    return this.rules.map((r) => {
      const out: FaultRule = { kind: r.kind, route: r.route };
      if (r.remaining !== Infinity) out.count = r.remaining;
      if (r.kind === "latency") out.latency_ms = r.latency_ms;
      if (r.retry_after !== undefined) out.retry_after = r.retry_after;
      return out;
    });
  }

  /** Consumes the rules that hit this request: every latency rule, then the first replacing fault. */
  forRequest(route: ApiRoute): RequestFault {
    const out: RequestFault = { latencyMs: 0, fault: null };
    if (route === "other") return out;
    for (const r of this.rules) {
      if (
        r.kind === "job_fail" ||
        r.kind === "job_stall" ||
        (AFTER_CREATE_FAULTS as readonly string[]).includes(r.kind)
      )
        continue;
      if (r.route !== "any" && r.route !== route) continue;
      if (r.kind === "latency") {
        out.latencyMs += r.latency_ms;
        r.remaining--;
      } else if (out.fault === null) {
        out.fault = r.kind as RequestFault["fault"];
        if (r.retry_after !== undefined) out.retryAfter = r.retry_after;
        r.remaining--;
      }
    }
    this.prune();
    return out;
  }

  /** For a job just created: whether a created_* rule spoils the answer to its submit. */
  forCreatedJob(): AfterCreateFault | null {
    const r = this.rules.find((x) => (AFTER_CREATE_FAULTS as readonly string[]).includes(x.kind));
    if (!r) return null;
    r.remaining--;
    this.prune();
    return r.kind as AfterCreateFault;
  }

  /** For a job being created: whether a job_fail / job_stall rule takes it. */
  forNewJob(): "fail" | "stall" | null {
    const r = this.rules.find((x) => x.kind === "job_fail" || x.kind === "job_stall");
    if (!r) return null;
    r.remaining--;
    this.prune();
    return r.kind === "job_fail" ? "fail" : "stall";
  }

  private prune(): void {
    this.rules = this.rules.filter((r) => r.remaining > 0);
  }
}
