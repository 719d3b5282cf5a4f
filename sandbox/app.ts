/**
 * The sandbox: a local Property Compliance Check Service v1 on fastify, following
 * docs/service-contract.md, plus run-time fault injection and counters for tests and demos.
 * Each request goes through pipeline.ts; the routes are in routes/, one file per resource.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import cors from "@fastify/cors";
import type { AddressInfo } from "net";
import { type SandboxControl, emptyCounts } from "./control";
import { datasetOnDay, getDataset } from "./dataset";
import { ApiError } from "./errors";
import { FaultStore, parseFaultRules } from "./faults";
import { JobStore } from "./jobs";
import { registerPipeline } from "./pipeline";
import { type LimitsOverride, resolveLimits } from "./plans";
import { type RateLimits, registerRateLimits } from "./rate-limit";
import { registerAbout } from "./routes/about";
import { registerAddresses } from "./routes/addresses";
import { registerBulk } from "./routes/bulk";
import { registerCheck } from "./routes/check";
import { registerControls } from "./routes/controls";

export { API_KEYS, DEFAULT_LIMITS } from "./plans";
export type { FaultRule, FaultKind, FaultRoute } from "./faults";
export type { LimitsOverride, PlanLimits } from "./plans";
export type { SandboxControl, SandboxStats } from "./control";

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
  let counts = emptyCounts();

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
      counts = emptyCounts();
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

  const owner = registerPipeline(app, { now, faults, rateLimits, counts: () => counts });
  app.addHook("onClose", async () => jobs.clear());

  // The service, under /v1.
  registerAbout(app);
  registerCheck(app, () => dataset);
  registerBulk(app, { jobs, faults, limits, owner });
  registerAddresses(app, () => dataset);
  registerControls(app, control, faults);

  app.decorate("sandbox", control);
  return app as unknown as SandboxApp;
}

/** Headers a browser page may read from our responses (CORS hides all but a few otherwise). */
// Date: a job's estimated_completion is the server's time, read against the server's clock (core/service/ratelimit.ts).
const EXPOSED_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "Date"];

/** Builds and listens; the handle gives the URLs and the controls. */
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
