/** The register covers every case the add-ins must render, and is the same for every build of a day. */
import { isValid } from "postcode";
import {
  CHECK_NAMES,
  CHECK_STATUSES,
  DEPOSIT_SCHEMES,
  EPC_RATINGS,
  WARNING_WINDOW_DAYS,
  buildDatasetFor,
  checkResultFor,
  daysUntil,
  findExamples,
  getDataset,
  scoreChecks,
} from "../../sandbox/dataset";
import { DAY_MS, dayFormatter, isoSeconds, utcDay } from "../../sandbox/days";

const today = new Date();
const ds = getDataset(today);
const ex = findExamples(ds);

test("at least 20,000 properties, unique UPRNs, several per postcode, all postcodes valid", () => {
  expect(ds.properties.length).toBeGreaterThanOrEqual(20_000);
  expect(ds.byUprn.size).toBe(ds.properties.length);
  expect([...ds.byPostcode.keys()].filter((pc) => !isValid(pc))).toEqual([]);
  const sizes = [...ds.byPostcode.values()].map((l) => l.length).sort((a, b) => a - b);
  expect(sizes[Math.floor(sizes.length / 2)]).toBeGreaterThanOrEqual(5);
  expect(sizes[sizes.length - 1]).toBeLessThanOrEqual(30);
  expect(new Set([...ds.byPostcode.keys()].map((pc) => pc.split(" ")[0])).size).toBeGreaterThanOrEqual(40);
  const duplicated = [...ds.byPostcode.values()].filter(
    (list) => new Set(list.map((p) => p.address_line_1)).size !== list.length,
  );
  expect(duplicated).toEqual([]);
});

test("UPRNs are 12-digit strings mostly, with some 8-10 digit ones", () => {
  const lengths = ds.properties.map((p) => p.uprn.length);
  expect(ds.properties.every((p) => /^[1-9]\d{7,11}$/.test(p.uprn))).toBe(true);
  const short = lengths.filter((l) => l < 12).length;
  expect(short).toBeGreaterThan(100);
  expect(short).toBeLessThan(ds.properties.length / 4);
  expect(ex.shortUprn.padded).toHaveLength(12);
  expect(ex.shortUprn.padded.startsWith("0")).toBe(true);
});

test("every status of every check occurs, and the example finder names one of each", () => {
  for (const name of CHECK_NAMES) {
    for (const status of CHECK_STATUSES) {
      expect(ds.properties.some((p) => p.checks[name].status === status)).toBe(true);
      expect(ex.byCheckStatus[name][status].checks[name].status).toBe(status);
    }
  }
});

test("EPC: ratings A-G, F/G fail, expired fails, within 90 days warns", () => {
  for (const r of EPC_RATINGS) expect(ex.epcByRating[r].checks.epc.rating).toBe(r);
  const wrong = ds.properties.filter((p) => {
    const epc = p.checks.epc;
    if (epc.status === "not_required") return epc.rating !== null || epc.expiry !== null;
    const days = daysUntil(ds, epc.expiry as string);
    const expected =
      epc.rating === "F" || epc.rating === "G" || days < 0 ? "fail" : days <= WARNING_WINDOW_DAYS ? "warning" : "pass";
    return epc.status !== expected;
  });
  expect(wrong).toEqual([]);
  const d = (p: typeof ex.epcExpiry.past) => daysUntil(ds, p.checks.epc.expiry as string);
  expect(d(ex.epcExpiry.past)).toBeLessThan(0);
  expect(d(ex.epcExpiry.within30)).toBeLessThanOrEqual(30);
  expect(d(ex.epcExpiry.within60)).toBeGreaterThan(30);
  expect(d(ex.epcExpiry.within60)).toBeLessThanOrEqual(60);
  expect(d(ex.epcExpiry.within90)).toBeGreaterThan(60);
  expect(d(ex.epcExpiry.within90)).toBeLessThanOrEqual(90);
  expect(d(ex.epcExpiry.far)).toBeGreaterThan(90);
});

test("gas, EICR, licensing and deposit cases carry the documented fields", () => {
  expect(ex.gasNoSupply.checks.gas_safety).toEqual({ status: "not_required", last_certificate: null, expiry: null });
  expect(ex.eicrMissing.checks.eicr).toMatchObject({
    status: "fail",
    expiry: null,
    detail: "No EICR on record for this property.",
  });
  expect(ex.eicrUnsatisfactory.checks.eicr.status).toBe("fail");
  expect(ex.eicrUnsatisfactory.checks.eicr.detail).toMatch(/Unsatisfactory/);
  expect(ex.eicrSatisfactory.checks.eicr).toMatchObject({ status: "pass", detail: null });
  expect(ex.eicrSatisfactory.checks.eicr.expiry).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(ex.licensing.notRequired.checks.licensing).toMatchObject({ status: "not_required", scheme: null });
  expect(ex.licensing.selective.checks.licensing.scheme).toMatch(/^Selective licence \(.+\)$/);
  expect(ex.licensing.additionalHmo.checks.licensing.scheme).toBe("Additional HMO licence");
  expect(ex.licensing.mandatoryHmo.checks.licensing.scheme).toBe("Mandatory HMO licence");
  expect(ds.properties.some((p) => p.checks.licensing.scheme === "Selective licence (Newham)")).toBe(true);
  for (const s of DEPOSIT_SCHEMES)
    expect(ex.deposit[s].checks.deposit_protection).toMatchObject({ status: "pass", scheme: s });
  expect(ex.deposit.unprotected.checks.deposit_protection).toEqual({
    status: "fail",
    scheme: null,
    protected_date: null,
  });
  expect(ex.deposit.noDeposit.checks.deposit_protection.status).toBe("not_required");
  const oddGas = ds.properties.filter((p) => {
    const gas = p.checks.gas_safety;
    return (
      gas.expiry && gas.last_certificate && daysUntil(ds, gas.expiry) - daysUntil(ds, gas.last_certificate) !== 365
    );
  });
  expect(oddGas).toEqual([]);
});

