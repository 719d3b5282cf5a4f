/**
 * Typed errors of the service and of talking to it. Plain data (ServiceError) crosses host boundaries
 * (google.script.run, postMessage); ComplianceError is the throwable form for async hosts.
 */

export type ErrorKind =
  | "auth"
  | "forbidden"
  | "rate_limited"
  | "not_found"
  | "ambiguous"
  | "invalid_input"
  | "server"
  | "network"
  | "malformed_response"
  | "timeout"
  | "cancelled"
  | "job_failed";

export interface ServiceError {
  kind: ErrorKind;
  /** Machine-readable code: the server's own where it sent one, else ours (e.g. "http_502"). */
  code: string;
  /** The server's message where it sent one; always a sentence for a person. */
  message: string;
  status?: number;
  retryAfterMs?: number;
  details?: unknown;
}

export class ComplianceError extends Error {
  kind: ErrorKind;
  code: string;
  status?: number;
  retryAfterMs?: number;
  details?: unknown;
  constructor(e: ServiceError) {
    super(e.message);
    this.name = "ComplianceError";
    this.kind = e.kind;
    this.code = e.code;
    this.status = e.status;
    this.retryAfterMs = e.retryAfterMs;
    this.details = e.details;
  }
  toJSON(): ServiceError {
    return toServiceError(this);
  }
}

export function serviceError(
  kind: ErrorKind,
  code: string,
  message: string,
  extra: Partial<ServiceError> = {},
): ServiceError {
  return { kind, code, message, ...extra };
}

/** Anything thrown or returned, as a ServiceError (unknown throwables become "network"). */
export function toServiceError(e: unknown): ServiceError {
  if (
    e &&
    typeof e === "object" &&
    typeof (e as ServiceError).kind === "string" &&
    typeof (e as ServiceError).code === "string"
  ) {
    const s = e as ServiceError;
    const out: ServiceError = { kind: s.kind, code: s.code, message: String(s.message ?? "") };
    if (s.status !== undefined) out.status = s.status;
    if (s.retryAfterMs !== undefined) out.retryAfterMs = s.retryAfterMs;
    if (s.details !== undefined) out.details = s.details;
    return out;
  }
  if (e && typeof e === "object" && (e as Error).name === "AbortError") {
    return serviceError("cancelled", "cancelled", "Cancelled.");
  }
  const message = e instanceof Error ? e.message : String(e);
  return serviceError("network", "network_error", `Could not reach the compliance service: ${message}`);
}

export function kindForStatus(status: number): ErrorKind {
  if (status === 401) return "auth";
  if (status === 403) return "forbidden";
  if (status === 404 || status === 410) return "not_found";
  if (status === 409 || status === 300) return "ambiguous";
  if (status === 408) return "timeout";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server";
  return "invalid_input";
}

/** Errors that are facts about the property asked for (not about the service or the run). */
export function isAboutProperty(e: ServiceError): boolean {
  return e.kind === "not_found" || e.kind === "ambiguous" || e.kind === "invalid_input";
}

/** Transient errors: a later run may succeed. */
export function isTransient(e: ServiceError): boolean {
  return ["rate_limited", "server", "network", "malformed_response", "timeout", "cancelled", "job_failed"].includes(
    e.kind,
  );
}

/** A service message as the end of a sentence of ours: no trailing full stop (we add one), no raw HTTP jargon. */
function sentence(msg: string): string {
  return msg.replace(/[\s.]+$/, "");
}

