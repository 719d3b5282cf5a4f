/**
 * A date the user typed in their own columns is read, or refused with a sentence naming the column and the value:
 * core's one rule (core/sheet/user-dates.ts), which both hosts call.
 */
import {
  dateProblemsLine,
  detectUserColumns,
  isMonthFirstLocale,
  outputHeaders,
  outputRow,
  readUserDate,
  readUserDates,
  type CheckResult,
  type ReadDateOptions,
} from "../../../core";

/** The day of the check: a number more than 50 years after it is not a date. */
const TODAY = "2026-11-27";
const UK = { monthFirst: false, today: TODAY };
const US = { monthFirst: true, today: TODAY };
const UNKNOWN = { monthFirst: undefined, today: TODAY };

describe("read as the day it names", () => {
  const cases: [unknown, string, ReadDateOptions][] = [
    ["2021-03-15", "2021-03-15", UK],
    ["2021-3-15", "2021-03-15", UK],
    ["2021/03/15", "2021-03-15", US],
    ["2021-03-15T00:00:00Z", "2021-03-15", UK],
    [" 15/03/2021 ", "2021-03-15", UK],
    ["15-03-2021", "2021-03-15", UK],
    ["15.03.21", "2021-03-15", UK],
    ["5/3/2021", "2021-03-05", UK],
    ["05/03/2021", "2021-05-03", US],
    ["03/15/2021", "2021-03-15", US],
    ["15 Mar 2021", "2021-03-15", UK],
    ["15 March 2021", "2021-03-15", UK],
    ["15-Mar-21", "2021-03-15", UK],
    ["15th March 2021", "2021-03-15", UK],
    ["1 Sept 2021", "2021-09-01", UK],
    ["March 15, 2021", "2021-03-15", US],
    ["29/02/2024", "2024-02-29", UK],
    ["01/01/30", "1930-01-01", UK],
    ["01/01/29", "2029-01-01", UK],
    // An Excel date cell is its serial: 44270 is 2021-03-15.
    [44270, "2021-03-15", UK],
    [44270.75, "2021-03-15", UK],
  ];
  test.each(cases)("%p", (value, day, o) => {
    expect(readUserDate(value, "Deposit received", o)).toEqual({ day });
  });
});

describe("refused aloud, naming the column and the value", () => {
  const cases: [unknown, RegExp, ReadDateOptions][] = [
    ["soon", /^Deposit received "soon" is not a date the add-in can read: type it as 2021-03-15/, UK],
    ["31/02/2021", /"31\/02\/2021" is not a day of the calendar/, UK],
    ["2021-02-29", /"2021-02-29" is not a day of the calendar/, UK],
    [
      "03/15/2021",
      /"03\/15\/2021" is not a date in this file's order, day first .*as 15 March 2021: type it as 2021-03-15/,
      UK,
    ],
    ["15/03/2021", /not a date in this file's order, month first .*as 15 March 2021/, US],
    ["05/03/2021", /"05\/03\/2021" reads two ways \(5 March 2021 or 3 May 2021\)/, UNKNOWN],
    ["15 Smarch 2021", /is not a date the add-in can read/, UK],
    ["TBC", /"TBC" is not a date/, UK],
    [-5, /"-5" is not a date/, UK],
    [true, /"true" is not a date/, UK],
  ];
  test.each(cases)("%p", (value, message, o) => {
    const r = readUserDate(value, "Deposit received", o);
    expect(r).toEqual({ problem: expect.stringMatching(message) });
  });

  test("an empty cell is no date and no problem", () => {
    expect(readUserDate("", "x", UK)).toEqual({ empty: true });
    expect(readUserDate("   ", "x", UK)).toEqual({ empty: true });
    expect(readUserDate(null, "x", UK)).toEqual({ empty: true });
  });

  test("numbers-only text that reads the same both ways needs no locale", () => {
    expect(readUserDate("03/03/2021", "x", UNKNOWN)).toEqual({ day: "2021-03-03" });
    expect(readUserDate("15/03/2021", "x", UNKNOWN)).toEqual({ day: "2021-03-15" });
  });
});

test("locales: month-first only where the locale writes it so", () => {
  expect(isMonthFirstLocale("en_US")).toBe(true);
  expect(isMonthFirstLocale("en-US")).toBe(true);
  expect(isMonthFirstLocale("en_GB")).toBe(false);
  expect(isMonthFirstLocale("fr_FR")).toBe(false);
  expect(isMonthFirstLocale("")).toBeUndefined();
});

describe("a row's own dates", () => {
  const header = ["UPRN", "Deposit received", "EICR date", "Licence expiry"];
  const cols = detectUserColumns(header);

  test("read the readable ones and say which cannot be read, by the user's own header", () => {
    const r = readUserDates(["100023336956", "20/11/2026", "pending", 46000], cols, { ...UK, header });
    expect(r.dates).toEqual({ depositReceived: "2026-11-20", licenceExpiry: "2025-12-09" });
    expect(r.problems).toEqual([
      'EICR date "pending" is not a date the add-in can read: type it as 2021-03-15 or 15/03/2021.',
    ]);
  });

  test("the problem lands in the row's Message beside the result, and the deposit is not guessed as due today", () => {
    const result = {
      uprn: "1",
      address: "x",
      compliance_score: 0,
      risk_level: "high",
      checks: { deposit_protection: { status: "fail" } },
    } as CheckResult;
    const r = readUserDates(["1", "20/13/2026", "", ""], cols, { ...UK, header });
    const row = outputRow({ result }, "2026-11-25T09:00:00Z", undefined, undefined, {
      userDates: r.dates,
      problems: r.problems,
    });
    const H = outputHeaders();
    expect(row[H.indexOf("Message")]).toBe(
      'Deposit received "20/13/2026" is not a day of the calendar: correct the date.',
    );
  });

  test("the run summary counts the rows", () => {
    expect(dateProblemsLine(0)).toBe("");
    expect(dateProblemsLine(1)).toMatch(/^1 row has a date in your own columns that could not be read/);
    expect(dateProblemsLine(1200)).toMatch(/^1,200 rows have/);
  });
});
