/**
 * A row's typed dates are read once, by one rule in the file's date order (core/sheet/row-dates.ts): the results block's row
 * and the Action list built from it (its Due, its calendar) give the same day for the same cell, day-first and
 * month-first. A number in a date column is a date only when it is a real date's serial.
 */
import ICAL from "ical.js";
import {
  addDays,
  addMonths,
  blockProperties,
  buildActionList,
  actionCalendar,
  dateReading,
  dateSerial,
  outputHeaders,
  outputRow,
  resultRowContext,
  rowDates,
  type Cell,
  type CheckResult,
  type ReadDateOptions,
} from "../../../core";

const TODAY = "2025-06-20";
const DAY_FIRST: ReadDateOptions = { monthFirst: false, today: TODAY };
const MONTH_FIRST: ReadDateOptions = { monthFirst: true, today: TODAY };
const H = outputHeaders();
const HEADER = ["UPRN", "Address", "Deposit received", "Tenancy start", "Smoke alarms checked", ...H];
const BLOCK = 5;

const result: CheckResult = {
  uprn: "100023336956",
  address: "1 Road, Town, SW1A 1AA",
  compliance_score: 40,
  risk_level: "high",
  checks: { deposit_protection: { status: "fail", scheme: null, protected_date: null } },
} as unknown as CheckResult;

/** One row as the results block writes it (its dates read by rowDates), then the Action list built from the sheet. */
function blockAndList(typed: unknown[], order: ReadDateOptions) {
  const ours = new Set(H.map((_h, k) => BLOCK + k));
  const user = ["100023336956", "1 Road", ...typed];
  const dates = rowDates(user, dateReading(HEADER, order, ours));
  // As both hosts write it: core's context from the row's dates.
  const cells = outputRow(
    { result },
    `${TODAY}T09:00:00Z`,
    undefined,
    undefined,
    resultRowContext(dates, { day: TODAY }),
  );
  const row: Cell[] = [...(user as Cell[]), ...cells];
  const props = blockProperties([row], { blockColumn: BLOCK, uprn: 0, address: 1, header: HEADER, dates: order });
  const list = buildActionList(props, { today: TODAY, withinDays: 30 });
  const open = list.values.slice(1, 1 + list.open);
  const deposit = open.find((r) => String(r[list.headers.indexOf("Check")]).startsWith("Deposit"));
  const ics = new ICAL.Component(ICAL.parse(actionCalendar(list, { nowIso: `${TODAY}T09:00:00Z` })));
  const events = ics.getAllSubcomponents("vevent").map((e) => ({
    summary: String(e.getFirstPropertyValue("summary")),
    start: String(e.getFirstPropertyValue("dtstart")),
  }));
  return {
    dates,
    blockDue: cells[H.indexOf("Action due")],
    message: cells[H.indexOf("Message")],
    listDue: deposit?.[list.headers.indexOf("Due")],
    calendarDue: events.find((e) => /deposit/i.test(e.summary))?.start,
    props,
  };
}

describe("the block and the Action list read a typed date as the same day", () => {
  // "03/04/2025" is 3 April day-first, 4 March month-first; the deposit is due 30 days beginning with that day.
  test.each([
    ["03/04/2025", DAY_FIRST, "2025-04-03"],
    ["03/04/2025", MONTH_FIRST, "2025-03-04"],
    ["01/02/25", DAY_FIRST, "2025-02-01"],
    ["01/02/25", MONTH_FIRST, "2025-01-02"],
  ])("%p, month-first %p", (typed, order, received) => {
    const r = blockAndList([typed, "", ""], order);
    const due = addDays(received, 29);
    expect(r.dates.userDates).toEqual({ depositReceived: received });
    expect([r.blockDue, r.listDue, r.calendarDue, r.message]).toEqual([due, due, due, ""]);
    expect(r.props[0].userDates).toEqual({ depositReceived: received });
  });

  test("Tenancy start and the own-obligation columns are read in the same order", () => {
    const us = blockAndList(["", "03/04/2025", "03/05/2025"], MONTH_FIRST);
    expect([us.dates.tenancyStart, us.dates.own[0]?.date]).toEqual(["2025-03-04", "2025-03-05"]);
    expect([us.props[0].tenancyStart, us.props[0].own?.[0]?.date]).toEqual(["2025-03-04", "2025-03-05"]);
    const uk = blockAndList(["", "03/04/2025", "03/05/2025"], DAY_FIRST);
    expect([uk.props[0].tenancyStart, uk.props[0].own?.[0]?.date]).toEqual(["2025-04-03", "2025-05-03"]);
  });

  test("a Tenancy start that is not a date is said in the block's row", () => {
    const r = blockAndList(["", "soon", ""], DAY_FIRST);
    expect(r.dates.problems).toEqual([
      'Tenancy start "soon" is not a date the add-in can read: type it as 2021-03-15 or 15/03/2021.',
    ]);
    expect(r.message).toContain('Tenancy start "soon" is not a date');
  });
});

