/**
 * A typed date gives one day everywhere in Google Sheets: the results block's Action due, the Action list's Due, its
 * calendar and the summary's table of actions due per month (the chart's source) all read "Deposit received" as the
 * same day, in a day-first and a month-first spreadsheet locale; a bare year is refused at its row; and demo results
 * followed by a real key's check leave nothing in the Change log. The BUILT Code.js over the real sandbox, the vm's
 * clock and the sandbox's day injected.
 */
import ICAL from "ical.js";
import {
  CHANGE_LOG_HEADERS,
  DEMO_NOTE,
  addDays,
  countryOf,
  nextObligation,
  rulesCountry,
  type CheckResult,
} from "../../../core";
import { DEMO_SHEET } from "../../../core/demo/demo-key";
import { demoProperties } from "../../../core/demo/demo";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import { zonedTimeToUtc } from "../harness/fake-sheets";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, runWords, seedTable } from "../harness/table";

/** The sandbox's day and the spreadsheet's clock: noon UTC on it. */
const DAY = "2025-04-20";
const NOW = Date.parse(`${DAY}T12:00:00Z`);
const ZONE = "Europe/London";

const sandbox = sandboxForFile({ msPerProperty: 0, today: DAY }, { resetEach: true });
let props: SandboxProperty[];
beforeAll(async () => {
  props = await sandbox.properties(3000);
});

const isDate = (d: unknown): d is Date => Object.prototype.toString.call(d) === "[object Date]";
/** A date cell is midnight in the spreadsheet's time zone: its day is the date there. */
const dayOf = (v: unknown) => (isDate(v) ? new Intl.DateTimeFormat("en-CA", { timeZone: ZONE }).format(v) : String(v));
const asResult = (p: SandboxProperty) =>
  ({
    uprn: p.uprn,
    address: p.address,
    compliance_score: 0,
    risk_level: "high",
    checks: p.checks,
  }) as unknown as CheckResult;

/** English properties whose failed deposit is their next action for every day a row here may be received on. */
function depositLed(n: number, received: readonly string[]): SandboxProperty[] {
  const out = props.filter(
    (p) =>
      rulesCountry(countryOf(p.postcode)) === "England" &&
      p.checks.deposit_protection?.status === "fail" &&
      received.every(
        (d) =>
          nextObligation(asResult(p), { today: DAY, userDates: { depositReceived: d } })?.check ===
          "deposit_protection",
      ),
  );
  if (out.length < n) throw new Error(`only ${out.length} sandbox properties fit`);
  return out.slice(0, n);
}

function environment(locale: string): GasEnvironment {
  const env = createGasEnvironment();
  env.spreadsheet.timeZone = ZONE;
  env.spreadsheet.locale = locale;
  env.clock.offsetMs = NOW - Date.now();
  return env;
}

async function run(locale: string, typed: unknown[], received: readonly string[]) {
  const env = environment(locale);
  const rows = depositLed(typed.length, received);
  configure(env, sandbox);
  const { firstRow, lastRow } = seedTable(
    env.sheet,
    ["UPRN", "Address", "Deposit received"],
    rows.map((p, i) => [p.uprn, p.address, typed[i]]),
  );
  env.sheet.select(`A${firstRow}:C${lastRow}`);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  const polls = await pollToEnd(env);
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("done");
  const at = (i: number, key: string) => cellValue(env.sheet, i + 2, outputCol(env.sheet, key));
  // The Action list: each row's deposit action, by its UPRN.
  const list = env.spreadsheet.getSheetByName("Action list")!;
  const grid = list.peek(1, 1, list.getLastRow(), list.getLastColumn());
  const h = grid[0];
  const listDue = rows.map((p) => {
    const line = grid.find((r) => String(r[h.indexOf("UPRN")]) === p.uprn && r[h.indexOf("Check")] === "Deposit");
    return line ? dayOf(line[h.indexOf("Due")]) : undefined;
  });
  const cal = env.run("actionCalendar");
  expect(cal.ok).toBe(true);
  const events = new ICAL.Component(ICAL.parse(cal.ics)).getAllSubcomponents("vevent").map((e) => ({
    text: `${e.getFirstPropertyValue("summary")} ${e.getFirstPropertyValue("description")}`,
    day: String(e.getFirstPropertyValue("dtstart")),
  }));
  const calendarDue = rows.map((p) => events.find((e) => e.text.includes(p.uprn) && /deposit/i.test(e.text))?.day);
  // The summary's table of actions due per month (the chart's source), its Deposit column.
  const summary = env.spreadsheet.getSheetByName("Compliance summary")!;
  const cells = summary.peek(1, 1, summary.getLastRow(), summary.getLastColumn());
  const top = cells.findIndex((r) => r[0] === "Actions due");
  const deposit = cells[top].indexOf("Deposit");
  const chart = new Map<string, number>();
  for (let r = top + 1; r < cells.length && cells[r][0] !== ""; r++) {
    const n = Number(cells[r][deposit]);
    if (n > 0) chart.set(String(cells[r][0]), n);
  }
  return {
    last,
    blockDue: rows.map((_p, i) => dayOf(at(i, "action_due"))),
    message: rows.map((_p, i) => at(i, "message")),
    listDue,
    calendarDue,
    chart,
  };
}

