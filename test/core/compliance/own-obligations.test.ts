/**
 * The obligations the service cannot see, read from the user's own columns: headers matched loosely, each column's
 * Evidence, and a table of dated cases per obligation and country, each naming its source.
 */
import {
  detectContextColumns,
  detectOwnColumns,
  ownInputsOf,
  ownObligations,
} from "../../../core/compliance/own-obligations";
import {
  OWN_RULES,
  PRS_DATABASE,
  ownObligation,
  type OwnContext,
  type OwnInput,
  type OwnKey,
  type OwnObligation,
} from "../../../core/compliance/own-rules";
import { doneWithoutEvidence, isMarkedDone } from "../../../core/reports/action-list-columns";
import { readUserDate } from "../../../core/sheet/user-dates";
import { OWN_SOURCES } from "../../../core/compliance/own-sources";
import type { Country } from "../../../core/compliance/country";

const TODAY = "2027-01-31";
const dayOf = (r: ReturnType<typeof readUserDate>) => ("day" in r ? r.day : null);
/** The user-date reader of a day-first file (core/sheet/row-dates.ts passes its file's). */
const ukReader = (v: unknown) => dayOf(readUserDate(v, "", { monthFirst: false, today: TODAY }));

describe("headers, matched loosely", () => {
  test.each([
    ["Smoke alarms checked", "smoke_alarms", "done"],
    ["smoke alarm tested", "smoke_alarms", "done"],
    ["Smoke_Alarms_Checked:", "smoke_alarms", "done"],
    ["Date smoke alarms checked", "smoke_alarms", "done"],
    ["CO alarms checked", "co_alarms", "done"],
    ["Carbon monoxide alarm checked", "co_alarms", "done"],
    ["Carbon Monoxide Alarms", "co_alarms", "done"],
    ["Legionella assessment", "legionella", "done"],
    ["Legionella risk assessment", "legionella", "done"],
    ["Legionella review due", "legionella", "due"],
    ["Next legionella review", "legionella", "due"],
    ["Right to Rent follow-up", "right_to_rent", "due"],
    ["Right to rent follow up date", "right_to_rent", "due"],
    ["RTR followup", "right_to_rent", "due"],
    ["HMO licence expiry", "hmo_licence", "due"],
    ["HMO License Expiry Date", "hmo_licence", "due"],
    ["HMO renewal date", "hmo_licence", "due"],
    ["Landlord registration", "landlord_registration", "done"],
    ["Landlord registration expiry", "landlord_registration", "due"],
    ["Rent Smart Wales", "rent_smart_wales", "done"],
    ["RSW licence expiry", "rent_smart_wales", "due"],
    ["Rent Smart Wales registration", "rent_smart_wales", "done"],
    ["PRS Database registration", "prs_database", "done"],
    ["Private rented sector database", "prs_database", "done"],
  ])("%j is %s (a %s date)", (header, key, meaning) => {
    const cols = detectOwnColumns(["UPRN", "Postcode", header]);
    expect(cols).toEqual([{ key, column: 2, header: header.trim(), meaning }]);
  });

  test.each(["Smoke", "Owner", "Licence expiry", "EICR date", "Deposit received", "Notes", "HMO", "Right to Rent"])(
    "%j is not an own obligation",
    (header) => {
      expect(detectOwnColumns([header])).toEqual([]);
    },
  );

  test("an Evidence column is found by name, or as the bare column just after", () => {
    const cols = detectOwnColumns([
      "UPRN",
      "Smoke alarms checked",
      "Evidence",
      "CO alarms checked",
      "HMO licence expiry",
      "Notes",
      "HMO licence evidence",
    ]);
    expect(cols.find((c) => c.key === "smoke_alarms")?.evidenceColumn).toBe(2);
    expect(cols.find((c) => c.key === "co_alarms")?.evidenceColumn).toBeUndefined();
    expect(cols.find((c) => c.key === "hmo_licence")?.evidenceColumn).toBe(6);
  });

  test.each([
    [["UPRN", "Country", "Tenancy start"], { country: 1, tenancyStart: 2 }],
    [["Nation", "Tenancy start date", "Country"], { country: 0, tenancyStart: 1 }],
    [["Move-in date"], { tenancyStart: 0 }],
    [["Occupation date"], { tenancyStart: 0 }],
    [["Start of tenancy"], { tenancyStart: 0 }],
    [["Country of owner?"], {}],
  ])("the Country and Tenancy start columns of %j", (header, expected) => {
    expect(detectContextColumns(header)).toEqual(expected);
  });

  test("columns the add-in writes itself are not read as the user's", () => {
    expect(detectOwnColumns(["Smoke alarms checked", "HMO licence expiry"], new Set([0]))).toEqual([
      { key: "hmo_licence", column: 1, header: "HMO licence expiry", meaning: "due" },
    ]);
  });
});

