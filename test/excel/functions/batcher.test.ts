/**
 * The custom functions' batcher against the real sandbox over loopback HTTP: request counts (the point of
 * batching), cache and de-duplication, and that every call settles with the right cell error on every failure.
 */
import Fastify from "fastify";
import type { RateLimitInfo } from "../../../core";
import { CheckBatcher, toFunctionError, type BatcherConfig } from "../../../excel/functions/batcher";
import { AddressLookups } from "../../../excel/functions/lookups";
import { checkResultFor } from "../../../sandbox/dataset";
import { testClock } from "../../helpers/clock";
import { knownUprns, scaledSleep, startTestSandbox, type Sandbox } from "../../helpers/sandbox";

/**
 * The clock the batcher's client and the shared sandbox run on: polls, back-offs and job deadlines are kept, in test
 * time. The collect window (setTimer) runs on it too, and tests hand calls over at set moments on it (`pause`).
 */
const clock = testClock();
const onClock = { fetch: clock.fetch(fetch) as typeof fetch, sleep: clock.sleep, now: clock.now };

/** The collect window's timer on the test clock. */
const timersOnClock = {
  setTimer: (fn: () => void, ms: number) => {
    const c = new AbortController();
    void clock.sleep(ms, c.signal).then(() => c.signal.aborted || fn());
    return c;
  },
  clearTimer: (h: unknown) => (h as AbortController).abort(),
};
/** Waits `ms` on the test clock. */
const pause = (ms: number) => clock.sleep(ms);

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ now: clock.date });
});
afterAll(async () => {
  await sb.close();
});
beforeEach(() => sb.reset());

function batcher(cfg: Partial<BatcherConfig> = {}, extra: Partial<ConstructorParameters<typeof CheckBatcher>[0]> = {}) {
  const config: BatcherConfig = { baseUrl: sb.baseUrl, apiKey: "sandbox-professional", plan: "professional", ...cfg };
  return new CheckBatcher({
    getConfig: async () => config,
    ...onClock,
    ...timersOnClock,
    ...extra,
  });
}

/** Settle every promise, keeping results and errors apart, as Excel would show them. */
async function settleAll<T>(ps: Promise<T>[]) {
  const out = await Promise.allSettled(ps);
  return out.map((o) => (o.status === "fulfilled" ? { value: o.value } : { error: toFunctionError(o.reason) }));
}

test("calls that Excel hands over in bursts share one batch while they keep coming (up to maxWaitMs after the first)", async () => {
  const uprns = knownUprns(sb, 200);
  const b = batcher({}, { windowMs: 250, maxWaitMs: 5000 });
  // Ten bursts of 50 calls, 40 ms apart: one recalculation as Excel delivers it.
  const calls: Promise<unknown>[] = [];
  for (let burst = 0; burst < 10; burst++) {
    for (let i = 0; i < 50; i++) calls.push(b.check(uprns[(burst * 50 + i * 7) % 200]));
    await pause(40);
  }
  await Promise.all(calls);
  expect(sb.stats().bulk_submit).toBe(1);
  // Calls that never stop coming are still sent: the first batch goes at most maxWaitMs after its first call.
  sb.reset();
  const slow = batcher({}, { maxWaitMs: 300 });
  const spread: Promise<unknown>[] = [];
  const more = knownUprns(sb, 400).slice(200);
  for (let i = 0; i < 40; i++) {
    spread.push(slow.check(more[i]));
    await pause(25);
  }
  await Promise.all(spread);
  // 40 calls 25 ms apart never leave a 100 ms gap, yet they went in several batches: the cap cut them.
  expect(sb.stats().bulk_submit + sb.stats().check).toBeGreaterThanOrEqual(2);
});

test("500 formulas over 200 distinct UPRNs cost one bulk POST plus its polls; a recalculation costs nothing", async () => {
  const uprns = knownUprns(sb, 200);
  const calls = Array.from({ length: 500 }, (_, i) => uprns[(i * 7) % 200]);
  const b = batcher();
  const results = await Promise.all(calls.map((u) => b.check(u)));

  const stats = sb.stats();
  console.log(
    `[excel batcher] 500 calls / 200 UPRNs: ${stats.total} requests (bulk_submit ${stats.bulk_submit}, bulk_results ${stats.bulk_results}, check ${stats.check})`,
  );
  expect(stats.bulk_submit).toBe(1);
  expect(stats.check).toBe(0);
  expect(stats.bulk_results).toBeGreaterThanOrEqual(1);
  expect(stats.total).toBe(1 + stats.bulk_results);
  expect(stats.total).toBeLessThan(10);

  // Each call got its own property's result, as the service computes it.
  const ds = sb.dataset();
  results.forEach((r, i) => {
    expect(r.result.uprn).toBe(calls[i]);
    expect(r.result.compliance_score).toBe(checkResultFor(ds.byUprn.get(calls[i])!).compliance_score);
  });

  const again = await Promise.all(calls.map((u) => b.check(u)));
  expect(again.map((r) => r.result.uprn)).toEqual(calls);
  expect(sb.stats().total).toBe(stats.total);
});

