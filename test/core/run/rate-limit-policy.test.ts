/**
 * The run policy's answer to a service that keeps saying 429: real HTTP to a loopback server, the run engine driven
 * by driveRun on a virtual clock (every wait advances the clock at once; nothing waits on the wall).
 */
import * as http from "http";
import type { AddressInfo } from "net";
import { RUN_POLICY, createRun, driveRun, normaliseProperty, resumeRun, type RunState } from "../../../core";
import { checkResultFor } from "../../../sandbox/dataset";
import { sandboxDataset } from "../../helpers/sandbox";

const ds = sandboxDataset(new Date("2026-11-24T12:00:00Z"));
const UPRNS = ds.properties.slice(0, 5).map((p) => p.uprn);
const REQUEST_TIMEOUT_MS = 123_456;

interface Logged {
  method: string;
  at: number;
  status: number;
}

/** A loopback service whose results URL answers as `onResults` says; it logs each request at the virtual time. */
async function loopback(
  clock: { now: number },
  onResults: (n: number) => { status: number; headers?: Record<string, string> } | "results",
) {
  const log: Logged[] = [];
  let gets = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        log.push({ method: req.method!, at: clock.now, status });
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(body));
      };
      if (req.method === "POST")
        return send(202, {
          job_id: "job1",
          status: "processing",
          total_properties: UPRNS.length,
          results_url: "/api/check/bulk/job1/results",
        });
      const answer = onResults(++gets);
      if (answer === "results") {
        return send(200, {
          job_id: "job1",
          status: "completed",
          results: UPRNS.map((u, index) => ({ index, status: "completed", result: checkResultFor(ds.byUprn.get(u)!) })),
        });
      }
      send(answer.status, { error: { code: "rate_limit_exceeded", message: "Too many requests" } }, answer.headers);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { log, baseUrl, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** driveRun with a virtual clock: a wait moves the clock; a request's timeout waits for the request to settle instead. */
async function drive(state: RunState, baseUrl: string, clock: { now: number }, written: Set<number>) {
  await driveRun(state, {
    cfg: { baseUrl, apiKey: "k" },
    fetch,
    now: () => clock.now,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    sleep: (ms, signal) => {
      if (ms === REQUEST_TIMEOUT_MS) return new Promise<void>((r) => signal?.addEventListener?.("abort", () => r()));
      clock.now += ms;
      return new Promise<void>((r) => setImmediate(r));
    },
    write: async (items) => {
      for (const i of items) if (i.final && "result" in i.outcome) written.add(i.property);
      return items.map((i) => ({ property: i.property, present: true }));
    },
  });
}

const rows = () => UPRNS.map((u, i) => ({ ...normaliseProperty(u, "", ""), index: i }));

describe("run policy under 429", () => {
  test("a poll answered 429 for ever, without rate-limit headers, backs off and pauses the run as resumable after about a dozen tries", async () => {
    const clock = { now: Date.parse("2026-11-24T09:00:00Z") };
    let refusing = true;
    const svc = await loopback(clock, () => (refusing ? { status: 429 } : "results"));
    try {
      const state = createRun(rows(), { plan: "professional", nowMs: clock.now });
      const written = new Set<number>();
      await drive(state, svc.baseUrl, clock, written);
      const refused = svc.log.filter((l) => l.status === 429);
      expect(state.phase).toBe("paused");
      expect(state.pauseReason?.kind).toBe("rate_limited");
      expect(state.pauseReason?.message).toMatch(/429.*paused.*Resume/);
      expect(refused.length).toBe(RUN_POLICY.maxRateLimitedTries);
      expect(svc.log.length).toBeLessThanOrEqual(RUN_POLICY.maxRateLimitedTries + 1);
      // Backed off: the gaps between refused polls grow (0.5 s, 1 s, 2 s ... 20 s, each jittered to at least half).
      const gaps = refused.slice(1).map((l, i) => l.at - refused[i].at);
      expect(gaps[0]).toBeGreaterThanOrEqual(250);
      expect(gaps[gaps.length - 1]).toBeGreaterThanOrEqual(10_000);
      expect(written.size).toBe(0);
      // Resumable: the job sent stays collectable; Resume later collects it with GETs only, no second POST.
      refusing = false;
      clock.now = state.pausedUntilMs! + 1;
      resumeRun(state, clock.now);
      await drive(state, svc.baseUrl, clock, written);
      expect(state.phase).toBe("ended");
      expect(written.size).toBe(UPRNS.length);
      expect(svc.log.filter((l) => l.method === "POST").length).toBe(1);
    } finally {
      await svc.close();
    }
  });

  test("a Retry-After longer than the pause threshold pauses the run until then; no request goes out before it has passed", async () => {
    const clock = { now: Date.parse("2026-11-24T09:00:00Z") };
    const svc = await loopback(clock, (n) =>
      n === 1 ? { status: 429, headers: { "retry-after": "3600" } } : "results",
    );
    try {
      const state = createRun(rows(), { plan: "professional", nowMs: clock.now });
      const written = new Set<number>();
      await drive(state, svc.baseUrl, clock, written);
      const refusedAt = svc.log.find((l) => l.status === 429)!.at;
      expect(state.phase).toBe("paused");
      expect(state.pausedUntilMs).toBe(refusedAt + 3_600_000);
      expect(svc.log.length).toBe(2);
      // Resume pressed ten minutes later: still nothing is sent before the hour is up.
      clock.now = refusedAt + 600_000;
      resumeRun(state, clock.now);
      await drive(state, svc.baseUrl, clock, written);
      expect(svc.log.length).toBe(2);
      expect(state.phase).toBe("paused");
      expect(state.pausedUntilMs).toBe(refusedAt + 3_600_000);
      // After it: the job is collected, and the first request after the 429 came no sooner than an hour on.
      clock.now = refusedAt + 3_600_000;
      resumeRun(state, clock.now);
      await drive(state, svc.baseUrl, clock, written);
      expect(state.phase).toBe("ended");
      expect(written.size).toBe(UPRNS.length);
      expect(svc.log[2].at).toBeGreaterThanOrEqual(refusedAt + 3_600_000);
    } finally {
      await svc.close();
    }
  });

  test("a Retry-After below the pause threshold is waited out in full, not cut", async () => {
    const clock = { now: Date.parse("2026-11-24T09:00:00Z") };
    const svc = await loopback(clock, (n) => (n === 1 ? { status: 429, headers: { "retry-after": "80" } } : "results"));
    try {
      const state = createRun(rows(), { plan: "professional", nowMs: clock.now });
      const written = new Set<number>();
      await drive(state, svc.baseUrl, clock, written);
      expect(state.phase).toBe("ended");
      expect(written.size).toBe(UPRNS.length);
      expect(svc.log[2].at - svc.log[1].at).toBeGreaterThanOrEqual(80_000);
    } finally {
      await svc.close();
    }
  });
});
