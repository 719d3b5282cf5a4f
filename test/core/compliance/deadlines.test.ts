/**
 * Deadlines counted as the law counts them: each period as its source words it (docs/compliance-rules.md quotes the
 * words), the last day inside each statutory period and the first day after it, leap days, failed checks that are
 * never OK, several obligations of one check, the service's own licence expiry, and an F or G rating due from the day
 * the service first reported it.
 */
import {
  blockObligations,
  checkObligations,
  nextObligation,
  obligationsFor,
  outputHeaders,
  outputRow,
  periodEnd,
  periodStartEndingWith,
  type CheckName,
  type CheckResult,
  type Obligation,
  type Period,
  type UserDates,
} from "../../../core";

const TODAY = "2027-01-31";

function result(checks: Record<string, Record<string, unknown>>): CheckResult {
  return {
    uprn: "100023336956",
    address: "10 Downing Street",
    compliance_score: 50,
    risk_level: "medium",
    checks,
  } as CheckResult;
}

describe("periodEnd counts a period as its source words it", () => {
  const cases: [string, string, Period, string][] = [
    // Housing Act 2004 s.213(3): "within the period of 30 days beginning with the date on which it is received".
    [
      "30 days beginning with 1 March: day 30 is 30 March",
      "2027-03-01",
      { days: 30, counting: "beginning with" },
      "2027-03-30",
    ],
    [
      "30 days beginning with 1 February of a leap year: 29 Feb counts",
      "2028-02-01",
      { days: 30, counting: "beginning with" },
      "2028-03-01",
    ],
    [
      "30 days beginning with 1 February of a common year",
      "2027-02-01",
      { days: 30, counting: "beginning with" },
      "2027-03-02",
    ],
    [
      "30 days beginning with 31 December crosses the year",
      "2026-12-31",
      { days: 30, counting: "beginning with" },
      "2027-01-29",
    ],
    // SI 2020/312 reg 3(4): "within 28 days ... starting with the date of the inspection and testing".
    ["28 days starting with 25 November", "2026-11-25", { days: 28, counting: "starting with" }, "2026-12-22"],
    [
      "28 days starting with 10 February 2028 (leap year)",
      "2028-02-10",
      { days: 28, counting: "starting with" },
      "2028-03-08",
    ],
    ["30 days from 1 March: the start day is not counted", "2027-03-01", { days: 30, counting: "from" }, "2027-03-31"],
    // SI 1998/2451 reg 36(3)(a): "at intervals of not more than 12 months".
    ["12 months after 15 March", "2026-03-15", { months: 12, counting: "intervals of not more than" }, "2027-03-15"],
    [
      "12 months after 29 February: 28 February",
      "2028-02-29",
      { months: 12, counting: "intervals of not more than" },
      "2029-02-28",
    ],
    // SI 2020/312 reg 3(1)(b): "at intervals of no more than 5 years"; an EPC "no more than 10 years" old.
    [
      "5 years after 29 February 2024: 28 February 2029",
      "2024-02-29",
      { years: 5, counting: "intervals of not more than" },
      "2029-02-28",
    ],
    [
      "10 years after 29 February 2016: 28 February 2026",
      "2016-02-29",
      { years: 10, counting: "intervals of not more than" },
      "2026-02-28",
    ],
    [
      "a month beginning with 1 March ends on 31 March",
      "2027-03-01",
      { months: 1, counting: "beginning with" },
      "2027-03-31",
    ],
    [
      "a month beginning with 31 January ends on 28 February",
      "2027-01-31",
      { months: 1, counting: "beginning with" },
      "2027-02-28",
    ],
    [
      "a month beginning with 15 January ends on 14 February",
      "2027-01-15",
      { months: 1, counting: "beginning with" },
      "2027-02-14",
    ],
  ];
  test.each(cases)("%s", (_name, start, period, end) => {
    expect(periodEnd(start, period)).toBe(end);
  });

  test("reg 36A: the 2 months ending with the deadline date begin the day after the date 2 months before", () => {
    expect(periodStartEndingWith("2027-03-15", 2)).toBe("2027-01-16");
    expect(periodStartEndingWith("2027-03-31", 2)).toBe("2027-02-01");
    expect(periodStartEndingWith("2028-04-29", 2)).toBe("2028-03-01");
  });

  test("a period of days and months at once is refused, not guessed", () => {
    expect(() => periodEnd("2027-01-01", { days: 1, months: 1, counting: "from" })).toThrow(/days or months/);
  });
});

type Case = [
  name: string,
  check: CheckName,
  member: Record<string, unknown>,
  expected: Partial<Obligation>,
  userDates?: UserDates,
];

