/**
 * A page of a bulk job's results as servers write it: the job's status word, its progress and estimate, the link to the
 * next page, and each item's index, input, result or error, in the shapes the spec gives and those other servers use.
 */
import { kindForStatus, serviceError, type ServiceError } from "./errors";
import { describeZodError, schemas } from "./schemas";
import type { PropertyQuery } from "../sheet/input-rows";

/** The first of the values that is non-empty text, trimmed. */
export function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === "string" && v.trim()) return v.trim();
  return undefined;
}

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
export function itemError(e: unknown, fallbackMessage: string): ServiceError {
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
