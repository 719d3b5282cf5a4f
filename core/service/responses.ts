/**
 * What a response means: status, headers and body text in; a parsed value or a typed error out, plus
 * the rate-limit state. Tolerant of the error bodies and results shapes a real server might use.
 */
import { kindForStatus, serviceError, type ServiceError } from "./errors";
import { headerValue, parseRateLimit, type HeaderSource, type RateLimitInfo } from "./ratelimit";
import {
  schemas,
  parseAddressList,
  parseBulkJob,
  parseCheckResult,
  type AddressList,
  type BulkJob,
  type CheckResult,
} from "./schemas";
import { firstString, itemError, parseResultsPage, type ResultsPage } from "./results-page";

export type Interpreted<T> =
  | { ok: true; value: T; rateLimit: RateLimitInfo; warnings?: string[] }
  | { ok: false; error: ServiceError; rateLimit: RateLimitInfo };

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    // A UTF-8 byte order mark: fetch's text() drops it, Apps Script's getContentText() keeps it.
    return { ok: true, value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
  } catch {
    return { ok: false };
  }
}

/**
 * A 404 that is about the address asked, not about a property: a web server's HTML page, or a framework's
 * "no route" answer (an empty 404 stays a property not found). Read as a property "not found", it would wipe a row's earlier
 * results and be cached as a fact when the real fault is a wrong base URL.
 */
function isMissingEndpoint(isHtml: boolean, code: string | undefined, message: string | undefined): boolean {
  // A path or URL in the message names the address asked ("Route GET:/v1/api/check?uprn=1 not found"), not a property.
  const words = `${code ?? ""} ${message ?? ""}`.replace(/\S*\/\S*/g, " ");
  if (/\b(route|endpoint)\b/i.test(words)) return true;
  if (/propert|uprn|postcode|\bjob/i.test(words)) return false;
  // The spec's errors are JSON: a 404 web page came from something else (a wrong host or path).
  if (isHtml) return true;
  return /\b(path|url|cannot (get|post))\b/i.test(words);
}

/** An error from a non-2xx response, whatever shape its body has. */
export function errorFromResponse(status: number, text: string, rateLimit: RateLimitInfo): ServiceError {
  const kind = kindForStatus(status);
  const parsed = text ? parseJson(text) : { ok: false as const };
  let code: string | undefined;
  let message: string | undefined;
  let details: unknown;
  const body = parsed.ok ? schemas().errorBodySchema.safeParse(parsed.value) : undefined;
  if (body?.success) {
    const b = body.data as Record<string, unknown>;
    const inner = b.error && typeof b.error === "object" ? (b.error as Record<string, unknown>) : undefined;
    const errorsList = Array.isArray(b.errors) ? (b.errors as Record<string, unknown>[]) : undefined;
    code = firstString(
      inner?.code,
      typeof b.code === "number" ? String(b.code) : b.code,
      typeof b.error === "string" && /^[a-z0-9_.-]+$/i.test(b.error) ? b.error : undefined,
      errorsList?.[0]?.code,
    );
    message = firstString(
      inner?.message,
      b.message,
      b.detail,
      typeof b.error === "string" ? b.error : undefined,
      errorsList?.[0]?.message,
      b.title,
    );
    details = inner?.details ?? b.details;
  } else if (text && !/^\s*</.test(text)) {
    message = text.trim().slice(0, 200);
  }
  const fallback: Record<string, string> = {
    auth: "The API key is missing or not valid",
    forbidden: "This plan has no access to the API",
    not_found: "Not found",
    ambiguous: "Several properties match; add the first line of the address or use the UPRN",
    rate_limited: "Too many requests",
    server: `The service had a problem (HTTP ${status})`,
    timeout: "The service timed out",
    invalid_input: `The service rejected the request (HTTP ${status})`,
  };
  if (kind === "not_found" && isMissingEndpoint(/^\s*</.test(text), code, message)) {
    return serviceError(
      "server",
      "endpoint_not_found",
      `The service has no such address (HTTP ${status}${message ? `: ${message}` : ""}). Check the base URL in Settings: it should end in the API version, e.g. https://api.example.com/v1.`,
      { status },
    );
  }
  const err = serviceError(kind, code ?? `http_${status}`, message ?? fallback[kind] ?? `HTTP ${status}`, { status });
  if (details !== undefined) err.details = details;
  // A 429 without Retry-After waits for the window's reset; a 503 only waits when it says how long
  // (its X-RateLimit-Reset is about the quota, not about the outage).
  const wait =
    rateLimit.retryAfterMs ??
    (kind === "rate_limited" && rateLimit.resetAtMs !== undefined && rateLimit.observedAtMs !== undefined
      ? rateLimit.resetAtMs - rateLimit.observedAtMs
      : undefined);
  if (wait !== undefined && (kind === "rate_limited" || status === 503)) err.retryAfterMs = Math.max(0, wait);
  return err;
}

