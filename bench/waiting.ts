/**
 * Where someone waits: `=COMPLIANCE.SCORE` over a few new UPRNs (first call to results), the result pages of a
 * finished job, a large Enterprise run against ten parallel jobs, and a Professional run's requests and time.
 * Each is measured against its floor (the least the service allows) or a side-by-side figure, in the same run.
 * BENCH_WAITING_SKIP_SLOW=1 leaves out the Enterprise run as one job (which takes minutes where jobs are not split).
 */
import { performance } from "perf_hooks";
import { createClient, createRun, driveRun, normaliseProperty, startJob, type BulkJob } from "../core";
import { CheckBatcher } from "../excel/functions/batcher";
import { startSandbox } from "../sandbox/app";
import { getDataset } from "../sandbox/dataset";
import { summary } from "./summary";

const MS_PER_PROPERTY = 20;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const uprns = (from: number, n: number) =>
  getDataset()
    .properties.slice(from, from + n)
    .map((p) => p.uprn);

async function api(baseUrl: string, key: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const url = path.startsWith("http") ? path : baseUrl + path;
  const res = await fetch(url, {
    method: body ? "POST" : "GET",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status >= 400) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** One POST, a wait until the job's real end (known here: size x processing time), and the GETs of its pages. */
async function floorJob(baseUrl: string, key: string, list: string[], msPerProperty: number): Promise<number> {
  const t0 = performance.now();
  const job = await api(baseUrl, key, "/api/check/bulk", { properties: list.map((uprn) => ({ uprn })) });
  const end = t0 + list.length * msPerProperty;
  await sleep(Math.max(0, end - performance.now()));
  let url: string | null = `/api/check/bulk/${job.job_id}/results`;
  while (url) {
    const page = await api(baseUrl, key, url);
    if (page.status === "processing") {
      await sleep(1);
      continue;
    }
    url = (page.next_page_url as string | null) ?? null;
  }
  return performance.now() - t0;
}

/** `=COMPLIANCE.SCORE` over n UPRNs not asked before: from the first call to the last result, through the batcher. */
async function scoreOver(
  n: number,
  from: number,
  singleCheckLimit?: number,
): Promise<{ ours: number; floor: number; requests: number }> {
  const sandbox = await startSandbox({ port: 0, msPerProperty: MS_PER_PROPERTY });
  try {
    const floors: number[] = [];
    const ours: number[] = [];
    // The median of three of each, alternating, on UPRNs not asked before.
    let requests = 0;
    for (let round = 0; round < 3; round++) {
      sandbox.reset();
      const batcher = new CheckBatcher({
        getConfig: async () => ({ baseUrl: sandbox.baseUrl, apiKey: "sandbox-professional", plan: "professional" }),
        fetch,
        ...(singleCheckLimit !== undefined ? { singleCheckLimit } : {}),
      });
      const list = uprns(from + round * 2 * n, n);
      const t0 = performance.now();
      await Promise.all(list.map((u) => batcher.check(u)));
      ours.push(performance.now() - t0);
      requests = sandbox.stats().total;
      floors.push(
        await floorJob(sandbox.baseUrl, "sandbox-professional", uprns(from + round * 2 * n + n, n), MS_PER_PROPERTY),
      );
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
    return { ours: med(ours), floor: med(floors), requests };
  } finally {
    await sandbox.close();
  }
}

export async function benchScoreSmallBatches(): Promise<void> {
  for (const [n, from] of [
    [3, 100],
    [10, 200],
  ] as const) {
    const r = await scoreOver(n, from);
    // The other way, for comparison: the same calls as one bulk job (single checks switched off).
    const bulk = await scoreOver(n, from + 1000, 0);
    console.log(
      `=COMPLIANCE.SCORE over ${n} new UPRNs: ${r.ours.toFixed(0)} ms first call to results (${r.requests} requests); as one bulk job instead: ${bulk.ours.toFixed(0)} ms (${bulk.requests} requests); floor (one POST + one GET at the job's real end): ${r.floor.toFixed(0)} ms`,
    );
    summary(
      `=COMPLIANCE.SCORE over ${n} new UPRNs, first call to results (ms)`,
      r.ours,
      "ms",
      r.floor,
      `floor: one POST + one GET at the job's end, ${r.floor.toFixed(0)} ms`,
      0,
    );
  }
}

/** Collecting an Enterprise job of 10,000 that has already finished (a Resume): the run engine against raw GETs back to back. */
export async function benchFinishedJobPages(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, msPerProperty: 0 });
  try {
    const key = "sandbox-enterprise";
    const list = uprns(0, 10000);
    const job = (await api(sandbox.baseUrl, key, "/api/check/bulk", {
      properties: list.map((uprn) => ({ uprn })),
    })) as unknown as BulkJob;
    // Back to back: each page as soon as the one before it arrived (a first pass makes the sandbox resolve every item).
    const pages = async () => {
      let url: string | null = `/api/check/bulk/${job.job_id}/results`;
      while (url) url = ((await api(sandbox.baseUrl, key, url)).next_page_url as string | null) ?? null;
    };
    await pages();
    let t0 = performance.now();
    await pages();
    const floor = performance.now() - t0;
    // The run engine, holding that job as sent (what Resume collects).
    const rows = list.map((u, i) => ({ ...normaliseProperty(u, "", ""), index: i }));
    const state = createRun(rows, { plan: "enterprise", nowMs: Date.now() });
    state.jobs = [
      {
        start: 0,
        end: list.length,
        phase: "polling",
        submitRetries: 0,
        getFailures: 0,
        notBeforeMs: 0,
        poll: startJob(job, { offset: 0, count: list.length, nowMs: Date.now() }),
      },
    ];
    state.jobs[0].poll!.nextPollAtMs = 0;
    const before = sandbox.stats().bulk_results;
    let got = 0;
    t0 = performance.now();
    await driveRun(state, {
      cfg: { baseUrl: sandbox.baseUrl, apiKey: key },
      fetch,
      sleep: (ms) => sleep(ms),
      now: () => Date.now(),
      write: async (items) => {
        got += items.filter((i) => i.final).length;
        return items.map((i) => ({ property: i.property, present: true }));
      },
    });
    const ours = performance.now() - t0;
    const gets = sandbox.stats().bulk_results - before;
    console.log(
      `result pages of a finished Enterprise job of 10,000: ${ours.toFixed(0)} ms (${gets} GETs, ${got} results); the same GETs back to back: ${floor.toFixed(0)} ms`,
    );
    summary(
      "result pages of a finished Enterprise job of 10,000 (ms)",
      ours,
      "ms",
      floor,
      `side by side: the same GETs back to back, ${floor.toFixed(0)} ms`,
      0,
    );
  } finally {
    await sandbox.close();
  }
}

/** Screen n distinct properties through createClient().screen at 20 ms a property: time and requests. */
async function screenRun(n: number, key: string, plan: "professional" | "enterprise", serialJobs = false) {
  const sandbox = await startSandbox({ port: 0, msPerProperty: MS_PER_PROPERTY, serialJobs });
  try {
    const client = createClient({ baseUrl: sandbox.baseUrl, apiKey: key, fetch });
    const t0 = performance.now();
    const out = await client.screen(
      uprns(0, n).map((uprn) => ({ uprn })),
      { plan },
    );
    const ms = performance.now() - t0;
    const s = sandbox.stats();
    return {
      ms,
      total: s.total,
      posts: s.bulk_submit,
      gets: s.bulk_results,
      ok: out.filter((o) => "result" in o).length,
    };
  } finally {
    await sandbox.close();
  }
}

/** Ten jobs of 1,000 sent at once and collected as each ends: what the sandbox can do side by side. */
async function tenParallelJobs(): Promise<number> {
  const sandbox = await startSandbox({ port: 0, msPerProperty: MS_PER_PROPERTY });
  try {
    const list = uprns(0, 10000);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, (_v, i) =>
        floorJob(sandbox.baseUrl, "sandbox-enterprise", list.slice(i * 1000, (i + 1) * 1000), MS_PER_PROPERTY),
      ),
    );
    return performance.now() - t0;
  } finally {
    await sandbox.close();
  }
}

