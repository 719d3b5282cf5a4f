/**
 * The rules of Wales and Scotland, as dated cases: each row names its source, the day counted from, the service's result
 * for the check, the user's dates, and what the obligation must be. England's obligation is computed by core/compliance/obligations
 * and handed to countryAdjust, as obligationsFor does for a row given its country.
 */
import { obligationFor, type CheckName, type CheckResult, type Obligation, type UserDates } from "../../../core";
import { COUNTRY_RULES, adjustForCountry, countryAdjust } from "../../../core/compliance/country-rules";
import { COUNTRY_RULE_SOURCES } from "../../../core/compliance/country-sources";
import type { Country } from "../../../core/compliance/country";

const TODAY = "2027-01-31";

function adjusted(
  country: Country,
  check: CheckName,
  member: Record<string, unknown>,
  extra: { userDates?: UserDates; tenancyStart?: string; today?: string } = {},
): Obligation | null {
  const today = extra.today ?? TODAY;
  const result = {
    uprn: "1",
    address: "x",
    compliance_score: 50,
    risk_level: "medium",
    checks: { [check]: member },
  } as CheckResult;
  const england = obligationFor(result, check, { today, userDates: extra.userDates });
  return countryAdjust(country, check, england, {
    today,
    member,
    userDates: extra.userDates,
    tenancyStart: extra.tenancyStart,
  });
}

type Case = [
  name: string,
  source: string,
  country: Country,
  check: CheckName,
  member: Record<string, unknown>,
  extra: { userDates?: UserDates; tenancyStart?: string; today?: string },
  expected: Partial<Obligation> | null,
];

const WALES_EICR = "SI 2022/6 reg 6(2)(b)(i): valid until the end of 5 years beginning with the inspection day";
const WALES_DEPOSIT = "Renting Homes (Wales) Act 2016 s.45(2): 30 days starting with the day the deposit is paid";
const SCOT_DEPOSIT =
  "SSI 2011/176 reg 3(1): within 30 working days of the beginning of the tenancy; reg 2: UK bank holidays";
const SCOT_EICR = "Housing (Scotland) Act 2006 s.19A; repairing standard guidance D.55: no more than five years";
const SCOT_EPC = "SI 2015/962 (MEES) extends to England and Wales only; SSI 2008/309 EPC 10 years";
const GSIUR = "SI 1998/2451 reg 36: Great Britain";

