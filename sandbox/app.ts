/**
 * The sandbox: a local Property Compliance Check Service v1 on fastify, following
 * docs/service-contract.md, plus run-time fault injection and counters for tests and demos.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import cors from "@fastify/cors";
import type { AddressInfo } from "net";
import { type Dataset, checkResultFor, datasetOnDay, findExamples, getDataset, isoSeconds } from "./dataset";
import { ApiError, codeForStatus } from "./errors";
import { type ApiRoute, type FaultRule, FaultStore, parseFaultRules } from "./faults";
import { type CallbackStats, JobStore, parseCallbackUrl, parseChecks, resultsPath } from "./jobs";
import { addressRecord, optionalText, resolveProperty, searchAddresses } from "./lookup";
import { API_KEYS, type LimitsOverride, authenticate, resolveLimits } from "./plans";
import { type RateLimits, registerRateLimits } from "./rate-limit";

export { API_KEYS, DEFAULT_LIMITS } from "./plans";
export type { FaultRule, FaultKind, FaultRoute } from "./faults";
export type { LimitsOverride, PlanLimits } from "./plans";

export interface SandboxOptions {
  /** Processing time per bulk property in ms (default 20; 0 = jobs finish at once). */
  msPerProperty?: number;
  /**
   * One bulk job at a time per API key: a job waits for the key's earlier jobs to end (default false: jobs run side
   * by side, each from its creation). The service's spec does not say; clients must do well with either.
   */
  serialJobs?: boolean;
  /** The clock for everything: dataset "today", timestamps, rate windows, job progress. */
  now?: () => Date;
  /** HMAC secret for callback signatures (default "sandbox-webhook-secret"). */
  webhookSecret?: string;
  /** fastify request logging (default off). */
  logger?: boolean;
  /** Smaller (or larger) plan limits, e.g. `{ professional: { perDay: 5 } }` to reach a day limit in a test. */
  limits?: LimitsOverride;
  /**
   * The sandbox's "today" (YYYY-MM-DD; SANDBOX_TODAY for `npm run sandbox`): the register is made for this day, and
   * POST /__sandbox/clock then moves the day with the register's dates held still. Default: the real UTC day.
   */
  today?: string;
}

export interface StartOptions extends SandboxOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface SandboxStats {
  total: number;
  check: number;
  bulk_submit: number;
  bulk_results: number;
  addresses: number;
  /** Requests to unknown paths. */
  other: number;
  by_status: Record<string, number>;
  callbacks: CallbackStats;
}

export interface SandboxControl {
  /** Replaces every fault rule with `rules`. */
  setFaults(rules: FaultRule[]): void;
  /** Adds rules after the current ones (what POST /__sandbox/faults does). */
  addFaults(rules: FaultRule[]): void;
  clearFaults(): void;
  /** The rules still active. */
  faults(): FaultRule[];
  stats(): SandboxStats;
  /** Clears rate-limit counters, jobs, faults and stats (the clock stays where it is). */
  reset(): void;
  dataset(): Dataset;
  /** The sandbox's day, and the day its register was made for (the dates stay those of that day's register). */
  clock(): { today: string; anchor: string };
  /** Moves the sandbox's day (YYYY-MM-DD), or back to the anchor with null: statuses that turn on a date change. */
  setToday(today: string | null): void;
}

export type SandboxApp = FastifyInstance & { sandbox: SandboxControl };

export interface SandboxHandle extends SandboxControl {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** url + "/v1", the service's base URL. */
  baseUrl: string;
  app: SandboxApp;
  close(): Promise<void>;
}

export const DEFAULT_WEBHOOK_SECRET = "sandbox-webhook-secret";
/** The spec's absolute ceiling on a bulk request, whatever the plan. */
const MAX_BATCH = 10_000;
const MAX_PER_PAGE = 1_000;
const MAX_ADDRESS_LIMIT = 100;

/** Per-request facts the hooks share. */
interface RequestState {
  route: ApiRoute;
  key?: string;
  plan?: "professional" | "enterprise";
  malformed?: boolean;
}

