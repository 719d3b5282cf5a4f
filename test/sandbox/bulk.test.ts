/** POST /api/check/bulk and its results: caps, per-item errors, checks subsets, progress, pages, scoping, callbacks. */
import { createHmac } from "crypto";
import * as http from "http";
import type { AddressInfo } from "net";
import type { SandboxHandle } from "../../sandbox/app";
import { CHECK_NAMES, checkResultFor, findExamples } from "../../sandbox/dataset";
import { ENT, PRO, expectError, expectRateHeaders, start } from "../helpers/sandbox";

let sb: SandboxHandle;
let call: Awaited<ReturnType<typeof start>>["call"];
beforeAll(async () => ({ sb, call } = await start({ msPerProperty: 0 })));
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const uprns = (n: number) =>
  sb
    .dataset()
    .properties.slice(0, n)
    .map((p) => ({ uprn: p.uprn }));
const submit = (body: unknown, key = ENT) => call("/api/check/bulk", { key, body });

test("202: job_id, processing, total_properties, estimated_completion, results_url", async () => {
  const res = await submit({
    properties: [{ uprn: "100023336956" }, { postcode: "SW1A 2AA", address: "10 Downing Street" }],
  });
  expect(res.status).toBe(202);
  expectRateHeaders(res);
  expect(res.body.job_id).toMatch(/^bulk_[a-z0-9]+$/);
  expect(res.body).toEqual({
    job_id: res.body.job_id,
    status: "processing",
    total_properties: 2,
    estimated_completion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    results_url: `/api/check/bulk/${res.body.job_id}/results`,
  });
  const results = await call(res.body.results_url);
  expect(results.status).toBe(200);
  expect(results.body).toMatchObject({
    job_id: res.body.job_id,
    status: "completed",
    total_properties: 2,
    processed_properties: 2,
    checks: [...CHECK_NAMES],
    page: 1,
    per_page: 1000,
    total_pages: 1,
    next_page_url: null,
    error: null,
  });
  expect(results.body.completed_at).toMatch(/Z$/);
  expect(results.body.created_at).toMatch(/Z$/);
  const expected = checkResultFor(sb.dataset().byUprn.get("100023336956")!);
  expect(results.body.results).toEqual([
    { index: 0, input: { uprn: "100023336956" }, status: "completed", result: expected },
    { index: 1, input: { postcode: "SW1A 2AA", address: "10 Downing Street" }, status: "completed", result: expected },
  ]);
});

test("plan caps: professional 1,000, enterprise 10,000; beyond is 413 batch_too_large", async () => {
  expect((await submit({ properties: uprns(1000) }, PRO)).status).toBe(202);
  const over = await submit({ properties: uprns(1001) }, PRO);
  const error = expectError(over, 413, "batch_too_large");
  expect(error.details).toEqual({ max_batch_size: 1000, plan: "professional", submitted: 1001 });
  expect((await submit({ properties: uprns(10_000) })).status).toBe(202);
  const tooMany = await submit({ properties: uprns(10_001) });
  expect(expectError(tooMany, 413, "batch_too_large").details).toEqual({
    max_batch_size: 10_000,
    plan: "enterprise",
    submitted: 10_001,
  });
});

test("invalid or unknown elements become error items, not a failed request", async () => {
  const ex = findExamples(sb.dataset());
  const properties = [
    { uprn: ex.shortUprn.padded },
    { uprn: "not-a-uprn" },
    { postcode: "nonsense" },
    { postcode: ex.unknownPostcode },
    { uprn: ex.unknownUprn },
    {},
    "100023336956",
    null,
    { postcode: ex.sharedPostcode.postcode },
    { uprn: Number("100023336956") },
  ];
  const res = await submit({ properties });
  expect(res.status).toBe(202);
  const items = (await call(res.body.results_url)).body.results;
  expect(items.map((i: { index: number }) => i.index)).toEqual(properties.map((_, i) => i));
  expect(items.map((i: { input: unknown }) => i.input)).toEqual(properties);
  const codes = items.map((i: { status: string; error?: { code: string } }) =>
    i.status === "completed" ? "ok" : i.error!.code,
  );
  expect(codes).toEqual([
    "ok",
    "invalid_uprn",
    "invalid_postcode",
    "property_not_found",
    "property_not_found",
    "invalid_request",
    "invalid_request",
    "invalid_request",
    "ambiguous_property",
    "ok",
  ]);
  expect(items[0].result.uprn).toBe(ex.shortUprn.property.uprn);
  expect(items[8].error.details.candidates.length).toBe(ex.sharedPostcode.properties.length);
  for (const item of items.filter((i: { status: string }) => i.status === "error"))
    expect(typeof item.error.message).toBe("string");
});

