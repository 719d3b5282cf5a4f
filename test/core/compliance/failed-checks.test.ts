/**
 * A check the service failed is never OK, in any of the three countries and for every check: the row's window is at
 * the latest "Book", the Action list lists it whatever its window, and a dated renewal the result gives stays beside
 * it. An F or G rating's "first reported" day survives a refresh in every country, read from the row by the block and
 * by the Action list alike. Today is injected: nothing here reads the wall clock.
 */
import {
  CHECK_LABELS,
  addDays,
  addWorkingDays,
  blockProperties,
  buildActionList,
  checkingRow,
  obligationsFor,
  outputHeaders,
  outputRow,
  rowChanges,
  serviceError,
  type CheckName,
  type CheckResult,
  type Obligation,
} from "../../../core";
import { rowCountry, type Country } from "../../../core/compliance/country";

const TODAY = "2027-01-31";
const FAR = "2029-09-24";
const H = outputHeaders();
const at = (h: string) => H.indexOf(h);

const POSTCODES: Record<Country, string> = { England: "LS2 5UY", Wales: "CF10 1AA", Scotland: "EH9 1HY" };
const COUNTRIES = Object.keys(POSTCODES) as Country[];

const resultOf = (checks: Record<string, unknown>, postcode = "LS2 5UY"): CheckResult =>
  ({
    uprn: "100010000001",
    address: `2 High Street, ${postcode}`,
    compliance_score: 40,
    risk_level: "high",
    checks,
  }) as unknown as CheckResult;

/** For each check: a fail with a date years ahead (a renewal that must stay), and a fail with no date at all. */
const FAILS: [CheckName, Record<string, unknown>, Record<string, unknown>][] = [
  [
    "gas_safety",
    { status: "fail", last_certificate: addDays(FAR, -365), expiry: FAR },
    { status: "fail", last_certificate: null, expiry: null },
  ],
  [
    "eicr",
    { status: "fail", expiry: FAR, detail: "Unsatisfactory: C2 observations" },
    { status: "fail", expiry: null, detail: "No EICR on record for this property." },
  ],
  ["epc", { status: "fail", rating: "F", expiry: FAR }, { status: "fail", rating: "G", expiry: null }],
  [
    "licensing",
    { status: "fail", scheme: "Mandatory HMO licence", expiry: FAR },
    { status: "fail", scheme: "Selective licence", expiry: null },
  ],
  // A deposit has no renewal: its "future date" is the end of the period to protect it, counted from 3 days ago.
  ["deposit_protection", { status: "fail" }, { status: "fail", scheme: null, protected_date: null }],
];

const CASES = COUNTRIES.flatMap((country) =>
  FAILS.flatMap(([check, dated, undated]) => [
    [
      country,
      check,
      check === "deposit_protection" ? "3 days into its period" : "with a date years ahead",
      dated,
    ] as const,
    [country, check, "with no date", undated] as const,
  ]),
);

/** The row's block cells, the property as the Action list reads it, and the row's obligations, on `today`. */
function checkRow(
  country: Country,
  checks: Record<string, unknown>,
  today: string,
  previous?: readonly unknown[],
  dates: { tenancyStart?: string; depositReceived?: string } = {},
) {
  const result = resultOf(checks, POSTCODES[country]);
  const place = rowCountry(POSTCODES[country], country);
  // Checked at 20:00 UTC the evening before: the file's own day (Auckland's, say) is `today`, UTC's the day before.
  const cells = outputRow({ result }, `${addDays(today, -1)}T20:00:00Z`, previous, undefined, {
    day: today,
    country: place,
    tenancyStart: dates.tenancyStart,
    userDates: { depositReceived: dates.depositReceived },
  });
  const header = ["UPRN", "Postcode", "Country", "Tenancy start", "Deposit received", ...H];
  const row = [
    result.uprn,
    POSTCODES[country],
    country,
    dates.tenancyStart ?? "",
    dates.depositReceived ?? "",
    ...cells,
  ];
  const props = blockProperties([row], {
    blockColumn: 5,
    uprn: 0,
    postcode: 1,
    header,
    user: { depositReceived: 4 },
    dates: { monthFirst: false, today },
  });
  return { cells, props, result };
}

