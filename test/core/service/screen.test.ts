/**
 * `screen` end to end against the sandbox over loopback HTTP: the bulk flow at scale and under faults.
 * Every row must come back, in order, with its result or its own error; nothing may hang.
 */
import {
  createClient,
  outputHeaders,
  outputRow,
  readPropertyRows,
  type Outcome,
  type ScreenProgress,
} from "../../../core";
import { checkResultFor } from "../../../sandbox/dataset";
import { testClock } from "../../helpers/clock";
import { startTestSandbox, type Sandbox, sandboxDataset } from "../../helpers/sandbox";

/** The sandbox and the client share a test clock: polls, back-offs and Retry-After waits pass without real waiting. */
const clock = testClock();
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox({ now: clock.date });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const client = (apiKey = "sandbox-professional", extra = {}) =>
  createClient({
    baseUrl: sandbox.baseUrl,
    apiKey,
    fetch: clock.fetch(fetch),
    sleep: clock.sleep,
    now: clock.now,
    ...extra,
  });
const uprns = (n: number, from = 0) =>
  sandboxDataset()
    .properties.slice(from, from + n)
    .map((p) => p.uprn);
const isResult = (o: Outcome | undefined): o is { result: any } => !!o && "result" in o;
const errorCode = (o: Outcome | undefined) => (o && "error" in o ? o.error.code : undefined);

test("10,000 rows with 200 invalid and 500 duplicates: 10 jobs, every row accounted for, within the rate limit", async () => {
  const distinct = uprns(9300);
  const values: unknown[][] = [["UPRN"]];
  distinct.forEach((u) => values.push([u]));
  for (let i = 0; i < 500; i++) values.splice(2 + i * 17, 0, [distinct[i * 11]]); // duplicates spread through
  for (let i = 0; i < 200; i++) values.splice(5 + i * 43, 0, [i % 2 ? "12AB" : ""]); // invalid and empty rows
  expect(values.length - 1).toBe(10000);
  const { rows } = readPropertyRows(values);
  const properties = rows.map((r) => r.property ?? { uprn: String(values[r.index][0] ?? "") });

  const progress: ScreenProgress[] = [];
  const seen = new Set<number>();
  const outcomes = await client().screen(properties, {
    plan: "professional",
    onProgress: (p) => {
      progress.push(p);
      p.completed.forEach((c) => seen.add(c.index));
    },
  });

  expect(outcomes).toHaveLength(10000);
  const stats = sandbox.stats();
  expect(stats.bulk_submit).toBe(10);
  expect(stats.by_status["429"] ?? 0).toBe(0);
  expect(stats.total).toBeLessThanOrEqual(60); // one minute's Professional allowance
  expect(outcomes.filter(isResult)).toHaveLength(9800);
  expect(
    outcomes
      .filter((o) => !isResult(o))
      .map(errorCode)
      .sort(),
  ).toEqual([...Array(100).fill("empty_row"), ...Array(100).fill("invalid_uprn")]);
  // each row's result is for the row's own property, duplicates included (one comparison of every row, which names
  // the rows that differ, rather than ten thousand expect calls)
  expect(outcomes.map((o) => (isResult(o) ? o.result.uprn : null))).toEqual(
    outcomes.map((o, i) => (isResult(o) ? String(values[i + 1][0]) : null)),
  );
  expect(seen.size).toBe(10000);
  expect(progress[progress.length - 1].propertiesDone).toBe(10000);
});

test("an Enterprise key sends a run too small to spread as one job larger than Professional's cap", async () => {
  const outcomes = await client("sandbox-enterprise").screen(
    uprns(1500).map((uprn) => ({ uprn })),
    { plan: "enterprise" },
  );
  expect(outcomes.every(isResult)).toBe(true);
  expect(sandbox.stats().bulk_submit).toBe(1);
  expect(sandbox.stats().bulk_results).toBe(2); // two pages of up to 1,000
});

