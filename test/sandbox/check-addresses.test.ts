/** GET /api/check and GET /api/addresses against the register's named examples. */
import type { SandboxHandle } from "../../sandbox/app";
import { CHECK_NAMES, checkResultFor, findExamples } from "../../sandbox/dataset";
import { expectError, expectRateHeaders, q, start } from "../helpers/sandbox";

let sb: SandboxHandle;
let call: Awaited<ReturnType<typeof start>>["call"];
beforeAll(async () => ({ sb, call } = await start()));
afterAll(() => sb.close());
beforeEach(() => sb.reset());
const ex = () => findExamples(sb.dataset());

describe("GET /api/check", () => {
  test("by UPRN: the full check result", async () => {
    const res = await call("/api/check" + q({ uprn: "100023336956" }));
    expect(res.status).toBe(200);
    expectRateHeaders(res);
    expect(res.body).toEqual(checkResultFor(sb.dataset().byUprn.get("100023336956")!));
    expect(res.body.address).toBe("10 Downing Street, London, SW1A 2AA");
    expect(Object.keys(res.body.checks)).toEqual([...CHECK_NAMES]);
    expect(res.body.last_updated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(["low", "medium", "high"]).toContain(res.body.risk_level);
  });

  test("each status of each check comes through unchanged", async () => {
    for (const name of CHECK_NAMES) {
      for (const [status, p] of Object.entries(ex().byCheckStatus[name])) {
        const res = await call("/api/check" + q({ uprn: p.uprn }));
        expect(res.body.checks[name].status).toBe(status);
      }
    }
  });

  test("leading zeros of a UPRN are not significant", async () => {
    const { property, padded } = ex().shortUprn;
    const res = await call("/api/check" + q({ uprn: padded }));
    expect(res.status).toBe(200);
    expect(res.body.uprn).toBe(property.uprn);
    expect((await call("/api/check" + q({ uprn: "000100023336956" }))).status).toBe(400); // 15 digits
    expect((await call("/api/check" + q({ uprn: "0100023336956".slice(1) }))).body.uprn).toBe("100023336956");
    expect((await call("/api/check" + q({ uprn: " 100023336956 " }))).status).toBe(200);
  });

  test("by postcode: with or without the space, any case", async () => {
    const { postcode, property } = ex().singlePropertyPostcode;
    for (const form of [
      postcode,
      postcode.replace(" ", ""),
      postcode.toLowerCase(),
      postcode.toLowerCase().replace(" ", ""),
    ]) {
      const res = await call("/api/check" + q({ postcode: form }));
      expect(res.status).toBe(200);
      expect(res.body.uprn).toBe(property.uprn);
    }
  });

  test("postcode + address picks one property: exact first line, case-insensitive, or a unique prefix", async () => {
    const { postcode, properties } = ex().sharedPostcode;
    const target = properties[properties.length - 1];
    for (const address of [target.address_line_1, target.address_line_1.toUpperCase(), target.address]) {
      const res = await call("/api/check" + q({ postcode: postcode.replace(" ", "").toLowerCase(), address }));
      expect(res.status).toBe(200);
      expect(res.body.uprn).toBe(target.uprn);
    }
    const res = await call("/api/check" + q({ postcode: "SW1A 2AA", address: "10 downing" }));
    expect(res.body.uprn).toBe("100023336956");
  });

  test("uprn wins when both are given", async () => {
    const res = await call("/api/check" + q({ uprn: "100023336956", postcode: ex().sharedPostcode.postcode }));
    expect(res.body.uprn).toBe("100023336956");
  });

  test("a shared postcode without address, or an address matching several: 409 with candidates", async () => {
    const { postcode, properties } = ex().sharedPostcode;
    const res = await call("/api/check" + q({ postcode }));
    const error = expectError(res, 409, "ambiguous_property");
    expect(error.details.candidates).toHaveLength(properties.length);
    expect(error.details.candidates[0]).toEqual({ uprn: properties[0].uprn, address: properties[0].address });
    const amb = ex().ambiguousAddress;
    const res2 = await call("/api/check" + q({ postcode: amb.postcode, address: amb.address }));
    const error2 = expectError(res2, 409, "ambiguous_property");
    expect(error2.details.candidates.map((c: { uprn: string }) => c.uprn).sort()).toEqual(
      amb.matches.map((p) => p.uprn).sort(),
    );
  });

  test("404 property_not_found for an unknown UPRN, postcode or address", async () => {
    expectError(await call("/api/check" + q({ uprn: ex().unknownUprn })), 404, "property_not_found");
    expectError(await call("/api/check" + q({ postcode: ex().unknownPostcode })), 404, "property_not_found");
    expectError(
      await call("/api/check" + q({ postcode: "SW1A 2AA", address: "11 Downing Street" })),
      404,
      "property_not_found",
    );
  });

  test("400s: neither field, a bad UPRN, a bad postcode", async () => {
    expectError(await call("/api/check"), 400, "invalid_request");
    expectError(await call("/api/check" + q({ uprn: "", postcode: " " })), 400, "invalid_request");
    expectError(await call("/api/check" + q({ address: "10 Downing Street" })), 400, "invalid_request");
    for (const uprn of ["abc", "12345678901234", "-1", "1e5", "12 34"]) {
      expectError(await call("/api/check" + q({ uprn })), 400, "invalid_uprn");
    }
    for (const postcode of ["NOT A POSTCODE", "12345", "SW1A", "SW1A 2AAA"]) {
      expectError(await call("/api/check" + q({ postcode })), 400, "invalid_postcode");
    }
  });
});

describe("GET /api/addresses", () => {
  test("by postcode, with or without the space: the records with UPRNs", async () => {
    const { postcode, properties } = ex().sharedPostcode;
    for (const form of [postcode, postcode.replace(" ", "").toLowerCase()]) {
      const res = await call("/api/addresses" + q({ postcode: form }));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(properties.length);
      expect(res.body.results.map((r: { uprn: string }) => r.uprn)).toEqual(properties.map((p) => p.uprn));
      expect(Object.keys(res.body.results[0]).sort()).toEqual([
        "address",
        "address_line_1",
        "address_line_2",
        "postcode",
        "town",
        "uprn",
      ]);
      expect(res.body.results[0].postcode).toBe(postcode);
    }
  });

  test("by free text: every word must occur, case-insensitive, commas ignored", async () => {
    const res = await call("/api/addresses" + q({ query: "downing street, LONDON" }));
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({
      uprn: "100023336956",
      address_line_1: "10 Downing Street",
      town: "London",
    });
    const target = ex().sharedPostcode.properties[0];
    const res2 = await call("/api/addresses" + q({ query: `${target.address_line_1} ${target.postcode}` }));
    expect(res2.body.results.map((r: { uprn: string }) => r.uprn)).toContain(target.uprn);
  });

  test("& # + quotes and non-ASCII are handled safely", async () => {
    for (const query of [
      "Smith & Sons",
      "#12",
      "C++ Road",
      "Flat 3 + 4",
      "\"quoted\" 'single'",
      "ß 你好 🏠",
      "%",
      "\\",
      "&&&",
    ]) {
      const res = await call("/api/addresses" + q({ query }));
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.results)).toBe(true);
      expect(res.body.total).toBeGreaterThanOrEqual(res.body.results.length);
    }
    const welsh = ex().nonAsciiAddress;
    const word = welsh.address_line_1.split(" ").find((w) => /[^\x00-\x7f]/.test(w))!;
    const res = await call("/api/addresses" + q({ query: `${word} ${welsh.town}`, limit: "100" }));
    expect(res.body.results.map((r: { uprn: string }) => r.uprn)).toContain(welsh.uprn);
    const upper = await call("/api/addresses" + q({ query: word.toUpperCase() }));
    expect(upper.body.total).toBeGreaterThan(0);
    // A raw (unencoded) & in the URL just splits the parameter; still a 200.
    expect((await call("/api/addresses?query=Smith&Sons")).status).toBe(200);
  });

  test("no match: 200 with an empty list", async () => {
    const res = await call("/api/addresses" + q({ query: "Nowhere Lane Atlantis" }));
    expect(res.body).toEqual({ results: [], total: 0 });
    const res2 = await call("/api/addresses" + q({ postcode: ex().unknownPostcode }));
    expect(res2.body).toEqual({ results: [], total: 0 });
  });

  test("limit: default 50, capped at 100; total counts every match", async () => {
    const all = await call("/api/addresses" + q({ query: "London" }));
    expect(all.body.results).toHaveLength(50);
    expect(all.body.total).toBeGreaterThan(100);
    expect((await call("/api/addresses" + q({ query: "London", limit: "7" }))).body.results).toHaveLength(7);
    expect((await call("/api/addresses" + q({ query: "London", limit: "5000" }))).body.results).toHaveLength(100);
    expectError(await call("/api/addresses" + q({ query: "London", limit: "0" })), 400, "invalid_request");
    expectError(await call("/api/addresses" + q({ query: "London", limit: "ten" })), 400, "invalid_request");
  });

  test("400: neither postcode nor query; invalid postcode", async () => {
    expectError(await call("/api/addresses"), 400, "invalid_request");
    expectError(await call("/api/addresses" + q({ query: "   " })), 400, "invalid_request");
    expectError(await call("/api/addresses" + q({ postcode: "banana" })), 400, "invalid_postcode");
  });
});

