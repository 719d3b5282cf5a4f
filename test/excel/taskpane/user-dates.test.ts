/**
 * Dates the user keeps in their own columns (here "Deposit received"), as the task pane's run reads them over the real
 * sandbox (loopback HTTP), the workbook in the Excel stand-in: date cells (serials) and text in the forms agents type,
 * numbers-only text month-first only when Office's language is a month-first one; a value that cannot be read is said
 * in the row's Message and counted in the pane's summary. None is silently ignored.
 */
import {
  OUTPUT_COLUMNS,
  addDays,
  countryOf,
  rulesCountry,
  createClient,
  nextObligation,
  parseCheckResult,
  serialDate,
  type CheckResult,
  type PlanName,
} from "../../../core";
import { memoryStore } from "../../../excel/settings";
import { prepareCheck, runCheck, summaryText, type ExcelRun } from "../../../excel/taskpane/check-run";
import { localDay } from "../../../excel/taskpane/stored";
import { checkResultFor, findProperties } from "../../../sandbox/dataset";
import { TEST_DAY, dayClock, type TestClock } from "../../helpers/clock";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { createStandIn, colLetters } from "../../helpers/excel-workbook";

// The sandbox's register and the pane's day on one clock from a fixed noon: the day is the same at any hour.
let sb: Sandbox;
let clock: TestClock;
beforeAll(async () => {
  clock = dayClock();
  sb = await startTestSandbox({ today: TEST_DAY, now: clock.date });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const plan: PlanName = "professional";
/** The pane's day: the computer's own day on the test clock. */
const today = () => localDay(clock.now());
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function resultOf(p: ReturnType<Sandbox["dataset"]>["properties"][number]): CheckResult {
  const r = parseCheckResult(JSON.parse(JSON.stringify(checkResultFor(p))));
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

/**
 * The register's first `n` properties whose next action, with a deposit received on `received`, is the deposit's: the
 * block's Action due shows it. The search stops at the n-th (findProperties): each property looked at is parsed as the
 * client parses an answer, and the register holds twenty thousand.
 */
function depositLed(n: number, received: string) {
  const out = findProperties(
    sb.dataset(),
    (p) => {
      // England's rule (Housing Act 2004 s.213): a Welsh or Scottish postcode counts its own way (test/excel/taskpane/countries.test.ts).
      if (rulesCountry(countryOf(p.postcode)) !== "England") return false;
      const r = resultOf(p);
      return (
        (r.checks as Record<string, { status?: string }>).deposit_protection?.status === "fail" &&
        nextObligation(r, { today: today(), userDates: { depositReceived: received } })?.check === "deposit_protection"
      );
    },
    n,
  );
  if (out.length < n) throw new Error(`only ${out.length} sandbox properties fit`);
  return out;
}

afterEach(() => {
  delete (globalThis as { Office?: unknown }).Office;
});

async function run(received: unknown[], displayLanguage: string) {
  const s = createStandIn();
  s.api.state.displayLanguage = displayLanguage;
  // The pane's page has Office as a global: the run reads its display language there.
  (globalThis as { Office?: unknown }).Office = s.Office;
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  const rows = depositLed(received.length, addDays(today(), -5));
  s.api.seed("Sheet1", "A1", [
    ["UPRN", "Address", "Deposit received"],
    ...rows.map((p, i) => [p.uprn, p.address_line_1, received[i]]),
  ]);
  s.api.select("Sheet1", `A1:A${rows.length + 1}`);
  const prep = await prepareCheck(excelRun, { plan });
  if (!prep.ok) throw new Error(prep.message);
  const client = createClient({
    baseUrl: sb.baseUrl,
    apiKey: "sandbox-professional",
    fetch: (u, i) => fetch(u, i as RequestInit) as never,
    now: clock.now,
  });
  const summary = await runCheck(prep.check, {
    excelRun,
    client,
    plan,
    store: memoryStore(),
    actionSheets: false,
    now: clock.now,
  });
  const column = (key: string) => {
    const c = 3 + OUTPUT_COLUMNS.findIndex((x) => x.key === key);
    return s.api
      .read("Sheet1", `${colLetters(c)}2:${colLetters(c)}${rows.length + 1}`)
      .values.map((r: unknown[]) => r[0]);
  };
  const due = column("action_due").map((v: unknown) => (typeof v === "number" ? serialDate(v) : String(v)));
  return { summary, due, message: column("message") };
}

test("date cells and text in the forms agents type are read as the day they name; the unreadable ones are said in the row and counted", async () => {
  // Five days before the pane's day, TEST_DAY.
  expect(today()).toBe("2026-05-02");
  const received = "2026-04-27";
  const [y, m, d] = received.split("-").map(Number);
  const dd = String(d).padStart(2, "0");
  const mm = String(m).padStart(2, "0");
  const values: unknown[] = [
    (Date.UTC(y, m - 1, d) - Date.UTC(1899, 11, 30)) / 86_400_000, // a date cell: its serial
    `${dd}/${mm}/${y}`,
    `${y}-${m}-${d}`,
    `${dd}-${mm}-${y}`,
    `${d} ${MONTHS[m - 1]} ${y}`,
    `${dd}.${mm}.${String(y).slice(2)}`,
    "when the tenant paid",
    "30/02/2026",
  ];
  const { summary, due, message } = await run(values, "en-GB");
  // Housing Act 2004 s.213: 30 days starting with the day the deposit is received, the last of them received + 29.
  const expected = "2026-05-26";
  for (let i = 0; i < 6; i++) expect([i, due[i], message[i]]).toEqual([i, expected, ""]);
  expect(message[6]).toBe(
    'Deposit received "when the tenant paid" is not a date the add-in can read: type it as 2021-03-15 or 15/03/2021.',
  );
  expect(message[7]).toBe('Deposit received "30/02/2026" is not a day of the calendar: correct the date.');
  expect(summary.unreadDateRows).toBe(2);
  expect(summaryText(summary)).toMatch(
    /2 rows have a date in your own columns that could not be read: the Message column names the column and the value/,
  );
});

test("numbers-only text is month-first only when Office's language is month-first; a date that reads two ways in an unknown locale is refused", async () => {
  const us = await run(["4/27/2026"], "en-US");
  expect([us.due[0], us.message[0]]).toEqual(["2026-05-26", ""]);
  const unknown = await run(["05/03/2026"], "");
  expect(unknown.message[0]).toBe(
    'Deposit received "05/03/2026" reads two ways (5 March 2026 or 3 May 2026): type it as 2026-03-05 or 2026-05-03.',
  );
  expect(unknown.summary.unreadDateRows).toBe(1);
});
