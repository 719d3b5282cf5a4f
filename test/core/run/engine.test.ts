/**
 * The run engine without HTTP: one scenario table. Each scenario is a small in-memory service (a function from a
 * request to a reply) and a virtual clock; the loop is what every host does: ask what is due, answer it, write what
 * arrived. The same engine runs behind the Excel pane, the Sheets sidebar and createClient().screen.
 */
import {
  RUN_POLICY,
  acceptReply,
  createRun,
  dueRequests,
  isRunDone,
  loadRunState,
  markWritten,
  normaliseProperty,
  outcomesToWrite,
  resumeRun,
  runSummary,
  stopRun,
  storedState,
  type HttpRequest,
  type Outcome,
  type Reply,
  type RunState,
} from "../../../core";
import { checkResultFor } from "../../../sandbox/dataset";
import { sandboxDataset } from "../../helpers/sandbox";

const cfg = { baseUrl: "https://svc.test/v1", apiKey: "k" };
const ds = sandboxDataset(new Date("2026-11-24T12:00:00Z"));
const UPRNS = ds.properties.slice(0, 40).map((p) => p.uprn);

interface Job {
  id: string;
  uprns: string[];
  polls: number;
}

/** A tiny service: answers submits with a job and results pages with every item at once, unless a scenario says otherwise. */
class Service {
  jobs: Job[] = [];
  log: { method: string; url: string; at: number }[] = [];
  constructor(public answer: (req: HttpRequest, s: Service, n: number) => Reply | undefined = () => undefined) {}
  handle(req: HttpRequest, at: number): Reply {
    this.log.push({ method: req.method, url: req.url, at });
    const special = this.answer(req, this, this.log.length);
    if (special) return special;
    return req.method === "POST" ? this.submit(req) : this.results(req);
  }
  submit(req: HttpRequest): Reply {
    const body = JSON.parse(req.body!) as { properties: { uprn: string }[] };
    const job: Job = { id: `job${this.jobs.length + 1}`, uprns: body.properties.map((p) => p.uprn), polls: 0 };
    this.jobs.push(job);
    return json(202, {
      job_id: job.id,
      status: "processing",
      total_properties: job.uprns.length,
      results_url: `/api/check/bulk/${job.id}/results`,
    });
  }
  jobOf(req: HttpRequest): Job {
    const id = /bulk\/([^/]+)\/results/.exec(req.url)![1];
    return this.jobs.find((j) => j.id === id)!;
  }
  results(req: HttpRequest): Reply {
    const job = this.jobOf(req);
    job.polls++;
    return json(200, { job_id: job.id, status: "completed", results: job.uprns.map((u, i) => item(u, i)) });
  }
  count(method: string) {
    return this.log.filter((l) => l.method === method).length;
  }
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { "content-type": "application/json", ...headers }, text: JSON.stringify(body) };
}
function item(uprn: string, index: number) {
  const p = ds.byUprn.get(uprn);
  return p
    ? { index, status: "completed", result: checkResultFor(p) }
    : { index, status: "failed", error: { code: "property_not_found", message: "No such property", status: 404 } };
}
const err = (status: number, code: string, headers: Record<string, string> = {}, details?: unknown) =>
  json(status, { error: { code, message: `${code} (test)`, details } }, headers);

function rowsOf(uprns: string[]) {
  return uprns.map((u, i) => ({ ...normaliseProperty(u, "", ""), index: i }));
}

/** Drive a run the way a host does, on a virtual clock; every outcome is written as soon as it arrives. */
function drive(
  state: RunState,
  svc: Service,
  o: { start?: number; until?: (s: RunState, now: number) => boolean; maxSteps?: number } = {},
) {
  let now = o.start ?? 1_000_000;
  const written = new Map<number, Outcome>();
  for (let step = 0; step < (o.maxSteps ?? 2000); step++) {
    if (o.until?.(state, now)) break;
    const due = dueRequests(state, cfg, now);
    for (const r of due.requests) acceptReply(state, r.id, svc.handle(r.request, now), now);
    const items = outcomesToWrite(state).filter((i) => i.final);
    for (const i of items) written.set(i.property, i.outcome);
    markWritten(
      state,
      items.map((i) => ({ property: i.property, present: true })),
    );
    if (due.finished && !due.requests.length) break;
    if (!due.requests.length) now += Math.max(1, due.waitMs);
  }
  return { now, written };
}

const kinds = (w: Map<number, Outcome>, n: number) =>
  Array.from({ length: n }, (_v, p) =>
    w.get(p) ? ("result" in w.get(p)! ? "ok" : (w.get(p) as { error: { kind: string } }).error.kind) : "-",
  );