const CASES: Case[] = [
  // Wales: the electrical condition report.
  [
    "Wales EICR: inspected 2022-02-01, valid to 2027-01-31 (due today)",
    WALES_EICR,
    "Wales",
    "eicr",
    { status: "warning", expiry: null },
    { userDates: { eicrDate: "2022-02-01" } },
    { due: "2027-01-31", daysLeft: 0, window: "Urgent" },
  ],
  [
    "Wales EICR: inspected 2022-02-02, last day inside is 2027-02-01",
    WALES_EICR,
    "Wales",
    "eicr",
    { status: "pass", expiry: null },
    { userDates: { eicrDate: "2022-02-02" } },
    { due: "2027-02-01", daysLeft: 1 },
  ],
  [
    "Wales EICR: inspected 2022-01-31, the first day after is today: overdue by a day",
    WALES_EICR,
    "Wales",
    "eicr",
    { status: "pass", expiry: null },
    { userDates: { eicrDate: "2022-01-31" } },
    { due: "2027-01-30", daysLeft: -1, window: "Overdue" },
  ],
  [
    "Wales EICR: inspected on a leap day, 2024-02-29, valid to 2029-02-27",
    WALES_EICR,
    "Wales",
    "eicr",
    { status: "pass", expiry: null },
    { userDates: { eicrDate: "2024-02-29" } },
    { due: "2029-02-27" },
  ],
  [
    "Wales EICR: the service's expiry is used as given",
    WALES_EICR,
    "Wales",
    "eicr",
    { status: "pass", expiry: "2029-06-30" },
    {},
    { due: "2029-06-30", window: "OK", action: expect.stringContaining("within 14 days") },
  ],
  [
    "Wales EICR: unsatisfactory with a future expiry is not OK (no Welsh period: now)",
    WALES_EICR,
    "Wales",
    "eicr",
    { status: "fail", expiry: "2030-01-01", detail: "Unsatisfactory: C2 observations" },
    {},
    { due: TODAY, window: "Overdue", action: expect.stringContaining("unfit") },
  ],
  [
    "Wales EICR: none on record",
    WALES_EICR,
    "Wales",
    "eicr",
    { status: "fail", expiry: null, detail: "No EICR on record for this property." },
    {},
    { due: TODAY, window: "Overdue", rule: COUNTRY_RULES.Wales.eicr.rule },
  ],
  // Wales: the deposit.
  [
    "Wales deposit: paid 2027-01-02, the 30th day is 2027-01-31 (due today)",
    WALES_DEPOSIT,
    "Wales",
    "deposit_protection",
    { status: "fail" },
    { userDates: { depositReceived: "2027-01-02" } },
    { due: "2027-01-31", daysLeft: 0, window: "Urgent" },
  ],
  [
    "Wales deposit: paid 2027-01-01, the period ended yesterday",
    WALES_DEPOSIT,
    "Wales",
    "deposit_protection",
    { status: "fail" },
    { userDates: { depositReceived: "2027-01-01" } },
    { due: "2027-01-30", daysLeft: -1, window: "Overdue" },
  ],
  [
    "Wales deposit: paid 2028-02-01, leap year: last day 2028-03-01",
    WALES_DEPOSIT,
    "Wales",
    "deposit_protection",
    { status: "fail" },
    { userDates: { depositReceived: "2028-02-01" }, today: "2028-02-15" },
    { due: "2028-03-01" },
  ],
  [
    "Wales deposit: protected is nothing to do",
    WALES_DEPOSIT,
    "Wales",
    "deposit_protection",
    { status: "pass", scheme: "DPS" },
    {},
    { window: "OK", action: "" },
  ],
  // Wales: checks whose rule is England's.
  [
    "Wales gas: the 12-month check as in England",
    GSIUR,
    "Wales",
    "gas_safety",
    { status: "warning", expiry: "2027-02-07" },
    {},
    {
      due: "2027-02-07",
      window: "Urgent",
      rule: expect.stringContaining("Gas Safety (Installation and Use) Regs 1998"),
    },
  ],
  [
    "Wales EPC F: cannot be let, as in England (MEES extends to Wales)",
    "SI 2015/962 reg 23",
    "Wales",
    "epc",
    { status: "fail", rating: "F", expiry: "2030-01-01" },
    {},
    { window: "Overdue", action: expect.stringContaining("Cannot be let") },
  ],
  // Scotland: the deposit in working days.
  [
    "Scotland deposit: tenancy from Fri 2027-01-01, 30 working days end Mon 2027-02-15",
    SCOT_DEPOSIT,
    "Scotland",
    "deposit_protection",
    { status: "fail" },
    { tenancyStart: "2027-01-01" },
    { due: "2027-02-15", daysLeft: 15, window: "Plan" },
  ],
  [
    "Scotland deposit: the last day inside the period is due today",
    SCOT_DEPOSIT,
    "Scotland",
    "deposit_protection",
    { status: "fail" },
    { tenancyStart: "2027-01-01", today: "2027-02-15" },
    { due: "2027-02-15", daysLeft: 0 },
  ],
  [
    "Scotland deposit: the first day after the period is overdue",
    SCOT_DEPOSIT,
    "Scotland",
    "deposit_protection",
    { status: "fail" },
    { tenancyStart: "2027-01-01", today: "2027-02-16" },
    { daysLeft: -1, window: "Overdue" },
  ],
  [
    "Scotland deposit: Easter Monday (an English bank holiday) stops the count too",
    SCOT_DEPOSIT,
    "Scotland",
    "deposit_protection",
    { status: "fail" },
    { tenancyStart: "2027-03-01", today: "2027-03-01" },
    { due: "2027-04-15" },
  ],
  [
    "Scotland deposit: a leap day counts as a working day",
    SCOT_DEPOSIT,
    "Scotland",
    "deposit_protection",
    { status: "fail" },
    { tenancyStart: "2028-02-01", today: "2028-02-01" },
    { due: "2028-03-14" },
  ],
  [
    "Scotland deposit: counted from receipt when the start is unknown, and says so",
    SCOT_DEPOSIT,
    "Scotland",
    "deposit_protection",
    { status: "fail" },
    { userDates: { depositReceived: "2027-01-01" } },
    { due: "2027-02-15", action: expect.stringContaining("Tenancy start") },
  ],
  [
    "Scotland deposit: no date at all is due now",
    SCOT_DEPOSIT,
    "Scotland",
    "deposit_protection",
    { status: "fail" },
    {},
    { due: TODAY, window: "Overdue" },
  ],
  // Scotland: the electrical safety inspection (EICR and PAT).
  [
    "Scotland EICR: inspected 2022-01-31, due the fifth anniversary, today",
    SCOT_EICR,
    "Scotland",
    "eicr",
    { status: "warning", expiry: null },
    { userDates: { eicrDate: "2022-01-31" } },
    { due: "2027-01-31", daysLeft: 0, action: expect.stringContaining("PAT") },
  ],
  [
    "Scotland EICR: inspected 2022-01-30, a day past",
    SCOT_EICR,
    "Scotland",
    "eicr",
    { status: "pass", expiry: null },
    { userDates: { eicrDate: "2022-01-30" } },
    { due: "2027-01-30", window: "Overdue" },
  ],
  [
    "Scotland EICR: unsatisfactory with a future expiry is not OK",
    SCOT_EICR,
    "Scotland",
    "eicr",
    { status: "fail", expiry: "2029-01-01", detail: "C1 danger present" },
    {},
    { window: "Overdue", due: TODAY },
  ],
  [
    "Scotland EICR: expired on the service's date",
    SCOT_EICR,
    "Scotland",
    "eicr",
    { status: "fail", expiry: "2026-12-01", detail: "EICR expired on 2026-12-01" },
    {},
    { due: "2026-12-01", window: "Overdue" },
  ],
  // Scotland: EPC, no minimum rating.
  [
    "Scotland EPC F with a future expiry: no 'cannot be let', the expiry is what is due",
    SCOT_EPC,
    "Scotland",
    "epc",
    { status: "pass", rating: "F", expiry: "2027-03-01" },
    {},
    { due: "2027-03-01", daysLeft: 29, window: "Urgent", action: expect.stringContaining("Renew the EPC") },
  ],
  [
    "Scotland EPC F, expired 40 days ago: the expiry, overdue",
    SCOT_EPC,
    "Scotland",
    "epc",
    { status: "fail", rating: "F", expiry: "2026-12-22" },
    {},
    { due: "2026-12-22", daysLeft: -40, window: "Overdue", action: expect.stringContaining("expired") },
  ],
  [
    "Scotland EPC D: England's announced C for 2030 is not a Scottish deadline",
    SCOT_EPC,
    "Scotland",
    "epc",
    { status: "pass", rating: "D", expiry: null },
    {},
    { due: null, window: "OK", action: expect.stringContaining("No minimum EPC rating") },
  ],
  [
    "Scotland EPC failed with a future expiry is never OK, and not 'cannot be let'",
    SCOT_EPC,
    "Scotland",
    "epc",
    { status: "fail", rating: "F", expiry: "2030-05-01" },
    {},
    { due: TODAY, window: "Overdue", action: expect.stringContaining("Scotland sets no minimum rating") },
  ],
  [
    "Scotland EPC failed with no date is never OK",
    SCOT_EPC,
    "Scotland",
    "epc",
    { status: "fail", rating: "G", expiry: null },
    {},
    { due: TODAY, window: "Overdue" },
  ],
  // Scotland: licensing and gas.
  [
    "Scotland: a selective licence is not a Scottish scheme: said, no deadline",
    "Housing (Scotland) Act 2006 Part 5",
    "Scotland",
    "licensing",
    { status: "pass", scheme: "Selective licence (Glasgow City)" },
    {},
    { due: null, window: "OK", action: expect.stringContaining("does not exist in Scotland") },
  ],
  [
    "Scotland: an HMO without a licence is due now",
    "Housing (Scotland) Act 2006 Part 5",
    "Scotland",
    "licensing",
    { status: "fail", scheme: "Mandatory HMO licence" },
    {},
    { due: TODAY, window: "Overdue", rule: COUNTRY_RULES.Scotland.licensing.rule },
  ],
  [
    "Scotland gas: the 12-month check (Great Britain)",
    GSIUR,
    "Scotland",
    "gas_safety",
    { status: "pass", expiry: "2027-12-01" },
    {},
    { due: "2027-12-01", window: "OK", rule: expect.stringContaining("Gas Safety (Installation and Use) Regs 1998") },
  ],
];