test("a checks subset: results hold only those, scored over them", async () => {
  const ex = findExamples(sb.dataset());
  const p = ex.byCheckStatus.epc.fail;
  const res = await submit({ properties: [{ uprn: p.uprn }], checks: ["eicr", "epc"] });
  const body = (await call(res.body.results_url)).body;
  expect(body.checks).toEqual(["epc", "eicr"]);
  const result = body.results[0].result;
  expect(Object.keys(result.checks).sort()).toEqual(["eicr", "epc"]);
  expect(result).toEqual(checkResultFor(p, ["epc", "eicr"]));
  const only = await submit({ properties: [{ uprn: p.uprn }], checks: ["epc"] });
  expect((await call(only.body.results_url)).body.results[0].result.compliance_score).toBe(0);
});

test("400s: invalid checks, invalid callback_url", async () => {
  for (const checks of [[], ["epc", "roof"], "epc", [1]]) {
    expectError(await submit({ properties: uprns(1), checks }), 400, "invalid_checks");
  }
  for (const callback_url of ["http://example.org/hook", "ftp://example.org", "not a url", 42]) {
    expectError(await submit({ properties: uprns(1), callback_url }), 400, "invalid_callback_url");
  }
  expect((await submit({ properties: uprns(1), callback_url: "https://example.invalid/hook" })).status).toBe(202);
});

test("pagination: 2,500 properties are 3 pages of 1,000 linked by next_page_url", async () => {
  const properties = uprns(2500);
  const job = await submit({ properties });
  let url: string | null = job.body.results_url;
  const pages: any[] = [];
  while (url) {
    const res = await call(url);
    expect(res.status).toBe(200);
    pages.push(res.body);
    url = res.body.next_page_url;
  }
  expect(pages.map((p) => [p.page, p.per_page, p.total_pages, p.results.length])).toEqual([
    [1, 1000, 3, 1000],
    [2, 1000, 3, 1000],
    [3, 1000, 3, 500],
  ]);
  expect(pages[0].next_page_url).toBe(`/api/check/bulk/${job.body.job_id}/results?page=2&per_page=1000`);
  expect(pages[2].next_page_url).toBeNull();
  const indices = pages.flatMap((p) => p.results.map((r: { index: number }) => r.index));
  expect(indices).toEqual(properties.map((_, i) => i));
  expect(pages[1].results[0].result.uprn).toBe(properties[1000].uprn);
});

test("per_page override, clamping to 1,000, a page past the end, bad values", async () => {
  const job = await submit({ properties: uprns(25) });
  const page = (qs: string) => call(`${job.body.results_url}?${qs}`);
  const p3 = (await page("page=3&per_page=10")).body;
  expect([p3.page, p3.per_page, p3.total_pages, p3.next_page_url]).toEqual([3, 10, 3, null]);
  expect(p3.results.map((r: { index: number }) => r.index)).toEqual([20, 21, 22, 23, 24]);
  expect((await page("page=1&per_page=10")).body.next_page_url).toBe(`${job.body.results_url}?page=2&per_page=10`);
  expect((await page("per_page=5000")).body.per_page).toBe(1000);
  expect((await page("page=9&per_page=10")).body.results).toEqual([]);
  for (const qs of ["page=0", "page=-1", "page=x", "per_page=0", "per_page=1.5"]) {
    expectError(await page(qs), 400, "invalid_request");
  }
});

