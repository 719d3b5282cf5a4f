/**
 * The bulk check: POST /v1/api/check/bulk creates a job for the caller's key (refused past the plan's batch size), and
 * GET /v1/api/check/bulk/{job_id}/results pages through its results as they are processed. Faults may spoil a job's
 * creation after it is made.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { isoSeconds } from "../dataset";
import { ApiError } from "../errors";
import type { FaultStore } from "../faults";
import { type JobStore, parseCallbackUrl, parseChecks, resultsPath } from "../jobs";
import type { PlanLimits } from "../plans";
import { positiveInt } from "./query";

/** The spec's absolute ceiling on a bulk request, whatever the plan. */
const MAX_BATCH = 10_000;
const MAX_PER_PAGE = 1_000;

export interface BulkDeps {
  jobs: JobStore;
  faults: FaultStore;
  limits: Record<"professional" | "enterprise", PlanLimits>;
  /** The authenticated caller of a request (its key and plan). */
  owner(req: FastifyRequest): { key: string; plan: "professional" | "enterprise" };
}

export function registerBulk(app: FastifyInstance, { jobs, faults, limits, owner }: BulkDeps): void {
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
}