test("an unsatisfactory EICR's remedial date is the last of the 28 days starting with the inspection (SI 2020/312 reg 3(4))", () => {
  const dayMs = (iso: string) => Date.parse(iso + "T00:00:00Z");
  const unsatisfactory = ds.properties
    .map((p) => p.checks.eicr)
    .filter((e) => e.status === "fail" && /Unsatisfactory/.test(e.detail ?? ""));
  expect(unsatisfactory.length).toBeGreaterThan(50);
  for (const e of unsatisfactory) {
    // The register dates an inspection by its report's expiry, 5 x 365 days on.
    const inspected = dayMs(e.expiry!) - 5 * 365 * 86_400_000;
    const due = /due by (\d{4}-\d{2}-\d{2})/.exec(e.detail!)![1];
    expect((dayMs(due) - inspected) / 86_400_000).toBe(27);
  }
});

test("score 0-100 from the statuses present; risk follows score and fails", () => {
  const seen = new Set<string>();
  const badScores = ds.properties.filter((p) => {
    const r = checkResultFor(p);
    seen.add(r.risk_level);
    return !(Number.isInteger(r.compliance_score) && r.compliance_score >= 0 && r.compliance_score <= 100);
  });
  expect(badScores).toEqual([]);
  expect([...seen].sort()).toEqual(["high", "low", "medium"]);
  expect(scoreChecks({ epc: { status: "pass", rating: "B", expiry: "2030-01-01" } })).toEqual({
    score: 100,
    risk: "low",
  });
  expect(scoreChecks({ epc: { status: "fail", rating: "G", expiry: "2030-01-01" } })).toEqual({
    score: 0,
    risk: "high",
  });
  const sub = checkResultFor(ex.byCheckStatus.epc.fail, ["epc"]);
  expect(Object.keys(sub.checks)).toEqual(["epc"]);
  expect(sub.compliance_score).toBe(0);
});

test("shared-postcode, ambiguous-address and single-postcode examples", () => {
  expect(ex.sharedPostcode.properties.length).toBeGreaterThanOrEqual(5);
  expect(ex.ambiguousAddress.matches.length).toBeGreaterThanOrEqual(2);
  expect(ds.byPostcode.get(ex.singlePropertyPostcode.postcode)).toHaveLength(1);
  expect(ds.byUprn.has(ex.unknownUprn)).toBe(false);
  expect(ds.byPostcode.has(ex.unknownPostcode)).toBe(false);
  expect(ex.nonAsciiAddress.address).toMatch(/[^\x00-\x7f]/);
});

test("deterministic across two builds of the same day; dates move with the day", () => {
  const a = buildDatasetFor(today);
  const b = buildDatasetFor(new Date(today.getTime()));
  expect(JSON.stringify(a.properties)).toBe(JSON.stringify(b.properties));
  const tomorrow = buildDatasetFor(new Date(today.getTime() + 86_400_000));
  expect(tomorrow.properties.map((p) => p.uprn)).toEqual(a.properties.map((p) => p.uprn));
  expect(daysUntil(tomorrow, tomorrow.properties[5].checks.epc.expiry ?? tomorrow.today)).toBe(
    daysUntil(a, a.properties[5].checks.epc.expiry ?? a.today),
  );
});

test("getDataset builds a day's register once, also while a process switches between two days", () => {
  const tomorrow = new Date(today.getTime() + 86_400_000);
  const next = getDataset(tomorrow);
  expect(next.today).not.toBe(ds.today);
  expect(getDataset(today)).toBe(ds);
  expect(getDataset(tomorrow)).toBe(next);
  expect(getDataset(new Date(today.getTime()))).toBe(ds);
});

test("each postcode's properties are in the order the numeric collator gives their first lines", () => {
  const collator = new Intl.Collator("en", { numeric: true });
  const unordered = [...ds.byPostcode].filter(([, list]) =>
    list.some((p, i) => i > 0 && collator.compare(list[i - 1].address_line_1, p.address_line_1) > 0),
  );
  expect(unordered.map(([postcode]) => postcode)).toEqual([]);
});

test("a property was last updated on a whole minute 1 to 30 days before today, in the service's timestamp format", () => {
  const todayMs = Date.parse(ds.today + "T00:00:00Z");
  const wrong = ds.properties.filter((p) => {
    const ms = Date.parse(p.last_updated);
    return p.last_updated !== isoSeconds(ms) || ms % 60_000 !== 0 || ms >= todayMs || ms < todayMs - 30 * DAY_MS;
  });
  expect(wrong).toEqual([]);
});

test("the register's days are Date's own UTC days, across leap years, centuries and the years 0 to 9999", () => {
  for (const today of ["2026-11-28", "2000-02-29", "1900-03-01", "0000-01-01", "9999-12-31"]) {
    const day = dayFormatter(today);
    const base = Date.parse(today + "T00:00:00Z");
    const wrong: number[] = [];
    for (let offset = -800_000; offset <= 800_000; offset += 997) {
      if (day(offset) !== utcDay(new Date(base + offset * DAY_MS))) wrong.push(offset);
    }
    expect({ today, wrong }).toEqual({ today, wrong: [] });
  }
});