describe("a service fail is never OK, and never loses its dated renewal", () => {
  const started = addDays(TODAY, -3);
  test.each(CASES)("%s %s fail %s", (country, check, _what, member) => {
    const dates = { tenancyStart: started, depositReceived: started };
    const { cells, props, result } = checkRow(country, { [check]: member }, TODAY, undefined, dates);
    // The row: something to do, at the latest "Book".
    expect(["Overdue", "Urgent", "Book"]).toContain(cells[at("Window")]);
    expect(String(cells[at("Next action")])).not.toBe("");
    const obs = obligationsFor(result, {
      today: TODAY,
      country,
      tenancyStart: dates.tenancyStart,
      userDates: dates,
    }).filter((o) => o.check === check);
    const failed = obs.filter((o) => o.failed);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ due: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(["Overdue", "Urgent", "Book"]).toContain(failed[0].window);
    // The result's date years ahead keeps its own action, as in England.
    if (member.expiry === FAR) expect(obs.map((o: Obligation) => o.due)).toContain(FAR);
    // The Action list lists it, whatever its window, even counting only the next 7 days.
    const list = buildActionList(props, { today: TODAY, withinDays: 7 });
    const open = list.values.slice(1, 1 + list.open);
    const h = (name: string) => list.headers.indexOf(name);
    expect(open.map((r) => [r[h("Check")], r[h("Due")], r[h("Window")]])).toContainEqual([
      CHECK_LABELS[check],
      failed[0].due,
      failed[0].window,
    ]);
  });

  test("Scotland: an unprotected deposit whose tenancy began 3 days ago is Book, due in 30 working days, and listed", () => {
    const start = addDays(TODAY, -3);
    const { cells, props } = checkRow("Scotland", { deposit_protection: { status: "fail" } }, TODAY, undefined, {
      tenancyStart: start,
    });
    const due = addWorkingDays(start, 30);
    // Thursday 28 January; 30 working days later (no bank holiday between), 39 days on: beyond a 30-day list.
    expect([start, due]).toEqual(["2027-01-28", "2027-03-11"]);
    expect([cells[at("Window")], cells[at("Action due")]]).toEqual(["Book", due]);
    const list = buildActionList(props, { today: TODAY, withinDays: 30 });
    const h = (name: string) => list.headers.indexOf(name);
    expect(list.values.slice(1, 1 + list.open).map((r) => [r[h("Window")], r[h("Due")], r[h("Check")]])).toEqual([
      ["Book", due, "Deposit"],
    ]);
  });

  test("Scotland: a licensing fail naming a selective licence says Scotland has none, and is due now", () => {
    const { cells } = checkRow(
      "Scotland",
      { licensing: { status: "fail", scheme: "Selective licence (Glasgow City)" } },
      TODAY,
    );
    expect([cells[at("Window")], cells[at("Action due")]]).toEqual(["Overdue", TODAY]);
    expect(String(cells[at("Next action")])).toMatch(
      /^Licensing check failed: Selective licensing does not exist in Scotland/,
    );
    // A pass naming one is only said, with nothing due.
    const pass = checkRow("Scotland", { licensing: { status: "pass", scheme: "Selective licence" } }, TODAY).cells;
    expect([pass[at("Window")], pass[at("Action due")]]).toEqual(["OK", ""]);
    expect(String(pass[at("Next action")])).toContain("does not exist in Scotland");
  });
});

describe("an F or G rating keeps the day it was first reported, in every country", () => {
  const DAY1 = "2027-01-31";
  const DAY2 = "2027-02-01";
  const DAY40 = "2027-03-12";
  test.each(COUNTRIES)(
    "%s: checked on day 1 and again on day 2 and day 40 (each through a Checking… mark), the block and the Action list both say day 1; no change logged",
    (country) => {
      // An expired gas certificate is the row's Next action: only the Message keeps the EPC's day.
      const checks = {
        epc: { status: "fail", rating: "F", expiry: "2031-05-01" },
        gas_safety: { status: "fail", last_certificate: "2025-12-01", expiry: "2026-12-01" },
      };
      const listDue = (props: ReturnType<typeof checkRow>["props"], today: string) => {
        const list = buildActionList(props, { today, withinDays: 30 });
        const h = (name: string) => list.headers.indexOf(name);
        return list.values
          .slice(1, 1 + list.open)
          .filter((r) => r[h("Check")] === "EPC")
          .map((r) => r[h("Due")]);
      };
      const day1 = checkRow(country, checks, DAY1);
      expect([day1.cells[at("Action due")], day1.cells[at("Next action")]]).toEqual([
        "2026-12-01",
        expect.stringMatching(/^Gas safety check overdue/),
      ]);
      expect(String(day1.cells[at("Message")])).toContain(`first reported on ${DAY1}`);
      expect(listDue(day1.props, DAY1)).toEqual([DAY1]);
      let previous = day1.cells;
      for (const day of [DAY2, DAY40]) {
        // As both hosts do: the row says "Checking…" while its result is on the way, and the result is written over it.
        const marked = checkingRow(previous, `${day}T08:00:00Z`, "run-1");
        expect(String(marked[at("Message")])).toMatch(/^Checking… \(run \w{5}; .*; EPC rated F first reported on/);
        const again = checkRow(country, checks, day, marked);
        expect(String(again.cells[at("Message")])).toContain(`first reported on ${DAY1}`);
        expect(listDue(again.props, day)).toEqual([DAY1]);
        expect(rowChanges(previous, again.cells)).toEqual([]);
        previous = again.cells;
      }
      // A refresh that failed keeps the day too.
      const failed = outputRow(
        { error: serviceError("network", "offline", "Offline.") },
        `${DAY40}T08:00:00Z`,
        previous,
      );
      expect(String(failed[at("Message")])).toContain(`first reported on ${DAY1}`);
    },
  );
});
