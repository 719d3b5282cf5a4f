/**
 * Dates the user keeps in their own columns (here "Deposit received"), as the BUILT Code.js reads them over the real
 * sandbox: real date cells in the spreadsheet's own time zone, text in the forms agents type, numbers-only text
 * month-first only in a month-first locale; a value that cannot be read is said in the row's Message and counted in
 * the sidebar's summary. None is silently ignored.
 */
import { countryOf, nextObligation, outputHeaders, rulesCountry, type CheckResult } from "../../../core";
import { TEST_DAY, vmAtNoon } from "../../helpers/clock";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import { zonedTimeToUtc } from "../harness/fake-sheets";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, runWords, seedTable } from "../harness/table";

const sandbox = sandboxForFile({ msPerProperty: 0, today: TEST_DAY }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(3000);
});

/** The spreadsheets' day: each runs from noon of TEST_DAY in its own zone (vmAtNoon). */
const today = () => TEST_DAY;
const isDate = (d: unknown): d is Date => Object.prototype.toString.call(d) === "[object Date]";
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const asResult = (p: SandboxProperty) =>
  ({
    uprn: p.uprn,
    address: p.address,
    compliance_score: 0,
    risk_level: "high",
    checks: p.checks,
  }) as unknown as CheckResult;

/** Properties whose next action, with a deposit received 5 days ago, is the deposit's: so the block's Action due shows it. */
function depositLed(n: number, received: string): SandboxProperty[] {
  // England's rule (Housing Act 2004 s.213): a Welsh or Scottish postcode counts its own way (test/gsheets/server/countries.test.ts).
  const english = (p: SandboxProperty) => rulesCountry(countryOf(p.postcode)) === "England";
  const out = props.filter(
    (p) =>
      english(p) &&
      p.checks.deposit_protection?.status === "fail" &&
      nextObligation(asResult(p), { today: today(), userDates: { depositReceived: received } })?.check ===
        "deposit_protection",
  );
  if (out.length < n) throw new Error(`only ${out.length} sandbox properties fit`);
  return out.slice(0, n);
}

async function run(env: GasEnvironment, rows: SandboxProperty[], received: unknown[]) {
  configure(env, sandbox);
  const { firstRow, lastRow } = seedTable(
    env.sheet,
    ["UPRN", "Address", "Deposit received"],
    rows.map((p, i) => [p.uprn, p.address, received[i]]),
  );
  env.sheet.select(`A${firstRow}:C${lastRow}`);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  const polls = await pollToEnd(env);
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("done");
  const col = (key: string) => outputCol(env.sheet, key);
  const at = (row: number, key: string) => cellValue(env.sheet, row + 2, col(key));
  const dueOf = (row: number) => {
    const v = at(row, "action_due");
    // A date cell is midnight in the spreadsheet's time zone: its day is the date there.
    return isDate(v) ? new Intl.DateTimeFormat("en-CA", { timeZone: env.spreadsheet.timeZone }).format(v) : String(v);
  };
  return { last, at, dueOf };
}

test("text and date cells in the forms agents type are read as the day they name; the unreadable ones are said in the row and counted", async () => {
  // Five days before the file's day, TEST_DAY.
  const received = "2026-04-27";
  const [y, m, d] = received.split("-").map(Number);
  const rows = depositLed(9, received);
  const env = createGasEnvironment();
  // A spreadsheet 12 hours ahead of UTC in May: its date cell for the day is the previous day's 12:00 UTC.
  env.spreadsheet.timeZone = "Pacific/Auckland";
  vmAtNoon(env);
  const dd = String(d).padStart(2, "0");
  const mm = String(m).padStart(2, "0");
  const values: unknown[] = [
    `'${dd}/${mm}/${y}`, // 27/04/2026, kept as text
    `'${y}-${m}-${d}`, // 2026-4-27, one-digit parts where they are
    new Date(zonedTimeToUtc(received, "Pacific/Auckland")), // a real date cell
    `'${d} ${MONTHS[m - 1]} ${y}`, // 27 Apr 2026
    `'${dd}.${mm}.${String(y).slice(2)}`, // 27.04.26
    (Date.UTC(y, m - 1, d) - Date.UTC(1899, 11, 30)) / 86_400_000, // the day's serial, as a number
    "'soon",
    "'31/02/2026",
    "",
  ];
  const { last, at, dueOf } = await run(env, rows, values);
  // Housing Act 2004 s.213: 30 days starting with the day the deposit is received, the last of them received + 29.
  const expected = "2026-05-26";
  for (let i = 0; i < 6; i++) {
    expect([i, dueOf(i), at(i, "message")]).toEqual([i, expected, ""]);
  }
  expect(at(6, "message")).toBe(
    'Deposit received "soon" is not a date the add-in can read: type it as 2021-03-15 or 15/03/2021.',
  );
  expect(at(7, "message")).toBe('Deposit received "31/02/2026" is not a day of the calendar: correct the date.');
  // An empty cell is no date and no problem: the rule's own answer, due now: the file's day, Auckland's, not UTC's.
  expect(at(8, "message")).toBe("");
  expect(dueOf(8)).toBe("2026-05-02");
  expect(runWords(last)).toMatch(
    /2 rows have a date in your own columns that could not be read: the Message column names the column and the value/,
  );
  expect(outputHeaders()).toContain("Message");
});

test("numbers-only text is read month-first only in a month-first locale, and refused when it reads only the other way", async () => {
  const received = "2026-04-27";
  const [y, m, d] = received.split("-").map(Number);
  const rows = depositLed(2, received);
  const us = vmAtNoon(createGasEnvironment());
  us.spreadsheet.locale = "en_US";
  const monthFirst = `'${m}/${d}/${y}`;
  const dayFirstOnly = `'${String(d + 13 > 28 ? 28 : d + 13).padStart(2, "0")}/${String(m).padStart(2, "0")}/${y}`;
  const { at, dueOf } = await run(us, rows, [monthFirst, dayFirstOnly]);
  expect(dueOf(0)).toBe("2026-05-26");
  expect(at(0, "message")).toBe("");
  // In a month-first file, "28/04/2026" reads only day-first: refused, not guessed.
  expect(String(at(1, "message"))).toMatch(
    /^Deposit received ".+" is not a date in this file's order, month first \(03\/15\/2021\); it reads only the other way round/,
  );
});