function input(
  key: OwnKey,
  date: string | null,
  meaning: "done" | "due" = OWN_RULES.find((r) => r.key === key)!.defaultMeaning,
  evidence?: string,
): OwnInput {
  return { key, header: key, meaning, date, ...(evidence ? { evidence } : {}) };
}

type Case = [
  name: string,
  source: string,
  country: Country,
  input: OwnInput,
  ctx: Partial<OwnContext>,
  expected: Partial<OwnObligation>,
];

const ALARMS_ENG = "SI 2015/1693 reg 4(1)(b): checked on the day a new tenancy begins";
const ALARMS_WAL = "SI 2022/6 reg 5: working order during occupation, no check date";
const L8 = "HSE ACoP L8: no fixed review interval";
const RTR = "Home Office guide: follow-up before the later of permission end or 12 months";
const HMO = "Housing Act 2004 s.68; Housing (Scotland) Act 2006 Part 5";
const SLR = "Antisocial Behaviour etc. (Scotland) Act 2004 Part 8: 3 years";
const RSW = "Housing (Wales) Act 2014 Part 1; Rent Smart Wales: 5 years";
const PRS = "Renters' Rights Act 2025 Part 2; roadmap: from late 2026";

const CASES: Case[] = [
  [
    "smoke alarms: a tenancy begins today, not yet checked: due today",
    ALARMS_ENG,
    "England",
    input("smoke_alarms", null),
    { tenancyStart: TODAY },
    { due: TODAY, daysLeft: 0, window: "Urgent" },
  ],
  [
    "smoke alarms: checked before the tenancy that began yesterday: overdue",
    ALARMS_ENG,
    "England",
    input("smoke_alarms", "2026-12-01"),
    { tenancyStart: "2027-01-30" },
    { due: "2027-01-30", daysLeft: -1, window: "Overdue" },
  ],
  [
    "smoke alarms: checked on the day the tenancy began: nothing due",
    ALARMS_ENG,
    "England",
    input("smoke_alarms", "2027-01-30"),
    { tenancyStart: "2027-01-30" },
    { due: null, window: null, action: "", note: expect.stringContaining("new tenancy") },
  ],
  [
    "smoke alarms: a date and no tenancy start: no invented deadline",
    ALARMS_ENG,
    "England",
    input("smoke_alarms", "2026-06-01"),
    {},
    { due: null, window: null, action: "" },
  ],
  [
    "CO alarms: nothing recorded and no tenancy start: record it (Plan)",
    ALARMS_ENG,
    "England",
    input("co_alarms", null),
    {},
    { due: null, window: "Plan", action: expect.stringContaining("Record") },
  ],
  [
    "smoke alarms in Wales: no check date in law, said",
    ALARMS_WAL,
    "Wales",
    input("smoke_alarms", null),
    { tenancyStart: TODAY },
    { due: null, window: null, note: expect.stringContaining("Wales sets no check date") },
  ],
  [
    "CO alarms in Scotland: no check date in law, said",
    "Housing (Scotland) Act 1987 s.86",
    "Scotland",
    input("co_alarms", "2026-01-01"),
    {},
    { due: null, window: null, note: expect.stringContaining("Scotland sets no check date") },
  ],
  [
    "legionella assessed: no interval in law, no deadline",
    L8,
    "England",
    input("legionella", "2025-03-01"),
    {},
    { due: null, window: null, note: expect.stringContaining("no review interval") },
  ],
  [
    "legionella review due in 14 days: Urgent",
    L8,
    "Scotland",
    input("legionella", "2027-02-14", "due"),
    {},
    { due: "2027-02-14", daysLeft: 14, window: "Urgent" },
  ],
  [
    "right to rent follow-up due today",
    RTR,
    "England",
    input("right_to_rent", TODAY),
    {},
    { due: TODAY, daysLeft: 0, window: "Urgent" },
  ],
  [
    "right to rent follow-up a day late",
    RTR,
    "England",
    input("right_to_rent", "2027-01-30"),
    {},
    { daysLeft: -1, window: "Overdue" },
  ],
  [
    "right to rent follow-up on a leap day",
    RTR,
    "England",
    input("right_to_rent", "2028-02-29"),
    {},
    { due: "2028-02-29", window: "OK" },
  ],
  [
    "right to rent in Wales: not a Welsh duty, said",
    "Immigration Act 2014 Part 3: England only",
    "Wales",
    input("right_to_rent", "2027-02-01"),
    {},
    { due: null, window: null, note: expect.stringContaining("England only") },
  ],
  [
    "HMO licence expiring in 30 days: Urgent",
    HMO,
    "England",
    input("hmo_licence", "2027-03-02"),
    {},
    { due: "2027-03-02", daysLeft: 30, window: "Urgent" },
  ],
  [
    "HMO licence expired yesterday (Scotland)",
    HMO,
    "Scotland",
    input("hmo_licence", "2027-01-30"),
    {},
    { window: "Overdue", action: expect.stringContaining("expired"), rule: expect.stringContaining("Scotland") },
  ],
  [
    "landlord registration on 2024-01-31: the last day of its 3 years is today",
    SLR,
    "Scotland",
    input("landlord_registration", "2024-01-31"),
    {},
    { due: "2027-01-30", daysLeft: -1, window: "Overdue" },
  ],
  [
    "landlord registration on 2024-02-01: the last day is today",
    SLR,
    "Scotland",
    input("landlord_registration", "2024-02-01"),
    {},
    { due: "2027-01-31", daysLeft: 0, window: "Urgent" },
  ],
  [
    "landlord registration on a leap day 2024-02-29: last day 2027-02-27",
    SLR,
    "Scotland",
    input("landlord_registration", "2024-02-29"),
    {},
    { due: "2027-02-27" },
  ],
  [
    "landlord registration expiry typed: that day is due",
    SLR,
    "Scotland",
    input("landlord_registration", "2027-05-01", "due"),
    {},
    { due: "2027-05-01", daysLeft: 90, window: "Plan" },
  ],
  [
    "landlord registration in England: Scottish only, said",
    SLR,
    "England",
    input("landlord_registration", "2024-02-01"),
    {},
    { due: null, window: null, note: expect.stringContaining("Scotland only") },
  ],
  [
    "landlord registration empty: asks for the date, no invented lapse",
    SLR,
    "Scotland",
    input("landlord_registration", null),
    {},
    { due: null, window: "Plan", action: expect.stringContaining("Record the date") },
  ],
  [
    "Rent Smart Wales licensed 2022-02-01: last day 2027-01-31 (today)",
    RSW,
    "Wales",
    input("rent_smart_wales", "2022-02-01"),
    {},
    { due: "2027-01-31", daysLeft: 0 },
  ],
  [
    "Rent Smart Wales licensed 2022-01-31: lapsed yesterday",
    RSW,
    "Wales",
    input("rent_smart_wales", "2022-01-31"),
    {},
    { due: "2027-01-30", window: "Overdue", action: expect.stringContaining("lapsed") },
  ],
  [
    "Rent Smart Wales on a Scottish property: said, nothing due",
    RSW,
    "Scotland",
    input("rent_smart_wales", "2022-01-31"),
    {},
    { due: null, window: null, note: expect.stringContaining("Wales only") },
  ],
  [
    "PRS Database before it opens: no deadline, says why",
    PRS,
    "England",
    input("prs_database", null),
    {},
    { due: null, window: null, note: expect.stringContaining("not open yet") },
  ],
  [
    "PRS Database once open (a day passed in): registration due from that day",
    PRS,
    "England",
    input("prs_database", null),
    { prsDatabaseOpens: "2027-01-01" },
    { due: "2027-01-01", window: "Overdue" },
  ],
  [
    "PRS Database once open and registered: nothing due",
    PRS,
    "England",
    input("prs_database", "2027-01-10"),
    { prsDatabaseOpens: "2027-01-01" },
    { due: null, window: null, note: "Registered 2027-01-10" },
  ],
];

