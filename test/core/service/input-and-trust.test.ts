/**
 * What people's own sheets and a real server's answers bring that the sandbox's own shapes do not: header
 * words in other forms, invisible characters, keys pasted from formatted pages, links to other origins,
 * 404s from a wrong base URL, unindexed results at look-alike addresses, runs resumed long after.
 */
import {
  baseUrlVersionWarning,
  acceptResultsPage,
  buildBulkResultsRequest,
  checkJobDeadline,
  describeError,
  detectColumns,
  interpretAddressResponse,
  interpretCheckResponse,
  interpretResultsResponse,
  maskApiKey,
  outputHeaders,
  outputRow,
  parseRateLimit,
  readPropertyRows,
  serviceError,
  startJob,
  validateApiKey,
} from "../../../core";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("header words a user writes", () => {
  test.each([
    [["Property UPRN", "Postcode"], { uprn: 0, postcode: 1 }],
    [["UPRN (12 digits)", "Post-code", "Address"], { uprn: 0, postcode: 1, address: 2 }],
    [["U.P.R.N.", "POST CODE"], { uprn: 0, postcode: 1 }],
    [["Ref", "uprn_no", "postcode (property)"], { uprn: 1, postcode: 2 }],
    // Someone else's postcode is never the property's, and the plain word wins over a longer header.
    [["Landlord postcode", "Property postcode", "UPRN"], { postcode: 1, uprn: 2 }],
    [["Property postcode", "Postcode"], { postcode: 1 }],
  ])("%j", (header, mapping) => {
    expect(detectColumns(header)).toEqual(mapping);
  });

  test("a UPRN column under a longer header is used, not left out for the postcode", () => {
    const r = readPropertyRows([
      ["Property UPRN", "Postcode"],
      ["100038854010", "E15 9UD"],
      ["", "E15 9UD"],
    ]);
    expect(r.rows.map((x) => x.property)).toEqual([{ uprn: "100038854010" }, { postcode: "E15 9UD" }]);
  });

  test("zero-width characters pasted from a web page do not make a valid cell invalid", () => {
    const r = readPropertyRows([
      ["\u200bUPRN", "Postcode"],
      ["\u200b100023336956", ""],
      ["", "SW1A 2AA\u200b"],
      ["\ufeff", ""],
    ]);
    expect(r.rows.map((x) => x.property ?? x.error?.code)).toEqual([
      { uprn: "100023336956" },
      { postcode: "SW1A 2AA" },
      "empty_row",
    ]);
  });
});

describe("API keys", () => {
  test("a key with characters a header cannot carry is refused with a reason, not sent", () => {
    expect(validateApiKey("sand••••••••onal")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/masked key/),
    });
    expect(validateApiKey("live\u2011abc123")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/plain letters/),
    });
    expect(validateApiKey("\u200blive_abc123\u200b")).toEqual({ ok: true, apiKey: "live_abc123" });
  });

  test("the mask never shows more than a quarter of a key", () => {
    for (const key of ["abcdefghi", "abcdefghijkl", "sandbox-professional", "live_0123456789abcdef0123456789abcdef"]) {
      const shown = maskApiKey(key).replace(/•/g, "").length;
      expect(shown).toBeLessThanOrEqual(key.length / 4);
    }
    expect(maskApiKey("live_0123456789abcdef0123456789abcdef")).toBe("live••••••••••••cdef");
  });
});

describe("the key goes to the service's origin only", () => {
  const cfg = { baseUrl: "https://api.example.com/v1", apiKey: "secret" };
  test.each([
    ["/api/check/bulk/b1/results", true],
    ["https://api.example.com/v1/api/check/bulk/b1/results?page=2", true],
    ["https://API.example.com:443/v1/x", true],
    ["https://files.example-cdn.com/b1.json", false],
    ["http://api.example.com/v1/x", false],
    ["https://api.example.com.evil.test/v1/x", false],
  ])("%s", (url, withKey) => {
    const req = buildBulkResultsRequest(cfg, url);
    expect("Authorization" in req.headers).toBe(withKey);
  });
});