describe("run engine scenarios", () => {
  test("413 with a cap: the job is split at the server's size and every property is answered", () => {
    const svc = new Service((req) => {
      if (req.method !== "POST") return;
      const n = (JSON.parse(req.body!) as { properties: unknown[] }).properties.length;
      return n > 4 ? err(413, "batch_too_large", {}, { max_batch_size: 4 }) : undefined;
    });
    const state = createRun(rowsOf(UPRNS.slice(0, 10)), { plan: 10, nowMs: 0 });
    const { written } = drive(state, svc);
    expect(kinds(written, 10)).toEqual(Array(10).fill("ok"));
    expect(svc.jobs.map((j) => j.uprns.length)).toEqual([4, 4, 2]);
    expect(svc.count("POST")).toBe(4); // one refused, three accepted
    expect(isRunDone(state)).toBe(true);
    expect(runSummary(state).title).toBe("Done");
  });

  test("401 on the first submit is fatal: one request, every row says why, no further jobs", () => {
    const svc = new Service((req) => (req.method === "POST" ? err(401, "invalid_api_key") : undefined));
    const state = createRun(rowsOf(UPRNS.slice(0, 9)), { plan: 3, nowMs: 0 });
    const { written } = drive(state, svc);
    expect(svc.log).toHaveLength(1);
    expect(kinds(written, 9)).toEqual(Array(9).fill("auth"));
    expect(runSummary(state).title).toBe("Failed");
    expect(runSummary(state).lines[0]).toMatch(/API key was not accepted/);
  });

  test("429 on a submit, then success: the submit waits out Retry-After and is sent again; one job", () => {
    const svc = new Service((req, _s, n) =>
      req.method === "POST" && n === 1 ? err(429, "rate_limited", { "retry-after": "3" }) : undefined,
    );
    const state = createRun(rowsOf(UPRNS.slice(0, 3)), { plan: 10, nowMs: 0 });
    const { written } = drive(state, svc);
    expect(kinds(written, 3)).toEqual(["ok", "ok", "ok"]);
    const posts = svc.log.filter((l) => l.method === "POST");
    expect(posts).toHaveLength(2);
    expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(3000);
    expect(svc.jobs).toHaveLength(1);
  });

  test("5xx on a GET, then success: retried after at least a second, rows get results", () => {
    let fails = 2;
    const svc = new Service((req) =>
      req.method === "GET" && fails-- > 0 ? err(503, "service_unavailable") : undefined,
    );
    const state = createRun(rowsOf(UPRNS.slice(0, 3)), { plan: 10, nowMs: 0 });
    const { written } = drive(state, svc);
    expect(kinds(written, 3)).toEqual(["ok", "ok", "ok"]);
    const gets = svc.log.filter((l) => l.method === "GET");
    expect(gets).toHaveLength(3);
    for (let i = 1; i < gets.length; i++)
      expect(gets[i].at - gets[i - 1].at).toBeGreaterThanOrEqual(RUN_POLICY.minGetSpacingMs);
  });

  test("five 5xx on a GET: the job is given up, its rows keep a job_failed reason; a 5xx on the POST is never re-sent", () => {
    const svc = new Service((req, s) =>
      req.method === "GET" ? err(500, "internal_error") : s.jobs.length === 1 ? err(502, "bad_gateway") : undefined,
    );
    const state = createRun(rowsOf(UPRNS.slice(0, 4)), { plan: 2, nowMs: 0 });
    const { written } = drive(state, svc);
    expect(svc.count("GET")).toBe(RUN_POLICY.maxGetFailures);
    expect(svc.count("POST")).toBe(2); // the 502 after the first job was made is not sent again
    expect(kinds(written, 4)).toEqual(["job_failed", "job_failed", "server", "server"]);
    expect((written.get(2) as { error: { message: string } }).error.message).toMatch(/may have created the job/);
    const sum = runSummary(state);
    expect(sum.title).not.toBe("Done");
    expect(sum.counts.maybeCreated).toBe(2);
    expect(sum.counts.failed).toBe(2);
  });

  test("a dropped connection or a timeout on a submit is not re-sent; connection refused is", () => {
    for (const [failure, posts] of [
      ["dropped", 1],
      ["timeout", 1],
      ["unreachable", 2],
      ["not_sent", 2],
    ] as const) {
      const svc = new Service((req, _s, n) => (req.method === "POST" && n === 1 ? { failure } : undefined));
      const state = createRun(rowsOf(UPRNS.slice(0, 2)), { plan: 10, nowMs: 0 });
      const { written } = drive(state, svc);
      expect([failure, svc.count("POST")]).toEqual([failure, posts]);
      expect(kinds(written, 2).every((k) => (posts === 2 ? k === "ok" : k !== "ok"))).toBe(true);
    }
  });

  test("stop mid-run: queued jobs are not sent; a sent job stays collectable and Resume collects it without a POST", () => {
    const svc = new Service((req, s) =>
      req.method === "GET" && s.jobOf(req).polls < 2
        ? (s.jobOf(req).polls++, json(200, { status: "processing", results: [] }))
        : undefined,
    );
    const state = createRun(rowsOf(UPRNS.slice(0, 6)), { plan: 2, nowMs: 0 });
    drive(state, svc, { until: (s) => s.jobs.some((j) => j.poll) });
    stopRun(state);
    expect(state.phase).toBe("stopped");
    const interim = outcomesToWrite(state).filter((i) => !i.final);
    expect(interim.map((i) => i.property)).toEqual([0, 1]);
    expect(interim[0].outcome).toMatchObject({ error: { message: expect.stringMatching(/Resume/) } });
    const sum = runSummary(state);
    expect(sum.title).toBe("Stopped");
    expect(sum.counts.resumable).toBe(2);
    // Resume from the stored JSON, as a reopened pane does.
    const back = loadRunState(JSON.stringify(storedState(state)))!;
    const postsBefore = svc.count("POST");
    resumeRun(back, 2_000_000);
    const { written } = drive(back, svc, { start: 2_000_000 });
    expect(svc.count("POST")).toBe(postsBefore);
    expect(kinds(written, 2)).toEqual(["ok", "ok"]);
    expect(back.fates).toBe("aacccc");
    expect(runSummary(back).counts.notSent).toBe(4);
  });

  test("a job that never finishes ends at its deadline with a timeout on its rows", () => {
    const svc = new Service((req) =>
      req.method === "GET" ? json(200, { status: "processing", results: [] }) : undefined,
    );
    const state = createRun(rowsOf(UPRNS.slice(0, 2)), { plan: 10, nowMs: 0, jobTimeoutMs: 30_000 });
    const { written, now } = drive(state, svc);
    expect(kinds(written, 2)).toEqual(["timeout", "timeout"]);
    expect(now - 1_000_000).toBeLessThan(60_000);
    expect(svc.count("GET")).toBeLessThan(40);
  });

  test("resume from JSON after results were received but not written: the job is rewound and fetched again, no new POST", () => {
    const svc = new Service();
    const state = createRun(rowsOf(UPRNS.slice(0, 4)), { plan: 10, nowMs: 0 });
    // Received, never written (the sheet refused the write, then the pane closed).
    for (let now = 0; !Object.keys(state.received).length; now += 1000) {
      for (const r of dueRequests(state, cfg, now).requests) acceptReply(state, r.id, svc.handle(r.request, now), now);
    }
    expect(Object.keys(state.received)).toHaveLength(4);
    const json1 = JSON.stringify(storedState(state));
    expect(json1).not.toContain("compliance_score"); // no results in the stored state
    const back = loadRunState(json1)!;
    resumeRun(back, 5_000_000);
    const { written } = drive(back, svc, { start: 5_000_000 });
    expect(kinds(written, 4)).toEqual(["ok", "ok", "ok", "ok"]);
    expect(svc.count("POST")).toBe(1);
    expect(isRunDone(back)).toBe(true);
  });

  test("a daily quota used up pauses the run; Resume after the reset sends the rest, jobs sent are not sent again", () => {
    let quota = 2; // requests left today
    const svc = new Service((_req) => {
      if (quota-- > 0) return undefined;
      return err(429, "rate_limited", {
        "retry-after": String(8 * 3600),
        "x-ratelimit-remaining": "0",
        "x-ratelimit-limit": "10000",
      });
    });
    const state = createRun(rowsOf(UPRNS.slice(0, 6)), { plan: 2, nowMs: 0 });
    const first = drive(state, svc);
    expect(state.phase).toBe("paused");
    const sum = runSummary(state);
    expect(sum.title).toBe("Paused");
    expect(sum.lines[0]).toMatch(/Resume after .* UTC/);
    expect(outcomesToWrite(state).filter((i) => !i.final).length).toBeGreaterThan(0);
    const back = loadRunState(JSON.stringify(storedState(state)))!;
    quota = 100;
    const postsBefore = svc.count("POST");
    resumeRun(back, first.now + 9 * 3600_000);
    const { written } = drive(back, svc, { start: first.now + 9 * 3600_000 });
    const all = new Map([...first.written, ...written]);
    expect(kinds(all, 6)).toEqual(Array(6).fill("ok"));
    expect(svc.jobs).toHaveLength(3); // one job per batch, whatever was refused in between
    expect(svc.count("POST") - postsBefore).toBeLessThanOrEqual(2);
    expect(isRunDone(back)).toBe(true);
  });

  test("pending items are not final: their real results are taken when they arrive", () => {
    const svc = new Service((req, s) => {
      if (req.method !== "GET") return;
      const job = s.jobOf(req);
      job.polls++;
      const items = job.uprns.map((u, i) =>
        job.polls < 3 && i > 0 ? { index: i, status: i === 1 ? "pending" : "in_progress" } : item(u, i),
      );
      return json(200, { job_id: job.id, status: job.polls < 3 ? "processing" : "completed", results: items });
    });
    const state = createRun(rowsOf(UPRNS.slice(0, 3)), { plan: 10, nowMs: 0 });
    const { written } = drive(state, svc);
    expect(kinds(written, 3)).toEqual(["ok", "ok", "ok"]);
  });

  test("a results link cycle (A -> B -> A) ends the job with a clear error within 20 requests", () => {
    const svc = new Service((req, s) => {
      if (req.method !== "GET") return;
      const job = s.jobOf(req);
      const onB = req.url.includes("cursor=B");
      const items = onB ? [item(job.uprns[1], 1)] : [item(job.uprns[0], 0)];
      return json(200, {
        status: "completed",
        results: items,
        next: onB ? `/api/check/bulk/${job.id}/results?cursor=A` : `/api/check/bulk/${job.id}/results?cursor=B`,
      });
    });
    const state = createRun(rowsOf(UPRNS.slice(0, 3)), { plan: 10, nowMs: 0 });
    const { written } = drive(state, svc);
    expect(svc.count("GET")).toBeLessThanOrEqual(20);
    expect(kinds(written, 3).slice(0, 2)).toEqual(["ok", "ok"]);
    expect(kinds(written, 3)[2]).toBe("job_failed");
  });

  test("a server that ignores the page parameter: the repeated page ends the job within 20 requests", () => {
    const svc = new Service((req, s) => {
      if (req.method !== "GET") return;
      const job = s.jobOf(req);
      return json(200, {
        status: "completed",
        page: 1,
        per_page: 2,
        total_pages: 3,
        results: job.uprns.slice(0, 2).map((u, i) => item(u, i)),
      });
    });
    const state = createRun(rowsOf(UPRNS.slice(0, 6)), { plan: 10, nowMs: 0 });
    const { written } = drive(state, svc);
    expect(svc.count("GET")).toBeLessThanOrEqual(20);
    expect(kinds(written, 6)).toEqual(["ok", "ok", "job_failed", "job_failed", "job_failed", "job_failed"]);
  });

  test("a cell edited before its job is sent: the job still goes, without that property", () => {
    const svc = new Service();
    const state = createRun(rowsOf(UPRNS.slice(0, 6)), { plan: 2, nowMs: 0 });
    const present = new Set(state.keys.filter((_k, i) => i !== 3));
    let now = 0;
    while (state.phase === "running") {
      const due = dueRequests(state, cfg, now, { presentKeys: present });
      for (const r of due.requests) acceptReply(state, r.id, svc.handle(r.request, now), now);
      const items = outcomesToWrite(state);
      markWritten(
        state,
        items.map((i) => ({ property: i.property, present: present.has(i.key) })),
      );
      now += Math.max(1, due.waitMs);
    }
    expect(svc.jobs.map((j) => j.uprns.length)).toEqual([2, 1, 2]);
    expect(state.fates).toBe("aaagaa");
    expect(runSummary(state).counts.gone).toBe(1);
  });

  test("a state stored while a submit was in flight: Resume never sends that job again; its rows say the job may exist", () => {
    const svc = new Service();
    const state = createRun(rowsOf(UPRNS.slice(0, 2)), { plan: 10, nowMs: 0 });
    const due = dueRequests(state, cfg, 0);
    expect(due.requests.map((r) => r.kind)).toEqual(["submit"]);
    const back = loadRunState(JSON.stringify(storedState(state)))!; // the pane closed before the answer came
    resumeRun(back, 10_000);
    const { written } = drive(back, svc, { start: 10_000 });
    expect(svc.count("POST")).toBe(0);
    expect(back.fates).toBe("uu");
    expect((written.get(0) as { error: { message: string } }).error.message).toMatch(/may have created the job/);
  });

  test("the stored state is plain JSON and survives a round trip unchanged", () => {
    const state = createRun(rowsOf([...UPRNS.slice(0, 5), UPRNS[0], "bad"]), { plan: 2, nowMs: 0, skippedRows: 2 });
    const back = loadRunState(JSON.stringify(storedState(state)))!;
    expect(back).toEqual(storedState(state));
    expect(runSummary(back).counts).toMatchObject({ rows: 7, invalid: 1, skipped: 2, properties: 5 });
    expect(runSummary(back).lines.join(" ")).toMatch(/2 rows hidden by a filter were skipped/);
  });
});