test("job_not_found: unknown id, and another key's job", async () => {
  expectError(await call("/api/check/bulk/bulk_doesnotexist/results"), 404, "job_not_found");
  const job = await submit({ properties: uprns(2) }, ENT);
  expectError(await call(job.body.results_url, { key: PRO }), 404, "job_not_found");
  expect((await call(job.body.results_url, { key: ENT })).status).toBe(200);
});

describe("progress at msPerProperty > 0", () => {
  test("processed grows in index order; processing, then completed", async () => {
    const slow = await start({ msPerProperty: 10 });
    try {
      const job = await slow.call("/api/check/bulk", { body: { properties: uprns(60) } });
      const created = Date.now();
      const first = (await slow.call(job.body.results_url)).body;
      expect(first.status).toBe("processing");
      expect(first.completed_at).toBeNull();
      expect(first.processed_properties).toBeLessThan(60);
      expect(first.results.length).toBe(first.processed_properties);
      const eta = Date.parse(job.body.estimated_completion);
      expect(eta).toBeGreaterThanOrEqual(created + 600 - 200); // 60 x 10 ms, rounded up to a second
      await new Promise((r) => setTimeout(r, 250));
      const mid = (await slow.call(job.body.results_url)).body;
      expect(mid.processed_properties).toBeGreaterThan(first.processed_properties);
      expect(mid.results.map((r: { index: number }) => r.index)).toEqual([...Array(mid.processed_properties).keys()]);
      let last = mid;
      while (last.status === "processing") {
        await new Promise((r) => setTimeout(r, 100));
        last = (await slow.call(job.body.results_url)).body;
      }
      expect(last.status).toBe("completed");
      expect(last.processed_properties).toBe(60);
      expect(last.results).toHaveLength(60);
      expect(last.completed_at).toMatch(/Z$/);
      expect(Date.now() - created).toBeGreaterThanOrEqual(500);
    } finally {
      await slow.sb.close();
    }
  });
});

describe("callback", () => {
  let server: http.Server;
  let received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let hookUrl: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/compliance`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => (received = []));

  const waitFor = async (cond: () => boolean, ms = 3000) => {
    const end = Date.now() + ms;
    while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  };

  test("POSTed once on completion, signed with HMAC-SHA256 of timestamp.body", async () => {
    const hooked = await start({ msPerProperty: 5, webhookSecret: "test-secret" });
    try {
      const job = await hooked.call("/api/check/bulk", { body: { properties: uprns(20), callback_url: hookUrl } });
      expect(job.status).toBe(202);
      await waitFor(() => received.length > 0);
      await new Promise((r) => setTimeout(r, 300));
      expect(received).toHaveLength(1);
      const { headers, body } = received[0];
      expect(headers["content-type"]).toBe("application/json");
      expect(headers["x-compliance-event"]).toBe("bulk.completed");
      const ts = headers["x-compliance-timestamp"] as string;
      expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(300);
      const expected = createHmac("sha256", "test-secret").update(`${ts}.${body}`).digest("hex");
      expect(headers["x-compliance-signature"]).toBe(`sha256=${expected}`);
      expect(JSON.parse(body)).toEqual({
        event: "bulk.completed",
        job_id: job.body.job_id,
        status: "completed",
        total_properties: 20,
        processed_properties: 20,
        completed_at: expect.stringMatching(/Z$/),
        results_url: job.body.results_url,
      });
      const results = (await hooked.call(job.body.results_url)).body;
      expect(results.status).toBe("completed");
      expect(hooked.sb.stats().callbacks).toEqual({ sent: 1, failed: 0 });
    } finally {
      await hooked.sb.close();
    }
  });

  test("default secret, and at once when msPerProperty is 0", async () => {
    const job = await submit({ properties: uprns(3), callback_url: hookUrl.replace("127.0.0.1", "localhost") });
    await waitFor(() => received.length > 0);
    expect(received).toHaveLength(1);
    const { headers, body } = received[0];
    const sig = createHmac("sha256", "sandbox-webhook-secret")
      .update(`${headers["x-compliance-timestamp"]}.${body}`)
      .digest("hex");
    expect(headers["x-compliance-signature"]).toBe(`sha256=${sig}`);
    expect(JSON.parse(body).job_id).toBe(job.body.job_id);
  });
});