describe("address matching is by whole words", () => {
  /** Shared postcodes holding "<n> <street>" and "<m> <street>" where m ends with n (2 and 42 Jubilee Road). */
  function lookAlikes(): { postcode: string; short: string; long: string }[] {
    const out: { postcode: string; short: string; long: string }[] = [];
    const split = (line: string) => /^(\d+) (.+)$/.exec(line);
    for (const [postcode, list] of sb.dataset().byPostcode) {
      for (const a of list) {
        const sa = split(a.address_line_1);
        if (!sa) continue;
        for (const b of list) {
          const sb2 = split(b.address_line_1);
          if (sb2 && sb2[2] === sa[2] && sb2[1] !== sa[1] && sb2[1].endsWith(sa[1]))
            out.push({ postcode, short: a.address_line_1, long: b.address_line_1 });
        }
      }
      if (out.length >= 5) break;
    }
    return out;
  }

  test("a first line never finds a property whose house number merely ends with it", async () => {
    const pairs = lookAlikes();
    expect(pairs.length).toBeGreaterThan(0);
    for (const { postcode, short } of pairs) {
      const res = await call("/api/check" + q({ postcode, address: short }));
      expect(res.status).toBe(200);
      expect(res.body.address.startsWith(short + ",")).toBe(true);
    }
    // "2 Jubilee Road" where only 42 exists: not found, never number 42.
    const lines = (pc: string) => new Set((sb.dataset().byPostcode.get(pc) ?? []).map((p) => p.address_line_1));
    let tried = 0;
    for (const p of sb.dataset().properties) {
      const m = /^(\d)(\d+) (.+)$/.exec(p.address_line_1);
      if (!m || lines(p.postcode).has(`${m[2]} ${m[3]}`)) continue;
      const res = await call("/api/check" + q({ postcode: p.postcode, address: `${m[2]} ${m[3]}` }));
      expect(res.status).toBe(404);
      if (++tried === 5) break;
    }
    expect(tried).toBe(5);
  });

  test("free text ignores accents: Glyndwr finds Glyndŵr", async () => {
    const accented = sb.dataset().properties.find((p) => /[^\x00-\x7f]/.test(p.address));
    if (!accented) throw new Error("the register has no address with an accent to test");
    const plainWords = accented.address
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .split(/[ ,]+/);
    const word = plainWords.find((w, i) => w !== accented.address.split(/[ ,]+/)[i])!;
    const res = await call("/api/addresses" + q({ query: word, limit: "100" }));
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { uprn: string }) => r.uprn)).toContain(accented.uprn);
  });
});
