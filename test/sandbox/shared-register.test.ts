/**
 * The register of a day is built once per process and shared by every sandbox started in it (in the tests, by every
 * test file a jest worker runs): it is read-only, so nothing one sandbox or test does to it can reach another, and what
 * a sandbox may change (its day, faults, counts, rate windows) stays its own.
 */
import { sandboxDataset, start, startTestSandbox } from "../helpers/sandbox";

const DAY = "2027-03-10";
const NOON = new Date(DAY + "T12:00:00Z");

test("every sandbox of a day, and every test file's module registry, gets the same register", async () => {
  const a = await startTestSandbox({ today: DAY });
  const b = await startTestSandbox({ today: DAY });
  try {
    expect(a.dataset().today).toBe(DAY);
    expect(b.dataset()).toBe(a.dataset());
    expect(sandboxDataset(NOON)).toBe(a.dataset());
    // A second module registry, as the next test file in this worker gets: the same register, not a new build.
    let other: typeof import("../helpers/sandbox") | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- jest.isolateModules gives its registry to require
      other = require("../helpers/sandbox");
    });
    expect(other!.sandboxDataset).not.toBe(sandboxDataset);
    expect(other!.sandboxDataset(NOON)).toBe(a.dataset());
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test("the shared register refuses every change, and a second sandbox answers as before", async () => {
  const { sb: a } = await start({ today: DAY });
  const { sb: b, call } = await start({ today: DAY });
  try {
    const ds = a.dataset();
    const p = ds.properties[0];
    const before = await call(`/api/check?uprn=${p.uprn}`);
    expect(before.status).toBe(200);
    const attempts: [string, () => unknown][] = [
      ["a check's status", () => ((p.checks.gas_safety as { status: string }).status = "pass")],
      ["a check", () => ((p.checks as { epc: unknown }).epc = null)],
      ["a fact", () => ((p.facts as { deposit: string }).deposit = "protected")],
      ["an address", () => ((p as { address: string }).address = "elsewhere")],
      ["the day", () => ((ds as { today: string }).today = "2000-01-01")],
      ["the property list", () => ds.properties.push(p)],
      ["the list's order", () => ds.properties.reverse()],
      ["a postcode's list", () => ds.byPostcode.get(p.postcode)!.pop()],
      ["a UPRN's entry", () => ds.byUprn.set(p.uprn, ds.properties[1])],
      ["a UPRN's removal", () => ds.byUprn.delete(p.uprn)],
      ["the UPRN index", () => ds.byUprn.clear()],
      ["a postcode's removal", () => ds.byPostcode.delete(p.postcode)],
    ];
    const allowed = attempts.filter(([, change]) => {
      try {
        change();
        return true;
      } catch (e) {
        // By name: the register (and what its own methods throw) comes from Node's realm, not this file's.
        return (e as Error).name !== "TypeError";
      }
    });
    expect(allowed.map(([what]) => what)).toEqual([]);
    expect(b.dataset()).toBe(ds);
    expect(ds.byUprn.get(p.uprn)).toBe(p);
    expect(ds.byPostcode.get(p.postcode)).toContain(p);
    expect(ds.properties[0]).toBe(p);
    const after = await call(`/api/check?uprn=${p.uprn}`);
    expect(after.body).toEqual(before.body);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test("what a sandbox changes (its day, faults, counts) is its own: another on the same register does not see it", async () => {
  const { sb: a, call: callA } = await start({ today: DAY });
  const { sb: b, call: callB } = await start({ today: DAY });
  try {
    const anchor = b.dataset();
    const uprn = anchor.properties[0].uprn;
    const before = await callB(`/api/check?uprn=${uprn}`);
    a.setToday("2028-03-10");
    a.setFaults([{ kind: "error_500", route: "check" }]);
    expect((await callA(`/api/check?uprn=${uprn}`)).status).toBe(500);
    expect(a.clock()).toEqual({ today: "2028-03-10", anchor: DAY });
    expect(a.dataset()).not.toBe(anchor);

    expect(b.clock()).toEqual({ today: DAY, anchor: DAY });
    expect(b.dataset()).toBe(anchor);
    expect(b.faults()).toEqual([]);
    expect(b.stats().check).toBe(1);
    expect((await callB(`/api/check?uprn=${uprn}`)).body).toEqual(before.body);
    // The day a moved: its register, not the shared one, has the year-on statuses; the shared one is as built.
    expect(anchor.today).toBe(DAY);
    expect(sandboxDataset(NOON)).toBe(anchor);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