function routeOf(req: FastifyRequest): ApiRoute {
  const url = req.routeOptions.url;
  if (url === "/v1/api/check") return "check";
  if (url === "/v1/api/check/bulk") return "bulk_submit";
  if (url === "/v1/api/check/bulk/:job_id/results") return "bulk_results";
  if (url === "/v1/api/addresses") return "addresses";
  return "other";
}

function emptyStats(): Omit<SandboxStats, "callbacks"> {
  return { total: 0, check: 0, bulk_submit: 0, bulk_results: 0, addresses: 0, other: 0, by_status: {} };
}

/** A query value as a bounded positive integer; absent = `fallback`; above `max` = `max`. */
function positiveInt(raw: unknown, name: string, fallback: number, max = Infinity): number {
  const t = optionalText(raw, name);
  if (t === undefined) return fallback;
  if (!/^\d+$/.test(t) || Number(t) < 1)
    throw new ApiError(400, "invalid_request", `${name} must be a positive integer.`);
  return Math.min(Number(t), max);
}

/** A fault's delay: it never keeps the process alive by itself (a closed sandbox's held requests end with it). */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

export async function buildSandbox(options: SandboxOptions = {}): Promise<SandboxApp> {
  const now = options.now ?? (() => new Date());
  const clock = () => now().getTime();
  const msPerProperty = Math.max(0, options.msPerProperty ?? 20);
  const limits = resolveLimits(options.limits);
  const anchor = getDataset(options.today ? dayStart(options.today) : now());
  let dataset = anchor;
  const faults = new FaultStore();
  const jobs = new JobStore({
    clock,
    msPerProperty,
    serialJobs: options.serialJobs ?? false,
    webhookSecret: options.webhookSecret ?? DEFAULT_WEBHOOK_SECRET,
    dataset: () => dataset,
  });
  let counts = emptyStats();
  const states = new WeakMap<FastifyRequest, RequestState>();

  const control: SandboxControl = {
    setFaults(rules) {
      const parsed = parseFaultRules(rules);
      faults.clear();
      faults.add(parsed);
    },
    addFaults: (rules) => faults.add(rules),
    clearFaults: () => faults.clear(),
    faults: () => faults.list(),
    stats: () => ({ ...counts, by_status: { ...counts.by_status }, callbacks: { ...jobs.callbacks } }),
    reset() {
      rateLimits.reset();
      jobs.clear();
      faults.clear();
      counts = emptyStats();
      jobs.callbacks.sent = 0;
      jobs.callbacks.failed = 0;
    },
    dataset: () => dataset,
    clock: () => ({ today: dataset.today, anchor: anchor.today }),
    setToday(today) {
      if (today !== null && !isDay(today))
        throw new ApiError(
          400,
          "invalid_request",
          `today must be a YYYY-MM-DD date; got "${String(today).slice(0, 40)}".`,
        );
      dataset = datasetOnDay(anchor, today ?? anchor.today);
    },
  };

  // Set once the plugin is registered, before the app answers anything; the hooks declared before then read it.
  // eslint-disable-next-line prefer-const -- it cannot be const: it is assigned after the hooks that use it are declared.
  let rateLimits: RateLimits;

  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: 32 * 1024 * 1024,
    // What Node's HTTP parser refuses before fastify sees a request (raw non-ASCII in the URL, headers over
    // 16 KB) still gets the contract's JSON error body and CORS headers. There is no request to count, so
    // these carry no X-RateLimit-* headers.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return socket.destroy();
      const code = (err as { code?: string }).code;
      const [status, reason, apiCode, message] =
        code === "HPE_HEADER_OVERFLOW"
          ? [431, "Request Header Fields Too Large", "headers_too_large", "The request headers are too large."]
          : [
              400,
              "Bad Request",
              "invalid_request",
              `The request could not be read (${code ?? "malformed HTTP"}); encode non-ASCII characters in the URL.`,
            ];
      const body = JSON.stringify(new ApiError(status, apiCode, message).toBody());
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    // A URL fastify cannot decode (e.g. "/v1/api/check/bulk/%ZZ/results") never reaches the hooks.
    // It is still counted and answered with the contract's body and headers here.
    frameworkErrors: (error, req, genericReply) => {
      const reply = genericReply as unknown as FastifyReply;
      rateLimits
        .limitRequest(req as unknown as FastifyRequest, reply)
        .then(
          () => new ApiError(400, "invalid_request", `The request URL could not be read (${error.code}).`),
          (err: unknown) =>
            err instanceof ApiError ? err : new ApiError(500, "internal_error", "Internal server error."),
        )
        .then((api) => {
          reply.header("Access-Control-Allow-Origin", "*");
          reply.header("Access-Control-Expose-Headers", EXPOSED_HEADERS.join(", "));
          if (api.retryAfter !== undefined) reply.header("Retry-After", String(api.retryAfter));
          reply.code(api.status).type("application/json; charset=utf-8").send(api.toBody());
        });
    },
  });

  await app.register(cors, {
    origin: "*",
    methods: ["GET", "POST", "OPTIONS"],
    allowedHeaders: ["Authorization", "Content-Type"],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    strictPreflight: false,
  });
  rateLimits = await registerRateLimits(app, clock, limits);

  // Every body is read as JSON whatever its Content-Type (Apps Script and curl users forget it).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, "invalid_json", "The request body is not valid JSON."), undefined);
    }
  });

  // Rate limits, authentication and faults, in that order: every request counts (401s and 404s too),
  // a refused key still sees its IP's window, and faults only hit authorised requests to real routes.
  app.addHook("onRequest", async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.url.startsWith("/__sandbox") || req.method === "OPTIONS") return;
    const state: RequestState = { route: routeOf(req) };
    states.set(req, state);
    await rateLimits.limitRequest(req, reply);
    if (state.route === "other") return;
    const auth = authenticate(req.headers.authorization);
    if (auth.kind === "missing")
      throw new ApiError(401, "missing_api_key", "Send the header Authorization: Bearer <API key>.");
    if (auth.kind === "invalid")
      throw new ApiError(401, "invalid_api_key", "The API key is not valid; send Authorization: Bearer <API key>.");
    if (auth.kind === "no_api") {
      throw new ApiError(403, "plan_not_permitted", "API access needs the Professional or Enterprise plan.", {
        plan: "basic",
      });
    }
    state.key = auth.key;
    state.plan = auth.plan;

    const fault = faults.forRequest(state.route);
    if (fault.latencyMs > 0) await sleep(fault.latencyMs);
    switch (fault.fault) {
      case "error_500":
        throw new ApiError(500, "internal_error", "Internal server error (sandbox fault).");
      case "error_503":
        throw new ApiError(
          503,
          "service_unavailable",
          "Service temporarily unavailable (sandbox fault).",
          undefined,
          fault.retryAfter,
        );
      case "rate_limit":
        reply.header("x-ratelimit-remaining", 0);
        reply.header("x-ratelimit-reset", 1);
        throw new ApiError(
          429,
          "rate_limited",
          "Rate limit exceeded (sandbox fault); retry in 1 s.",
          { scope: "minute", retry_after: 1 },
          1,
        );
      case "malformed_json":
        state.malformed = true;
        break;
    }
  });

  app.addHook("onSend", async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    // The Date header is the sandbox's own clock, as its timestamps and estimates are (Node would send the machine's).
    reply.header("Date", now().toUTCString());
    const state = states.get(req);
    if (state?.malformed) {
      const text = typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : "{}";
      reply.code(200).type("application/json; charset=utf-8");
      // A proper prefix of a JSON object is never valid JSON.
      return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    }
    return payload;
  });

  app.addHook("onResponse", async (req: FastifyRequest, reply: FastifyReply) => {
    const state = states.get(req);
    if (!state) return;
    counts.total++;
    counts[state.route]++;
    const status = String(reply.statusCode);
    counts.by_status[status] = (counts.by_status[status] ?? 0) + 1;
  });

  app.addHook("onClose", async () => jobs.clear());

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    let api: ApiError;
    if (err instanceof ApiError) api = err;
    else {
      const fromFastify = typeof err.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 600;
      const status = fromFastify ? (err.statusCode as number) : 500;
      if (status >= 500) req.log.error(err);
      const isJson = err.code === "FST_ERR_CTP_INVALID_JSON_BODY" || err instanceof SyntaxError;
      api = new ApiError(
        status,
        isJson ? "invalid_json" : codeForStatus(status),
        status >= 500 ? "Internal server error." : err.message,
      );
    }
    if (api.retryAfter !== undefined) reply.header("Retry-After", String(api.retryAfter));
    reply.code(api.status).type("application/json; charset=utf-8").send(api.toBody());
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0];
    reply
      .code(404)
      .type("application/json; charset=utf-8")
      .send(new ApiError(404, "not_found", `No route ${req.method} ${path.slice(0, 200)}.`).toBody());
  });

  const owner = (req: FastifyRequest): { key: string; plan: "professional" | "enterprise" } => {
    const s = states.get(req);
    if (!s?.key || !s.plan)
      throw new ApiError(401, "missing_api_key", "Send the header Authorization: Bearer <API key>.");
    return { key: s.key, plan: s.plan };
  };

  // ------------------------------------------------------------------------------------------------
  // The service, under /v1.

  // The bare origin and the base URL say what they are (a newcomer's first request), with no key needed.
  const describeApi = () => ({
    service: "Property Compliance Check Service v1: local sandbox (made-up data, no real properties)",
    base_url: "/v1",
    authentication: "Authorization: Bearer <API key>",
    sandbox_keys: Object.keys(API_KEYS),
    endpoints: [
      "GET /v1/api/check?uprn=",
      "GET /v1/api/check?postcode=&address=",
      "POST /v1/api/check/bulk",
      "GET /v1/api/check/bulk/{job_id}/results",
      "GET /v1/api/addresses?postcode=|q=",
    ],
    sandbox_controls: [
      "GET /__sandbox/examples",
      "GET|POST /__sandbox/faults",
      "GET|POST|DELETE /__sandbox/clock",
      "GET /__sandbox/stats",
    ],
    docs: "sandbox/README.md and docs/service-contract.md in the repository",
  });
  app.get("/v1", async () => describeApi());
  app.get("/v1/", async () => describeApi());
  app.get("/", async (_req, reply) => {
    const api = describeApi();
    const items = [...api.endpoints, ...api.sandbox_controls].map((e) => `<li><code>${e}</code></li>`).join("");
    reply
      .type("text/html; charset=utf-8")
      .send(
        `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><title>Compliance service sandbox</title></head><body>` +
          `<h1>Property Compliance Check Service: local sandbox</h1><p>${api.service}. Base URL: <a href="/v1">/v1</a>. ` +
          `Send <code>${api.authentication}</code>; sandbox keys: ${api.sandbox_keys.map((k) => `<code>${k}</code>`).join(", ")}.</p>` +
          `<ul>${items}</ul><p>See ${api.docs}.</p></body></html>`,
      );
  });

  app.get("/v1/api/check", async (req) =>
    checkResultFor(resolveProperty(dataset, req.query as Record<string, unknown>)),
  );

  app.post("/v1/api/check/bulk", async (req, reply) => {
    const { key, plan } = owner(req);
    const body = req.body as Record<string, unknown> | undefined;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new ApiError(400, "invalid_request", "The body must be a JSON object with a properties array.");
    }
    const properties = body.properties;
    if (!Array.isArray(properties) || properties.length === 0) {
      throw new ApiError(400, "invalid_request", "properties must be a non-empty array.");
    }
    const cap = Math.min(limits[plan].batchCap, MAX_BATCH);
    if (properties.length > cap) {
      throw new ApiError(
        413,
        "batch_too_large",
        `The ${plan} plan accepts at most ${cap} properties per request; got ${properties.length}.`,
        {
          max_batch_size: cap,
          plan,
          submitted: properties.length,
        },
      );
    }
    const checks = parseChecks(body.checks);
    const callbackUrl = parseCallbackUrl(body.callback_url);
    const job = jobs.create(key, properties, checks, callbackUrl, faults.forNewJob() ?? "normal");
    const progress = jobs.progress(job);
    const spoiled = faults.forCreatedJob();
    if (spoiled === "created_504")
      throw new ApiError(504, "gateway_timeout", "Gateway timeout (sandbox fault; the job was created).");
    if (spoiled === "created_drop") {
      req.raw.socket.destroy();
      return reply;
    }
    if (spoiled === "created_garbled") {
      reply.code(202).header("content-type", "application/json");
      return reply.send(`{"job_id": "${job.id}", "status": "proc`);
    }
    reply.code(202);
    return {
      job_id: job.id,
      status: "processing",
      total_properties: properties.length,
      estimated_completion: isoSeconds(Math.ceil(progress.estimatedCompletionMs / 1000) * 1000),
      results_url: resultsPath(job.id),
    };
  });

  app.get("/v1/api/check/bulk/:job_id/results", async (req) => {
    const { key } = owner(req);
    const { job_id } = req.params as { job_id: string };
    const job = jobs.get(job_id, key);
    if (!job)
      throw new ApiError(404, "job_not_found", `No bulk job ${job_id.slice(0, 60)} for this API key.`, {
        job_id: job_id.slice(0, 60),
      });
    const q = req.query as Record<string, unknown>;
    const page = positiveInt(q.page, "page", 1);
    const perPage = positiveInt(q.per_page, "per_page", MAX_PER_PAGE, MAX_PER_PAGE);
    const p = jobs.progress(job);
    const total = job.inputs.length;
    const totalPages = Math.max(1, Math.ceil(total / perPage));
    const from = Math.min(total, (page - 1) * perPage);
    const to = Math.min(total, page * perPage, p.processed);
    return {
      job_id: job.id,
      status: p.status,
      total_properties: total,
      processed_properties: p.processed,
      estimated_completion: isoSeconds(Math.ceil(p.estimatedCompletionMs / 1000) * 1000),
      created_at: isoSeconds(job.createdMs),
      completed_at: p.completedMs === null ? null : isoSeconds(p.completedMs),
      checks: job.checks,
      page,
      per_page: perPage,
      total_pages: totalPages,
      next_page_url: page < totalPages ? `${resultsPath(job.id)}?page=${page + 1}&per_page=${perPage}` : null,
      results: from < to ? jobs.items(job, from, to) : [],
      error: p.error,
    };
  });

  app.get("/v1/api/addresses", async (req) => {
    const q = req.query as Record<string, unknown>;
    const postcode = optionalText(q.postcode, "postcode");
    const query = optionalText(q.query, "query");
    if (postcode === undefined && query === undefined) {
      throw new ApiError(400, "invalid_request", "Give postcode or query.");
    }
    const limit = positiveInt(q.limit, "limit", 50, MAX_ADDRESS_LIMIT);
    const matches = searchAddresses(dataset, postcode, query);
    return { results: matches.slice(0, limit).map(addressRecord), total: matches.length };
  });

  // ------------------------------------------------------------------------------------------------
  // Sandbox controls: no key, no rate limit.

  app.get("/__sandbox/stats", async () => control.stats());
  app.post("/__sandbox/reset", async () => {
    control.reset();
    return { ok: true };
  });
  app.get("/__sandbox/faults", async () => ({ rules: faults.list() }));
  app.post("/__sandbox/faults", async (req) => {
    const body = req.body as { rules?: unknown } | undefined;
    faults.add(parseFaultRules(body && typeof body === "object" ? body.rules : undefined));
    return { rules: faults.list() };
  });
  app.delete("/__sandbox/faults", async () => {
    faults.clear();
    return { rules: [] };
  });
  // The sandbox's clock: GET says the day; POST { "today": "2027-03-31" } or { "advance_days": 60 } moves it (the
  // register's dates stay, so certificates expire); DELETE goes back to the day the register was made for.
  app.get("/__sandbox/clock", async () => control.clock());
  app.post("/__sandbox/clock", async (req) => {
    const body = (req.body ?? {}) as { today?: unknown; advance_days?: unknown };
    if (body.advance_days !== undefined) {
      const n = Number(body.advance_days);
      if (!Number.isInteger(n) || Math.abs(n) > 36500)
        throw new ApiError(400, "invalid_request", "advance_days must be a whole number of days.");
      control.setToday(new Date(Date.parse(dataset.today + "T00:00:00Z") + n * 86400000).toISOString().slice(0, 10));
    } else control.setToday(typeof body.today === "string" ? body.today : String(body.today));
    return control.clock();
  });
  app.delete("/__sandbox/clock", async () => {
    control.setToday(null);
    return control.clock();
  });
  app.get("/__sandbox/examples", async () => {
    const ex = findExamples(dataset);
    const status: Record<string, Record<string, string>> = {};
    for (const [check, byStatus] of Object.entries(ex.byCheckStatus)) {
      status[check] = Object.fromEntries(Object.entries(byStatus).map(([s, p]) => [s, p.uprn]));
    }
    return {
      today: dataset.today,
      properties: dataset.properties.length,
      postcodes: dataset.byPostcode.size,
      uprn_by_check_status: status,
      uprn_by_epc_rating: Object.fromEntries(Object.entries(ex.epcByRating).map(([r, p]) => [r, p.uprn])),
      uprn_by_due_within: Object.fromEntries(
        Object.entries(ex.dueWithin).map(([check, byBucket]) => [
          check,
          Object.fromEntries(Object.entries(byBucket).map(([b, p]) => [b, p.uprn])),
        ]),
      ),
      shared_postcode: ex.sharedPostcode.postcode,
      ambiguous_address: { postcode: ex.ambiguousAddress.postcode, address: ex.ambiguousAddress.address },
      single_property_postcode: ex.singlePropertyPostcode.postcode,
      short_uprn: ex.shortUprn.property.uprn,
      short_uprn_padded: ex.shortUprn.padded,
      unknown_uprn: ex.unknownUprn,
      unknown_postcode: ex.unknownPostcode,
    };
  });

  app.decorate("sandbox", control);
  return app as unknown as SandboxApp;
}

