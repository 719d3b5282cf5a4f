/**
 * Working days for periods a source counts in them, first of all Scotland's deposit rule: "within 30 working days of the
 * beginning of the tenancy" (Tenancy Deposit Schemes (Scotland) Regulations 2011, reg 3(1)). Pure date arithmetic.
 *
 * What a working day is comes from the same Regulations, reg 2: "a day that is not a Saturday or Sunday, nor any day
 * that is a bank holiday under the Banking and Financial Dealings Act 1971 in any part of the United Kingdom". So a
 * bank holiday of England and Wales (Easter Monday) or of Northern Ireland (St Patrick's Day, 12 July) stops the count
 * in Scotland too: the set here is the union of the three jurisdictions' bank holidays.
 *
 * The days are computed from the rules of the 1971 Act, Schedule 1, and the substitute days the annual proclamations
 * appoint when a holiday falls at a weekend (the next weekday that is not already a holiday), plus SPECIAL_BANK_HOLIDAYS,
 * the one-off days appointed by proclamation. Checked 2026-11-25 against GOV.UK's published list
 * (https://www.gov.uk/bank-holidays) for 2024 to 2027: no one-off day is appointed from 2024 to 2030.
 */

const DAY_MS = 86_400_000;
const ms = (iso: string) => Date.parse(iso + "T00:00:00Z");
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
const ymd = (y: number, m: number, d: number) => iso(Date.UTC(y, m - 1, d));
const weekday = (day: string) => new Date(ms(day)).getUTCDay(); // 0 Sunday .. 6 Saturday

/** Easter Sunday (Gregorian, the anonymous algorithm of Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return ymd(year, month, day);
}

const plus = (day: string, n: number) => iso(ms(day) + n * DAY_MS);

/** The first (n = 1) or last (n = -1) Monday of a month. */
function monday(year: number, month: number, n: 1 | -1): string {
  if (n === 1) {
    const first = ymd(year, month, 1);
    return plus(first, (8 - weekday(first)) % 7);
  }
  const last = iso(Date.UTC(year, month, 0));
  return plus(last, -((weekday(last) + 6) % 7));
}

/**
 * Holidays on fixed dates move to the next weekday not already a holiday when they fall at a weekend (as the
 * proclamations appoint: Christmas on a Saturday gives Monday 27th, Boxing Day on the Sunday then Tuesday 28th).
 */
function withSubstitutes(fixed: string[], moveable: string[]): string[] {
  const taken = new Set<string>([...moveable, ...fixed.filter((d) => weekday(d) % 6 !== 0)]);
  for (const d of fixed.filter((x) => weekday(x) % 6 === 0).sort()) {
    let s = d;
    while (weekday(s) % 6 === 0 || taken.has(s)) s = plus(s, 1);
    taken.add(s);
  }
  return [...taken].sort();
}

export type Jurisdiction = "england_wales" | "scotland" | "northern_ireland";

/** One-off bank holidays appointed by proclamation (none is appointed from 2024 to 2030; checked 2026-11-25). */
export const SPECIAL_BANK_HOLIDAYS: Readonly<Record<Jurisdiction, readonly string[]>> = {
  england_wales: [],
  scotland: [],
  northern_ireland: [],
};

/** A jurisdiction's bank holidays in a year, YYYY-MM-DD, sorted. */
export function bankHolidays(year: number, where: Jurisdiction): string[] {
  const easter = easterSunday(year);
  const goodFriday = plus(easter, -2);
  const easterMonday = plus(easter, 1);
  const earlyMay = monday(year, 5, 1);
  const spring = monday(year, 5, -1);
  const christmas = [ymd(year, 12, 25), ymd(year, 12, 26)];
  const special = SPECIAL_BANK_HOLIDAYS[where].filter((d) => d.startsWith(String(year)));
  let days: string[];
  if (where === "scotland") {
    days = withSubstitutes(
      [ymd(year, 1, 1), ymd(year, 1, 2), ymd(year, 11, 30), ...christmas],
      [goodFriday, earlyMay, spring, monday(year, 8, 1)],
    );
  } else if (where === "northern_ireland") {
    days = withSubstitutes(
      [ymd(year, 1, 1), ymd(year, 3, 17), ymd(year, 7, 12), ...christmas],
      [goodFriday, easterMonday, earlyMay, spring, monday(year, 8, -1)],
    );
  } else {
    days = withSubstitutes(
      [ymd(year, 1, 1), ...christmas],
      [goodFriday, easterMonday, earlyMay, spring, monday(year, 8, -1)],
    );
  }
  return [...new Set([...days, ...special])].sort();
}

const cache = new Map<number, Set<string>>();
/** Every day that is a bank holiday in some part of the United Kingdom in that year. */
export function ukBankHolidays(year: number): Set<string> {
  let s = cache.get(year);
  if (!s) {
    s = new Set([
      ...bankHolidays(year, "england_wales"),
      ...bankHolidays(year, "scotland"),
      ...bankHolidays(year, "northern_ireland"),
    ]);
    cache.set(year, s);
  }
  return s;
}

/** A working day in the sense of SSI 2011/176 reg 2: not a Saturday, Sunday or bank holiday anywhere in the UK. */
export function isWorkingDay(day: string): boolean {
  return weekday(day) % 6 !== 0 && !ukBankHolidays(Number(day.slice(0, 4))).has(day);
}

/**
 * The last day of "within N working days of" a day: the day itself is not counted (the period runs from the next day),
 * so the answer is the Nth working day after `day`. 30 working days from Friday 2027-01-01 end on Monday 2027-02-15.
 */
export function addWorkingDays(day: string, n: number): string {
  let d = day;
  let left = n;
  while (left > 0) {
    d = plus(d, 1);
    if (isWorkingDay(d)) left--;
  }
  return d;
}
