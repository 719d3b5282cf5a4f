/**
 * Every request's way through the sandbox: its body read as JSON whatever its Content-Type; rate limits,
 * authentication and faults before any route; the sandbox's clock in the Date header; counts by route and status; and
 * every error, an unknown route's included, answered with the contract's JSON body.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RequestCounts } from "./control";
import { ApiError, codeForStatus } from "./errors";
import type { ApiRoute, FaultStore } from "./faults";
import { authenticate } from "./plans";
import type { RateLimits } from "./rate-limit";

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

/** A fault's delay: it never keeps the process alive by itself (a closed sandbox's held requests end with it). */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

export interface PipelineDeps {
  /** The sandbox's clock. */
  now: () => Date;
  faults: FaultStore;
  rateLimits: RateLimits;
  /** The counts as they are now (a reset replaces them). */
  counts: () => RequestCounts;
}

/** Registers the hooks and handlers; gives the authenticated caller of a request (its key and plan). */
export function registerPipeline(
  app: FastifyInstance,
  deps: PipelineDeps,
): (req: FastifyRequest) => { key: string; plan: "professional" | "enterprise" } {
  const { now, faults, rateLimits } = deps;
  const states = new WeakMap<FastifyRequest, RequestState>();

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
    const counts = deps.counts();
    counts.total++;
    counts[state.route]++;
    const status = String(reply.statusCode);
    counts.by_status[status] = (counts.by_status[status] ?? 0) + 1;
  });

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
  return owner;
}