function interpret<T>(
  status: number,
  headers: HeaderSource,
  text: string,
  nowMs: number,
  parse: (body: unknown) => { ok: true; value: T; warnings: string[] } | { ok: false; message: string },
): Interpreted<T> {
  const rateLimit = parseRateLimit(headers, nowMs);
  if (status < 200 || status >= 300) return { ok: false, error: errorFromResponse(status, text, rateLimit), rateLimit };
  const json = parseJson(text);
  if (!json.ok) {
    return {
      ok: false,
      error: serviceError(
        "malformed_response",
        "malformed_json",
        `The service sent a response that is not valid JSON (HTTP ${status}).`,
        { status },
      ),
      rateLimit,
    };
  }
  const parsed = parse(json.value);
  if (!parsed.ok) {
    // A 2xx whose body is an error ({ error: { code, message } }): the server's own error, not a malformed answer.
    const b =
      json.value && typeof json.value === "object" && !Array.isArray(json.value)
        ? (json.value as Record<string, unknown>)
        : {};
    const said = b.error ?? (Array.isArray(b.errors) ? b.errors[0] : undefined);
    if (said)
      return {
        ok: false,
        error: itemError(said, `The service answered HTTP ${status} with an error it did not explain.`),
        rateLimit,
      };
    return {
      ok: false,
      error: serviceError("malformed_response", "malformed_response", parsed.message, { status }),
      rateLimit,
    };
  }
  return { ok: true, value: parsed.value, rateLimit, warnings: parsed.warnings };
}

export function interpretCheckResponse(
  status: number,
  headers: HeaderSource,
  text: string,
  nowMs: number,
): Interpreted<CheckResult> {
  return interpret(status, headers, text, nowMs, (b) => parseCheckResult(b));
}

/** A bulk job as accepted; `inline` holds the results when the server answered the submit with them at once. */
export type AcceptedJob = BulkJob & { inline?: ResultsPage };

/** The job a Location header names: the job resource (its results are under /results) or its results URL itself. */
function jobFromLocation(location: string | undefined): AcceptedJob | undefined {
  const path = (location ?? "")
    .trim()
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "");
  const parts = path.split("/");
  const results = parts[parts.length - 1] === "results";
  const id = decodeURIComponent(parts[parts.length - (results ? 2 : 1)] ?? "");
  if (!id || /^(bulk|check|api|v\d+)$/i.test(id) || /[:]/.test(id)) return undefined;
  return { job_id: id, results_url: results ? location!.trim() : `${path}/results` };
}

/**
 * The answer to a bulk submit. Besides the spec's { job_id, ... }: the id as `id` (or `jobId`); an empty body with
 * the job in a Location header; and, from a server that does a small batch at once, the results themselves with no
 * job id (taken as a finished job's only page, nothing polled).
 */
export function interpretBulkSubmitResponse(
  status: number,
  headers: HeaderSource,
  text: string,
  nowMs: number,
): Interpreted<AcceptedJob> {
  const located =
    status >= 200 && status < 300
      ? jobFromLocation(headerValue(headers, "location") ?? headerValue(headers, "content-location"))
      : undefined;
  if (located && !text.trim())
    return { ok: true, value: located, rateLimit: parseRateLimit(headers, nowMs), warnings: [] };
  return interpret(
    status,
    headers,
    text,
    nowMs,
    (body): { ok: true; value: AcceptedJob; warnings: string[] } | { ok: false; message: string } => {
      const b =
        body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
      if (b && (b.job_id === undefined || b.job_id === null)) {
        const nested = b.job && typeof b.job === "object" ? (b.job as Record<string, unknown>) : {};
        const alias = [b.id, b.jobId, nested.job_id, nested.id].find(
          (v) => (typeof v === "string" && v.trim()) || typeof v === "number",
        );
        if (alias !== undefined) return parseBulkJob({ ...nested, ...b, job_id: String(alias) });
        if ([b.results, b.items, b.data].some(Array.isArray) || Array.isArray(body)) {
          const page = parseResultsPage(body);
          if (page.ok) {
            const inline = {
              ...page.value,
              status: page.value.status === "failed" ? ("failed" as const) : ("completed" as const),
              next: null,
            };
            return {
              ok: true,
              value: { job_id: "(answered at once)", status: "completed", inline },
              warnings: page.warnings,
            };
          }
        }
        if (located)
          return {
            ok: true,
            value: { ...located, ...(typeof b.status === "string" ? { status: b.status } : {}) },
            warnings: [],
          };
      }
      return parseBulkJob(body);
    },
  );
}

export function interpretAddressResponse(
  status: number,
  headers: HeaderSource,
  text: string,
  nowMs: number,
): Interpreted<AddressList> {
  return interpret(status, headers, text, nowMs, parseAddressList);
}

export function interpretResultsResponse(
  status: number,
  headers: HeaderSource,
  text: string,
  nowMs: number,
): Interpreted<ResultsPage> {
  // A 2xx with no body (202 Accepted, 204 No Content) while the job runs: nothing yet, asked again (until the job's deadline).
  if (status >= 200 && status < 300 && !text.trim()) {
    return {
      ok: true,
      value: { status: "running", rawStatus: "", next: null, items: [] },
      rateLimit: parseRateLimit(headers, nowMs),
      warnings: [],
    };
  }
  return interpret(status, headers, text, nowMs, parseResultsPage);
}
