/**
 * What a response means: status, headers and body text in; a parsed value or a typed error out, plus
 * the rate-limit state. Tolerant of the error bodies and results shapes a real server might use.
 */
import { kindForStatus, serviceError, type ServiceError } from "./errors";
import { headerValue, parseRateLimit, type HeaderSource, type RateLimitInfo } from "./ratelimit";
import {
  describeZodError,
  schemas,
  parseAddressList,
  parseBulkJob,
  parseCheckResult,
  type AddressList,
  type BulkJob,
  type CheckResult,
} from "./schemas";
import type { PropertyQuery } from "./rows";

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

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === "string" && v.trim()) return v.trim();
  return undefined;
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

// ---- bulk results ----

export type JobWord = "running" | "completed" | "failed";

const RUNNING = [
  "processing",
  "queued",
  "pending",
  "running",
  "in_progress",
  "started",
  "submitted",
  "accepted",
  "waiting",
];
const COMPLETED = [
  "completed",
  "complete",
  "done",
  "succeeded",
  "success",
  "finished",
  "partial",
  "completed_with_errors",
  "partially_completed",
];
const FAILED = ["failed", "failure", "error", "errored", "cancelled", "canceled", "expired", "aborted", "rejected"];

/** Job status words to three states; an unknown word counts as running (bounded by the job timeout). */
export function jobWord(raw: unknown): JobWord {
  const w =
    typeof raw === "string"
      ? raw
          .trim()
          .toLowerCase()
          .replace(/[\s-]+/g, "_")
      : "";
  if (COMPLETED.includes(w)) return "completed";
  if (FAILED.includes(w)) return "failed";
  if (RUNNING.includes(w)) return "running";
  return "running";
}

export interface ResultsItem {
  /** Index into the job's submitted properties, when the server says. */
  index?: number;
  input?: PropertyQuery;
  /** Uprn of the result, for matching when there is no index. */
  uprn?: string;
  result?: unknown;
  error?: ServiceError;
  /** The item's own status word as sent, lower case with "_" for spaces and dashes ("completed", "in_progress"). */
  status?: string;
  /** Listed, but not done yet (its own status is pending-like): not a result, taken when it arrives. */
  pending?: boolean;
}

export interface ResultsPage {
  status: JobWord;
  rawStatus: string;
  total?: number;
  processed?: number;
  estimatedCompletionMs?: number;
  page?: number;
  perPage?: number;
  totalPages?: number;
  /** Link to the next page, or null on the last (or only) page. */
  next: string | null;
  items: ResultsItem[];
  /** Why the job failed, when it did. */
  error?: ServiceError;
}

function intOrUndef(v: unknown): number | undefined {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? Math.floor(n) : undefined;
}

function asInput(v: unknown): PropertyQuery | undefined {
  if (!v || typeof v !== "object") return undefined;
  const o = v as Record<string, unknown>;
  const q: PropertyQuery = {};
  if (o.uprn !== undefined && o.uprn !== null) q.uprn = String(o.uprn);
  if (typeof o.postcode === "string") q.postcode = o.postcode;
  if (typeof o.address === "string") q.address = o.address;
  return q.uprn || q.postcode ? q : undefined;
}

/** What an error's code or words say it is about, when it carries no HTTP status. */
function kindOfWords(text: string): ServiceError["kind"] {
  if (/not[\s_-]?found|unknown[\s_-](uprn|property|postcode)|no[\s_-](such[\s_-])?(property|uprn|match)/i.test(text))
    return "not_found";
  if (/ambiguous|several properties|multiple matches/i.test(text)) return "ambiguous";
  if (/^invalid|[\s_]invalid|not valid|validation/i.test(text)) return "invalid_input";
  return "server";
}

