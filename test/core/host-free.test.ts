/**
 * The core must run unchanged in a browser, Node and Apps Script's V8: load the BUILT bundle into a bare
 * vm context (no fetch, timers, URL, URLSearchParams, Buffer, DOM) and use it there.
 */
import { readFileSync, existsSync } from "fs";
import path from "path";
import vm from "vm";

const bundle = path.resolve(__dirname, "../../dist/core/core.js");

function loadCore() {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` (npm test does it first)`);
  const context = vm.createContext({});
  vm.runInContext(`${readFileSync(bundle, "utf8")}\nthis.ComplianceCore = ComplianceCore;`, context, {
    filename: "core.js",
  });
  return { core: (context as { ComplianceCore: Record<string, any> }).ComplianceCore, context };
}

describe("core bundle in a bare vm context", () => {
  const { core, context } = loadCore();

  test("the context really lacks host globals", () => {
    for (const name of [
      "fetch",
      "setTimeout",
      "URL",
      "URLSearchParams",
      "Buffer",
      "window",
      "document",
      "Office",
      "UrlFetchApp",
      "process",
      "require",
    ]) {
      expect(vm.runInContext(`typeof ${name}`, context)).toBe("undefined");
    }
  });

  test("rows, plan, requests and output work there", () => {
    const read = core.readPropertyRows([
      ["UPRN", "Postcode", "Address"],
      ["000023336956", "", ""],
      [23336956, "", ""],
      ["", "sw1a2aa", "10 Downing Street"],
      ["", "not a postcode", ""],
    ]);
    expect(read.rows.map((r: any) => r.error?.code ?? r.key)).toEqual([
      "u:23336956",
      "u:23336956",
      "p:SW1A2AA|10 downing street",
      "invalid_postcode",
    ]);
    const plan = core.planScreening(read.rows, { plan: "professional" });
    expect(plan.properties).toHaveLength(2);
    expect(plan.rowsByProperty[0]).toEqual([0, 1]);
    const req = core.buildCheckRequest(
      { baseUrl: "https://api.example.com/v1/", apiKey: "k1" },
      { postcode: "SW1A 2AA", address: "Flat 1 & 2 #3 +Café" },
    );
    expect(req.url).toBe(
      "https://api.example.com/v1/api/check?postcode=SW1A%202AA&address=Flat%201%20%26%202%20%233%20%2BCaf%C3%A9",
    );
    expect(req.headers.Authorization).toBe("Bearer k1");
    const interpreted = core.interpretCheckResponse(
      200,
      { "X-RateLimit-Remaining": "7", "x-ratelimit-limit": "60", "X-RateLimit-Reset": "30" },
      JSON.stringify({
        uprn: "1",
        address: '=HYPERLINK("x")',
        compliance_score: 80,
        risk_level: "low",
        checks: { epc: { status: "pass", rating: "B", expiry: "2030-01-01" } },
        last_updated: "2026-11-01T00:00:00Z",
      }),
      Date.UTC(2026, 10, 22),
    );
    expect(interpreted.ok).toBe(true);
    expect(interpreted.rateLimit).toMatchObject({ limit: 60, remaining: 7, resetAtMs: Date.UTC(2026, 10, 22) + 30000 });
    const row = core.outputRow({ result: interpreted.value }, "2026-11-22T10:00:00Z");
    expect(row[core.outputHeaders().indexOf("Matched address")]).toBe('\'=HYPERLINK("x")');
    expect(row[core.outputHeaders().indexOf("EPC status")]).toBe("pass");
  });

  test("the async client runs there with an injected fetch and timer", async () => {
    const calls: string[] = [];
    const client = core.createClient({
      baseUrl: "https://svc.example/v1",
      apiKey: "k",
      // A timer that never fires stands in for the 30 s request timeout (vm has no setTimeout).
      sleep: () => new Promise<void>(() => undefined),
      fetch: async (url: string) => {
        calls.push(url);
        return {
          status: 404,
          headers: { "x-ratelimit-remaining": "5" },
          text: async () => JSON.stringify({ error: { code: "property_not_found", message: "No such property." } }),
        };
      },
    });
    await expect(client.check({ uprn: "123" })).rejects.toMatchObject({
      kind: "not_found",
      code: "property_not_found",
      message: "No such property.",
    });
    expect(calls).toEqual(["https://svc.example/v1/api/check?uprn=123"]);
  });
});
