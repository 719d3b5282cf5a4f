/**
 * Bulk jobs: progress is worked out from elapsed time when polled (no timer per property), items are
 * resolved lazily in index order, and one timer per job fires the signed completion callback.
 */
import { createHmac, randomBytes } from "crypto";
import * as http from "http";
import * as https from "https";
import { CHECK_NAMES, type CheckName, type CheckResult, type Dataset, checkResultFor, isoSeconds } from "./dataset";
import { ApiError } from "./errors";
import { resolveProperty } from "./lookup";

export type JobStatus = "processing" | "completed" | "failed";
export type JobMode = "normal" | "fail" | "stall";

export interface BulkJob {
  id: string;
  /** The API key that created it; other keys see 404. */
  owner: string;
  createdMs: number;
  /** When the service starts working on it: its creation, or (one job at a time) when its owner's previous job ends. */
  startMs: number;
  inputs: unknown[];
  checks: CheckName[];
  callbackUrl: string | null;
  mode: JobMode;
  /** Lazily filled per index. */
  items: (BulkItem | undefined)[];
  timer?: NodeJS.Timeout;
  callbackSent: boolean;
}

export type BulkItem =
  | { index: number; input: unknown; status: "completed"; result: CheckResult }
  | {
      index: number;
      input: unknown;
      status: "error";
      error: { code: string; message: string; details?: Record<string, unknown> };
    };

export interface JobProgress {
  status: JobStatus;
  processed: number;
  estimatedCompletionMs: number;
  completedMs: number | null;
  error: null | { code: string; message: string };
}

export interface CallbackStats {
  sent: number;
  failed: number;
}

const JOB_TTL_MS = 24 * 3_600_000;

export class JobStore {
  private jobs = new Map<string, BulkJob>();
  readonly callbacks: CallbackStats = { sent: 0, failed: 0 };

  constructor(
    private readonly opts: {
      clock: () => number;
      msPerProperty: number;
      /** One job at a time per API key (a service without parallel workers); default false: jobs run side by side. */
      serialJobs?: boolean;
      webhookSecret: string;
      dataset: () => Dataset;
    },
  ) {}

  create(owner: string, inputs: unknown[], checks: CheckName[], callbackUrl: string | null, mode: JobMode): BulkJob {
    this.prune();
    let id: string;
    do id = "bulk_" + randomBytes(5).toString("hex");
    while (this.jobs.has(id));
    const createdMs = this.opts.clock();
    let startMs = createdMs;
    if (this.opts.serialJobs) {
      // Queued behind every earlier job of this key that has not ended yet.
      for (const other of this.jobs.values()) if (other.owner === owner) startMs = Math.max(startMs, this.endOf(other));
    }
    const job: BulkJob = {
      id,
      owner,
      createdMs,
      startMs,
      inputs,
      checks,
      callbackUrl,
      mode,
      items: new Array(inputs.length),
      callbackSent: false,
    };
    this.jobs.set(id, job);
    if (callbackUrl && mode !== "stall") this.scheduleCallback(job);
    return job;
  }

  /** The job if it exists and belongs to `owner`. */
  get(id: string, owner: string): BulkJob | undefined {
    const job = this.jobs.get(id);
    return job && job.owner === owner ? job : undefined;
  }

  /** When a job stops working (a stalled job never does). */
  private endOf(job: BulkJob): number {
    if (job.mode === "stall") return Infinity;
    const stopAt = job.mode === "normal" ? job.inputs.length : Math.floor(job.inputs.length / 2);
    return job.startMs + stopAt * Math.max(0, this.opts.msPerProperty);
  }

  progress(job: BulkJob): JobProgress {
    const ms = this.opts.msPerProperty;
    const total = job.inputs.length;
    // A failing or stalling job stops after half of its properties.
    const stopAt = job.mode === "normal" ? total : Math.floor(total / 2);
    const elapsed = this.opts.clock() - job.startMs;
    const processed = elapsed < 0 ? 0 : ms <= 0 ? stopAt : Math.min(stopAt, Math.floor(elapsed / ms));
    const estimatedCompletionMs = job.startMs + total * Math.max(0, ms);
    const endedMs = job.startMs + stopAt * Math.max(0, ms);
    const reachedStop = elapsed >= 0 && processed >= stopAt && (ms <= 0 || elapsed >= stopAt * ms);
    if (job.mode === "normal" && reachedStop) {
      return { status: "completed", processed, estimatedCompletionMs, completedMs: endedMs, error: null };
    }
    if (job.mode === "fail" && reachedStop) {
      return {
        status: "failed",
        processed,
        estimatedCompletionMs,
        completedMs: endedMs,
        error: {
          code: "job_failed",
          message: `The job failed after ${processed} of ${total} properties (sandbox fault).`,
        },
      };
    }
    return { status: "processing", processed, estimatedCompletionMs, completedMs: null, error: null };
  }

