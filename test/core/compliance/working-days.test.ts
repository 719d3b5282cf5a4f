/**
 * Working days as the Tenancy Deposit Schemes (Scotland) Regulations 2011 define them (reg 2: not a Saturday, Sunday or
 * a bank holiday "in any part of the United Kingdom"), and the bank holidays they rest on, held to GOV.UK's published
 * lists (https://www.gov.uk/bank-holidays, checked 2026-11-25).
 */
import { addWorkingDays, bankHolidays, easterSunday, isWorkingDay } from "../../../core/compliance/working-days";

describe("bank holidays, as GOV.UK lists them", () => {
  test.each([
    [
      2024,
      "scotland",
      [
        "2024-01-01",
        "2024-01-02",
        "2024-03-29",
        "2024-05-06",
        "2024-05-27",
        "2024-08-05",
        "2024-12-02",
        "2024-12-25",
        "2024-12-26",
      ],
    ],
    [
      2025,
      "scotland",
      [
        "2025-01-01",
        "2025-01-02",
        "2025-04-18",
        "2025-05-05",
        "2025-05-26",
        "2025-08-04",
        "2025-12-01",
        "2025-12-25",
        "2025-12-26",
      ],
    ],
    [
      2026,
      "scotland",
      [
        "2026-01-01",
        "2026-01-02",
        "2026-04-03",
        "2026-05-04",
        "2026-05-25",
        "2026-08-03",
        "2026-11-30",
        "2026-12-25",
        "2026-12-28",
      ],
    ],
    [
      2027,
      "scotland",
      [
        "2027-01-01",
        "2027-01-04",
        "2027-03-26",
        "2027-05-03",
        "2027-05-31",
        "2027-08-02",
        "2027-11-30",
        "2027-12-27",
        "2027-12-28",
      ],
    ],
    [
      2026,
      "england_wales",
      ["2026-01-01", "2026-04-03", "2026-04-06", "2026-05-04", "2026-05-25", "2026-08-31", "2026-12-25", "2026-12-28"],
    ],
    [
      2027,
      "england_wales",
      ["2027-01-01", "2027-03-26", "2027-03-29", "2027-05-03", "2027-05-31", "2027-08-30", "2027-12-27", "2027-12-28"],
    ],
    [
      2025,
      "northern_ireland",
      [
        "2025-01-01",
        "2025-03-17",
        "2025-04-18",
        "2025-04-21",
        "2025-05-05",
        "2025-05-26",
        "2025-07-14",
        "2025-08-25",
        "2025-12-25",
        "2025-12-26",
      ],
    ],
    [
      2026,
      "northern_ireland",
      [
        "2026-01-01",
        "2026-03-17",
        "2026-04-03",
        "2026-04-06",
        "2026-05-04",
        "2026-05-25",
        "2026-07-13",
        "2026-08-31",
        "2026-12-25",
        "2026-12-28",
      ],
    ],
  ] as const)("%i %s", (year, where, days) => {
    expect(bankHolidays(year, where)).toEqual(days);
  });

  test("a New Year's Day on a Sunday moves both Scottish January holidays (2023: 2 and 3 January)", () => {
    expect(bankHolidays(2023, "scotland").slice(0, 2)).toEqual(["2023-01-02", "2023-01-03"]);
  });

  test.each([
    [2024, "2024-03-31"],
    [2025, "2025-04-20"],
    [2026, "2026-04-05"],
    [2030, "2030-04-21"],
  ])("Easter Sunday %i is %s", (year, day) => {
    expect(easterSunday(year)).toBe(day);
  });
});

describe("working days (SSI 2011/176, reg 2)", () => {
  test("an English Easter Monday and a Northern Irish holiday are not working days in the count either", () => {
    expect(isWorkingDay("2027-03-29")).toBe(false); // Easter Monday: England, Wales and NI, not Scotland
    expect(isWorkingDay("2027-03-17")).toBe(false); // St Patrick's Day: Northern Ireland
    expect(isWorkingDay("2027-07-12")).toBe(false); // 12 July: Northern Ireland
    expect(isWorkingDay("2027-08-02")).toBe(false); // first Monday of August: Scotland
    expect(isWorkingDay("2027-08-30")).toBe(false); // last Monday of August: England, Wales and NI
    expect(isWorkingDay("2027-03-30")).toBe(true);
    expect(isWorkingDay("2027-03-27")).toBe(false); // a Saturday
  });

  test.each([
    // [start, n, last day, why]
    ["2027-01-01", 30, "2027-02-15", "the start is not counted; 4 January (2nd January's substitute) is skipped"],
    ["2027-03-01", 30, "2027-04-15", "Good Friday, Easter Monday and St Patrick's Day are skipped"],
    ["2027-06-28", 30, "2027-08-11", "12 July and 2 August are skipped"],
    ["2027-11-15", 30, "2027-12-30", "St Andrew's Day and the Christmas substitutes (27 and 28 December) are skipped"],
    [
      "2027-12-01",
      30,
      "2028-01-18",
      "Christmas and both January holidays of 2028 (3 and 4 January, substitutes) are skipped",
    ],
    ["2028-02-28", 1, "2028-02-29", "a leap day is a working day"],
    ["2027-01-29", 1, "2027-02-01", "one working day after a Friday is the Monday"],
  ])("%s + %i working days is %s (%s)", (start, n, last) => {
    expect(addWorkingDays(start, n)).toBe(last);
  });
});