test("one or two missing UPRNs use a plain GET /api/check; the cache answers the rest", async () => {
  const [a, c, d] = knownUprns(sb, 3);
  const examples = await (await fetch(`${sb.url}/__sandbox/examples`)).json();
  const b = batcher();
  await b.check(a);
  expect(sb.stats()).toMatchObject({ check: 1, bulk_submit: 0, total: 1 });
  await Promise.all([b.check(a), b.check(c), b.check(d), b.check(c)]);
  expect(sb.stats()).toMatchObject({ check: 3, bulk_submit: 0, total: 3 });
  // A UPRN with leading zeros is the same property (the service ignores them), so it is not asked again.
  await b.check(examples.short_uprn);
  expect(sb.stats().total).toBe(4);
  const padded = await b.check(examples.short_uprn_padded);
  expect(padded.result.uprn).toBe(examples.short_uprn);
  expect(sb.stats().total).toBe(4);
});

test("calls that arrive while a batch is out join it instead of asking again; clear() forgets the cache", async () => {
  const uprns = knownUprns(sb, 40);
  const slow = await startTestSandbox({ msPerProperty: 5, now: clock.date });
  try {
    const b = new CheckBatcher({
      getConfig: async () => ({ baseUrl: slow.baseUrl, apiKey: "sandbox-professional", plan: "professional" }),
      ...onClock,
      ...timersOnClock,
    });
    const first = Promise.all(uprns.map((u) => b.check(u)));
    await pause(150); // the window (100 ms) has closed and the job (200 ms) is running
    const late = Promise.all(uprns.slice(0, 10).map((u) => b.check(u)));
    await Promise.all([first, late]);
    expect(slow.stats().bulk_submit).toBe(1);
    expect(slow.stats().check).toBe(0);
    b.clear();
    await Promise.all(uprns.map((u) => b.check(u)));
    expect(slow.stats().bulk_submit).toBe(2);
  } finally {
    await slow.close();
  }
});

test("more distinct UPRNs than the plan's cap go as one bulk job per cap-sized chunk", async () => {
  const uprns = knownUprns(sb, 1500);
  const b = batcher();
  const results = await Promise.all(uprns.map((u) => b.check(u)));
  expect(results).toHaveLength(1500);
  expect(sb.stats().bulk_submit).toBe(2); // professional cap 1,000
  const e = batcher({ plan: "enterprise", apiKey: "sandbox-enterprise" });
  sb.reset();
  await Promise.all(uprns.map((u) => e.check(u)));
  expect(sb.stats().bulk_submit).toBe(1);
});

test("not found is #N/A 'property not found', a bad UPRN is #VALUE! 'invalid UPRN' without a request", async () => {
  const [good] = knownUprns(sb, 1);
  const b = batcher();
  const out = await settleAll([
    b.check("999999999999"),
    b.check("12ab"),
    b.check("1234567890123"),
    b.check(good),
    b.check(""),
  ]);
  expect(out[0]).toEqual({ error: { code: "notAvailable", message: "property not found" } });
  expect(out[1]).toEqual({ error: { code: "invalidValue", message: "invalid UPRN" } });
  expect(out[2]).toEqual({
    error: { code: "invalidValue", message: "invalid UPRN: 13 digits; a UPRN has at most 12" },
  });
  expect(out[3]).toHaveProperty("value");
  expect(out[4]).toEqual({ error: { code: "invalidValue", message: "invalid UPRN: the cell is empty" } });
  expect(sb.stats().total).toBe(2); // two GETs: the unknown and the good one; the bad ones never left
  // A not-found answer is a fact about the property: cached like a result.
  await settleAll([b.check("999999999999")]);
  expect(sb.stats().total).toBe(2);
});

test("a base URL that points at another server: its 404 is not 'property not found' and is never cached", async () => {
  // Another web service (Fastify's default 404: "Route GET:/v1/api/check?uprn=... not found", which names the UPRN).
  const other = Fastify();
  let requests = 0;
  other.addHook("onRequest", async () => {
    requests++;
  });
  await other.listen({ port: 0, host: "127.0.0.1" });
  try {
    const [u] = knownUprns(sb, 1);
    const b = batcher({ baseUrl: `http://127.0.0.1:${(other.server.address() as { port: number }).port}/v1` });
    const [first] = await settleAll([b.check(u)]);
    expect(first).toEqual({ error: { code: "notAvailable", message: expect.stringMatching(/check the base URL/i) } });
    expect((first as { error: { message: string } }).error.message).not.toMatch(/property not found/);
    expect(b.cacheSize()).toBe(0);
    // The next recalculation asks again (after the user fixes the URL it would succeed).
    const before = requests;
    await settleAll([b.check(u)]);
    expect(requests).toBeGreaterThan(before);
  } finally {
    await other.close();
  }
});