/** An item's (or a 2xx body's) error, in any of the shapes servers use: an object, a sentence, a code. */
function itemError(e: unknown, fallbackMessage: string): ServiceError {
  if (e && typeof e === "object") {
    const o = e as Record<string, unknown>;
    const code =
      firstString(o.code, o.error_code, o.type, typeof o.error === "string" ? o.error : undefined) ?? "item_error";
    const message = firstString(o.message, o.detail, o.error_message, o.description, o.title) ?? fallbackMessage;
    const status = intOrUndef(o.status);
    const kind =
      status && status >= 400
        ? kindForStatus(status)
        : kindOfWords(`${code} ${message === fallbackMessage ? "" : message}`);
    return serviceError(kind, code, message, status && status >= 400 ? { status } : {});
  }
  if (typeof e === "string" && e.trim())
    return serviceError(kindOfWords(e), /^[a-z_]+$/.test(e) ? e : "item_error", e.trim());
  return serviceError("server", "item_error", fallbackMessage);
}

/**
 * An item's own status word decides whether it is final (done, with a result or an error) or not yet:
 * - final with a result: completed, complete, done, success, succeeded, ok, finished, found, processed, passed;
 * - final with an error: error, failed, failure, not_found, invalid, ambiguous, rejected, errored, cancelled,
 *   canceled, skipped, expired, aborted;
 * - not final (pending): pending, queued, processing, in_progress, running, ... (ITEM_PENDING) even when the item
 *   carries a (partial) result, and any word we do not know unless the item carries a result or an error object;
 * - no status word: final when the item carries a result or an error object (the sandbox's and most servers' shape).
 * A pending item is not placed: the page is polled again and its real result taken when it arrives (bounded by
 * the job's deadline).
 */
const ITEM_ERROR = [
  "error",
  "failed",
  "failure",
  "not_found",
  "invalid",
  "ambiguous",
  "rejected",
  "errored",
  "cancelled",
  "canceled",
  "skipped",
  "expired",
  "aborted",
];
const ITEM_FINAL = [
  "completed",
  "complete",
  "done",
  "success",
  "succeeded",
  "ok",
  "finished",
  "found",
  "processed",
  "passed",
  ...ITEM_ERROR,
];
const ITEM_PENDING = [
  "pending",
  "queued",
  "processing",
  "in_progress",
  "running",
  "started",
  "submitted",
  "accepted",
  "waiting",
  "scheduled",
  "retrying",
  "in_queue",
  "not_started",
  "new",
  "created",
];

function parseItem(raw: unknown): ResultsItem | null {
  if (!raw || typeof raw !== "object") return null;
  const o = raw as Record<string, unknown>;
  // A bare check result as the item.
  if (o.checks && typeof o.checks === "object" && o.uprn !== undefined && o.result === undefined) {
    return { result: o, uprn: String(o.uprn), index: intOrUndef(o.index) };
  }
  const item: ResultsItem = {};
  const index = intOrUndef(o.index ?? o.position);
  if (index !== undefined) item.index = index;
  const input = asInput(o.input ?? o.property ?? o.request);
  if (input) item.input = input;
  const word = typeof o.status === "string" ? o.status : typeof o.state === "string" ? o.state : "";
  const status = word
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  if (status) item.status = status;
  // Not final yet (see ITEM_PENDING above): not a result, taken when it arrives.
  // The item's error: { error }, errors: [...], or flat error_code / error_message fields.
  const said =
    o.error ||
    (Array.isArray(o.errors) ? o.errors[0] : undefined) ||
    (o.error_code || o.error_message ? { code: o.error_code, message: o.error_message } : undefined);
  const carries = (!!o.result && typeof o.result === "object") || !!said;
  if (ITEM_PENDING.includes(status) || (status && !ITEM_FINAL.includes(status) && !carries))
    return { ...item, pending: true };
  if (said || ITEM_ERROR.includes(status)) {
    item.error = itemError(said ?? status, "The service returned no result for this property.");
  } else if (o.result && typeof o.result === "object") {
    item.result = o.result;
    const u = (o.result as Record<string, unknown>).uprn;
    if (u !== undefined) item.uprn = String(u);
  } else {
    return item.index !== undefined || item.input
      ? { ...item, error: itemError(undefined, "The service returned an item with neither a result nor an error.") }
      : null;
  }
  if (!item.input && o.uprn !== undefined) item.uprn = String(o.uprn);
  return item;
}

