/**
 * The COMPLIANCE custom functions with the arguments people type: UPRNs as numbers, with ".0" or spaces, check names in
 * any case, postcodes without their space, empty arguments. Real sandbox over loopback; the Excel stand-in supplies
 * the CustomFunctions global.
 */
import { memoryStore } from "../../../excel/settings";
import { createRuntime, installRuntime } from "../../../excel/runtime";
import { findExamples } from "../../../sandbox/dataset";
import { createStandIn } from "../../helpers/excel-workbook";
import { knownUprns, sandbox, type Sandbox } from "../../helpers/sandbox";

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandbox(0);
});
afterAll(() => sb.close());

describe("the COMPLIANCE functions read their arguments as a user types them", () => {
  let f: typeof import("../../../excel/functions/functions");
  const timers: ReturnType<typeof setTimeout>[] = [];
  const settle = (p: Promise<unknown>) =>
    Promise.race([
      p.then(
        (v) => ({ v }),
        (e) => ({ code: e.code, message: e.message }),
      ),
      new Promise((r) => timers.push(setTimeout(() => r("#BUSY!"), 10_000))),
    ]);
  beforeAll(async () => {
    const s = createStandIn();
    (globalThis as any).CustomFunctions = s.CustomFunctions;
    const rt = createRuntime({ store: memoryStore(), fallbackBaseUrl: sb.baseUrl, fetch: (u, i) => fetch(u, i) });
    await rt.settings.setApiKey("sandbox-professional");
    installRuntime(rt);
    f = await import("../../../excel/functions/functions");
  });
  afterAll(() => {
    timers.forEach(clearTimeout);
    installRuntime(undefined);
  });

  test("a UPRN as a number, with '.0' or with spaces gives the same score; a check name in capitals or with spaces is read; an empty check name is #VALUE! naming the checks", async () => {
    const ds = sb.dataset();
    const [good] = knownUprns(sb, 1);
    const expected = ds.byUprn.get(good)!;
    const res = await Promise.all(
      [
        f.score(Number(good)),
        f.score(`${good}.0`),
        f.score(` ${good} `),
        f.status(good, " EPC "),
        f.status(good, "Gas Safety"),
        f.status(good, ""),
        f.epc(good),
      ].map(settle),
    );
    expect(res[0]).toEqual(res[2]);
    expect(res[1]).toEqual(res[2]);
    expect((res[2] as { v: number }).v).toEqual(expect.any(Number));
    expect(res[3]).toEqual({ v: expected.checks.epc.status });
    expect(res[4]).toEqual({ v: expected.checks.gas_safety.status });
    expect(res[5]).toMatchObject({ code: "#VALUE!", message: expect.stringMatching(/epc, gas_safety/) });
    expect(res[6]).toEqual({ v: expected.checks.epc.rating });
  });

  test("UPRN() reads a lower-case postcode without its space and an address in capitals; an empty postcode is #VALUE!; a shared postcode asks for the address; ADDRESSES of nothing is an error, not a list", async () => {
    const ex = findExamples(sb.dataset());
    const one = ex.singlePropertyPostcode;
    const shared = ex.sharedPostcode;
    const res = await Promise.all(
      [
        f.uprn(one.postcode.toLowerCase().replace(" ", "")),
        f.uprn(shared.postcode, shared.properties[0].address_line_1.toUpperCase()),
        f.uprn(""),
        f.uprn(shared.postcode),
        f.addresses(""),
        f.uprn(one.postcode, ""),
      ].map(settle),
    );
    expect(res[0]).toEqual({ v: one.property.uprn });
    expect(res[1]).toEqual({ v: shared.properties[0].uprn });
    expect(res[2]).toMatchObject({ code: "#VALUE!", message: expect.stringMatching(/\S/) });
    // Several properties at the postcode: #N/A saying to give the address, not a bare error.
    expect(res[3]).toMatchObject({
      code: expect.stringMatching(/#N\/A|#VALUE!/),
      message: expect.stringMatching(/address/i),
    });
    expect(res[4]).toMatchObject({
      code: expect.stringMatching(/#N\/A|#VALUE!/),
      message: expect.stringMatching(/\S/),
    });
    expect(res[5]).toEqual({ v: one.property.uprn });
  });
});