/** today 2027-01-31; each row names its source and the edge it holds. */
const DATED: Case[] = [
  // Deposit, Housing Act 2004 s.213(3): received + 29 is the last day.
  [
    "deposit: received 2027-01-02, day 30 is today: due today",
    "deposit_protection",
    { status: "fail" },
    { due: TODAY, daysLeft: 0, window: "Urgent" },
    { depositReceived: "2027-01-02" },
  ],
  [
    "deposit: received 2027-01-03, last day tomorrow",
    "deposit_protection",
    { status: "fail" },
    { due: "2027-02-01", daysLeft: 1, window: "Urgent" },
    { depositReceived: "2027-01-03" },
  ],
  [
    "deposit: received 2027-01-01, today is the first day after the period",
    "deposit_protection",
    { status: "fail" },
    { due: "2027-01-30", daysLeft: -1, window: "Overdue" },
    { depositReceived: "2027-01-01" },
  ],
  [
    "deposit: received 2028-02-01 (leap year): last day 2028-03-01",
    "deposit_protection",
    { status: "fail" },
    { due: "2028-03-01" },
    { depositReceived: "2028-02-01" },
  ],
  // EICR remedial work, SI 2020/312 reg 3(4): inspection + 27 is the last day.
  [
    "eicr: unsatisfactory report of 2027-01-04, last remedial day today",
    "eicr",
    { status: "fail", expiry: null, detail: "Unsatisfactory (C2)" },
    { due: TODAY, daysLeft: 0, window: "Urgent" },
    { eicrDate: "2027-01-04" },
  ],
  [
    "eicr: unsatisfactory report of 2027-01-03, today is the first day after",
    "eicr",
    { status: "fail", expiry: null, detail: "Unsatisfactory (C2)" },
    { due: "2027-01-30", daysLeft: -1, window: "Overdue" },
    { eicrDate: "2027-01-03" },
  ],
  [
    "eicr: report of 2028-02-10 (leap year): last remedial day 2028-03-08",
    "eicr",
    { status: "fail", expiry: null, detail: "Unsatisfactory (FI)" },
    { due: "2028-03-08" },
    { eicrDate: "2028-02-10" },
  ],
  // Gas, SI 1998/2451 reg 36(3)(a): last check + 12 months.
  [
    "gas: last check 2026-01-31, due today",
    "gas_safety",
    { status: "warning", last_certificate: "2026-01-31" },
    { due: TODAY, daysLeft: 0, window: "Urgent" },
  ],
  [
    "gas: last check 2026-01-30, a day overdue",
    "gas_safety",
    { status: "fail", last_certificate: "2026-01-30" },
    { due: "2027-01-30", daysLeft: -1, window: "Overdue" },
  ],
  [
    "gas: last check on 2028-02-29 (leap day): due 2029-02-28",
    "gas_safety",
    { status: "pass", last_certificate: "2028-02-29" },
    { due: "2029-02-28" },
  ],
  // EPC: the service's expiry.
  [
    "epc: expires today",
    "epc",
    { status: "warning", rating: "C", expiry: TODAY },
    { due: TODAY, daysLeft: 0, window: "Urgent" },
  ],
  [
    "epc: expired yesterday",
    "epc",
    { status: "fail", rating: "C", expiry: "2027-01-30" },
    {
      due: "2027-01-30",
      daysLeft: -1,
      window: "Overdue",
      action: "EPC expired: get a new one before marketing or a new letting",
    },
  ],
  // Licensing, from the service's own expiry.
  [
    "licensing: the service's expiry in 20 days is Urgent (30-day window)",
    "licensing",
    { status: "warning", scheme: "Mandatory HMO licence", expiry: "2027-02-20" },
    {
      due: "2027-02-20",
      daysLeft: 20,
      window: "Urgent",
      action: "Renew the licence (Mandatory HMO licence) before it expires on 2027-02-20",
    },
  ],
  [
    "licensing: the service's expiry wins over the user's column",
    "licensing",
    { status: "pass", scheme: "Selective licence", expiry: "2027-05-11" },
    { due: "2027-05-11", window: "Plan" },
    { licenceExpiry: "2027-09-01" },
  ],
  [
    "licensing: expired yesterday",
    "licensing",
    { status: "fail", scheme: "Selective licence", expiry: "2027-01-30" },
    {
      due: "2027-01-30",
      window: "Overdue",
      action: "Licence (Selective licence) expired on 2027-01-30: apply for a new one now",
    },
  ],
];

describe("dated cases (today 2027-01-31)", () => {
  test.each(DATED.map(([n, c, m, e, u]) => [n, c, m, e, u ?? {}] as const))(
    "%s",
    (_name, check, member, expected, userDates) => {
      const [first] = checkObligations(result({ [check]: member }), check, { today: TODAY, userDates });
      expect(first).toMatchObject(expected);
    },
  );
});