test.each([
  ["side by side: the rest is split into jobs of 500 sent together", false, 5],
  ["one at a time: the rest goes as one job", true, 3],
])("a large Enterprise run starts with two probe jobs; a service running jobs %s", async (_name, serialJobs, posts) => {
  // 20 ms a property on a virtual clock that every wait moves on (the probes are looked at a second in).
  const clock = { now: Date.parse("2026-11-24T09:00:00Z") };
  const svc = await startTestSandbox({ msPerProperty: 20, serialJobs, now: () => new Date(clock.now) });
  const REQUEST_TIMEOUT_MS = 123_456;
  const sleep = (ms: number, signal?: { addEventListener?(t: "abort", f: () => void): void }) => {
    if (ms === REQUEST_TIMEOUT_MS) return new Promise<void>((r) => signal?.addEventListener?.("abort", () => r()));
    clock.now += ms;
    return new Promise<void>((r) => setImmediate(r));
  };
  try {
    const c = createClient({
      baseUrl: svc.baseUrl,
      apiKey: "sandbox-enterprise",
      fetch,
      now: () => clock.now,
      sleep,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    const outcomes = await c.screen(
      uprns(2500).map((uprn) => ({ uprn })),
      { plan: "enterprise" },
    );
    expect(outcomes.every(isResult)).toBe(true);
    expect(svc.stats().bulk_submit).toBe(posts);
  } finally {
    await svc.close();
  }
});

test("a plan chosen larger than the key's: the 413's max_batch_size splits the job instead of failing its rows", async () => {
  const outcomes = await client("sandbox-professional").screen(
    uprns(1500).map((uprn) => ({ uprn })),
    { plan: "enterprise" },
  );
  expect(outcomes.every(isResult)).toBe(true);
  expect(sandbox.stats().by_status["413"]).toBe(1);
  expect(sandbox.stats().by_status["202"]).toBe(2);
});

test("unknown properties and postcodes get their own errors; the rest their results", async () => {
  const ds = sandboxDataset();
  const shared = ds.properties.find((p) => (ds.byPostcode.get(p.postcode)?.length ?? 0) > 1)!;
  const props = [
    { uprn: ds.properties[0].uprn },
    { uprn: "999999999999" },
    { postcode: shared.postcode },
    { postcode: shared.postcode, address: shared.address_line_1 },
  ];
  const outcomes = await client().screen(props);
  expect(isResult(outcomes[0])).toBe(true);
  expect(outcomes[1]).toMatchObject({ error: { kind: "not_found" } });
  expect(outcomes[2]).toMatchObject({ error: { kind: "ambiguous" } });
  expect(isResult(outcomes[3]) && outcomes[3].result.uprn).toBe(shared.uprn);
});

test("checks subset: only those members come back, and missing ones are not reported as faults", async () => {
  const [o] = await client().screen([{ uprn: uprns(1)[0] }], { checks: ["epc", "gas_safety"] });
  expect(isResult(o) && Object.keys(o.result.checks).sort()).toEqual(["epc", "gas_safety"]);
  expect(isResult(o) && o.warnings).toBeUndefined();
});

describe("faults", () => {
  test("500s and malformed JSON on polls are retried; results keep their rows", async () => {
    sandbox.setFaults([
      { kind: "error_500", route: "bulk_results", count: 2 },
      { kind: "malformed_json", route: "bulk_results", count: 1 },
    ]);
    const list = uprns(30);
    const outcomes = await client().screen(list.map((uprn) => ({ uprn })));
    outcomes.forEach((o, i) => expect(isResult(o) && o.result.uprn).toBe(list[i]));
    expect(sandbox.stats().bulk_submit).toBe(1);
  });

  test("a 429 storm is waited out, never re-POSTing a created job", async () => {
    sandbox.setFaults([{ kind: "rate_limit", route: "any", count: 3 }]);
    const outcomes = await client().screen(uprns(5).map((uprn) => ({ uprn })));
    expect(outcomes.every(isResult)).toBe(true);
    expect(sandbox.stats().by_status["202"]).toBe(1);
  });

  test("a POST that fails with 500 is not retried blindly: its rows get the error", async () => {
    sandbox.setFaults([{ kind: "error_500", route: "bulk_submit", count: 1 }]);
    const outcomes = await client().screen(uprns(3).map((uprn) => ({ uprn })));
    expect(outcomes.map(errorCode)).toEqual(["internal_error", "internal_error", "internal_error"]);
    expect(sandbox.stats().bulk_submit).toBe(1);
  });

  test("a job that ends failed keeps its finished rows and marks the rest", async () => {
    sandbox.setFaults([{ kind: "job_fail", count: 1 }]);
    const outcomes = await client().screen(uprns(40).map((uprn) => ({ uprn })));
    const ok = outcomes.filter(isResult).length;
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThan(40);
    expect(outcomes.filter((o) => !isResult(o)).every((o) => "error" in o! && o.error.kind === "job_failed")).toBe(
      true,
    );
  });

  test("a job that never finishes ends with a timeout on its rows, not a hang", async () => {
    sandbox.setFaults([{ kind: "job_stall", count: 1 }]);
    const outcomes = await client().screen(
      uprns(4).map((uprn) => ({ uprn })),
      { jobTimeoutMs: 1500 },
    );
    const timedOut = outcomes.filter((o) => errorCode(o) === "job_timeout").length;
    expect(timedOut).toBeGreaterThan(0); // the sandbox stalls part way: what finished is kept
    expect(outcomes.filter(isResult).length + timedOut).toBe(4);
  });

  test("slow responses past the request timeout are retried, then reported", async () => {
    sandbox.setFaults([{ kind: "latency", route: "check", latency_ms: 800 }]);
    // Real time here: the timeout races a real 800 ms delay.
    const c = client("sandbox-professional", {
      requestTimeoutMs: 200,
      maxRetries: 1,
      fetch,
      sleep: undefined,
      now: undefined,
    });
    await expect(c.check({ uprn: uprns(1)[0] })).rejects.toMatchObject({ kind: "timeout" });
  });

  test("an invalid key or a plan without API access fails every row with that reason, after one request", async () => {
    const bad = await client("nope").screen(uprns(1500).map((uprn) => ({ uprn })));
    expect(new Set(bad.map((o) => "error" in o && o.error.kind))).toEqual(new Set(["auth"]));
    expect(sandbox.stats().bulk_submit).toBe(1);
    sandbox.reset();
    const none = await client("sandbox-no-api").screen([{ uprn: uprns(1)[0] }]);
    expect(none[0]).toMatchObject({ error: { kind: "forbidden", code: "plan_not_permitted" } });
  });

  test("a spent day quota fails the rows at once with the reason, without hammering the service", async () => {
    const tight = await startTestSandbox({ limits: { professional: { perDay: 1 } } });
    try {
      const c = createClient({ baseUrl: tight.baseUrl, apiKey: "sandbox-professional", fetch });
      const started = Date.now();
      const outcomes = await c.screen(
        uprns(9).map((uprn) => ({ uprn })),
        { plan: 3 },
      );
      expect(Date.now() - started).toBeLessThan(20000);
      expect(new Set(outcomes.map((o) => "error" in o && o.error.kind))).toEqual(new Set(["rate_limited"]));
      expect(tight.stats().total).toBeLessThanOrEqual(3); // one job made, one refused, one refused poll
    } finally {
      await tight.close();
    }
  });

  test("cancel: unfinished rows say cancelled, finished ones are kept", async () => {
    // A job of 200 at a second each, on a virtual clock: it is looked at before its end, so some rows finish first.
    const clock = { now: Date.parse("2026-11-24T09:00:00Z") };
    const slow = await startTestSandbox({ msPerProperty: 1000, now: () => new Date(clock.now) });
    try {
      const controller = new AbortController();
      const REQUEST_TIMEOUT_MS = 123_456;
      const sleep = (ms: number, signal?: { addEventListener?(t: "abort", f: () => void): void }) => {
        if (ms === REQUEST_TIMEOUT_MS) return new Promise<void>((r) => signal?.addEventListener?.("abort", () => r()));
        clock.now += ms;
        return new Promise<void>((r) => setImmediate(r));
      };
      const c = createClient({
        baseUrl: slow.baseUrl,
        apiKey: "sandbox-professional",
        fetch,
        now: () => clock.now,
        sleep,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
      });
      const list = uprns(200);
      let got = 0;
      const outcomes = await c.screen(
        list.map((uprn) => ({ uprn })),
        {
          signal: controller.signal,
          onProgress: (p) => {
            got += p.completed.length;
            if (got > 0) controller.abort();
          },
        },
      );
      expect(outcomes).toHaveLength(200);
      const cancelled = outcomes.filter((o) => errorCode(o) === "cancelled").length;
      expect(cancelled).toBeGreaterThan(0);
      expect(outcomes.filter(isResult).length + cancelled).toBe(200);
    } finally {
      await slow.close();
    }
  });
});

test("the rate-limit headers are read and paced on", async () => {
  const c = client();
  await c.lookupAddresses({ postcode: sandboxDataset().properties[0].postcode });
  expect(c.lastRateLimit()).toMatchObject({ limit: 60, remaining: 59 });
});

test("a base URL without /v1: one refused POST, every row says to check the base URL, earlier values are kept", async () => {
  const wrong = createClient({ baseUrl: sandbox.url, apiKey: "sandbox-professional", fetch });
  const outcomes = await wrong.screen(
    uprns(2500).map((uprn) => ({ uprn })),
    { plan: "professional" },
  );
  expect(sandbox.stats().total).toBe(1); // no retries, no further jobs
  for (const o of outcomes)
    expect(o).toMatchObject({
      error: { kind: "server", code: "endpoint_not_found", message: expect.stringMatching(/base URL/) },
    });
  // The refusal is about the address, not the property: a row's earlier result survives it.
  const before = outputRow(
    { result: checkResultFor(sandboxDataset().properties[0]) as never },
    new Date().toISOString(),
  );
  const after = outputRow(outcomes[0], new Date().toISOString(), before);
  expect(after.slice(0, 5)).toEqual(before.slice(0, 5));
  expect(String(after[outputHeaders().indexOf("Message")])).toMatch(/^Not refreshed/);
});