describe("own obligations, dated cases", () => {
  test.each(CASES)("%s [%s]", (_name, _source, country, inp, ctx, expected) => {
    expect(ownObligation(inp, { today: TODAY, country, ...ctx })).toMatchObject(expected);
  });

  test("the PRS Database is not open on the day these rules were checked", () => {
    expect(PRS_DATABASE.opens).toBeNull();
    expect(PRS_DATABASE.checked).toBe("2026-11-25");
  });

  test("a cell that is not a date is said in the row, never taken as empty", () => {
    const [ob] = ownObligations(
      [{ key: "hmo_licence", header: "HMO licence expiry", meaning: "due", date: null, unreadable: "next spring" }],
      { today: TODAY, country: "England" },
    );
    expect(ob).toMatchObject({
      window: "Plan",
      action: expect.stringContaining('"next spring" in HMO licence expiry is not a date'),
    });
  });

  test("every rule quotes or states its source with a link, and names a rule for each country it covers", () => {
    for (const r of OWN_RULES) {
      expect(r.source).toMatch(/^https:\/\//);
      expect(OWN_SOURCES[r.key].url).toBe(r.source);
      expect(OWN_SOURCES[r.key].title).toBeTruthy();
      expect(OWN_SOURCES[r.key].quote ?? OWN_SOURCES[r.key].note).toBeTruthy();
      for (const c of r.countries) expect(r.rule[c]).toBeTruthy();
    }
  });
});

describe("a row read end to end, with its evidence", () => {
  const header = [
    "UPRN",
    "Postcode",
    "Smoke alarms checked",
    "Evidence",
    "HMO licence expiry",
    "HMO licence evidence",
    "Right to Rent follow-up",
    "Notes",
  ];
  const cols = detectOwnColumns(header);

  test("dates and evidence come back per obligation, most urgent first", () => {
    const row = [
      "100023336956",
      "SW1A 2AA",
      "2027-01-05",
      "https://example.org/smoke.pdf",
      "2027-02-10",
      "https://example.org/hmo.pdf",
      "2027-01-20",
      "keep",
    ];
    const obs = ownObligations(ownInputsOf(row, cols, ukReader), {
      today: TODAY,
      country: "England",
      tenancyStart: "2027-01-10",
    });
    expect(obs.map((o) => [o.key, o.window, o.due, o.evidence])).toEqual([
      ["smoke_alarms", "Overdue", "2027-01-10", "https://example.org/smoke.pdf"],
      ["right_to_rent", "Overdue", "2027-01-20", ""],
      ["hmo_licence", "Urgent", "2027-02-10", "https://example.org/hmo.pdf"],
    ]);
  });

  test("a date serial (as Excel hands it back) is read", () => {
    const row = ["1", "x", "", "", 46433, "", "", ""]; // 46433 = 2027-02-15
    const [hmo] = ownObligations(ownInputsOf(row, cols, ukReader), { today: TODAY, country: "England" }).filter(
      (o) => o.key === "hmo_licence",
    );
    expect(hmo.due).toBe("2027-02-15");
  });

  test("text the reader cannot read is reported, and the file's own reader reads it", () => {
    const row = ["1", "x", "", "", "15/02/2027", "", "", ""];
    const usReader = (v: unknown) => dayOf(readUserDate(v, "", { monthFirst: true, today: TODAY }));
    const [plain] = ownObligations(ownInputsOf(row, cols, usReader), { today: TODAY, country: "England" }).filter(
      (o) => o.key === "hmo_licence",
    );
    expect(plain.action).toContain('"15/02/2027" in HMO licence expiry is not a date');
    const ukDay = (v: unknown) =>
      typeof v === "string" && /^(\d{2})\/(\d{2})\/(\d{4})$/.test(v)
        ? v.replace(/^(\d{2})\/(\d{2})\/(\d{4})$/, "$3-$2-$1")
        : null;
    const [read] = ownObligations(ownInputsOf(row, cols, ukDay), { today: TODAY, country: "England" }).filter(
      (o) => o.key === "hmo_licence",
    );
    expect(read.due).toBe("2027-02-15");
  });
});

describe("done without evidence", () => {
  test.each([
    [true, true],
    ["TRUE", true],
    ["yes", true],
    ["Done", true],
    ["x", true],
    ["✓", true],
    ["2027-01-05", true],
    ["05/01/2027", true],
    [46392, true],
    ["", false],
    [false, false],
    ["no", false],
    ["maybe", false],
  ])("Done %j is marked done: %s", (v, done) => {
    expect(isMarkedDone(v)).toBe(done);
  });

  test("the summary counts rows marked done with no evidence", () => {
    expect(
      doneWithoutEvidence([
        { done: true, evidence: "" },
        { done: "yes", evidence: "https://example.org/cert.pdf" },
        { done: "", evidence: "" },
        { done: "x", evidence: "   " },
      ]),
    ).toBe(2);
  });
});
