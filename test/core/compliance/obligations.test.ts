/**
 * The obligations table: dated cases with a fixed "today", over the edges (exactly on a window's boundary, due today,
 * one day overdue, leap days, missing dates) for every check. Each row is what docs/compliance-rules.md says.
 */
import {
  DEFAULT_ACTION_LIST_DAYS,
  DEFAULT_WINDOWS,
  WINDOW_COLOURS,
  addMonths,
  dateSerial,
  nextObligation,
  obligationFor,
  outputHeaders,
  outputRow,
  parseWindowSettings,
  windowFieldNamed,
  windowFieldRows,
  MAX_WINDOW_DAYS,
  serialDate,
  storedActionDays,
  storedPlan,
  storedWindows,
  windowFor,
  type CheckName,
  type CheckResult,
  type Obligation,
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

type Case = [
  name: string,
  check: CheckName,
  member: Record<string, unknown>,
  expected: Partial<Obligation> | null,
  userDates?: UserDates,
];

const CASES: Case[] = [
  // Gas safety: windows 60 / 30 / 7.
  [
    "gas: exactly 60 days is Plan",
    "gas_safety",
    { status: "warning", expiry: "2027-04-01" },
    { due: "2027-04-01", daysLeft: 60, window: "Plan" },
  ],
  ["gas: 61 days is OK", "gas_safety", { status: "pass", expiry: "2027-04-02" }, { daysLeft: 61, window: "OK" }],
  [
    "gas: exactly 30 days is Book",
    "gas_safety",
    { status: "warning", expiry: "2027-03-02" },
    { daysLeft: 30, window: "Book" },
  ],
  [
    "gas: exactly 7 days is Urgent",
    "gas_safety",
    { status: "warning", expiry: "2027-02-07" },
    { daysLeft: 7, window: "Urgent" },
  ],
  ["gas: 8 days is Book", "gas_safety", { status: "warning", expiry: "2027-02-08" }, { daysLeft: 8, window: "Book" }],
  [
    "gas: due today is Urgent",
    "gas_safety",
    { status: "warning", expiry: TODAY },
    { due: TODAY, daysLeft: 0, window: "Urgent" },
  ],
  ["gas: 1 day overdue", "gas_safety", { status: "fail", expiry: "2027-01-30" }, { daysLeft: -1, window: "Overdue" }],
  // No expiry: 12 calendar months after the last certificate; a leap day rolls to 28 February.
  [
    "gas: last certificate + 12 months",
    "gas_safety",
    { status: "warning", last_certificate: "2026-03-15" },
    { due: "2027-03-15", daysLeft: 43, window: "Plan" },
  ],
  [
    "gas: leap day + 12 months = 28 Feb",
    "gas_safety",
    { status: "warning", last_certificate: "2028-02-29" },
    { due: "2029-02-28" },
  ],
  [
    "gas: missing certificate is due now",
    "gas_safety",
    { status: "fail", last_certificate: null, expiry: null },
    { due: TODAY, daysLeft: 0, window: "Overdue" },
  ],
  ["gas: not required", "gas_safety", { status: "not_required" }, null],
  // EICR: 120 / 60 / 30; the user's EICR date + 5 years; failed reports.
  [
    "eicr: exactly 120 days is Plan",
    "eicr",
    { status: "pass", expiry: "2027-05-31" },
    { daysLeft: 120, window: "Plan" },
  ],
  ["eicr: 60 days is Book", "eicr", { status: "warning", expiry: "2027-04-01" }, { daysLeft: 60, window: "Book" }],
  [
    "eicr: user's EICR date + 5 years",
    "eicr",
    { status: "pass", expiry: null },
    { due: "2027-03-01", daysLeft: 29, window: "Urgent" },
    { eicrDate: "2022-03-01" },
  ],
  [
    "eicr: EICR date on a leap day + 5 years",
    "eicr",
    { status: "pass", expiry: null },
    { due: "2029-02-28" },
    { eicrDate: "2024-02-29" },
  ],
  [
    "eicr: no date at all",
    "eicr",
    { status: "pass", expiry: null },
    { due: null, daysLeft: null, window: "OK", action: "" },
  ],
  [
    "eicr: unsatisfactory, remedial date named in the detail",
    "eicr",
    {
      status: "fail",
      expiry: "2031-12-01",
      detail: "Unsatisfactory report (C2 observations); remedial work was due by 2027-01-20.",
    },
    {
      due: "2027-01-20",
      daysLeft: -11,
      window: "Overdue",
      action:
        "Remedial work within 28 days of the inspection, then confirm in writing to the tenant and the council within 28 days of finishing it",
    },
  ],
  [
    "eicr: unsatisfactory, 28 days starting with the report (expiry - 5 years): report + 27",
    "eicr",
    { status: "fail", expiry: "2032-01-20", detail: "Unsatisfactory (FI)" },
    { due: "2027-02-16", daysLeft: 16, window: "Urgent" },
  ],
  [
    "eicr: missing report",
    "eicr",
    { status: "fail", expiry: null, detail: "No EICR on record for this property." },
    { due: TODAY, window: "Overdue", action: "Get an EICR (qualified electrician): none on record" },
  ],
  [
    "eicr: expired report",
    "eicr",
    { status: "fail", expiry: "2026-12-01", detail: "EICR expired on 2026-12-01." },
    { due: "2026-12-01", window: "Overdue" },
  ],
  // EPC: 180 / 90 / 30; F/G cannot be let; D/E a note for 2030.
  [
    "epc: exactly 180 days is Plan",
    "epc",
    { status: "pass", rating: "C", expiry: "2027-07-30" },
    { daysLeft: 180, window: "Plan" },
  ],
  [
    "epc: 90 days is Book",
    "epc",
    { status: "warning", rating: "B", expiry: "2027-05-01" },
    { daysLeft: 90, window: "Book" },
  ],
  [
    "epc: rating F cannot be let",
    "epc",
    { status: "fail", rating: "F", expiry: "2030-01-01" },
    {
      due: TODAY,
      window: "Overdue",
      action: "Cannot be let (rated F, first reported 2027-01-31): improve to E or register an exemption",
    },
  ],
  [
    "epc: rating g (lower case) cannot be let",
    "epc",
    { status: "fail", rating: "g", expiry: "2030-01-01" },
    { window: "Overdue" },
  ],
  [
    "epc: rating D is a 2030 planning note, never overdue",
    "epc",
    { status: "pass", rating: "D", expiry: "2033-01-01" },
    {
      due: "2030-10-01",
      window: "Plan",
      action: "Below C: the announced minimum of C from 1 October 2030 is not yet law",
    },
  ],
  [
    "epc: rating E with an expiry in 20 days: the expiry is more urgent",
    "epc",
    { status: "warning", rating: "E", expiry: "2027-02-20" },
    { due: "2027-02-20", window: "Urgent" },
  ],
  ["epc: rating C far off is OK", "epc", { status: "pass", rating: "C", expiry: "2035-01-01" }, { window: "OK" }],
  // Licensing: a fail is due now; the user's Licence expiry, 120 / 60.
  [
    "licensing: fail, apply now",
    "licensing",
    { status: "fail", scheme: "Selective licence (Newham)" },
    { due: TODAY, window: "Overdue", action: "Apply for the licence (Selective licence (Newham))" },
  ],
  [
    "licensing: licence expiry in 100 days is Plan",
    "licensing",
    { status: "pass", scheme: "Mandatory HMO licence" },
    { due: "2027-05-11", daysLeft: 100, window: "Plan" },
    { licenceExpiry: "2027-05-11" },
  ],
  [
    "licensing: no expiry known",
    "licensing",
    { status: "pass", scheme: "Mandatory HMO licence" },
    { due: null, window: "OK", action: "" },
  ],
  // Deposit: 30 days from receipt, else due now.
  [
    "deposit: unprotected, received 10 days ago: 30 days beginning with receipt end on day 29 after, 19 days left (a failed check: Book, not Plan's 30 / 14 / 7)",
    "deposit_protection",
    { status: "fail" },
    { due: "2027-02-19", daysLeft: 19, window: "Book", failed: true },
    { depositReceived: "2027-01-21" },
  ],
  [
    "deposit: unprotected, no receipt date: due now",
    "deposit_protection",
    { status: "fail" },
    {
      due: TODAY,
      window: "Overdue",
      action: "Protect the deposit and serve the prescribed information within 30 days of receiving it",
    },
  ],
  [
    "deposit: protected",
    "deposit_protection",
    { status: "pass", scheme: "DPS", protected_date: "2026-01-01" },
    { window: "OK", action: "" },
  ],
  // Other cases.
  [
    "unknown status word",
    "licensing",
    { status: "under_review" },
    { due: null, window: "Plan", action: "Check this property's record" },
  ],
  ["not required", "epc", { status: "not_required" }, null],
  ["a warning with no date", "deposit_protection", { status: "warning" }, { due: null, window: "Plan" }],
];

describe("obligations table (today 2027-01-31)", () => {
  // Every row given five cells: jest takes a test function with more parameters than its row has cells for a done-callback test.
  test.each(CASES.map(([n, c, m, e, u]) => [n, c, m, e, u ?? {}] as const))(
    "%s",
    (_name, check, member, expected, userDates) => {
      const ob = obligationFor(result({ [check]: member }), check, { today: TODAY, userDates });
      if (expected === null) expect(ob).toBeNull();
      else {
        expect(ob).toMatchObject(expected);
        expect(ob!.rule.length).toBeGreaterThan(10);
      }
    },
  );

  test("gas: the action names the reg 36A early window (2 months ending with the deadline date)", () => {
    const ob = obligationFor(result({ gas_safety: { status: "warning", expiry: "2027-03-15" } }), "gas_safety", {
      today: TODAY,
    })!;
    expect(ob.action).toBe(
      "Book the annual gas safety check (Gas Safe engineer): a check from 2027-01-16 keeps the 2027-03-15 anniversary",
    );
    expect(ob.rule).toMatch(/reg 36 and 36A/);
  });

  test("windows can be set per check", () => {
    const member = { gas_safety: { status: "pass", expiry: "2027-04-01" } };
    expect(obligationFor(result(member), "gas_safety", { today: TODAY })!.window).toBe("Plan");
    expect(
      obligationFor(result(member), "gas_safety", { today: TODAY, windows: { gas_safety: { plan: 45 } } })!.window,
    ).toBe("OK");
    expect(
      obligationFor(result(member), "gas_safety", { today: TODAY, windows: { gas_safety: { plan: 90, book: 60 } } })!
        .window,
    ).toBe("Book");
  });

  test("the row's next action is its most urgent: window first, then the earliest date", () => {
    const r = result({
      epc: { status: "pass", rating: "D", expiry: "2033-01-01" }, // Plan (2030 note)
      gas_safety: { status: "warning", expiry: "2027-02-20" }, // Book, 20 days
      eicr: { status: "warning", expiry: "2027-02-25" }, // Urgent (30-day window), 25 days
      deposit_protection: { status: "not_required" },
    });
    const next = nextObligation(r, { today: TODAY })!;
    expect(next).toMatchObject({ check: "eicr", window: "Urgent", daysLeft: 25 });
    expect(
      nextObligation(result({ epc: { status: "pass", rating: "B", expiry: "2035-01-01" } }), { today: TODAY }),
    ).toMatchObject({ window: "OK" });
    expect(nextObligation(result({ deposit_protection: { status: "pass" } }), { today: TODAY })).toBeNull();
  });

  test("window boundaries from the defaults", () => {
    const w = DEFAULT_WINDOWS.gas_safety;
    expect([-1, 0, 7, 8, 30, 31, 60, 61].map((d) => windowFor(d, w))).toEqual([
      "Overdue",
      "Urgent",
      "Urgent",
      "Book",
      "Book",
      "Plan",
      "Plan",
      "OK",
    ]);
    expect(Object.keys(WINDOW_COLOURS)).toEqual(["Overdue", "Urgent", "Book", "Plan", "OK"]);
  });

  test("calendar months and date serials", () => {
    expect(addMonths("2024-02-29", 12)).toBe("2025-02-28");
    expect(addMonths("2024-02-29", 48)).toBe("2028-02-29");
    expect(addMonths("2027-03-31", -1)).toBe("2027-02-28");
    expect(addMonths("2027-01-31", -2)).toBe("2026-11-30");
    // Excel and Sheets: 1900-03-01 is 61, 2027-01-31 is 46418.
    expect(dateSerial("1900-03-01")).toBe(61);
    expect(dateSerial("2027-01-31")).toBe(46418);
    expect(dateSerial("2027-02-30")).toBeNull();
    expect(serialDate(46418)).toBe("2027-01-31");
    expect(serialDate(46418.75)).toBe("2027-01-31");
  });

  test("window settings typed by a user are checked field by field", () => {
    expect(parseWindowSettings({ gas_safety: { plan: " 90 ", book: 45 } })).toEqual({
      ok: true,
      value: expect.objectContaining({ gas_safety: { plan: 90, book: 45, urgent: 7 } }),
    });
    expect(parseWindowSettings({ eicr: { plan: "soon" } })).toEqual({
      ok: false,
      message: expect.stringContaining('EICR plan window: "soon"'),
    });
    expect(parseWindowSettings({ epc: { plan: 10, book: 20 } })).toEqual({
      ok: false,
      message: expect.stringContaining("Plan ≥ Book ≥ Urgent"),
    });
    expect(parseWindowSettings({ boiler: {} })).toEqual({
      ok: false,
      message: expect.stringContaining('"boiler" is not a check'),
    });
    expect(parseWindowSettings(undefined)).toEqual({ ok: true, value: DEFAULT_WINDOWS });
  });

  test("a refused window names the field both add-ins mark: its id and label come from core's windows table", () => {
    const refusal = (input: unknown) => {
      const r = parseWindowSettings(input);
      return r.ok ? "" : r.message;
    };
    expect(windowFieldNamed(refusal({ eicr: { urgent: "1e2" } }))).toEqual({
      check: "eicr",
      key: "urgent",
      id: "win-eicr-urgent",
      label: "EICR urgent window, days",
    });
    expect(windowFieldNamed(refusal({ gas_safety: { book: "" } }))?.id).toBe("win-gas_safety-book");
    // Out of order: the check's Plan field.
    expect(windowFieldNamed(refusal({ epc: { plan: 10, book: 20 } }))?.id).toBe("win-epc-plan");
    expect(windowFieldNamed(refusal({ eicr: { plan: MAX_WINDOW_DAYS + 1 } }))?.id).toBe("win-eicr-plan");
    expect(windowFieldNamed(refusal({ boiler: {} }))).toBeUndefined();
    const ids = windowFieldRows().flatMap((r) => r.fields.map((f) => f.id));
    expect(new Set(ids).size).toBe(15);
  });

  test.each([" ", "", "1e2", "0x1E", "7.0", "+7", "-1", "7 days", "3651", 7.5, true, [7]])(
    "a window typed as %p is refused, naming the field",
    (typed) => {
      const r = parseWindowSettings({ eicr: { urgent: typed } });
      expect(r).toEqual({ ok: false, message: expect.stringMatching(/^EICR urgent window(:| is empty)/) });
    },
  );

  test("unknown checks, unknown window names and a check that is not a set of windows are refused", () => {
    expect(parseWindowSettings({ gas: { plan: 5 } })).toEqual({
      ok: false,
      message: '"gas" is not a check (use epc, gas_safety, eicr, licensing, deposit_protection).',
    });
    expect(parseWindowSettings({ gas_safety: { plann: 5 } })).toEqual({
      ok: false,
      message: 'Gas safety "plann" is not a window (use plan, book, urgent).',
    });
    expect(parseWindowSettings({ gas_safety: 30 })).toEqual({
      ok: false,
      message: expect.stringMatching(/^Gas safety windows must give plan, book and urgent days/),
    });
    expect(parseWindowSettings({ gas_safety: { plan: "030", book: 30, urgent: 0 } })).toEqual({
      ok: true,
      value: expect.objectContaining({ gas_safety: { plan: 30, book: 30, urgent: 0 } }),
    });
  });
});

describe("the four action columns of the results block", () => {
  const headers = outputHeaders();
  const at = (h: string) => headers.indexOf(h);

  test("come after Message and give the row's most urgent action as of the check's day", () => {
    expect(headers.slice(-6)).toEqual([
      "Message",
      "Next action",
      "Action due",
      "Days left",
      "Window",
      "Licensing expiry",
    ]);
    const row = outputRow(
      {
        result: result({
          gas_safety: { status: "warning", expiry: "2027-02-05" },
          epc: { status: "pass", rating: "B", expiry: "2030-01-01" },
        }),
      },
      "2027-01-31T09:00:00Z",
    );
    expect(row[at("Next action")]).toMatch(/^Book the annual gas safety check/);
    expect(row[at("Action due")]).toBe("2027-02-05");
    expect(row[at("Days left")]).toBe(5);
    expect(row[at("Window")]).toBe("Urgent");
  });

  test("use the user's dates and windows given as the row's context", () => {
    const r = result({ deposit_protection: { status: "fail" } });
    const row = outputRow({ result: r }, "2027-01-31T09:00:00Z", undefined, undefined, {
      userDates: { depositReceived: "2027-01-25" },
      windows: { deposit_protection: { plan: 30, book: 30, urgent: 25 } },
    });
    expect([row[at("Action due")], row[at("Days left")], row[at("Window")]]).toEqual(["2027-02-23", 23, "Urgent"]);
  });

  test("an error that is not about the property keeps the earlier action columns", () => {
    const first = outputRow(
      { result: result({ gas_safety: { status: "warning", expiry: "2027-02-05" } }) },
      "2027-01-31T09:00:00Z",
    );
    // Excel hands a date cell back as its serial number: it is read as the date it shows.
    const readBack = first.map((v, i) => (i === at("Action due") ? dateSerial(String(v)) : v));
    const again = outputRow(
      { error: { kind: "network", status: 0, message: "offline" } as never },
      "2027-02-01T09:00:00Z",
      readBack as never,
    );
    expect(again[at("Action due")]).toBe("2027-02-05");
    expect(again[at("Window")]).toBe("Urgent");
  });

  test("an answer that the property is unknown leaves the action columns blank", () => {
    const row = outputRow(
      { error: { kind: "not_found", status: 404, code: "property_not_found", message: "No property" } as never },
      "2027-01-31T09:00:00Z",
    );
    expect([row[at("Next action")], row[at("Action due")], row[at("Days left")], row[at("Window")]]).toEqual([
      "",
      "",
      "",
      "",
    ]);
  });
});

test("stored settings read back the same in both hosts: unreadable or out-of-range text gives the defaults", () => {
  const defaults = storedWindows(undefined);
  expect(storedWindows("{not json")).toEqual(defaults);
  expect(storedWindows(JSON.stringify({ gas_safety: { plan: 5, book: 10, urgent: 1 } }))).toEqual(defaults);
  const mine = storedWindows(JSON.stringify({ gas_safety: { plan: 90, book: 45, urgent: 10 } }));
  expect(mine.gas_safety).toEqual({ plan: 90, book: 45, urgent: 10 });
  expect(mine.eicr).toEqual(defaults.eicr);
  expect(storedActionDays("60")).toBe(60);
  expect(storedActionDays(45)).toBe(DEFAULT_ACTION_LIST_DAYS);
  expect(storedActionDays(null)).toBe(DEFAULT_ACTION_LIST_DAYS);
  expect(storedPlan("enterprise")).toBe("enterprise");
  expect(storedPlan("Enterprise ")).toBe("professional");
  expect(storedPlan(undefined)).toBe("professional");
});
