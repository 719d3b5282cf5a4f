/**
 * The sentences both add-ins say of a run while it goes and when it is left unfinished (core/run/run-lines.ts), and
 * the moments core writes in its sentences, each a whole UTC minute with its day: real runs on a virtual clock, the
 * words compared whole.
 */
import {
  acceptReply,
  checkingLine,
  createRun,
  dueRequests,
  normaliseProperty,
  runProgressLine,
  stopRun,
  unfinishedRunLine,
  type HttpRequest,
  type Reply,
  type RunState,
} from "../../../core";
import { sandboxDataset } from "../../helpers/sandbox";

const cfg = { baseUrl: "https://svc.test/v1", apiKey: "k" };
const ds = sandboxDataset(new Date("2026-11-24T12:00:00Z"));
const UPRNS = ds.properties.slice(0, 5).map((p) => p.uprn);
/** A minute before midnight (UTC): a time without its day would name the wrong day for anything after it. */
const T0 = Date.parse("2026-11-24T23:59:00Z");

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  text: JSON.stringify(body),
});
const accepted = (req: HttpRequest): Reply => {
  const n = (JSON.parse(req.body!) as { properties: unknown[] }).properties.length;
  return json(202, {
    job_id: "job1",
    status: "processing",
    total_properties: n,
    results_url: "/api/check/bulk/job1/results",
  });
};
const processing = () => json(200, { job_id: "job1", status: "processing", results: [] });

const rowsOf = (uprns: string[]) => uprns.map((u, i) => ({ ...normaliseProperty(u, "", ""), index: i }));

/** Steps the run as a host does, on a virtual clock, until `until` holds; returns the clock then. */
function stepUntil(
  state: RunState,
  answer: (req: HttpRequest) => Reply,
  until: (s: RunState) => boolean,
  start = T0,
): number {
  let now = start;
  for (let i = 0; i < 500 && !until(state); i++) {
    const due = dueRequests(state, cfg, now);
    for (const r of due.requests) acceptReply(state, r.id, answer(r.request), now);
    if (!due.requests.length) now += Math.max(1, due.waitMs);
  }
  return now;
}

describe("the line as a check begins", () => {
  test("rows and distinct properties, counts grouped as en-GB writes them", () => {
    expect(checkingLine(3, 2)).toBe("Checking 3 rows (2 distinct properties)…");
    expect(checkingLine(2500, 1)).toBe("Checking 2,500 rows (1 distinct property)…");
  });
});

