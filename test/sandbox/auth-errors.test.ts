/** Keys, the error body on every non-2xx status, rate-limit headers everywhere, and CORS for browser hosts. */
import * as net from "net";
import type { SandboxHandle } from "../../sandbox/app";
import { NO_API, PRO, expectError, expectRateHeaders, start } from "../helpers/sandbox";

let sb: SandboxHandle;
let call: Awaited<ReturnType<typeof start>>["call"];
beforeAll(async () => ({ sb, call } = await start()));
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const CHECK = "/api/check?uprn=100023336956";

describe("authentication", () => {
  test("no Authorization header: 401 missing_api_key", async () => {
    const res = await call(CHECK, { key: null });
    expectError(res, 401, "missing_api_key");
    expectRateHeaders(res);
  });

  test("unknown key, wrong scheme, empty bearer: 401 invalid_api_key", async () => {
    expectError(await call(CHECK, { key: "sandbox-nope" }), 401, "invalid_api_key");
    expectError(
      await call(CHECK, { key: null, headers: { Authorization: "Basic c2FuZGJveA==" } }),
      401,
      "invalid_api_key",
    );
    expectError(await call(CHECK, { key: null, headers: { Authorization: `Token ${PRO}` } }), 401, "invalid_api_key");
    expectError(await call(CHECK, { key: null, headers: { Authorization: "Bearer" } }), 401, "invalid_api_key");
    expectError(
      await call(CHECK, { key: null, headers: { Authorization: `Bearer ${PRO.toUpperCase()}` } }),
      401,
      "invalid_api_key",
    );
  });

  test("basic plan key: 403 plan_not_permitted", async () => {
    const res = await call(CHECK, { key: NO_API });
    expectError(res, 403, "plan_not_permitted");
    expectRateHeaders(res);
  });

  test("professional and enterprise keys are accepted", async () => {
    expect((await call(CHECK, { key: PRO })).status).toBe(200);
    expect((await call(CHECK)).status).toBe(200);
  });

  test("every API route needs a key", async () => {
    expectError(
      await call("/api/check/bulk", { key: null, body: { properties: [{ uprn: "1" }] } }),
      401,
      "missing_api_key",
    );
    expectError(await call("/api/check/bulk/bulk_abc/results", { key: null }), 401, "missing_api_key");
    expectError(await call("/api/addresses?postcode=SW1A2AA", { key: null }), 401, "missing_api_key");
  });
});