test("address lookups report the X-RateLimit quota, so the pane's count is current after a search", async () => {
  const seen: RateLimitInfo[] = [];
  const examples = await (await fetch(`${sb.url}/__sandbox/examples`)).json();
  const lookups = new AddressLookups({
    getConfig: async () => ({ baseUrl: sb.baseUrl, apiKey: "sandbox-professional", plan: "professional" }),
    fetch: (u, i) => fetch(u, i),
    onRateLimit: (info) => seen.push(info),
  });
  const found = await lookups.addresses(examples.single_property_postcode);
  expect(found.length).toBeGreaterThan(0);
  expect(seen).toHaveLength(1);
  expect(seen[0].remaining).toEqual(expect.any(Number));
  expect(seen[0].limit).toEqual(expect.any(Number));
});

test("missing, invalid and plan-less keys each give #N/A with a clear message", async () => {
  const [u] = knownUprns(sb, 1);
  const none = await settleAll([batcher({ apiKey: null }).check(u)]);
  expect(none[0]).toEqual({ error: { code: "notAvailable", message: expect.stringMatching(/No API key (is )?set/) } });
  expect(sb.stats().total).toBe(0);
  const bad = await settleAll([batcher({ apiKey: "not-a-key" }).check(u)]);
  expect(bad[0]).toEqual({
    error: { code: "notAvailable", message: expect.stringMatching(/API key was not accepted/) },
  });
  const basic = await settleAll([batcher({ apiKey: "sandbox-no-api" }).check(u)]);
  expect(basic[0]).toEqual({ error: { code: "notAvailable", message: expect.stringMatching(/no API access/) } });
});

describe("every promise settles: no cell is left on #BUSY!", () => {
  const uprns = () => knownUprns(sb, 5);

  test.each([
    ["server errors past the retry budget (single checks)", [{ kind: "error_503" as const }], 1],
    ["server errors past the retry budget (bulk)", [{ kind: "error_500" as const }], 5],
    ["429 past the retry budget", [{ kind: "rate_limit" as const }], 5],
    ["malformed JSON", [{ kind: "malformed_json" as const }], 5],
  ])("%s", async (_name, rules, n) => {
    sb.setFaults(rules);
    const b = batcher();
    const out = await settleAll(
      uprns()
        .slice(0, n)
        .map((u) => b.check(u)),
    );
    expect(out).toHaveLength(n);
    for (const o of out) {
      expect(o).toHaveProperty("error");
      expect((o as { error: { message: string } }).error.message.length).toBeGreaterThan(5);
      expect((o as { error: { code: string } }).error.code).toBe("notAvailable");
    }
    // A transient failure is not cached: once the service recovers, the next recalculation succeeds.
    sb.clearFaults();
    const retry = await settleAll(
      uprns()
        .slice(0, n)
        .map((u) => b.check(u)),
    );
    for (const o of retry) expect(o).toHaveProperty("value");
  });

  test.each([
    ["a job that fails half way", "job_fail" as const, 1_500],
    ["a job that stalls half way (ends at the job timeout)", "job_stall" as const, 1_500],
  ])("%s: the first half get results, the rest a message", async (_name, kind, jobTimeoutMs) => {
    const slow = await startTestSandbox({ msPerProperty: 20, now: clock.date });
    try {
      slow.setFaults([{ kind }]);
      const ten = knownUprns(slow, 10);
      const b = new CheckBatcher({
        getConfig: async () => ({ baseUrl: slow.baseUrl, apiKey: "sandbox-professional", plan: "professional" }),
        ...onClock,
        jobTimeoutMs,
        // Ten UPRNs would go as single checks; these cases are about a bulk job's failures.
        singleCheckLimit: 2,
      });
      const out = await settleAll(ten.map((u) => b.check(u)));
      expect(out.slice(0, 5).every((o) => "value" in o)).toBe(true);
      for (const o of out.slice(5)) expect(o).toEqual({ error: { code: "notAvailable", message: expect.any(String) } });
      expect(
        out
          .slice(5)
          .map((o) => (o as { error: { message: string } }).error.message.length)
          .every((n) => n > 5),
      ).toBe(true);
    } finally {
      await slow.close();
    }
  });

  test("a service that never answers gives a timeout, not #BUSY!", async () => {
    sb.setFaults([{ kind: "latency", latency_ms: 4_000 }]);
    // The request timeout races an answer still in flight, which holds the test clock: this case keeps a real timer.
    const b = batcher(
      {},
      {
        requestTimeoutMs: 300,
        flushTimeoutMs: 5_000,
        fetch: (u, i) => fetch(u, i),
        sleep: scaledSleep(20),
        now: () => Date.now(),
      },
    );
    const started = Date.now();
    const out = await settleAll(
      uprns()
        .slice(0, 3)
        .map((u) => b.check(u)),
    );
    expect(Date.now() - started).toBeLessThan(6_000);
    for (const o of out)
      expect(o).toEqual({
        error: { code: "notAvailable", message: expect.stringMatching(/did not answer|No answer/) },
      });
    sb.clearFaults();
  });

  test("a network failure (nothing listening) settles every call", async () => {
    const b = batcher({ baseUrl: "http://127.0.0.1:9/v1" });
    const out = await settleAll(uprns().map((u) => b.check(u)));
    for (const o of out)
      expect(o).toEqual({ error: { code: "notAvailable", message: expect.stringMatching(/Could not reach/) } });
  });
});