describe("the line while a run goes (both add-ins: the pane's progress words, the sidebar's status)", () => {
  test("before anything is sent: the rows, the properties, the jobs, nothing checked yet; an invalid row counts as answered", () => {
    const state = createRun(rowsOf([...UPRNS.slice(0, 3), UPRNS[0], "not a uprn"]), { plan: 10, nowMs: T0 });
    expect(runProgressLine(state, T0, T0)).toBe(
      "Checking 5 rows (3 distinct properties) in 1 bulk job: 1 of 5 rows checked.",
    );
  });

  test("thousands of rows are grouped", () => {
    const state = createRun(rowsOf(Array<string>(2500).fill(UPRNS[0])), { plan: "professional", nowMs: T0 });
    expect(runProgressLine(state, T0, T0)).toBe(
      "Checking 2,500 rows (1 distinct property) in 1 bulk job: 0 of 2,500 rows checked.",
    );
  });

  test("a 503's stated hold is named with its day and time; the plan's rate limit is said in seconds, with the retries so far", () => {
    const held = createRun(rowsOf(UPRNS.slice(0, 2)), {
      plan: 10,
      nowMs: T0,
      hold: { untilMs: T0 + 3_600_000, status: 503 },
    });
    expect(runProgressLine(held, T0, T0)).toBe(
      "Checking 2 rows (2 distinct properties) in 1 bulk job: 0 of 2 rows checked. Waiting: The compliance service is unavailable (HTTP 503) and asked for no retry before 2026-11-25 00:59 UTC.",
    );
    // Past the hold, nothing is waited for.
    expect(runProgressLine(held, T0 + 3_600_000, T0)).toBe(
      "Checking 2 rows (2 distinct properties) in 1 bulk job: 0 of 2 rows checked.",
    );

    const state = createRun(rowsOf(UPRNS.slice(0, 2)), { plan: 10, nowMs: T0 });
    const now = stepUntil(
      state,
      () => json(429, { error: { code: "rate_limited", message: "slow down" } }, { "retry-after": "3" }),
      (s) => s.retries > 0,
    );
    expect(runProgressLine(state, now + 500, T0 - 4000)).toBe(
      "Checking 2 rows (2 distinct properties) in 1 bulk job: 0 of 2 rows checked. Waiting for the plan's rate limit (3 s). Retried 1 request so far (5 s since the check started).",
    );
  });
  test("a 503's hold that has passed is not named again for a later wait: a 429 without a stated wait is the plan's rate limit", () => {
    const state = createRun(rowsOf(UPRNS.slice(0, 2)), {
      plan: 10,
      nowMs: T0,
      hold: { untilMs: T0 + 60_000, status: 503 },
    });
    const now = stepUntil(
      state,
      () => json(429, { error: { code: "rate_limited", message: "slow down" } }),
      (s) => s.retries > 0,
    );
    expect(now).toBeGreaterThanOrEqual(T0 + 60_000);
    expect(runProgressLine(state, now, T0)).toMatch(
      /^Checking 2 rows \(2 distinct properties\) in 1 bulk job: 0 of 2 rows checked\. Waiting for the plan's rate limit \(1 s\)\. Retried 1 request so far/,
    );
  });
});

describe("an unfinished run, in the words both add-ins show it", () => {
  test("stopped with its job sent: which rows, where, begun when (with its day), and what Resume collects", () => {
    const state = createRun(rowsOf(UPRNS.slice(0, 3)), { plan: 10, nowMs: T0 });
    stepUntil(
      state,
      (req) => (req.method === "POST" ? accepted(req) : processing()),
      (s) => s.jobs.every((j) => !!j.poll),
    );
    stopRun(state);
    expect(unfinishedRunLine(state, { sheet: "Lettings", startedAtMs: T0 })).toBe(
      "A check of 3 rows on Lettings, started 2026-11-24 23:59 UTC, is unfinished. 0 of 3 rows checked. 3 rows are in jobs already sent: choose Resume to collect them (no new job is sent).",
    );
  });

  test("left mid-run (its pane or sidebar closed) reads as stopped, as either add-in finds it", () => {
    const state = createRun(rowsOf(UPRNS.slice(0, 1)), { plan: 10, nowMs: T0 });
    stepUntil(
      state,
      (req) => (req.method === "POST" ? accepted(req) : processing()),
      (s) => s.jobs.every((j) => !!j.poll),
    );
    expect(state.phase).toBe("running");
    expect(unfinishedRunLine(state, { sheet: "Sheet1", startedAtMs: T0 })).toBe(
      "A check of 1 row on Sheet1, started 2026-11-24 23:59 UTC, is unfinished. 0 of 1 row checked. 1 row is in jobs already sent: choose Resume to collect them (no new job is sent).",
    );
  });
});

test("a run paused by refusals in a row says the day with the time to resume after (before: the time alone, a day off past midnight)", () => {
  const start = T0 + 55_000;
  const state = createRun(rowsOf(UPRNS.slice(0, 2)), { plan: 10, nowMs: start });
  stepUntil(
    state,
    () => json(429, { error: { code: "rate_limited", message: "slow down" } }),
    (s) => s.phase === "paused",
    start,
  );
  expect(state.pauseReason?.code).toBe("rate_limited_repeatedly");
  const until = new Date(state.pausedUntilMs!).toISOString().slice(0, 16).replace("T", " ");
  expect(until.slice(0, 10)).toBe("2026-11-25");
  expect(state.pauseReason?.message).toContain(`Resume after ${until} UTC to collect the rest`);
});
