/**
 * The sandbox's register has Welsh and Scottish properties enough for their countries' rules (core/compliance/country-rules.ts) to
 * be seen over HTTP: every case those rules treat apart from England's exists in each country. The counts are
 * sandbox/README.md's "Countries" table: change both together.
 */
import { buildDatasetFor, type Dataset, type Property } from "../../sandbox/dataset";
import { countryOf } from "../../core/compliance/country";

const FIXED = new Date("2027-01-31T12:00:00Z");

function place(p: Property): string {
  const a = countryOf(p.postcode);
  return a.kind === "country" ? a.country : a.kind === "out_of_scope" ? a.place : a.kind;
}

function countries(ds: Dataset): Record<string, { properties: number; postcodes: number }> {
  const out: Record<string, { properties: number; postcodes: Set<string> }> = {};
  for (const p of ds.properties) {
    const k = place(p);
    const o = (out[k] ??= { properties: 0, postcodes: new Set() });
    o.properties++;
    o.postcodes.add(p.postcode);
  }
  return Object.fromEntries(
    Object.entries(out).map(([k, v]) => [k, { properties: v.properties, postcodes: v.postcodes.size }]),
  );
}

const ds = buildDatasetFor(FIXED);

test("the counts are sandbox/README.md's Countries table", () => {
  expect(countries(ds)).toEqual({
    England: { properties: 17130, postcodes: 1001 },
    Wales: { properties: 1320, postcodes: 72 },
    Scotland: { properties: 1674, postcodes: 90 },
    "Northern Ireland": { properties: 292, postcodes: 18 },
  });
});

test.each(["Wales", "Scotland"])(
  "%s has every case its own rules treat: deposits unprotected, EICRs missing, unsatisfactory and dated, EPCs rated F-G and D-E",
  (country) => {
    const here = ds.properties.filter((p) => place(p) === country);
    const count = (f: (p: Property) => boolean) => here.filter(f).length;
    expect({
      depositUnprotected: count((p) => p.checks.deposit_protection.status === "fail") > 10,
      eicrMissing: count((p) => p.facts.eicr === "missing") > 10,
      eicrUnsatisfactory: count((p) => p.facts.eicr === "unsatisfactory") > 10,
      eicrDated: count((p) => p.checks.eicr.status !== "not_required" && p.checks.eicr.expiry !== null) > 10,
      epcFG: count((p) => p.checks.epc.rating === "F" || p.checks.epc.rating === "G") > 10,
      epcDE: count((p) => p.checks.epc.rating === "D" || p.checks.epc.rating === "E") > 10,
      hmoLicence: count((p) => /HMO/.test(p.checks.licensing.scheme ?? "")) > 10,
    }).toEqual({
      depositUnprotected: true,
      eicrMissing: true,
      eicrUnsatisfactory: true,
      eicrDated: true,
      epcFG: true,
      epcDE: true,
      hmoLicence: true,
    });
  },
);

test("Northern Ireland's properties are there to show the out-of-scope message", () => {
  const ni = ds.properties.find((p) => place(p) === "Northern Ireland");
  expect(ni?.postcode).toMatch(/^BT\d/);
});