describe("a number in a date column is a date only when it is a real date's serial", () => {
  test("a real date cell (its serial) is read, in both orders", () => {
    const serial = dateSerial("2025-04-03")!;
    for (const order of [DAY_FIRST, MONTH_FIRST]) {
      const r = blockAndList([serial, "", ""], order);
      expect([r.dates.userDates.depositReceived, r.blockDue, r.listDue]).toEqual([
        "2025-04-03",
        "2025-05-02",
        "2025-05-02",
      ]);
    }
  });

  test("a bare year is refused aloud at its row, never read as a day of 1905", () => {
    const r = blockAndList([2025, "", ""], DAY_FIRST);
    expect(r.dates.userDates).toEqual({});
    expect(r.dates.problems).toEqual([
      'Deposit received "2025" is a year, not a date: type the whole date (for example 2021-03-15), or clear the cell.',
    ]);
    expect(r.message).toContain('Deposit received "2025" is a year, not a date');
    // No deposit received: the rule's own answer (protect it now), not a deadline counted from 1905.
    expect(r.blockDue).toBe(TODAY);
    expect(r.props[0].userDates).toEqual({});
  });

  test("a number before 1990, or more than 50 years after the check, is refused with the day it would be", () => {
    const before = dateSerial("1989-12-31")!;
    const first = dateSerial("1990-01-01")!;
    const last = dateSerial(addMonths(TODAY, 600))!;
    const range = "1 January 1990 to 20 June 2075";
    expect(rowDates([before], dateReading(["Deposit received"], DAY_FIRST)).problems).toEqual([
      `Deposit received "${before}" is a number that reads as 31 December 1989, outside the dates the add-in reads (${range}): type the date (for example 2021-03-15), or clear the cell.`,
    ]);
    expect(rowDates([last + 1], dateReading(["Deposit received"], DAY_FIRST)).problems[0]).toMatch(
      /reads as 21 June 2075, outside the dates the add-in reads/,
    );
    expect(rowDates([first], dateReading(["Deposit received"], DAY_FIRST)).userDates).toEqual({
      depositReceived: "1990-01-01",
    });
    expect(rowDates([last + 0.5], dateReading(["EICR date"], MONTH_FIRST)).userDates).toEqual({
      eicrDate: "2075-06-20",
    });
  });

  test("the own-obligation columns refuse a bare year too: said as unreadable, not taken as a day", () => {
    const r = rowDates([2024], dateReading(["Smoke alarms checked"], DAY_FIRST));
    expect(r.own).toEqual([expect.objectContaining({ date: null, unreadable: "2024" })]);
  });
});

test("a results row's context carries its dates, and its date problems only when there are some (both hosts count those rows)", () => {
  const ours = new Set(H.map((_h, k) => BLOCK + k));
  const reading = dateReading(HEADER, DAY_FIRST, ours);
  const read = resultRowContext(rowDates(["100023336956", "1 Road", "03/04/2025", "", ""], reading), {
    day: TODAY,
    windows: { eicr: { urgent: 30 } },
  });
  // Day-first: 03/04/2025 is 3 April.
  expect(read).toEqual({ day: TODAY, windows: { eicr: { urgent: 30 } }, userDates: { depositReceived: "2025-04-03" } });
  const unread = resultRowContext(rowDates(["100023336956", "1 Road", "the 40th", "", ""], reading), { day: TODAY });
  expect(unread.problems).toHaveLength(1);
  expect(unread.problems![0]).toMatch(/the 40th/);
  expect(resultRowContext(undefined, { day: TODAY })).toEqual({ day: TODAY });
});
