/**
 * The built-in demo: the API key `demo` answers from about 60 properties bundled with core (core/demo/demo-data.ts, made
 * from the sandbox's register by scripts/demo-data.ts), through the service's own request and response shapes, so the
 * run engine, the columns, the Action list and the functions work exactly as with the service, with no network at all.
 * Both hosts route every request made with the demo key here (Excel: createClient; Sheets: gsheets/server/http.ts),
 * so nothing is ever sent with it. Every result carries `demo: true`, which the Message column says in words.
 *
 * Layout of a property in DEMO_DATA (read through core/demo/demo-source.ts, which the Apps Script build replaces): [uprn,
 * line 1, line 2, town, postcode, last updated (days), score, risk,
 * [epc status, rating, expiry], [gas status, last certificate, expiry], [eicr status, expiry, detail],
 * [licensing status, scheme, expiry], [deposit status, scheme, protected date]]; dates as days from today, statuses
 * as p/w/f/n; a date inside a detail as {days}.
 */
import { isValid as isValidPostcode, toNormalised } from "postcode";
import { DATE_FORMAT, addDays, dateSerial } from "../compliance/obligations";
import { demoDataText } from "./demo-source";
import type { HttpRequest } from "../service/requests";

import { DEMO_NOTE, DEMO_SHEET } from "./demo-key";

export * from "./demo-key";

export interface DemoProperty {
  uprn: string;
  line1: string;
  line2: string | null;
  town: string;
  postcode: string;
  address: string;
  result: Record<string, unknown> & { checks: Record<string, Record<string, unknown>> };
}

const STATUS: Record<string, string> = { p: "pass", w: "warning", f: "fail", n: "not_required" };

type Encoded = [string, string, string | null, string, string, number, number, string, ...unknown[][]];

let parsed: Encoded[] | undefined;