  /** Items [from, to) that are finished, resolved on first request. */
  items(job: BulkJob, from: number, to: number): BulkItem[] {
    const ds = this.opts.dataset();
    const out: BulkItem[] = [];
    for (let i = from; i < to; i++) {
      let item = job.items[i];
      if (!item) {
        item = resolveItem(ds, i, job.inputs[i], job.checks);
        job.items[i] = item;
      }
      out.push(item);
    }
    return out;
  }

  clear(): void {
    for (const job of this.jobs.values()) if (job.timer) clearTimeout(job.timer);
    this.jobs.clear();
  }

  private prune(): void {
    const now = this.opts.clock();
    for (const [id, job] of this.jobs) {
      if (now - job.createdMs > JOB_TTL_MS) {
        if (job.timer) clearTimeout(job.timer);
        this.jobs.delete(id);
      }
    }
  }

  /** One timer per job: it wakes when the job should have ended, and re-arms if it has not. */
  private scheduleCallback(job: BulkJob): void {
    const total = job.inputs.length;
    const stopAt = job.mode === "normal" ? total : Math.floor(total / 2);
    const dueMs = job.startMs + stopAt * Math.max(0, this.opts.msPerProperty);
    // Real time drives the timer; an injected clock may lag, so re-check at most a second later.
    // At least 5 ms, so the 202 reaches the client before the callback does.
    const delay = Math.min(1000, Math.max(5, dueMs - this.opts.clock()));
    job.timer = setTimeout(() => {
      job.timer = undefined;
      const p = this.progress(job);
      if (p.status === "processing") this.scheduleCallback(job);
      else void this.sendCallback(job, p);
    }, delay);
    job.timer.unref();
  }

  private async sendCallback(job: BulkJob, p: JobProgress): Promise<void> {
    if (job.callbackSent || !job.callbackUrl || !this.jobs.has(job.id)) return;
    job.callbackSent = true;
    const body = JSON.stringify({
      event: p.status === "failed" ? "bulk.failed" : "bulk.completed",
      job_id: job.id,
      status: p.status,
      total_properties: job.inputs.length,
      processed_properties: p.processed,
      completed_at: p.completedMs === null ? null : isoSeconds(p.completedMs),
      results_url: resultsPath(job.id),
      ...(p.error ? { error: p.error } : {}),
    });
    const timestamp = String(Math.floor(this.opts.clock() / 1000));
    const signature = createHmac("sha256", this.opts.webhookSecret).update(`${timestamp}.${body}`).digest("hex");
    const ok = await postJson(job.callbackUrl, body, {
      "X-Compliance-Event": p.status === "failed" ? "bulk.failed" : "bulk.completed",
      "X-Compliance-Timestamp": timestamp,
      "X-Compliance-Signature": `sha256=${signature}`,
    });
    if (ok) this.callbacks.sent++;
    else this.callbacks.failed++;
  }
}

export function resultsPath(id: string): string {
  return `/api/check/bulk/${id}/results`;
}

function resolveItem(ds: Dataset, index: number, input: unknown, checks: CheckName[]): BulkItem {
  try {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      throw new ApiError(
        400,
        "invalid_request",
        "Each property must be an object with uprn, or postcode and optional address.",
      );
    }
    const property = resolveProperty(ds, input as Record<string, unknown>);
    return { index, input, status: "completed", result: checkResultFor(property, checks) };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const error: { code: string; message: string; details?: Record<string, unknown> } = {
      code: e.code,
      message: e.message,
    };
    if (e.details) error.details = e.details;
    return { index, input, status: "error", error };
  }
}

/** Validates `checks` of a bulk request: absent = all five; else a non-empty array of known names. */
export function parseChecks(raw: unknown): CheckName[] {
  if (raw === undefined || raw === null) return [...CHECK_NAMES];
  if (
    !Array.isArray(raw) ||
    raw.length === 0 ||
    !raw.every((c) => typeof c === "string" && (CHECK_NAMES as readonly string[]).includes(c))
  ) {
    throw new ApiError(400, "invalid_checks", `checks must be a non-empty array of: ${CHECK_NAMES.join(", ")}.`, {
      allowed: [...CHECK_NAMES],
    });
  }
  return CHECK_NAMES.filter((c) => raw.includes(c));
}

/** https anywhere; http only to this machine (a sandbox convenience for test receivers). */
export function parseCallbackUrl(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  let url: URL | undefined;
  try {
    if (typeof raw === "string") url = new URL(raw);
  } catch {
    url = undefined;
  }
  const local = url !== undefined && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (!url || !(url.protocol === "https:" || (url.protocol === "http:" && local))) {
    throw new ApiError(400, "invalid_callback_url", "callback_url must be an https URL (http only for localhost).");
  }
  return url.toString();
}

function postJson(url: string, body: string, headers: Record<string, string>): Promise<boolean> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const client = u.protocol === "https:" ? https : http;
    const req = client.request(
      u,
      {
        method: "POST",
        timeout: 5000,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve((res.statusCode ?? 500) < 400));
        res.on("error", () => resolve(false));
      },
    );
    req.on("timeout", () => req.destroy(new Error("callback timed out")));
    req.on("error", () => resolve(false));
    req.end(body);
  });
}