describe("error bodies", () => {
  test("unknown path and wrong method: 404 not_found with rate-limit headers", async () => {
    for (const res of [
      await call("/api/nothing"),
      await call("/api/nothing", { key: null }),
      await call("/api/check", { body: {} }),
      await call(sb.url + "/elsewhere"),
    ]) {
      expectError(res, 404, "not_found");
      expectRateHeaders(res);
    }
  });

  test("a body that is not JSON: 400 invalid_json, with or without a JSON content type", async () => {
    expectError(
      await call("/api/check/bulk", { rawBody: "{not json", headers: { "Content-Type": "application/json" } }),
      400,
      "invalid_json",
    );
    expectError(
      await call("/api/check/bulk", { rawBody: "{not json", headers: { "Content-Type": "text/plain" } }),
      400,
      "invalid_json",
    );
    // Counted before the body is read, so an unknown path with a broken body still carries the headers.
    const unknown = await call("/api/nothing", { rawBody: "{not json" });
    expectError(unknown, 400, "invalid_json");
    expectRateHeaders(unknown);
  });

  test("a JSON body that is not an object, or lacks properties: 400 invalid_request", async () => {
    for (const body of [[1, 2], "text", 42, {}, { properties: [] }, { properties: "x" }]) {
      expectError(await call("/api/check/bulk", { body }), 400, "invalid_request");
    }
    expectError(await call("/api/check/bulk", { method: "POST" }), 400, "invalid_request");
  });

  test("a URL that cannot be decoded: 400 invalid_request with the error body and rate-limit headers", async () => {
    const res = await call("/api/check/bulk/%ZZ/results");
    expectError(res, 400, "invalid_request");
    expectRateHeaders(res);
    // A browser page can still read the rate-limit headers of that answer.
    expect(res.headers.get("access-control-expose-headers")).toMatch(/X-RateLimit-Remaining/);
  });

  test("what Node's HTTP parser refuses (raw non-ASCII in the URL, huge headers) still gets the contract's JSON body", async () => {
    const raw = (request: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const port = Number(new URL(sb.url).port);
        const socket = net.connect(port, "127.0.0.1", () => socket.end(request));
        let text = "";
        socket.on("data", (d) => (text += d.toString("utf8")));
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
    const parse = (text: string) => ({
      status: Number(text.split(" ")[1]),
      body: JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)),
    });
    const nonAscii = parse(
      await raw(
        Buffer.concat([
          Buffer.from("GET /v1/api/addresses?query="),
          Buffer.from([0xc5, 0xb5, 0x0a]),
          Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n"),
        ]),
      ),
    );
    expect(nonAscii.status).toBe(400);
    expect(nonAscii.body.error).toMatchObject({
      code: "invalid_request",
      status: 400,
      message: expect.stringMatching(/could not be read/),
    });
    const huge = parse(
      await raw(Buffer.from(`GET /v1/api/check?uprn=1 HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)),
    );
    expect(huge.status).toBe(431);
    expect(huge.body.error.code).toBe("headers_too_large");
  });

  test("a body above 32 MB: 413 payload_too_large", async () => {
    const res = await call("/api/check/bulk", {
      rawBody: "[" + "1,".repeat(17_000_000) + "1]",
      headers: { "Content-Type": "application/json" },
    });
    expectError(res, 413, "payload_too_large");
    expectRateHeaders(res);
  });

  test("a repeated query parameter is a 400, not a crash", async () => {
    expectError(await call("/api/check?uprn=1&uprn=2"), 400, "invalid_request");
  });
});

describe("rate-limit headers on every /v1 response", () => {
  test("200, 401, 403, 404, 500 and 429 all carry integer X-RateLimit-* headers", async () => {
    const ok = await call(CHECK, { key: PRO });
    expect(ok.status).toBe(200);
    expectRateHeaders(ok);
    expect(ok.headers.get("x-ratelimit-limit")).toBe("60");
    expect(ok.headers.get("x-ratelimit-remaining")).toBe("59");
    const reset = Number(ok.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(60);
    const second = await call(CHECK, { key: PRO });
    expect(second.headers.get("x-ratelimit-remaining")).toBe("58");

    sb.setFaults([{ kind: "error_500", count: 1 }]);
    const err = await call(CHECK, { key: PRO });
    expectError(err, 500, "internal_error");
    expectRateHeaders(err);

    sb.setFaults([{ kind: "rate_limit", count: 1 }]);
    const limited = await call(CHECK, { key: PRO });
    expectError(limited, 429, "rate_limited");
    expectRateHeaders(limited);

    expectRateHeaders(await call(CHECK, { key: null }));
    expectRateHeaders(await call(CHECK, { key: NO_API }));
    expectRateHeaders(await call("/nowhere"));
  });

  test("enterprise reports its 300 per minute", async () => {
    const res = await call(CHECK);
    expect(res.headers.get("x-ratelimit-limit")).toBe("300");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("299");
  });

  test("sandbox controls carry no rate-limit headers and are not counted", async () => {
    const res = await call("/__sandbox/stats", { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(res.body.total).toBe(0);
  });
});

describe("CORS for the add-ins' browser hosts", () => {
  test("preflight: any origin, GET/POST/OPTIONS, Authorization and Content-Type, no key, not counted", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await call("/api/check/bulk", {
        key: null,
        method: "OPTIONS",
        headers: {
          Origin: "https://excel.officeapps.live.com",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization,content-type",
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-methods")).toMatch(/GET.*POST.*OPTIONS/);
      expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toMatch(/authorization.*content-type/);
    }
    expect(sb.stats().total).toBe(0);
    const after = await call(CHECK, { key: PRO });
    expect(after.headers.get("x-ratelimit-remaining")).toBe("59");
  });

  test("responses expose the rate-limit headers and Retry-After, errors included", async () => {
    for (const key of [PRO, null]) {
      const res = await call(CHECK, { key, headers: { Origin: "https://script.google.com" } });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase();
      for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"])
        expect(exposed).toContain(h);
    }
  });
});

test("stats count requests per route and status", async () => {
  await call(CHECK);
  await call("/api/check?uprn=999999999999");
  await call("/api/addresses?postcode=SW1A2AA");
  await call("/api/check/bulk", { body: { properties: [{ uprn: "100023336956" }] } });
  await call("/api/check/bulk/bulk_zzz/results");
  await call("/nope");
  const s = (await call("/__sandbox/stats", { key: null })).body;
  expect(s).toMatchObject({ total: 6, check: 2, addresses: 1, bulk_submit: 1, bulk_results: 1, other: 1 });
  expect(s.by_status).toEqual({ "200": 2, "202": 1, "404": 3 });
  expect(sb.stats().total).toBe(6);
  await call("/__sandbox/reset", { key: null, method: "POST" });
  expect(sb.stats().total).toBe(0);
});
