/**
 * A 503 that names a Retry-After is kept to in full, as a 429's is: real HTTP to the sandbox (its fault rules send the
 * 503 and its Retry-After) on the test clock, which the sandbox's jobs share, so an hour passes at once. The run engine
 * (driveRun, behind both hosts' checks) pauses, resumable, and the client (behind Excel's functions) sends nothing,
 * even from a client made later, before the hour has passed.
 */
import {
  createClient,
  createRun,
  driveRun,
  normaliseProperty,
  resumeRun,
  runHold,
  type RetryHold,
  type RunState,
} from "../../../core";
import { testClock } from "../../helpers/clock";
import { startTestSandbox, type Sandbox, sandboxDataset } from "../../helpers/sandbox";

const clock = testClock();
const HOUR = 3_600_000;
let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ msPerProperty: 200, now: clock.date });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

/** Every request that reached the sandbox, with its time on the test clock and its answer's status. */
function loggedFetch() {
  const log: { method: string; url: string; at: number; status: number }[] = [];
  const f = clock.fetch(async (u, i) => {
    const at = clock.now();
    const res = await fetch(u, i as RequestInit);
    log.push({ method: i.method, url: u, at, status: res.status });
    return res as never;
  });
  return { log, fetch: f };
}

const uprns = sandboxDataset()
  .properties.slice(0, 8)
  .map((p) => p.uprn);
const rows = () => uprns.map((u, i) => ({ ...normaliseProperty(u, "", ""), index: i }));

async function drive(state: RunState, fetchLike: ReturnType<typeof loggedFetch>["fetch"], written: Set<number>) {
  await driveRun(state, {
    cfg: { baseUrl: sb.baseUrl, apiKey: "sandbox-professional" },
    fetch: fetchLike,
    now: clock.now,
    sleep: clock.sleep,
    write: async (items) => {
      for (const i of items) if (i.final && "result" in i.outcome) written.add(i.property);
      return items.map((i) => ({ property: i.property, present: true }));
    },
  });
}

test("a results poll answered 503 with Retry-After 3600 pauses the run for the hour, says why, and Resume after it collects every row with no second POST", async () => {
  sb.setFaults([{ kind: "error_503", route: "bulk_results", count: 1, retry_after: 3600 }]);
  const { log, fetch: f } = loggedFetch();
  const state = createRun(rows(), { plan: "professional", nowMs: clock.now() });
  const written = new Set<number>();
  await drive(state, f, written);
  const refused = log.find((l) => l.status === 503)!;
  expect(refused).toBeDefined();
  expect(state.phase).toBe("paused");
  // An hour from the 503's answer (the log has when its request went out).
  const until = state.pausedUntilMs!;
  expect(until - refused.at).toBeGreaterThanOrEqual(HOUR);
  expect(until - refused.at).toBeLessThan(HOUR + 1000);
  expect(state.pauseReason?.code).toBe("service_unavailable");
  expect(state.pauseReason?.message).toMatch(
    /unavailable \(HTTP 503\) and asked for no retry before \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/,
  );
  expect(log[log.length - 1]).toBe(refused);

  // Resume ten minutes on: nothing goes out before the hour, and the run pauses again for the same reason.
  clock.advance(10 * 60_000);
  resumeRun(state, clock.now());
  await drive(state, f, written);
  expect(log[log.length - 1]).toBe(refused);
  expect(state.phase).toBe("paused");
  expect(state.pauseReason?.code).toBe("service_unavailable");
  expect(state.pausedUntilMs).toBe(until);

  clock.advance(state.pausedUntilMs! - clock.now());
  resumeRun(state, clock.now());
  await drive(state, f, written);
  expect(state.phase).toBe("ended");
  expect(written.size).toBe(uprns.length);
  expect(log.filter((l) => l.method === "POST")).toHaveLength(1);
  const after = log.filter((l) => l.at > refused.at);
  expect(after.length).toBeGreaterThan(0);
  expect(Math.min(...after.map((l) => l.at))).toBeGreaterThanOrEqual(refused.at + HOUR);
});