describe("a 404 from a wrong base URL is not a missing property", () => {
  test.each([
    ["<html><body><h1>404 Not Found</h1></body></html>"],
    [JSON.stringify({ error: { code: "not_found", message: "No route GET /api/check." } })],
    [JSON.stringify({ message: "Route GET:/api/check not found", error: "Not Found", statusCode: 404 })],
    [
      JSON.stringify({
        message: "Route GET:/v1/api/check?uprn=100023336956 not found",
        error: "Not Found",
        statusCode: 404,
      }),
    ],
    [JSON.stringify({ detail: "Cannot GET /api/check?postcode=SW1A%202AA" })],
  ])("%s", (body) => {
    const r = interpretCheckResponse(404, {}, body, NOW);
    expect(r).toMatchObject({
      ok: false,
      error: { kind: "server", code: "endpoint_not_found", message: expect.stringMatching(/base URL/) },
    });
  });

  test("a property's 404 stays one", () => {
    for (const body of [
      JSON.stringify({ error: { code: "property_not_found", message: "No property with UPRN 1." } }),
      JSON.stringify({ message: "Property not found" }),
      "",
    ]) {
      expect(interpretCheckResponse(404, {}, body, NOW)).toMatchObject({ ok: false, error: { kind: "not_found" } });
    }
  });
});

test("a blank X-RateLimit-Remaining says nothing; it is not 'none left'", () => {
  const r = parseRateLimit({ "X-RateLimit-Remaining": "", "X-RateLimit-Reset": "10", "X-RateLimit-Limit": "60" }, NOW);
  expect(r.remaining).toBeUndefined();
  expect(r.limit).toBe(60);
});

test("kept values read back as dates (Apps Script gives Date objects) stay dates, not JSON", () => {
  const headers = outputHeaders();
  const previous: unknown[] = headers.map(() => "");
  const epcExpiry = headers.indexOf("EPC expiry");
  const checkedAt = headers.indexOf("Checked at (UTC)");
  previous[0] = 65;
  previous[epcExpiry] = new Date("2031-10-26T23:00:00Z"); // 27 Oct 2031, midnight in a UTC+1 sheet
  previous[checkedAt] = new Date("2026-11-20T09:12:44Z");
  const row = outputRow(
    { error: { kind: "network", code: "network", message: "Could not reach the service." } },
    new Date(NOW).toISOString(),
    previous,
  );
  expect(row[0]).toBe(65);
  expect(row[epcExpiry]).toBe("2031-10-27");
  expect(row[checkedAt]).toBe("2026-11-20 09:12:44");
});