/** A sentence closed once: "Gone" -> "Gone.", "Gone!" stays (never "Gone!."). */
function closed(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Words that already tell the user what to do next: our advice is then left out, not said a second time. */
const ADVICE = /\b(try again|retry|check the (connection|base url)|run the check again)\b/i;

/**
 * A message names a next step when it holds one of these: an instruction (check, add, give, choose...) or the
 * place to act. Every message a user can see must (test/core/service/messages.test.ts lists them all).
 */
export const NEXT_STEP =
  /\b(try|retry|check|add|paste|copy|enter|give|choose|select|run|fix|correct|format|use|save|press|open|remove|wait|upgrade|ask|type|delete|insert|make|sideload|reload|refresh|reset|look (it )?up|leave|split|narrow|contact)\b/i;

/** What to do about a kind of error when the message does not say. */
const NEXT_FOR: Partial<Record<ErrorKind, string>> = {
  not_found: "Check the UPRN or postcode in this row (Find a UPRN looks one up by address).",
  ambiguous: "Give the first line of the address beside the postcode, or use the UPRN.",
  invalid_input: "Correct this row's UPRN, postcode or address and run the check again.",
  malformed_response:
    "Try again; if it keeps happening, check the base URL in Settings (it must be the API's address).",
  job_failed: "Run the check again for these rows.",
  cancelled: "Run the check again to check them.",
};

/** A message and our advice after it, unless the message gives advice of its own. */
function advised(text: string, advice: string): string {
  return ADVICE.test(text) ? closed(text) : `${closed(text)} ${advice}`;
}

/**
 * "The compliance service had a problem (HTTP 500: Internal server error)": the service's own words once, never
 * wrapped around our fallback sentence or around a message that already says it had a problem.
 */
function serverProblem(e: ServiceError, msg: string): string {
  const own = /^the (compliance )?service had a problem/i.test(msg);
  const status = e.status ? `HTTP ${e.status}` : "";
  if (!msg || own) return `The compliance service had a problem${status ? ` (${status})` : ""}`;
  if (/^the (compliance )?service\b/i.test(msg)) return msg;
  const prefix = status && !msg.includes(status) ? `${status}: ` : "";
  // Words with brackets or sentences of their own follow ours instead of going inside our brackets.
  if (/[()[\]]|[.!?]\s/.test(msg))
    return `The compliance service had a problem${status && !msg.includes(status) ? ` (${status})` : ""}: ${msg}`;
  return `The compliance service had a problem (${prefix}${msg})`;
}

/** A short reason, for inside another sentence: the HTTP status and the service's words, without advice. */
export function shortReason(e: ServiceError): string {
  const msg = e.message ? sentence(e.message) : "";
  const status = e.status && !msg.includes(`HTTP ${e.status}`) ? `HTTP ${e.status}` : "";
  const words = /^the (compliance )?service had a problem/i.test(msg) ? "" : msg;
  return [status, words].filter(Boolean).join(": ") || e.code;
}

/**
 * One line for a person (a letting agent, not a developer), with what to do about it where there is something
 * to do. The service's own words are kept where they tell the user something ("No property with UPRN 1") and
 * left out where they speak HTTP ("send Authorization: Bearer <API key>").
 */
export function describeError(e: ServiceError): string {
  const msg = e.message ? sentence(e.message) : "";
  // A message the run engine composed for a person already (a job that may exist) is said as it is.
  if (e.details && typeof e.details === "object" && (e.details as { maybe_created?: unknown }).maybe_created === true)
    return closed(msg);
  switch (e.kind) {
    case "auth":
      // A host's own "no key" message says where its settings are; the service's speaks HTTP.
      if (e.code === "missing_api_key")
        return msg && !/authorization|bearer/i.test(msg) ? closed(msg) : "No API key is set: add your key in Settings.";
      return "The API key was not accepted by the service: check it in Settings (copy it again from your account's API page).";
    case "forbidden":
      return "This API key's plan has no API access: use a key from a Professional or Enterprise account (or upgrade the plan).";
    case "rate_limited": {
      const wait =
        e.retryAfterMs !== undefined ? ` Try again in ${Math.max(1, Math.ceil(e.retryAfterMs / 1000))} s.` : "";
      // Our own quota message says until when; the service's says "retry in N s", which the wait already does.
      if (["rate_limit_exhausted", "quota_exhausted", "run_paused"].includes(e.code) && msg) return closed(msg);
      return `The request limit of your plan is reached for now.${wait || " Try again in a minute."}`;
    }
    case "server":
      if (e.code === "endpoint_not_found") return closed(msg);
      return advised(serverProblem(e, msg), "Try again shortly.");
    case "network":
    case "timeout":
      return advised(msg || "The compliance service could not be reached", "Check the connection and try again.");
    default: {
      const text = msg ? closed(msg) : "The service could not answer for this property.";
      const next = NEXT_FOR[e.kind];
      return next && !NEXT_STEP.test(text) ? `${text} ${next}` : text;
    }
  }
}