/** The demo's properties with their dates counted from `today` (YYYY-MM-DD). */
export function demoProperties(today: string): DemoProperty[] {
  parsed ??= JSON.parse(demoDataText()) as Encoded[];
  const day = (n: unknown) => (typeof n === "number" ? addDays(today, n) : null);
  return parsed.map(([uprn, line1, line2, town, postcode, updated, score, risk, epc, gas, eicr, lic, dep]) => {
    const address = [line1, line2, town, postcode].filter(Boolean).join(", ");
    const checks: Record<string, Record<string, unknown>> = {
      epc: { status: STATUS[epc[0] as string], rating: epc[1], expiry: day(epc[2]) },
      gas_safety: { status: STATUS[gas[0] as string], last_certificate: day(gas[1]), expiry: day(gas[2]) },
      eicr: {
        status: STATUS[eicr[0] as string],
        expiry: day(eicr[1]),
        detail:
          typeof eicr[2] === "string"
            ? eicr[2].replace(/\{(-?\d+)\}/g, (_m, n: string) => addDays(today, Number(n)))
            : null,
      },
      licensing: { status: STATUS[lic[0] as string], scheme: lic[1], expiry: day(lic[2]) },
      deposit_protection: { status: STATUS[dep[0] as string], scheme: dep[1], protected_date: day(dep[2]) },
    };
    const result = {
      uprn,
      address,
      compliance_score: score,
      risk_level: risk,
      checks,
      last_updated: `${day(updated)}T09:00:00Z`,
      demo: true,
    };
    return { uprn, line1, line2, town, postcode, address, result };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The service, in process.

/** A refusal, worded as the sandbox words it, and marked as the demo's so that the row's Message says so too. */
class DemoError {
  readonly message: string;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    this.message = `${message} (${DEMO_NOTE}.)`;
  }
}

const words = (s: string): string[] =>
  s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .match(/[a-z0-9]+/g) ?? [];
const startsWith = (have: string[], want: string[]) =>
  want.length <= have.length && want.every((w, i) => have[i] === w);

function normalPostcode(raw: string): string {
  const compact = raw.replace(/\s+/g, " ").trim();
  const n = isValidPostcode(compact) ? toNormalised(compact) : null;
  if (!n) throw new DemoError(400, "invalid_postcode", `"${raw.slice(0, 40)}" is not a valid UK postcode.`);
  return n;
}

/** The one demo property a query names, as the sandbox finds it (lookup.ts): UPRN, or postcode and first line. */
function resolve(props: DemoProperty[], q: Record<string, unknown>): DemoProperty {
  const text = (v: unknown) => (v === undefined || v === null ? undefined : String(v).trim() || undefined);
  const uprn = text(q.uprn);
  if (uprn !== undefined) {
    if (!/^\d{1,12}$/.test(uprn))
      throw new DemoError(400, "invalid_uprn", `UPRN must be 1 to 12 digits; got "${uprn.slice(0, 40)}".`);
    const p = props.find((x) => x.uprn === uprn.replace(/^0+(?=\d)/, ""));
    if (!p)
      throw new DemoError(
        404,
        "property_not_found",
        `No property with UPRN ${uprn} in the demo data, which holds only the properties of the ${DEMO_SHEET} sheet.`,
        { uprn },
      );
    return p;
  }
  const postcodeText = text(q.postcode);
  if (postcodeText === undefined)
    throw new DemoError(400, "invalid_request", "Give uprn, or postcode (with an optional address).");
  const postcode = normalPostcode(postcodeText);
  const list = props.filter((p) => p.postcode === postcode);
  if (!list.length)
    throw new DemoError(404, "property_not_found", `No property at postcode ${postcode} in the demo data.`, {
      postcode,
    });
  const address = text(q.address);
  const several = (l: DemoProperty[], what: string) =>
    new DemoError(
      409,
      "ambiguous_property",
      `${what} matches ${l.length} properties; give the first line of the address or the UPRN.`,
      {
        candidates: l.map((p) => ({ uprn: p.uprn, address: p.address })),
      },
    );
  if (address === undefined) {
    if (list.length === 1) return list[0];
    throw several(list, `Postcode ${postcode}`);
  }
  const want = words(address);
  const hits = list.filter((p) => startsWith(words(p.line1), want) || startsWith(words(p.address), want));
  if (hits.length === 1) return hits[0];
  if (hits.length > 1) throw several(hits, `Address "${address}" at ${postcode}`);
  throw new DemoError(404, "property_not_found", `No property "${address}" at postcode ${postcode} in the demo data.`, {
    postcode,
    address,
  });
}

function subset(result: DemoProperty["result"], checks: readonly string[] | undefined): DemoProperty["result"] {
  if (!checks) return result;
  return { ...result, checks: Object.fromEntries(Object.entries(result.checks).filter(([k]) => checks.includes(k))) };
}

/** Where the demo keeps its jobs between calls: memory in Excel, the user's cache in Apps Script (one call per poll). */
export interface DemoJobStore {
  get(id: string): string | null;
  put(id: string, value: string): void;
}

export function memoryJobStore(): DemoJobStore {
  const m = new Map<string, string>();
  return { get: (id) => m.get(id) ?? null, put: (id, v) => void m.set(id, v) };
}

/** One store for the page: a job submitted by one client (the pane) is found by another (a resumed run). */
const pageJobs = memoryJobStore();

export interface DemoReply {
  status: number;
  headers: Record<string, string>;
  text: string;
}

const HEADERS = { "content-type": "application/json", "x-demo": "true" };

function reply(status: number, body: unknown): DemoReply {
  return { status, headers: { ...HEADERS }, text: JSON.stringify(body) };
}

function errorReply(e: DemoError): DemoReply {
  return reply(e.status, {
    error: { code: e.code, message: e.message, status: e.status, ...(e.details ? { details: e.details } : {}) },
  });
}

/**
 * Answers one request as the service would (the sandbox's shapes): GET api/check, POST api/check/bulk (a job that is
 * done at once), GET api/check/bulk/{id}/results, GET api/addresses. Never throws; never touches the network.
 */
export function demoReply(
  req: Pick<HttpRequest, "method" | "url" | "body">,
  o: { jobs: DemoJobStore; now?: number },
): DemoReply {
  const nowMs = o.now ?? Date.now();
  const today = new Date(nowMs).toISOString().slice(0, 10);
  const { path, q } = splitUrl(req.url);
  try {
    const props = demoProperties(today);
    if (req.method === "GET" && /\/api\/check$/.test(path)) return reply(200, resolve(props, q).result);
    if (req.method === "POST" && /\/api\/check\/bulk$/.test(path)) return submitJob(req.body, o.jobs, nowMs);
    const m = /\/api\/check\/bulk\/([^/]+)\/results$/.exec(path);
    if (req.method === "GET" && m) return jobResults(decodeURIComponent(m[1]), q, o.jobs, props);
    if (req.method === "GET" && /\/api\/addresses$/.test(path)) return addresses(props, q);
    throw new DemoError(
      404,
      "endpoint_not_found",
      `The demo has no ${req.method} ${path.replace(/^.*?(\/api\/)/, "$1")}.`,
    );
  } catch (e) {
    if (e instanceof DemoError) return errorReply(e);
    return errorReply(
      new DemoError(500, "demo_error", `The demo could not answer: ${e instanceof Error ? e.message : String(e)}`),
    );
  }
}

/** A request's path (no host, no trailing slash) and its query's parameters, decoded: Apps Script has no URL class. */
function splitUrl(url: string): { path: string; q: Record<string, string> } {
  const [beforeQuery, query = ""] = url.split("#")[0].split("?");
  const path = beforeQuery.replace(/^https?:\/\/[^/]+/i, "").replace(/\/+$/, "");
  const q: Record<string, string> = {};
  for (const part of query.split("&").filter(Boolean)) {
    const [k, v = ""] = part.split("=");
    try {
      q[decodeURIComponent(k)] = decodeURIComponent(v.replace(/\+/g, " "));
    } catch {
      q[k] = v;
    }
  }
  return { path, q };
}

/** POST api/check/bulk: the job is kept in `jobs` and answered as done at once. */
function submitJob(text: string | undefined, jobs: DemoJobStore, nowMs: number): DemoReply {
  let body: { properties?: unknown; checks?: unknown };
  try {
    body = JSON.parse(text ?? "");
  } catch {
    throw new DemoError(400, "invalid_request", "The body must be a JSON object with a properties array.");
  }
  const properties = body && Array.isArray(body.properties) ? body.properties : null;
  if (!properties || !properties.length)
    throw new DemoError(400, "invalid_request", "properties must be a non-empty array.");
  if (properties.length > 1000)
    throw new DemoError(413, "batch_too_large", "The demo accepts at most 1000 properties per request.", {
      max_batch_size: 1000,
    });
  const id = `demo-${nowMs.toString(36)}-${Math.floor(Math.random() * 1e9).toString(36)}`;
  jobs.put(id, JSON.stringify({ properties, checks: Array.isArray(body.checks) ? body.checks : null, created: nowMs }));
  const at = new Date(nowMs).toISOString().replace(/\.\d+Z$/, "Z");
  return reply(202, {
    job_id: id,
    status: "processing",
    total_properties: properties.length,
    estimated_completion: at,
    results_url: `/api/check/bulk/${id}/results`,
  });
}

/** GET api/check/bulk/{id}/results: one page of a kept job's results (`page`, `per_page`). */
function jobResults(id: string, q: Record<string, string>, jobs: DemoJobStore, props: DemoProperty[]): DemoReply {
  const stored = jobs.get(id);
  if (!stored)
    throw new DemoError(404, "job_not_found", `No demo job ${id.slice(0, 60)} (demo jobs are kept for 6 hours).`, {
      job_id: id.slice(0, 60),
    });
  const job = JSON.parse(stored) as { properties: unknown[]; checks: string[] | null; created: number };
  const perPage = Math.min(1000, Math.max(1, Number(q.per_page) || 1000));
  const page = Math.max(1, Number(q.page) || 1);
  const total = job.properties.length;
  const pages = Math.max(1, Math.ceil(total / perPage));
  const results = job.properties
    .slice((page - 1) * perPage, page * perPage)
    .map((input, k) => jobItem((page - 1) * perPage + k, input, job.checks, props));
  const done = new Date(job.created).toISOString().replace(/\.\d+Z$/, "Z");
  return reply(200, {
    job_id: id,
    status: "completed",
    total_properties: total,
    processed_properties: total,
    estimated_completion: done,
    completed_at: done,
    page,
    per_page: perPage,
    total_pages: pages,
    next_page_url: page < pages ? `/api/check/bulk/${id}/results?page=${page + 1}&per_page=${perPage}` : null,
    results,
  });
}

/** One item of a job's results: the property's result, or the error it gets. */
function jobItem(index: number, input: unknown, checks: string[] | null, props: DemoProperty[]) {
  try {
    if (!input || typeof input !== "object" || Array.isArray(input))
      throw new DemoError(
        400,
        "invalid_request",
        "Each property must be an object with uprn, or postcode and optional address.",
      );
    return {
      index,
      input,
      status: "completed",
      result: subset(resolve(props, input as Record<string, unknown>).result, checks ?? undefined),
    };
  } catch (e) {
    if (!(e instanceof DemoError)) throw e;
    return {
      index,
      input,
      status: "error",
      error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) },
    };
  }
}

