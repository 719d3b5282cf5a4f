/**
 * The one rule both hosts call for a row's country (core/compliance/row-place.ts): the Country column settles the row, else the
 * Postcode column, else the postcode ending the service's matched address; an error from the service gets no country.
 * The row's Tenancy start is one of its typed dates (test/core/sheet/row-dates.test.ts).
 */
import { rowPlace, type CheckResult } from "../../../core";

const header = ["UPRN", "Postcode", "Country", "Tenancy start"];
const o = { postcodeColumn: 1 };
const result = (address: string) => ({
  result: { uprn: "1", address, compliance_score: 0, risk_level: "low", checks: {} } as unknown as CheckResult,
});

test("the Postcode column decides; without it the matched address's postcode; the Country column settles a border district", () => {
  expect(rowPlace(header, ["1", "CF10 1AA", "", ""], result("1 Road, Town, EH9 3JG"), o).country).toMatchObject({
    kind: "country",
    country: "Wales",
  });
  expect(rowPlace(["UPRN"], ["1"], result("Flat 5, 41 Marchmont Road, Edinburgh, EH9 3JG")).country).toMatchObject({
    kind: "country",
    country: "Scotland",
  });
  expect(rowPlace(header, ["1", "CH4 0AA", "", ""], result("x"), o).country?.kind).toBe("both_sides");
  expect(rowPlace(header, ["1", "CH4 0AA", "England", ""], result("x"), o).country).toMatchObject({
    kind: "country",
    country: "England",
  });
  expect(rowPlace(header, ["1", "BT7 1AA", "", ""], result("x"), o).country).toMatchObject({
    kind: "out_of_scope",
    place: "Northern Ireland",
  });
});

test("nothing that tells the place gives no country (England's rules, as before); a service error gets none", () => {
  expect(rowPlace(["UPRN"], ["1"], result("")).country).toBeUndefined();
  expect(
    rowPlace(
      header,
      ["1", "CF10 1AA", "", ""],
      { error: { kind: "service", code: "not_found", message: "x" } } as never,
      o,
    ).country,
  ).toBeUndefined();
});