test("a submit answered 503 with Retry-After 3600: its job is never sent again, and no other request of the run goes out within the hour", async () => {
  sb.setFaults([{ kind: "error_503", route: "bulk_submit", count: 1, retry_after: 3600 }]);
  const { log, fetch: f } = loggedFetch();
  // Two jobs (a plan cap of 4): the first refused, the second must wait the hour.
  const state = createRun(rows(), { plan: 4, nowMs: clock.now() });
  const written = new Set<number>();
  await drive(state, f, written);
  const refused = log.find((l) => l.status === 503)!;
  const inHour = log.filter((l) => l.at > refused.at && l.at < refused.at + HOUR);
  expect(inHour).toEqual([]);
  expect(state.phase).toBe("paused");
  clock.advance(state.pausedUntilMs! - clock.now());
  resumeRun(state, clock.now());
  await drive(state, f, written);
  expect(state.phase).toBe("ended");
  // The refused job's rows say it may exist (never resent); the other job's rows are checked.
  expect(log.filter((l) => l.method === "POST")).toHaveLength(2);
  expect(written.size).toBe(4);
});

test("the client: a check answered 503 with Retry-After 3600 fails at once with the time, and no client sharing the hold sends anything before it", async () => {
  sb.setFaults([{ kind: "error_503", route: "check", count: 1, retry_after: 3600 }]);
  const { log, fetch: f } = loggedFetch();
  const hold: RetryHold = {};
  const client = () =>
    createClient({
      baseUrl: sb.baseUrl,
      apiKey: "sandbox-professional",
      fetch: f,
      sleep: clock.sleep,
      now: clock.now,
      hold,
    });
  await expect(client().check({ uprn: uprns[0] })).rejects.toMatchObject({
    code: "service_unavailable",
    message: expect.stringMatching(/asked for no retry before/),
  });
  expect(log).toHaveLength(1);
  const refusedAt = log[0].at;
  // Half an hour on, a new client (the next recalculation's batch): refused without a request.
  clock.advance(30 * 60_000);
  await expect(client().check({ uprn: uprns[1] })).rejects.toMatchObject({ code: "service_unavailable" });
  const outcomes = await client().screen(uprns.slice(0, 3).map((uprn) => ({ uprn })));
  expect(outcomes.every((o) => "error" in o && o.error.code === "service_unavailable")).toBe(true);
  expect(log).toHaveLength(1);
  // After the hour: answered.
  clock.advance(refusedAt + HOUR - clock.now());
  await expect(client().check({ uprn: uprns[1] })).resolves.toMatchObject({ uprn: uprns[1] });
  expect(log).toHaveLength(2);
  expect(log[1].at).toBeGreaterThanOrEqual(refusedAt + HOUR);
});

test("a run created within another run's hold (runHold) sends nothing before it, pauses with the 503's reason, and goes on after it", async () => {
  sb.setFaults([{ kind: "error_503", route: "bulk_submit", count: 1, retry_after: 3600 }]);
  const { log, fetch: f } = loggedFetch();
  const first = createRun(rows(), { plan: "professional", nowMs: clock.now() });
  await drive(first, f, new Set());
  const refused = log.find((l) => l.status === 503)!;
  expect(refused).toBeDefined();
  clock.advance(10 * 60_000);
  const hold = runHold(first, clock.now());
  expect(hold).toEqual({ untilMs: expect.any(Number), status: 503 });
  expect(hold!.untilMs! - refused.at).toBeGreaterThanOrEqual(HOUR);

  const next = createRun(rows(), { plan: "professional", nowMs: clock.now(), hold });
  const written = new Set<number>();
  const sent = log.length;
  await drive(next, f, written);
  expect(log.length).toBe(sent);
  expect(next.phase).toBe("paused");
  expect(next.pausedUntilMs).toBe(hold!.untilMs);
  expect(next.pauseReason?.code).toBe("service_unavailable");

  clock.advance(next.pausedUntilMs! - clock.now());
  resumeRun(next, clock.now());
  await drive(next, f, written);
  expect(next.phase).toBe("ended");
  expect(Math.min(...log.slice(sent).map((l) => l.at))).toBeGreaterThanOrEqual(hold!.untilMs!);
  expect(written.size).toBe(uprns.length);
  // A hold that has passed is none.
  expect(runHold(next, clock.now() + HOUR)).toBeUndefined();
});
