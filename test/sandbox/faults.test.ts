/** Every fault kind, switched over HTTP (/__sandbox/faults) and through the startSandbox handle. */
import * as http from "http";
import type { AddressInfo } from "net";
import type { SandboxHandle } from "../../sandbox/app";
import { ENT, expectError, expectRateHeaders, start } from "../helpers/sandbox";

let sb: SandboxHandle;
let call: Awaited<ReturnType<typeof start>>["call"];
beforeAll(async () => ({ sb, call } = await start({ msPerProperty: 0 })));
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const CHECK = "/api/check?uprn=100023336956";
const uprns = (n: number) =>
  sb
    .dataset()
    .properties.slice(0, n)
    .map((p) => ({ uprn: p.uprn }));
const addFaults = (rules: unknown[]) => call("/__sandbox/faults", { key: null, body: { rules } });

test("latency delays the response by latency_ms, then answers normally; count limits the hits", async () => {
  await addFaults([{ kind: "latency", latency_ms: 300, count: 1 }]);
  const t = Date.now();
  expect((await call(CHECK)).status).toBe(200);
  // A lower bound only: a delay cannot come early, but a loaded machine can make anything late.
  expect(Date.now() - t).toBeGreaterThanOrEqual(290);
  // The rule was used up by that one hit: none is left to delay the next request.
  expect(((await call("/__sandbox/faults", { key: null })).body as { rules: unknown[] }).rules).toEqual([]);
  expect((await call(CHECK)).status).toBe(200);
});

test("error_500 and error_503 with the error body and rate-limit headers; count limits the hits", async () => {
  sb.setFaults([{ kind: "error_500", route: "check", count: 2 }]);
  for (let i = 0; i < 2; i++) {
    const res = await call(CHECK);
    expectError(res, 500, "internal_error");
    expectRateHeaders(res);
  }
  expect((await call(CHECK)).status).toBe(200);
  expect(sb.faults()).toEqual([]);

  sb.setFaults([{ kind: "error_503", count: 1 }]);
  const res = await call("/api/addresses?postcode=SW1A2AA");
  expectError(res, 503, "service_unavailable");
  expectRateHeaders(res);
  expect((await call("/api/addresses?postcode=SW1A2AA")).status).toBe(200);
});

test("route scoping: a check rule leaves addresses alone; without count it hits every request until cleared", async () => {
  await addFaults([{ kind: "error_503", route: "check" }]);
  expect((await call("/api/addresses?postcode=SW1A2AA")).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await call(CHECK)).status).toBe(503);
  const del = await call("/__sandbox/faults", { key: null, method: "DELETE" });
  expect(del.body).toEqual({ rules: [] });
  expect((await call(CHECK)).status).toBe(200);
});

test("rate_limit: 429 rate_limited, Retry-After 1, rate-limit headers", async () => {
  sb.setFaults([{ kind: "rate_limit", route: "bulk_results", count: 1 }]);
  const job = await call("/api/check/bulk", { body: { properties: uprns(1) } });
  expect(job.status).toBe(202);
  const res = await call(job.body.results_url);
  const error = expectError(res, 429, "rate_limited");
  expect(error.details).toEqual({ scope: "minute", retry_after: 1 });
  expect(res.headers.get("retry-after")).toBe("1");
  expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  expect(res.headers.get("x-ratelimit-reset")).toBe("1");
  expect(res.headers.get("x-ratelimit-limit")).toBe("300");
  expect((await call(job.body.results_url)).status).toBe(200);
});

test("malformed_json: 200, application/json, a body that does not parse", async () => {
  sb.setFaults([{ kind: "malformed_json", route: "check", count: 1 }]);
  const res = await call(CHECK);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.text.length).toBeGreaterThan(0);
  expect(() => JSON.parse(res.text)).toThrow();
  expect(res.text.startsWith('{"uprn":"100023336956"')).toBe(true);
  expectRateHeaders(res);
  expect(JSON.parse((await call(CHECK)).text).uprn).toBe("100023336956");
});

test("job_fail: the job ends failed half way, finished items kept, error job_failed", async () => {
  sb.setFaults([{ kind: "job_fail", count: 1 }]);
  const job = await call("/api/check/bulk", { body: { properties: uprns(10) } });
  expect(job.body.status).toBe("processing");
  const body = (await call(job.body.results_url)).body;
  expect(body.status).toBe("failed");
  expect(body.processed_properties).toBe(5);
  expect(body.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4]);
  expect(body.error).toEqual({ code: "job_failed", message: expect.any(String) });
  expect(body.completed_at).toMatch(/Z$/);
  // count 1: the next job is healthy.
  const next = await call("/api/check/bulk", { body: { properties: uprns(10) } });
  expect((await call(next.body.results_url)).body.status).toBe("completed");
});

test("job_stall: the job never leaves processing", async () => {
  const slow = await start({ msPerProperty: 2 });
  try {
    slow.sb.setFaults([{ kind: "job_stall" }]);
    const job = await slow.call("/api/check/bulk", { body: { properties: uprns(20) } });
    await new Promise((r) => setTimeout(r, 150));
    const body = (await slow.call(job.body.results_url)).body;
    expect(body.status).toBe("processing");
    expect(body.processed_properties).toBe(10);
    expect(body.completed_at).toBeNull();
    expect(body.error).toBeNull();
  } finally {
    await slow.sb.close();
  }
});

test("a failed job's callback is bulk.failed; a stalled job sends none", async () => {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    let b = "";
    req
      .on("data", (c) => (b += c))
      .on("end", () => {
        received.push(b);
        res.end();
      });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  try {
    sb.setFaults([
      { kind: "job_stall", count: 1 },
      { kind: "job_fail", count: 1 },
    ]);
    await call("/api/check/bulk", { body: { properties: uprns(4), callback_url: hook } });
    const failed = await call("/api/check/bulk", { body: { properties: uprns(4), callback_url: hook } });
    const end = Date.now() + 3000;
    while (received.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0])).toMatchObject({
      event: "bulk.failed",
      job_id: failed.body.job_id,
      status: "failed",
      processed_properties: 2,
      error: { code: "job_failed" },
    });
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test("faults over HTTP: add, list, validate; reset clears them", async () => {
  const added = await addFaults([
    { kind: "error_500", route: "addresses", count: 3 },
    { kind: "latency", latency_ms: 10 },
  ]);
  expect(added.status).toBe(200);
  expect(added.body.rules).toEqual([
    { kind: "error_500", route: "addresses", count: 3 },
    { kind: "latency", route: "any", latency_ms: 10 },
  ]);
  expect((await call("/__sandbox/faults", { key: null })).body.rules).toHaveLength(2);
  for (const rules of [
    [{ kind: "explode" }],
    [{ kind: "error_500", route: "nowhere" }],
    [{ kind: "error_500", count: 0 }],
    "x",
  ]) {
    expectError(await addFaults(rules as unknown[]), 400, "invalid_request");
  }
  expect((await call("/__sandbox/reset", { key: null, method: "POST" })).body).toEqual({ ok: true });
  expect(sb.faults()).toEqual([]);
  expect(() => sb.setFaults([{ kind: "nope" as never }])).toThrow();
});

test("faults hit only authorised requests to API routes", async () => {
  sb.setFaults([{ kind: "error_500", count: 1 }]);
  expectError(await call(CHECK, { key: null }), 401, "missing_api_key");
  expectError(await call("/nowhere"), 404, "not_found");
  expect((await call("/__sandbox/stats", { key: null })).status).toBe(200);
  expectError(await call(CHECK, { key: ENT }), 500, "internal_error");
});