export async function benchEnterpriseSplit(): Promise<void> {
  const side = await tenParallelJobs();
  console.log(`ten parallel jobs of 1,000 (raw POSTs and GETs): ${(side / 1000).toFixed(1)} s`);
  if (process.env.BENCH_WAITING_SKIP_SLOW !== "1") {
    const r = await screenRun(10000, "sandbox-enterprise", "enterprise");
    console.log(
      `Enterprise, 10,000 rows as one run at ${MS_PER_PROPERTY} ms a property: ${(r.ms / 1000).toFixed(1)} s, ${r.total} requests (${r.posts} POST + ${r.gets} GET), ${r.ok} results`,
    );
    summary(
      "Enterprise, 10,000 rows as one run (s)",
      r.ms / 1000,
      "s",
      side / 1000,
      `side by side: ten parallel jobs of 1,000, ${(side / 1000).toFixed(1)} s`,
    );
    // The other case: a service that runs one job at a time gains nothing from splitting (shown, not in the table).
    const serial = await screenRun(10000, "sandbox-enterprise", "enterprise", true);
    console.log(
      `Enterprise, 10,000 rows against a service running one job at a time: ${(serial.ms / 1000).toFixed(1)} s, ${serial.total} requests (${serial.posts} POST + ${serial.gets} GET); its floor is 10,000 x ${MS_PER_PROPERTY} ms = ${(10000 * MS_PER_PROPERTY) / 1000} s`,
    );
  }
}

export async function benchProfessionalRequests(): Promise<void> {
  const r = await screenRun(10000, "sandbox-professional", "professional");
  const floorMs = 1000 * MS_PER_PROPERTY;
  console.log(
    `Professional, 10,000 rows at ${MS_PER_PROPERTY} ms a property: ${r.total} requests (${r.posts} POST + ${r.gets} GET), ${(r.ms / 1000).toFixed(1)} s, ${r.ok} results; floor 20 requests (10 POST + 10 GET), ${floorMs / 1000} s`,
  );
  summary(
    "Professional, 10,000 rows at 20 ms a property: requests",
    r.total,
    "",
    20,
    "floor: 20 (10 POST + one GET per job)",
    0,
  );
  summary(
    "Professional, 10,000 rows at 20 ms a property: time (s)",
    r.ms / 1000,
    "s",
    floorMs / 1000,
    `floor: ten jobs of 1,000 side by side, ${floorMs / 1000} s`,
  );
}

async function main(): Promise<void> {
  await benchScoreSmallBatches();
  await benchFinishedJobPages();
  await benchProfessionalRequests();
  await benchEnterpriseSplit();
}

if (require.main === module) main().catch((e) => ((process.exitCode = 1), console.error(e)));