function nextLink(b: Record<string, unknown>): string | null {
  const links = b.links && typeof b.links === "object" ? (b.links as Record<string, unknown>) : undefined;
  const pag = b.pagination && typeof b.pagination === "object" ? (b.pagination as Record<string, unknown>) : undefined;
  const v = b.next_page_url ?? b.next ?? b.next_url ?? links?.next ?? pag?.next ?? pag?.next_page_url;
  if (typeof v === "string" && v.trim()) return v.trim();
  if (v && typeof v === "object" && typeof (v as Record<string, unknown>).href === "string")
    return (v as { href: string }).href;
  return null;
}

/**
 * Results sent as an object keyed by UPRN ({ "100023336956": { result } }) rather than a list: each member becomes
 * an item that names its key, so it is placed by it.
 */
function withKeyedResults(b: Record<string, unknown>): Record<string, unknown> {
  const out = { ...b };
  for (const name of ["results", "items", "data"]) {
    const v = b[name];
    if (!v || typeof v !== "object" || Array.isArray(v)) continue;
    const members = Object.entries(v as Record<string, unknown>);
    if (!members.length || !members.every(([, m]) => m && typeof m === "object" && !Array.isArray(m))) continue;
    out[name] = members.map(([key, m]) => {
      const o = m as Record<string, unknown>;
      return o.uprn !== undefined || o.input !== undefined || o.index !== undefined ? o : { ...o, uprn: key };
    });
  }
  return out;
}

export function parseResultsPage(
  body: unknown,
): { ok: true; value: ResultsPage; warnings: string[] } | { ok: false; message: string } {
  if (Array.isArray(body)) body = { status: "completed", results: body };
  else if (body && typeof body === "object") body = withKeyedResults(body as Record<string, unknown>);
  const envelope = schemas().bulkResultsSchema.safeParse(body);
  if (!envelope.success) return { ok: false, message: `Malformed bulk results: ${describeZodError(envelope.error)}` };
  const b = envelope.data as Record<string, unknown>;
  const list = b.results ?? b.items ?? b.data ?? b.properties ?? [];
  if (!Array.isArray(list)) return { ok: false, message: "Malformed bulk results: the results are not a list" };
  const warnings: string[] = [];
  const items: ResultsItem[] = [];
  list.forEach((raw, i) => {
    const item = parseItem(raw);
    if (item) items.push(item);
    else warnings.push(`result ${i + 1} on this page could not be read`);
  });
  let rawStatus = typeof b.status === "string" ? b.status : typeof b.state === "string" ? b.state : "";
  // No status word, no results, and an error: the job's own failure (an expired or unknown job), not "completed".
  if (!rawStatus && !list.length && b.error) rawStatus = "failed";
  const pag = b.pagination && typeof b.pagination === "object" ? (b.pagination as Record<string, unknown>) : {};
  const page: ResultsPage = {
    status: rawStatus ? jobWord(rawStatus) : "completed",
    rawStatus,
    next: nextLink(b),
    items,
  };
  const total = intOrUndef(b.total_properties ?? b.total);
  if (total !== undefined) page.total = total;
  const processed = intOrUndef(b.processed_properties ?? b.processed ?? b.completed_properties);
  if (processed !== undefined) page.processed = processed;
  const est = typeof b.estimated_completion === "string" ? Date.parse(b.estimated_completion) : NaN;
  if (Number.isFinite(est)) page.estimatedCompletionMs = est;
  const pg = intOrUndef(b.page ?? pag.page);
  if (pg !== undefined) page.page = pg;
  const per = intOrUndef(b.per_page ?? pag.per_page ?? b.page_size);
  if (per !== undefined) page.perPage = per;
  const tp = intOrUndef(b.total_pages ?? pag.total_pages);
  if (tp !== undefined) page.totalPages = tp;
  if (page.status === "failed") {
    page.error = itemError(b.error ?? undefined, `The bulk job ended "${rawStatus}" without saying why.`);
    page.error.kind = "job_failed";
  }
  return { ok: true, value: page, warnings };
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