describe("bulk results", () => {
  const job = {
    job_id: "bulk_1",
    status: "processing",
    total_properties: 2,
    results_url: "/api/check/bulk/bulk_1/results",
  };
  const result = (line: string, uprn: string) => ({
    uprn,
    address: `${line}, London, E15 9UD`,
    compliance_score: 50,
    risk_level: "medium",
    checks: { epc: { status: "pass", rating: "C", expiry: "2030-01-01" } },
    last_updated: "2026-11-01T00:00:00Z",
  });

  test("unindexed results at look-alike addresses go to the row that named them, whatever their order", () => {
    const props = [
      { postcode: "E15 9UD", address: "2 Jubilee Road" },
      { postcode: "E15 9UD", address: "42 Jubilee Road" },
    ];
    const s = startJob(job, { offset: 0, count: 2, nowMs: NOW });
    const page = interpretResultsResponse(
      200,
      {},
      JSON.stringify({
        status: "completed",
        results: [result("42 Jubilee Road", "42"), result("2 Jubilee Road", "2")],
      }),
      NOW,
    );
    const step = acceptResultsPage(s, (page as any).value, NOW, props);
    const uprnAt = Object.fromEntries(
      step.items.map((i) => [i.index, "result" in i.outcome ? i.outcome.result.uprn : "error"]),
    );
    expect(uprnAt).toEqual({ 0: "2", 1: "42" });
  });

  test("a run resumed long after its deadline looks at the job before giving up on it", () => {
    const s = startJob(job, { offset: 0, count: 2, nowMs: NOW, jobTimeoutMs: 60_000 });
    const later = NOW + 12 * 60_000;
    expect(checkJobDeadline(s, later)).toBeNull(); // not seen since: poll first
    const done = interpretResultsResponse(
      200,
      {},
      JSON.stringify({
        status: "completed",
        results: [
          { index: 0, result: result("1 A Road", "1") },
          { index: 1, result: result("2 A Road", "2") },
        ],
      }),
      later,
    );
    const step = acceptResultsPage(s, (done as any).value, later);
    expect(step.state.status).toBe("completed");
    expect(step.items.every((i) => "result" in i.outcome)).toBe(true);
    // Seen unfinished past the deadline: then it is given up on.
    const running = interpretResultsResponse(200, {}, JSON.stringify({ status: "processing", results: [] }), later);
    const stuck = acceptResultsPage(s, (running as any).value, later);
    expect(stuck.done).toBe(true);
    expect(stuck.items[0].outcome).toMatchObject({ error: { code: "job_timeout" } });
  });
});

test("an address list keeps the total the service gave when it sends fewer", () => {
  const rec = { uprn: "1", address: "1 A Road, Leeds, LS1 4AP" };
  const r = interpretAddressResponse(200, {}, JSON.stringify({ results: [rec], total: 7067 }), NOW);
  expect(r.ok && r.value.total).toBe(7067);
  const bare = interpretAddressResponse(200, {}, JSON.stringify([rec]), NOW);
  expect(bare.ok && bare.value.total).toBeUndefined();
});

describe("messages for people", () => {
  test("no doubled full stops and no HTTP jargon from the service", () => {
    const auth = describeError(
      serviceError("auth", "invalid_api_key", "The API key is not valid; send Authorization: Bearer <API key>."),
    );
    expect(auth).not.toMatch(/Bearer|Authorization|\.\./);
    expect(auth).toMatch(/Settings/);
    const limited = describeError({
      ...serviceError("rate_limited", "rate_limited", "Rate limit exceeded, retry in 1 s."),
      retryAfterMs: 1000,
    });
    expect(limited).toBe("The request limit of your plan is reached for now. Try again in 1 s.");
    expect(describeError(serviceError("server", "internal_error", "Internal server error."))).toBe(
      "The compliance service had a problem (Internal server error). Try again shortly.",
    );
    expect(describeError(serviceError("not_found", "property_not_found", "No property with UPRN 1."))).toBe(
      "No property with UPRN 1. Check the UPRN or postcode in this row (Find a UPRN looks one up by address).",
    );
    for (const kind of [
      "auth",
      "forbidden",
      "rate_limited",
      "server",
      "network",
      "timeout",
      "not_found",
      "job_failed",
    ] as const) {
      expect(describeError(serviceError(kind, "x", "Something happened."))).not.toMatch(/\.\.|\s$/);
    }
  });
});

test("a base URL without an API version in its path gets one warning, the same in both hosts; no URL class needed", () => {
  for (const ok of [
    "https://api.example.com/v1",
    "https://api.example.com/v1/",
    "http://localhost:3001/v2.1",
    "https://x.example/api/V1?a=1",
  ])
    expect(baseUrlVersionWarning(ok)).toBe("");
  for (const site of [
    "https://api.example.com",
    "https://api.example.com/",
    "http://localhost:3001",
    "https://example.com/v1/docs",
  ]) {
    expect(baseUrlVersionWarning(site)).toMatch(
      /^ Its path does not end in an API version such as \/v1: check that it is the API's address/,
    );
  }
  expect(baseUrlVersionWarning("not a url")).toBe("");
});
