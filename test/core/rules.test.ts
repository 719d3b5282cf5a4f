/**
 * Rules both add-ins share through core: invisible characters in input, base URLs refused with a reason, error
 * texts that never repeat themselves, and the positional fallback that never gives a row another property.
 */
import {
  acceptResultsPage,
  describeError,
  interpretBulkSubmitResponse,
  interpretCheckResponse,
  interpretResultsResponse,
  normaliseProperty,
  startJob,
  validateApiKey,
  validateBaseUrl,
  type ServiceError,
} from "../../core";

const FORMAT_CHARS = ["\u00ad", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u2063", "\u180e", "\ufeff", "\u200b", "\u2060"];
const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

describe("format characters (Unicode Cf) are stripped from every input", () => {
  test.each(FORMAT_CHARS.map((c) => [hex(c), c]))("%s in a UPRN, a postcode, an address and a key", (_name, c) => {
    expect(normaliseProperty(`1000${c}23336956`, "", "")).toMatchObject({ property: { uprn: "100023336956" } });
    expect(normaliseProperty("", `SW1A${c} 2AA`, `10 Downing${c} Street`)).toMatchObject({ property: { postcode: "SW1A 2AA", address: "10 Downing Street" } });
    expect(validateApiKey(`${c}sandbox-professional${c}`)).toEqual({ ok: true, apiKey: "sandbox-professional" });
  });
});

describe("base URLs", () => {
  test.each(["https://user@api.example.com/v1", "https://user:secret@api.example.com/v1", "http://me@localhost:3001/v1"])("%s: refused, user name or password", (url) => {
    const r = validateBaseUrl(url);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/user name or password/);
  });
  test.each(["https://api.example.com:0/v1", "https://api.example.com:65536/v1", "http://localhost:99999/v1"])("%s: refused, not a port", (url) => {
    const r = validateBaseUrl(url);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/not a port \(1 to 65535\)/);
  });
  test.each(["https://api.example.com:443/v1", "http://localhost:1/v1", "https://api.example.com:65535/v1"])("%s: accepted", (url) => {
    expect(validateBaseUrl(url).ok).toBe(true);
  });
});

describe("error texts never repeat themselves", () => {
  const bodies = ["", '{"error":{"code":"x_error","message":"Something broke."}}', "<html><body><h1>Bad things</h1></body></html>", '{"message":"The service had a problem"}'];
  const statuses = [400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504];
  const errors: ServiceError[] = [];
  for (const status of statuses)
    for (const body of bodies)
      for (const interpret of [interpretCheckResponse, interpretBulkSubmitResponse, interpretResultsResponse]) {
        const r = interpret(status, {}, body, 0);
        if (!r.ok) errors.push(r.error);
      }

  test(`${errors.length} errors from every status and body shape: no nested brackets, no sentence said twice`, () => {
    for (const e of errors) {
      const text = describeError(e);
      expect([text, text.includes("((")]).toEqual([text, false]);
      expect([text, /had a problem.*had a problem/i.test(text)]).toEqual([text, false]);
      const sentences = text.split(/(?<=\.)\s+/).map((s) => s.trim().toLowerCase()).filter(Boolean);
      expect([text, new Set(sentences).size]).toEqual([text, sentences.length]);
      const inner = /\(([^()]+)\)/.exec(text)?.[1];
      if (inner) expect([text, text.replace(`(${inner})`, "").toLowerCase().includes(inner.toLowerCase())]).toEqual([text, false]);
    }
  });

  test("a 500 with no body reads once: the compliance service had a problem (HTTP 500)", () => {
    const r = interpretBulkSubmitResponse(500, {}, "", 0);
    expect(!r.ok && describeError(r.error)).toBe("The compliance service had a problem (HTTP 500). Try again shortly.");
  });
});

describe("the positional fallback never gives a row another property", () => {
  const page = (result: Record<string, unknown>) => ({ status: "completed" as const, rawStatus: "completed", next: null, items: [{ result }] });
  const result = (address: string, postcode?: string) => ({ uprn: "100000000042", address, ...(postcode ? { postcode } : {}), compliance_score: 50, risk_level: "low", checks: {} });
  const job = () => startJob({ job_id: "j1", results_url: "/r" }, { offset: 0, count: 1, nowMs: 0 });

  test("an unindexed item whose first line contradicts the row's is not placed", () => {
    const step = acceptResultsPage(job(), page(result("42 Jubilee Road, Bath", "BA1 1AA")), 1, [{ postcode: "BA1 1AA", address: "2 Jubilee Road" }]);
    expect(step.items.map((i) => "error" in i.outcome && i.outcome.error.code)).toEqual(["missing_result"]);
  });
  test("one whose postcode contradicts the row's is not placed", () => {
    const step = acceptResultsPage(job(), page(result("2 Jubilee Road, Bath", "BA2 9ZZ")), 1, [{ postcode: "BA1 1AA" }]);
    expect(step.items.map((i) => "error" in i.outcome && i.outcome.error.code)).toEqual(["missing_result"]);
  });
  test("one that fits, or says nothing against the row, is placed by position", () => {
    const fits = acceptResultsPage(job(), page(result("2 Jubilee Road, Bath", "BA1 1AA")), 1, [{ postcode: "BA1 1AA", address: "2 Jubilee Road" }]);
    expect(fits.items.map((i) => "result" in i.outcome)).toEqual([true]);
  });
});
