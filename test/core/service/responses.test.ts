/** Response interpretation: the sandbox's shapes and the other reasonable shapes a real server could send. */
import {
  acceptResultsPage,
  buildBulkResultsRequest,
  buildBulkSubmitRequest,
  buildAddressLookupRequest,
  interpretAddressResponse,
  interpretCheckResponse,
  interpretResultsResponse,
  parseRateLimit,
  resolveServiceUrl,
  startJob,
  validateBaseUrl,
  validateApiKey,
  waitBeforeNextRequest,
} from "../../../core";
import { parseBulkJob, parseCheckResult } from "../../../core/service/schemas";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const result = (uprn: string) => ({
  uprn,
  address: `${uprn} Test Road`,
  compliance_score: 50,
  risk_level: "medium",
  checks: { epc: { status: "pass", rating: "C", expiry: "2030-01-01" } },
  last_updated: "2026-11-01T00:00:00Z",
});

describe("error bodies", () => {
  const cases: [number, string, { kind: string; code: string; message: RegExp }][] = [
    [
      401,
      JSON.stringify({ error: { code: "invalid_api_key", message: "Key not recognised." } }),
      { kind: "auth", code: "invalid_api_key", message: /Key not recognised/ },
    ],
    [
      403,
      JSON.stringify({ code: "plan", message: "Upgrade." }),
      { kind: "forbidden", code: "plan", message: /Upgrade/ },
    ],
    [
      404,
      JSON.stringify({ error: "not_found", message: "No property." }),
      { kind: "not_found", code: "not_found", message: /No property/ },
    ],
    [
      400,
      JSON.stringify({ detail: "uprn or postcode required" }),
      { kind: "invalid_input", code: "http_400", message: /required/ },
    ],
    [
      422,
      JSON.stringify({ errors: [{ code: "bad", message: "Bad thing." }] }),
      { kind: "invalid_input", code: "bad", message: /Bad thing/ },
    ],
    [409, "", { kind: "ambiguous", code: "http_409", message: /Several properties/ }],
    [502, "<html>Bad gateway</html>", { kind: "server", code: "http_502", message: /HTTP 502/ }],
    [500, "plain text failure", { kind: "server", code: "http_500", message: /plain text failure/ }],
  ];
  test.each(cases)("HTTP %i", (status, body, expected) => {
    const r = interpretCheckResponse(status, {}, body, NOW);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe(expected.kind);
    expect(r.error.code).toBe(expected.code);
    expect(r.error.message).toMatch(expected.message);
    expect(r.error.status).toBe(status);
  });

  test("a 503 waits only as long as its Retry-After says; a 429 falls back to the window's reset", () => {
    const h = { "X-RateLimit-Remaining": "10", "X-RateLimit-Reset": "60" };
    const r503 = interpretCheckResponse(503, h, "", NOW);
    expect(!r503.ok && r503.error.retryAfterMs).toBeUndefined();
    const r503b = interpretCheckResponse(503, { ...h, "Retry-After": "2" }, "", NOW);
    expect(!r503b.ok && r503b.error.retryAfterMs).toBe(2000);
    const r429 = interpretCheckResponse(429, { "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "60" }, "", NOW);
    expect(!r429.ok && r429.error.retryAfterMs).toBe(60000);
  });

  test("a 200 with broken JSON is a malformed response, not a crash", () => {
    const r = interpretCheckResponse(200, {}, '{"uprn": "1", "chec', NOW);
    expect(r).toMatchObject({ ok: false, error: { kind: "malformed_response" } });
  });

  test("a result with a bad date is malformed; a missing member is a warning", () => {
    const bad = interpretCheckResponse(
      200,
      {},
      JSON.stringify({ ...result("1"), checks: { epc: { status: "pass", expiry: "01/02/2030" } } }),
      NOW,
    );
    expect(bad).toMatchObject({
      ok: false,
      error: { kind: "malformed_response", message: expect.stringMatching(/checks\.epc\.expiry/) },
    });
    const partial = interpretCheckResponse(200, {}, JSON.stringify(result("1")), NOW);
    expect(partial.ok && partial.warnings).toContain("the service returned no gas_safety check");
  });

  test("unknown status words and extra fields pass through", () => {
    const r = interpretCheckResponse(
      200,
      {},
      JSON.stringify({ ...result("1"), extra: 1, checks: { epc: { status: "exempt", rating: "C", note: "x" } } }),
      NOW,
    );
    expect(r.ok && r.value.checks.epc).toEqual({ status: "exempt", rating: "C", note: "x" });
    expect(r.ok && (r.value as Record<string, unknown>).extra).toBe(1);
  });
});

describe("rate-limit headers", () => {
  test("reset as seconds to wait, Unix seconds or Unix milliseconds", () => {
    expect(parseRateLimit({ "X-RateLimit-Reset": "42" }, NOW).resetAtMs).toBe(NOW + 42000);
    expect(parseRateLimit({ "x-ratelimit-reset": String(NOW / 1000 + 10) }, NOW).resetAtMs).toBe(NOW + 10000);
    expect(parseRateLimit({ "X-RATELIMIT-RESET": String(NOW + 5000) }, NOW).resetAtMs).toBe(NOW + 5000);
  });
  test("Retry-After as seconds or an HTTP date", () => {
    expect(parseRateLimit({ "Retry-After": "3" }, NOW).retryAfterMs).toBe(3000);
    expect(parseRateLimit({ "Retry-After": new Date(NOW + 7000).toUTCString() }, NOW).retryAfterMs).toBe(7000);
  });
  test("waits only when the window is spent", () => {
    expect(
      waitBeforeNextRequest(parseRateLimit({ "X-RateLimit-Remaining": "1", "X-RateLimit-Reset": "30" }, NOW), NOW),
    ).toBe(0);
    expect(
      waitBeforeNextRequest(
        parseRateLimit({ "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "30" }, NOW),
        NOW + 10000,
      ),
    ).toBe(20000);
    expect(waitBeforeNextRequest(parseRateLimit({}, NOW), NOW)).toBe(0);
    expect(waitBeforeNextRequest(undefined, NOW)).toBe(0);
  });
  test("a fetch Headers object works as well as a plain object", () => {
    const h = new Headers({ "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59" });
    expect(parseRateLimit(h, NOW)).toMatchObject({ limit: 60, remaining: 59 });
  });
});

describe("requests", () => {
  const cfg = { baseUrl: "https://api.example.com/v1", apiKey: "key" };
  test("base URL with or without a trailing slash; results_url relative, /v1-prefixed or absolute", () => {
    expect(resolveServiceUrl("https://a.b/v1/", "/api/check/bulk/bulk_1/results")).toBe(
      "https://a.b/v1/api/check/bulk/bulk_1/results",
    );
    expect(resolveServiceUrl("https://a.b/v1", "/v1/api/check/bulk/bulk_1/results?page=2")).toBe(
      "https://a.b/v1/api/check/bulk/bulk_1/results?page=2",
    );
    expect(resolveServiceUrl("https://a.b/v1", "https://c.d/x")).toBe("https://c.d/x");
    expect(buildBulkResultsRequest(cfg, "api/check/bulk/bulk_1/results").url).toBe(
      "https://api.example.com/v1/api/check/bulk/bulk_1/results",
    );
  });
  test("bulk body, JSON content type, bearer key", () => {
    const r = buildBulkSubmitRequest(
      cfg,
      [
        { uprn: "1", postcode: "ignored" },
        { postcode: "M1 1AE", address: "1 A St" },
      ],
      { checks: ["epc"] },
    );
    expect(r).toMatchObject({
      method: "POST",
      url: "https://api.example.com/v1/api/check/bulk",
      headers: { Authorization: "Bearer key", "Content-Type": "application/json" },
    });
    expect(JSON.parse(r.body!)).toEqual({
      properties: [{ uprn: "1" }, { postcode: "M1 1AE", address: "1 A St" }],
      checks: ["epc"],
    });
  });
  test("free text with & # + and non-ASCII is encoded", () => {
    expect(buildAddressLookupRequest(cfg, { query: "Flat 1 & 2 #3 + Zoë's" }).url).toBe(
      "https://api.example.com/v1/api/addresses?query=Flat%201%20%26%202%20%233%20%2B%20Zo%C3%AB's",
    );
  });
  test("base URL and key validation", () => {
    expect(validateBaseUrl("http://api.example.com/v1")).toMatchObject({ ok: false });
    expect(validateBaseUrl("http://localhost:3001/v1/")).toEqual({ ok: true, baseUrl: "http://localhost:3001/v1" });
    expect(validateBaseUrl("https://api.example.com/v1")).toMatchObject({ ok: true });
    expect(validateBaseUrl("nonsense")).toMatchObject({ ok: false });
    expect(validateApiKey("Bearer abc")).toEqual({ ok: true, apiKey: "abc" });
    expect(validateApiKey("a b")).toMatchObject({ ok: false });
    expect(validateApiKey("")).toMatchObject({ ok: false });
  });
});

describe("address lists", () => {
  test("results, addresses or a bare array; alternative field names", () => {
    const a = interpretAddressResponse(
      200,
      {},
      JSON.stringify({ results: [{ uprn: "1", address: "1 A St, Town, M1 1AE", postcode: "M1 1AE" }] }),
      NOW,
    );
    const b = interpretAddressResponse(
      200,
      {},
      JSON.stringify([{ uprn: 2, line_1: "2 B St", post_town: "Leeds", postcode: "LS6 1AA" }]),
      NOW,
    );
    expect(a.ok && a.value[0]).toMatchObject({ uprn: "1", address: "1 A St, Town, M1 1AE" });
    expect(b.ok && b.value[0]).toMatchObject({ uprn: "2", address: "2 B St, Leeds, LS6 1AA", town: "Leeds" });
  });
});

describe("bulk results shapes", () => {
  const job = {
    job_id: "bulk_1",
    status: "processing",
    total_properties: 3,
    estimated_completion: new Date(NOW).toISOString(),
    results_url: "/api/check/bulk/bulk_1/results",
  };
  const props = [{ uprn: "11" }, { uprn: "22" }, { postcode: "M1 1AE" }];

  test("the sandbox shape: indexed items over pages", () => {
    let s = startJob(job, { offset: 10, count: 3, nowMs: NOW });
    const p1 = interpretResultsResponse(
      200,
      {},
      JSON.stringify({
        status: "processing",
        page: 1,
        per_page: 2,
        total_pages: 2,
        next_page_url: "/api/check/bulk/bulk_1/results?page=2&per_page=2",
        processed_properties: 1,
        results: [{ index: 0, status: "completed", result: result("11") }],
      }),
      NOW,
    );
    expect(p1.ok).toBe(true);
    let step = acceptResultsPage(s, (p1 as any).value, NOW, props);
    expect(step.items.map((i) => i.index)).toEqual([10]);
    expect(step.done).toBe(false);
    expect(step.state.cursor).toBe(job.results_url); // page not full yet: stay
    expect(step.waitMs).toBeGreaterThan(0);
    const p1b = interpretResultsResponse(
      200,
      {},
      JSON.stringify({
        status: "processing",
        page: 1,
        per_page: 2,
        total_pages: 2,
        next_page_url: "/api/check/bulk/bulk_1/results?page=2&per_page=2",
        results: [
          { index: 0, result: result("11") },
          { index: 1, status: "error", error: { code: "property_not_found", message: "none" } },
        ],
      }),
      NOW,
    );
    step = acceptResultsPage(step.state, (p1b as any).value, NOW, props);
    expect(step.items).toEqual([
      { index: 11, outcome: { error: expect.objectContaining({ kind: "not_found", code: "property_not_found" }) } },
    ]);
    expect(step.state.cursor).toContain("page=2");
    expect(step.waitMs).toBe(0);
    const p2 = interpretResultsResponse(
      200,
      {},
      JSON.stringify({
        status: "completed",
        page: 2,
        per_page: 2,
        total_pages: 2,
        next_page_url: null,
        results: [{ index: 2, result: result("33") }],
      }),
      NOW,
    );
    step = acceptResultsPage(step.state, (p2 as any).value, NOW, props);
    expect(step.done).toBe(true);
    expect(step.state.status).toBe("completed");
    expect(step.items.map((i) => i.index)).toEqual([12]);
    s = step.state;
    expect(s.received).toEqual([[0, 3]]);
  });

  test("no indexes: matched by input echo or uprn; bare results; completed word variants", () => {
    const s = startJob({ ...job, estimated_completion: undefined }, { offset: 0, count: 3, nowMs: NOW });
    const body = {
      state: "done",
      items: [
        { input: { postcode: "m1 1ae" }, result: result("33") },
        result("22"),
        { property: { uprn: "011" }, error: "not_found" },
      ],
    };
    const page = interpretResultsResponse(200, {}, JSON.stringify(body), NOW);
    const step = acceptResultsPage(s, (page as any).value, NOW, props);
    expect(step.done).toBe(true);
    const byIndex = Object.fromEntries(
      step.items.map((i) => [i.index, "result" in i.outcome ? i.outcome.result.uprn : i.outcome.error.kind]),
    );
    expect(byIndex).toEqual({ 0: "not_found", 1: "22", 2: "33" });
  });

  test("a bare array on a finished job is placed by position", () => {
    const s = startJob(job, { offset: 0, count: 2, nowMs: NOW });
    const page = interpretResultsResponse(
      200,
      {},
      JSON.stringify([{ result: { ...result("x"), uprn: undefined } }, { error: { message: "gone" } }]),
      NOW,
    );
    const step = acceptResultsPage(s, (page as any).value, NOW);
    expect(step.items.map((i) => i.index)).toEqual([0, 1]);
    expect(step.items[0].outcome).toMatchObject({ error: { kind: "malformed_response" } });
  });

  test("a failed job keeps what finished and fails the rest; a missing result is said", () => {
    const s = startJob(job, { offset: 0, count: 3, nowMs: NOW });
    const page = interpretResultsResponse(
      200,
      {},
      JSON.stringify({
        status: "failed",
        error: { code: "job_failed", message: "Worker crashed." },
        results: [{ index: 0, result: result("11") }],
      }),
      NOW,
    );
    const step = acceptResultsPage(s, (page as any).value, NOW);
    expect(step.state.status).toBe("failed");
    expect(step.items.map((i) => ("result" in i.outcome ? "ok" : i.outcome.error.message))).toEqual([
      "ok",
      "Worker crashed.",
      "Worker crashed.",
    ]);
    const done = interpretResultsResponse(
      200,
      {},
      JSON.stringify({ status: "completed", results: [{ index: 0, result: result("11") }] }),
      NOW,
    );
    const step2 = acceptResultsPage(startJob(job, { offset: 0, count: 2, nowMs: NOW }), (done as any).value, NOW);
    expect(step2.items[1].outcome).toMatchObject({ error: { code: "missing_result" } });
  });

  test("a results envelope of the wrong shape is a malformed response, not a crash", () => {
    for (const body of [{ status: "completed", results: "oops" }, { status: 3 }, "text", { total_properties: -1 }]) {
      expect(interpretResultsResponse(200, {}, JSON.stringify(body), NOW)).toMatchObject({
        ok: false,
        error: { kind: "malformed_response" },
      });
    }
  });

  test("an unknown job word is treated as running, until the deadline", () => {
    const s = startJob(job, { offset: 0, count: 1, nowMs: NOW, jobTimeoutMs: 1000 });
    const page = (interpretResultsResponse(200, {}, JSON.stringify({ status: "thinking", results: [] }), NOW) as any)
      .value;
    expect(acceptResultsPage(s, page, NOW + 500).done).toBe(false);
    const late = acceptResultsPage(s, page, NOW + 5000);
    expect(late.done).toBe(true);
    expect(late.items[0].outcome).toMatchObject({ error: { kind: "timeout", code: "job_timeout" } });
  });

  test("a job of thousands that timed out says its counts grouped, as every other sentence does", () => {
    const s = startJob(job, { offset: 0, count: 2_500, nowMs: NOW, jobTimeoutMs: 1000 });
    const page = (interpretResultsResponse(200, {}, JSON.stringify({ status: "processing", results: [] }), NOW) as any)
      .value;
    const late = acceptResultsPage(s, page, NOW + 5000);
    expect(late.items).toHaveLength(2_500);
    expect((late.items[0].outcome as { error: { message: string } }).error.message).toMatch(
      /did not finish in time \(0 of 2,500 done\)/,
    );
  });
});

describe("what a malformed answer is reported as (zod/mini has no English messages of its own)", () => {
  const good = { uprn: "100023336956", checks: { epc: { status: "pass", rating: "C", expiry: "2030-01-01" } } };
  test("last_updated is informational: unreadable it is left out, as Unix seconds or another date form it is read; the checks are kept either way", () => {
    const read = (v: unknown) => {
      const parsed = parseCheckResult({ ...good, last_updated: v });
      if (!parsed.ok) throw new Error(parsed.message);
      expect(parsed.value.checks.epc?.status).toBe("pass");
      return parsed.value.last_updated;
    };
    expect(read("yesterday")).toBeNull();
    expect(read(1795506764)).toBe("2026-11-24T07:52:44.000Z");
    expect(read(1795506764000)).toBe("2026-11-24T07:52:44.000Z");
    expect(read("Tue, 24 Nov 2026 07:52:44 GMT")).toBe("2026-11-24T07:52:44.000Z");
    expect(read("2026-11-24 07:52:44")).toBe("2026-11-24 07:52:44");
  });
  test.each([
    [{ ...good, uprn: "" }, "uprn: expected a non-empty string"],
    [{ ...good, uprn: true }, "uprn: expected string"],
    [{ ...good, compliance_score: "high" }, "compliance_score: expected number"],
    [
      { ...good, checks: { epc: { status: "pass", expiry: "1/2/2030" } } },
      "checks.epc.expiry: expected a YYYY-MM-DD date",
    ],
    [{ ...good, checks: { epc: { rating: "C" } } }, "checks.epc.status: expected string"],
    [{ ...good, checks: "none" }, "checks: expected object"],
    [{ ...good, compliance_score: "high" }, "compliance_score: expected number"],
  ])("%j", (body, message) => {
    const parsed = parseCheckResult(body);
    expect(parsed).toEqual({ ok: false, message: `Malformed check result: ${message}` });
  });

  test("the tolerant cases still pass: numeric UPRN, timestamp dates, null members, extra fields", () => {
    const parsed = parseCheckResult(
      { uprn: 100023336956, extra: 1, checks: { epc: { status: "pass", expiry: "2030-01-01T00:00:00Z" }, eicr: null } },
      ["epc"],
    );
    expect(parsed).toEqual({
      ok: true,
      warnings: [],
      value: { uprn: "100023336956", extra: 1, checks: { epc: { status: "pass", expiry: "2030-01-01" } } },
    });
  });

  test("a bulk job without an id, and one with a negative count", () => {
    expect(parseBulkJob({ status: "queued" })).toEqual({
      ok: false,
      message: "Malformed bulk job: job_id: expected string",
    });
    expect(parseBulkJob({ job_id: "j", total_properties: -1 })).toEqual({
      ok: false,
      message: "Malformed bulk job: total_properties: expected at least 0",
    });
  });
});