describe("a failed check is never OK", () => {
  const far = "2030-06-01";
  const failing: [CheckName, Record<string, unknown>][] = [
    ["gas_safety", { status: "fail", last_certificate: "2026-06-01", expiry: far }],
    ["epc", { status: "fail", rating: "C", expiry: far }],
    ["eicr", { status: "fail", expiry: far, detail: null }],
    ["licensing", { status: "fail", scheme: "Selective licence", expiry: far }],
    ["deposit_protection", { status: "fail", scheme: null, protected_date: null }],
  ];
  test.each(failing)(
    "%s fail with a date far ahead: the row is Overdue, the date's own action is kept too",
    (check, member) => {
      const r = result({ [check]: member });
      const next = nextObligation(r, { today: TODAY })!;
      expect(next.window).toBe("Overdue");
      expect(next.action).not.toBe("");
      const all = checkObligations(r, check, { today: TODAY });
      if (check !== "deposit_protection" && check !== "eicr") expect(all.map((o) => o.due)).toContain(far);
    },
  );

  test("an EICR fail with a report date counts the remedial period from the report, not from today", () => {
    const ob = checkObligations(result({ eicr: { status: "fail", expiry: "2031-12-20" } }), "eicr", {
      today: TODAY,
    })[0];
    // Report = expiry - 5 years = 2026-12-20; + 27 days.
    expect(ob).toMatchObject({ due: "2027-01-16", window: "Overdue" });
  });
});

describe("several obligations of one check", () => {
  const expiredF = result({ epc: { status: "fail", rating: "F", expiry: "2026-12-22" } });

  test("an F-rated EPC that has also expired has both actions; the row shows the earlier", () => {
    const all = obligationsFor(expiredF, { today: TODAY });
    expect(all.map((o) => [o.due, o.window, o.action.slice(0, 14)])).toEqual([
      ["2026-12-22", "Overdue", "EPC expired: g"],
      [TODAY, "Overdue", "Cannot be let "],
    ]);
    expect(nextObligation(expiredF, { today: TODAY })).toMatchObject({ due: "2026-12-22", daysLeft: -40 });
  });

  test("the Action list's obligations of a block row include both", () => {
    const row = outputRow({ result: expiredF }, `${TODAY}T09:00:00Z`);
    const obs = blockObligations([{ uprn: "100023336956", address: "10 Downing Street", cells: row }], {
      today: TODAY,
    });
    expect(obs.map((x) => x.ob.due)).toEqual(["2026-12-22", TODAY]);
  });
});

describe("an F or G rating is due from the day the service first reported it", () => {
  const H = outputHeaders();
  const at = (h: string) => H.indexOf(h);
  const rated = (rating: string, expiry = "2033-01-01") => ({
    result: result({ epc: { status: "fail", rating, expiry } }),
  });

  test("first check: due that day, and the row says so; a refresh 30 days on keeps the day", () => {
    const first = outputRow(rated("F"), "2027-01-01T10:00:00Z");
    expect(first[at("Next action")]).toBe(
      "Cannot be let (rated F, first reported 2027-01-01): improve to E or register an exemption",
    );
    expect(first[at("Action due")]).toBe("2027-01-01");
    expect(first[at("Message")]).toMatch(/EPC rated F first reported on 2027-01-01: the regulations give no date/);
    const again = outputRow(rated("F"), "2027-01-31T10:00:00Z", first);
    expect([again[at("Action due")], again[at("Days left")], again[at("Window")]]).toEqual([
      "2027-01-01",
      -30,
      "Overdue",
    ]);
  });

  test("the day is kept while a more urgent action shows in the row, and through a failed refresh", () => {
    const first = outputRow(rated("G", "2026-12-01"), "2027-01-01T10:00:00Z");
    expect(first[at("Next action")]).toMatch(/^EPC expired/);
    const failed = outputRow(
      { error: { kind: "network", status: 0, message: "offline" } as never },
      "2027-01-15T10:00:00Z",
      first,
    );
    expect(failed[at("Message")]).toMatch(/Not refreshed.*EPC rated G first reported on 2027-01-01/);
    const later = outputRow(rated("G", "2026-12-01"), "2027-02-10T10:00:00Z", failed);
    const obs = blockObligations([{ uprn: "1", address: "x", cells: later }], { today: "2027-02-10" });
    expect(obs.find((x) => x.ob.action.startsWith("Cannot be let"))?.ob.due).toBe("2027-01-01");
  });

  test("a row written before the day was noted counts from the day it was checked then", () => {
    const old = outputRow(rated("F"), "2026-12-01T10:00:00Z").map((v, i) =>
      i === at("Message") || i === at("Next action") ? "" : v,
    );
    const now = outputRow(rated("F"), "2027-01-31T10:00:00Z", old);
    expect(now[at("Action due")]).toBe("2026-12-01");
  });

  test("a property never shown F or G before starts today", () => {
    const before = outputRow(
      { result: result({ epc: { status: "pass", rating: "D", expiry: "2033-01-01" } }) },
      "2027-01-01T10:00:00Z",
    );
    const now = outputRow(rated("F"), "2027-01-31T10:00:00Z", before);
    expect(now[at("Action due")]).toBe(TODAY);
  });
});