/** GET api/addresses: the demo's properties in a postcode, or whose address has every word of `query`. */
function addresses(props: DemoProperty[], q: Record<string, string>): DemoReply {
  const postcode = q.postcode ? normalPostcode(q.postcode) : undefined;
  const want = q.query ? words(q.query) : [];
  if (!postcode && !want.length) throw new DemoError(400, "invalid_request", "Give postcode or query.");
  const hits = props.filter(
    (p) => (!postcode || p.postcode === postcode) && want.every((w) => words(p.address).includes(w)),
  );
  const limit = Math.min(100, Math.max(1, Number(q.limit) || 50));
  return reply(200, {
    results: hits.slice(0, limit).map((p) => ({
      uprn: p.uprn,
      address: p.address,
      address_line_1: p.line1,
      address_line_2: p.line2,
      town: p.town,
      postcode: p.postcode,
    })),
    total: hits.length,
  });
}

/** fetch for the demo key: the same call shape as the host's fetch, answered by demoReply. */
export function demoFetch(jobs: DemoJobStore = pageJobs) {
  return (url: string, init: { method: string; body?: string }) => {
    const r = demoReply({ method: init.method === "POST" ? "POST" : "GET", url, body: init.body }, { jobs });
    return Promise.resolve({ status: r.status, headers: r.headers, text: () => Promise.resolve(r.text) });
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The sample table both hosts insert.

const OWNERS = ["A. Khan", "B. Okafor", "C. Evans", "D. Murphy", "E. Novak"];

/**
 * The demo's sample table: a header the add-ins recognise and one row per demo property (UPRN, or for a few only a
 * postcode and first line, as users' sheets have them), with the user columns the rules read, and four rows that
 * show the per-row errors: an unknown UPRN, a postcode shared by several properties, a malformed UPRN, no key at all.
 */
export function demoSampleTable(today: string): (string | number)[][] {
  const props = demoProperties(today);
  const header = ["UPRN", "Address", "Postcode", "Owner", "EICR date", "Licence expiry", "Deposit received"];
  const rows = props.map((p, i) => {
    const eicr = p.result.checks.eicr;
    const lic = p.result.checks.licensing;
    const dep = p.result.checks.deposit_protection;
    const byPostcode = i % 9 === 4 && props.filter((x) => x.postcode === p.postcode).length === 1;
    return [
      byPostcode ? "" : p.uprn,
      p.line1,
      p.postcode,
      OWNERS[i % OWNERS.length],
      eicr.status === "pass" && typeof eicr.expiry === "string" ? addDays(eicr.expiry as string, -5 * 365 - 1) : "",
      lic.status === "pass" && i % 2 === 0 ? addDays(today, 20 + i * 7) : "",
      dep.status === "fail" ? addDays(today, -12) : "",
    ];
  });
  const shared = props.find((p) => props.filter((x) => x.postcode === p.postcode).length > 1);
  rows.push(["999999999999", "Not in the demo data", "", "A. Khan", "", "", ""]);
  if (shared) rows.push(["", "", shared.postcode, "B. Okafor", "", "", ""]);
  rows.push(["12AB", "A UPRN with letters", "", "C. Evans", "", "", ""]);
  rows.push(["", "Flat 3, somewhere", "", "D. Murphy", "", "", ""]);
  return [header, ...rows];
}

/**
 * The sample table as both hosts write it: dates as date serials with the add-ins' date format, the UPRN column as
 * text (a 12-digit UPRN must not become a number), and a number format for every column.
 */
export function demoSampleSheet(today: string): { values: (string | number)[][]; numberFormats: string[] } {
  const [header, ...rows] = demoSampleTable(today);
  const dates = [4, 5, 6];
  const values = [
    header,
    ...rows.map((r) => r.map((v, c) => (dates.includes(c) && typeof v === "string" && v ? (dateSerial(v) ?? v) : v))),
  ];
  return { values, numberFormats: header.map((_h, c) => (dates.includes(c) ? DATE_FORMAT : "@")) };
}

/** What both hosts say once the sample table is written, and what to press next. */
export function sampleTableMessage(rows: number, sheetName: string, demoKeyIsSet: boolean): string {
  const next = demoKeyIsSet
    ? 'The table is selected: press "Check selected rows".'
    : 'To check it without a service, choose "Try with demo data" under Settings first; with your own key, its made-up rows come back as not found.';
  return `Sample table of ${rows} rows written to the sheet "${sheetName}". ${next}`;
}
