/**
 * The country reaches the results block: obligationsFor with a country gives that country's rules, and a row's Message
 * says when its place is out of scope or its district lies on both sides of a border. Without a country, nothing changes.
 */
import { nextObligation, obligationsFor, outputHeaders, outputRow, type CheckResult } from "../../../core";
import { rowCountry } from "../../../core/compliance/country";

const TODAY = "2027-01-31";
const AT = `${TODAY}T09:00:00Z`;
const result = {
  uprn: "100010000001",
  address: "Flat 2, 12 Marchmont Road, Edinburgh, EH9 1HY",
  compliance_score: 40,
  risk_level: "high",
  checks: {
    epc: { status: "fail", rating: "F", expiry: "2030-05-01" },
    deposit_protection: { status: "fail", scheme: null, protected_date: null },
  },
} as unknown as CheckResult;

const col = (name: string) => outputHeaders().indexOf(name);

test("without a country the rules are England's (as before)", () => {
  expect(nextObligation(result, { today: TODAY })?.action).toContain("Cannot be let");
});

test("in Scotland an F rating is not 'cannot be let' (the EPC's renewal kept), and the deposit counts working days from the tenancy's start", () => {
  const obs = obligationsFor(result, { today: TODAY, country: "Scotland", tenancyStart: "2027-01-01" });
  expect(obs.map((o) => [o.check, o.due, o.window])).toEqual([
    ["epc", TODAY, "Overdue"],
    ["deposit_protection", "2027-02-15", "Book"],
    ["epc", "2030-05-01", "OK"],
  ]);
  expect(obs[0].action).toContain("Scotland sets no minimum rating");
});

test("the results block: a Scottish row from its matched address, a Northern Irish one out of scope, a border district said", () => {
  const scot = outputRow({ result }, AT, undefined, undefined, {
    country: rowCountry("", "", result.address),
    tenancyStart: "2027-01-01",
  });
  expect(scot[col("Next action")]).toContain("Scotland sets no minimum rating");
  expect(scot[col("Message")]).toBe(
    `EPC rated F first reported on ${TODAY}: no Scottish rule gives a date for a failed EPC check, so the action counts from that day`,
  );

  const ni = outputRow(
    { result: { ...result, address: "3 Lisburn Road, Belfast, BT7 1AA" } as CheckResult },
    AT,
    undefined,
    undefined,
    { country: rowCountry("BT7 1AA") },
  );
  expect(ni[col("Next action")]).toBe("");
  expect(ni[col("Window")]).toBe("");
  expect(ni[col("Message")]).toContain("Northern Ireland: its own law applies");

  const border = outputRow({ result }, AT, undefined, undefined, { country: rowCountry("TD15 1BT") });
  expect(border[col("Message")]).toContain("TD15 lies in both England and Scotland");
  expect(border[col("Next action")]).toContain("Cannot be let"); // England's, the larger part, until a Country column says
  const settled = outputRow({ result }, AT, undefined, undefined, { country: rowCountry("TD15 1BT", "Scotland") });
  expect(settled[col("Message")]).toMatch(/^EPC rated F first reported on 2027-01-31: no Scottish rule/);
  expect(settled[col("Next action")]).not.toContain("Cannot be let");
});