describe("Wales and Scotland, dated cases", () => {
  test.each(CASES)("%s [%s]", (_name, _source, country, check, member, extra, expected) => {
    const ob = adjusted(country, check, member, extra);
    if (expected === null) expect(ob).toBeNull();
    else expect(ob).toMatchObject(expected);
  });

  test("a check absent or not required stays without an obligation in every country", () => {
    for (const country of ["England", "Wales", "Scotland"] as const) {
      expect(adjusted(country, "gas_safety", { status: "not_required" })).toBeNull();
    }
  });

  test("England's obligation comes back as it is", () => {
    const result = {
      uprn: "1",
      address: "x",
      compliance_score: 50,
      risk_level: "medium",
      checks: { epc: { status: "fail", rating: "G", expiry: "2030-01-01" } },
    } as CheckResult;
    const england = obligationFor(result, "epc", { today: TODAY });
    expect(
      countryAdjust("England", "epc", england, { today: TODAY, member: result.checks.epc as Record<string, unknown> }),
    ).toBe(england);
  });

  test("a Scottish EPC fail keeps the day England's obligation says it was first reported, not today on every run", () => {
    const member = { status: "fail", rating: "G", expiry: "2030-01-01" };
    const england: Obligation = {
      check: "epc",
      due: "2027-01-10",
      daysLeft: -21,
      window: "Overdue",
      action: "Cannot be let: improve to E or register an exemption",
      rule: "MEES reg 23",
      firstReported: "2027-01-10",
    };
    expect(countryAdjust("Scotland", "epc", england, { today: TODAY, member })).toMatchObject({
      due: "2027-01-10",
      daysLeft: -21,
      window: "Overdue",
      firstReported: "2027-01-10",
      action: expect.stringMatching(/rated G, first reported 2027-01-10; .*no minimum rating/),
      note: expect.stringContaining("first reported on 2027-01-10"),
    });
  });

  test("over a whole list: an EPC rated F and expired gives Scotland one EPC obligation (its expiry), Wales keeps both", () => {
    const epc = { status: "fail", rating: "F", expiry: "2026-12-22" };
    const england: Obligation[] = [
      {
        check: "epc",
        due: TODAY,
        daysLeft: 0,
        window: "Overdue",
        action: "Cannot be let: improve to E or register an exemption",
        rule: "MEES reg 23",
      },
      {
        check: "epc",
        due: "2026-12-22",
        daysLeft: -40,
        window: "Overdue",
        action: "EPC expired: get a new one before marketing or a new letting",
        rule: "EPB 2012",
      },
      {
        check: "gas_safety",
        due: "2027-02-07",
        daysLeft: 7,
        window: "Urgent",
        action: "Book the annual gas safety check",
        rule: "GSIUR",
      },
    ];
    const memberOf = (c: CheckName) => (c === "epc" ? epc : undefined);
    const scot = adjustForCountry(england, "Scotland", memberOf, { today: TODAY });
    expect(scot.map((o) => [o.check, o.due, o.window])).toEqual([
      ["epc", "2026-12-22", "Overdue"],
      ["gas_safety", "2027-02-07", "Urgent"],
    ]);
    expect(scot[0].action).not.toContain("Cannot be let");
    expect(adjustForCountry(england, "Wales", memberOf, { today: TODAY })).toEqual([
      england[1],
      england[0],
      england[2],
    ]);
    expect(adjustForCountry(england, "England", memberOf, { today: TODAY })).toEqual(england);
  });

  test("every rule of Wales and Scotland names its period, and the ones of their own quote a source with a link", () => {
    for (const country of ["Wales", "Scotland"] as const) {
      for (const [check, r] of Object.entries(COUNTRY_RULES[country]) as [
        CheckName,
        (typeof COUNTRY_RULES)["Wales"][CheckName],
      ][]) {
        const src = COUNTRY_RULE_SOURCES[country][check];
        expect(`${check}: ${src.period}`).toMatch(/\d/);
        if (r.applies === "own_rule") {
          expect(src.sources.length).toBeGreaterThan(0);
          for (const s of src.sources) {
            expect(s.url).toMatch(/^https:\/\/www\.(legislation\.gov\.uk|gov\.scot|gov\.wales)\//);
            expect(s.quote).toBeTruthy();
          }
        }
      }
    }
  });
});