/** What the chart's Deposit column counts for these due days, seen from DAY. */
function chartOf(dues: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of dues) {
    const label = d < DAY ? "Overdue" : d.slice(0, 7);
    out.set(label, (out.get(label) ?? 0) + 1);
  }
  return out;
}

describe.each([
  ["en_GB", ["2025-04-03", "2025-02-01"]],
  ["en_US", ["2025-03-04", "2025-01-02"]],
])("spreadsheet locale %s", (locale, received) => {
  test('"03/04/2025" and "01/02/25" give the block, the Action list, its calendar and the chart the same day', async () => {
    const all = [...received, "2025-04-10"];
    const dateCell = new Date(zonedTimeToUtc("2025-04-10", ZONE));
    const r = await run(locale, ["'03/04/2025", "'01/02/25", dateCell], all);
    const due = all.map((d) => addDays(d, 29));
    expect(r.message).toEqual(["", "", ""]);
    expect(r.blockDue).toEqual(due);
    expect(r.listDue).toEqual(due);
    expect(r.calendarDue).toEqual(due);
    expect(r.chart).toEqual(chartOf(due));
  });
});

test("a bare year typed into a date column is refused at its row and counted, never read as a day of 1905", async () => {
  const r = await run("en_GB", [2025, 45000], ["", "2023-03-15"]);
  expect(r.message[0]).toBe(
    'Deposit received "2025" is a year, not a date: type the whole date (for example 2021-03-15), or clear the cell.',
  );
  // The rule's own answer for a deposit with no date it can read: protect it now, on the file's day.
  expect([r.blockDue[0], r.listDue[0]]).toEqual([DAY, DAY]);
  // A number that is a real date's serial (45000 is 2023-03-15) is read, as ever.
  expect([r.message[1], r.blockDue[1], r.listDue[1]]).toEqual(["", "2023-04-13", "2023-04-13"]);
  expect(runWords(r.last)).toMatch(/1 row has a date in your own columns that could not be read/);
});

test("demo results, then a check with a real key: the Change log gets no demo rows", async () => {
  const env = environment("en_GB");
  // The demo answers from its data for the spreadsheet's day, as the sandbox does for its own: the demo's check is made
  // 60 days before the real one, so that the two give different values for the same properties.
  const demoDay = addDays(DAY, -60);
  env.clock.offsetMs = Date.parse(`${demoDay}T12:00:00Z`) - Date.now();
  expect(env.run("saveSettings", { apiKey: "demo" }).ok).toBe(true);
  expect(env.run("insertSampleTable").ok).toBe(true);
  const sheet = env.spreadsheet.getSheetByName(DEMO_SHEET)!;
  const n = demoProperties(demoDay).length + 4;
  const check = async () => {
    sheet.select(`A1:A${n + 1}`);
    const start = env.run("startBulkCheck", {});
    if (!start.ok) throw new Error(start.message);
    const last = (await pollToEnd(env)).pop();
    expect(last.phase).toBe("done");
  };
  await check();
  const messages = () =>
    Array.from({ length: n }, (_v, i) => String(cellValue(sheet, i + 2, outputCol(sheet, "message"))));
  expect(messages().filter((m) => m.includes(DEMO_NOTE)).length).toBeGreaterThan(50);

  const demoValues = sheet.peek(2, 1, n, sheet.getLastColumn());
  env.clock.offsetMs = NOW - Date.now();
  configure(env, sandbox);
  await check();
  // The real key answered the rows (the sandbox knows the demo's UPRNs): real results now, no demo note.
  const real = messages().filter((m) => !m.includes(DEMO_NOTE));
  expect(real.length).toBe(n);
  const matched = Array.from({ length: n }, (_v, i) =>
    String(cellValue(sheet, i + 2, outputCol(sheet, "matched_uprn"))),
  );
  expect(matched.filter((u) => /^\d+$/.test(u)).length).toBeGreaterThan(50);
  const log = env.spreadsheet.getSheetByName("Change log");
  const rows = log ? log.peek(1, 1, Math.max(1, log.getLastRow()), CHANGE_LOG_HEADERS.length).slice(1) : [];
  expect(rows.filter((r) => r.some((v) => v !== ""))).toEqual([]);
  // The real results differ from the demo's (so a change check that took them for history would have logged them).
  const after = sheet.peek(2, 1, n, sheet.getLastColumn());
  const expiry = outputCol(sheet, "gas_expiry") - 1;
  expect(after.filter((r, i) => dayOf(r[expiry]) !== dayOf(demoValues[i][expiry])).length).toBeGreaterThan(20);
});