/** Builds and listens; the handle gives the URLs and the controls. */
/** Headers a browser page may read from our responses (CORS hides all but a few otherwise). */
// Date: a job's estimated_completion is the server's time, read against the server's clock (core/service/ratelimit.ts).
const EXPOSED_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "Date"];

export async function startSandbox(options: StartOptions = {}): Promise<SandboxHandle> {
  const app = await buildSandbox(options);
  const host = options.host ?? "127.0.0.1";
  await app.listen({ port: options.port ?? 0, host });
  const port = (app.server.address() as AddressInfo).port;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const url = `http://${shown}:${port}`;
  const c = app.sandbox;
  return {
    url,
    baseUrl: `${url}/v1`,
    app,
    close: () => app.close(),
    setFaults: (rules) => c.setFaults(rules),
    addFaults: (rules) => c.addFaults(rules),
    clearFaults: () => c.clearFaults(),
    faults: () => c.faults(),
    stats: () => c.stats(),
    reset: () => c.reset(),
    dataset: () => c.dataset(),
    clock: () => c.clock(),
    setToday: (t) => c.setToday(t),
  };
}

function isDay(s: unknown): s is string {
  return (
    typeof s === "string" &&
    /^\d{4}-\d{2}-\d{2}$/.test(s) &&
    new Date(s + "T00:00:00Z").toISOString().slice(0, 10) === s
  );
}

function dayStart(day: string): Date {
  if (!isDay(day)) throw new Error(`today must be a YYYY-MM-DD date, got "${day}"`);
  return new Date(day + "T12:00:00Z");
}
