/**
 * A typed date gives one day everywhere in Excel: the results block's Action due, the Action list's Due, its calendar
 * and the summary's chart of actions due per month all read "Deposit received" as the same day, in a day-first and a
 * month-first Office language; a bare year is refused at its row; and demo results followed by a real key's check leave
 * nothing in the Change log. The task pane's run over the real sandbox (loopback HTTP) in the Excel stand-in, the
 * pane's clock and the sandbox's day injected.
 */
import ICAL from "ical.js";
import {
  DEMO_NOTE,
  OUTPUT_COLUMNS,
  addDays,
  countryOf,
  createClient,
  dateSerial,
  nextObligation,
  parseCheckResult,
  rulesCountry,
  serialDate,
  type CheckResult,
} from "../../../core";
import { demoSampleSheet } from "../../../core/demo/demo";
import { memoryStore } from "../../../excel/settings";
import { actionCalendarText } from "../../../excel/taskpane/action-sheets";
import { lastBlock, prepareCheck, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { localDay } from "../../../excel/taskpane/stored";
import { checkResultFor } from "../../../sandbox/dataset";
import { createStandIn, colLetters } from "../../helpers/excel-workbook";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";

/** The sandbox's day and the pane's clock: noon UTC on it (the pane counts from the computer's own day of it). */
const DAY = "2025-04-20";
const NOW = Date.parse(`${DAY}T12:00:00Z`);
const plan = "professional" as const;

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ today: DAY });
});
afterAll(async () => {
  await sb.close();
});
afterEach(() => {
  delete (globalThis as { Office?: unknown }).Office;
});

function resultOf(p: ReturnType<Sandbox["dataset"]>["properties"][number]): CheckResult {
  const r = parseCheckResult(JSON.parse(JSON.stringify(checkResultFor(p))));
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

/**
 * English properties whose failed deposit is their next action for every day a row here may be received on, on the
 * file's day whichever zone the test runs in: so the block's Action due is the deposit's.
 */
function depositLed(n: number, received: readonly string[]) {
  const days = [addDays(DAY, -1), DAY, addDays(DAY, 1)];
  const out: ReturnType<Sandbox["dataset"]>["properties"] = [];
  for (const p of sb.dataset().properties) {
    if (out.length === n) break;
    if (rulesCountry(countryOf(p.postcode)) !== "England") continue;
    const r = resultOf(p);
    if ((r.checks as Record<string, { status?: string }>).deposit_protection?.status !== "fail") continue;
    const led = days.every((today) =>
      received.every(
        (d) => nextObligation(r, { today, userDates: { depositReceived: d } })?.check === "deposit_protection",
      ),
    );
    if (led) out.push(p);
  }
  if (out.length < n) throw new Error(`only ${out.length} sandbox properties fit`);
  return out;
}

const iso = (v: unknown) => (typeof v === "number" ? serialDate(v) : String(v));

async function run(typed: unknown[], displayLanguage: string, received: readonly string[]) {
  const s = createStandIn();
  s.api.state.displayLanguage = displayLanguage;
  (globalThis as { Office?: unknown }).Office = s.Office;
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  const rows = depositLed(typed.length, received);
  s.api.seed("Sheet1", "A1", [
    ["UPRN", "Address", "Deposit received"],
    ...rows.map((p, i) => [p.uprn, p.address_line_1, typed[i]]),
  ]);
  s.api.select("Sheet1", `A1:A${rows.length + 1}`);
  const prep = await prepareCheck(excelRun, { plan });
  if (!prep.ok) throw new Error(prep.message);
  const client = createClient({
    baseUrl: sb.baseUrl,
    apiKey: "sandbox-professional",
    fetch: (u, i) => fetch(u, i as RequestInit) as never,
  });
  const store = memoryStore();
  // The pane's clock starts at NOW and runs on from there.
  const t0 = Date.now();
  const summary = await runCheck(prep.check, { excelRun, client, plan, store, now: () => NOW + Date.now() - t0 });
  const column = (key: string) => {
    const c = 3 + OUTPUT_COLUMNS.findIndex((x) => x.key === key);
    return s.api
      .read("Sheet1", `${colLetters(c)}2:${colLetters(c)}${rows.length + 1}`)
      .values.map((r: unknown[]) => r[0]);
  };
  // The Action list: each row's deposit action, by its UPRN.
  const grid = s.api.sourceGrid("Action list") as unknown[][];
  const h = grid[0];
  const listDue = rows.map((p) => {
    const line = grid.find((r) => String(r[h.indexOf("UPRN")]) === p.uprn && r[h.indexOf("Check")] === "Deposit");
    return line ? iso(line[h.indexOf("Due")]) : undefined;
  });
  // The calendar the pane downloads: each event names the UPRN in its description.
  const place = (await lastBlock(store))!;
  const cal = await actionCalendarText(excelRun, place, {
    today: localDay(NOW),
    withinDays: 30,
    nowIso: new Date(NOW).toISOString(),
  });
  if (!cal.ok) throw new Error(cal.message);
  const events = new ICAL.Component(ICAL.parse(cal.ics)).getAllSubcomponents("vevent").map((e) => ({
    text: `${e.getFirstPropertyValue("summary")} ${e.getFirstPropertyValue("description")}`,
    day: String(e.getFirstPropertyValue("dtstart")),
  }));
  const calendarDue = rows.map((p) => events.find((e) => e.text.includes(p.uprn) && /deposit/i.test(e.text))?.day);
  // The summary's table of actions due per month (the chart's source), its Deposit column.
  const summarySheet = s.api.sourceGrid("Compliance summary") as unknown[][];
  const top = summarySheet.findIndex((r) => r[0] === "Actions due");
  const depositColumn = summarySheet[top].indexOf("Deposit");
  const chart = new Map<string, number>();
  for (let r = top + 1; r < summarySheet.length && summarySheet[r][0] !== ""; r++)
    chart.set(String(summarySheet[r][0]), Number(summarySheet[r][depositColumn]));
  return {
    summary,
    blockDue: column("action_due").map(iso),
    message: column("message"),
    listDue,
    calendarDue,
    chart,
  };
}

/** What the chart's Deposit column counts for these due days, seen from the pane's day. */
function chartOf(dues: readonly string[]): Map<string, number> {
  const today = localDay(NOW);
  const out = new Map<string, number>();
  for (const d of dues) {
    const label = d < today ? "Overdue" : d.slice(0, 7);
    out.set(label, (out.get(label) ?? 0) + 1);
  }
  return out;
}
const chartCounts = (chart: Map<string, number>) => new Map([...chart].filter(([, n]) => n > 0));

describe.each([
  ["en-GB", ["2025-04-03", "2025-02-01"]],
  ["en-US", ["2025-03-04", "2025-01-02"]],
])("Office language %s", (language, received) => {
  test('"03/04/2025" and "01/02/25" give the block, the Action list, its calendar and the chart the same day', async () => {
    const serial = dateSerial("2025-04-10")!;
    const all = [...received, "2025-04-10"];
    const r = await run(["03/04/2025", "01/02/25", serial], language, all);
    const due = all.map((d) => addDays(d, 29));
    expect(r.message).toEqual(["", "", ""]);
    expect(r.blockDue).toEqual(due);
    expect(r.listDue).toEqual(due);
    expect(r.calendarDue).toEqual(due);
    expect(chartCounts(r.chart)).toEqual(chartOf(due));
    expect(r.summary.unreadDateRows).toBe(0);
  });
});

test("a bare year typed into a date column is refused at its row and counted, never read as a day of 1905", async () => {
  const r = await run([2025, 45000.5], "en-GB", ["2023-03-15", ""]);
  expect(r.message[0]).toBe(
    'Deposit received "2025" is a year, not a date: type the whole date (for example 2021-03-15), or clear the cell.',
  );
  // The rule's own answer for a deposit with no date it can read: protect it now, on the file's day.
  expect(r.blockDue[0]).toBe(localDay(NOW));
  expect(r.listDue[0]).toBe(localDay(NOW));
  // A real date cell's serial (45000 is 2023-03-15) is read, as ever.
  expect([r.message[1], r.blockDue[1], r.listDue[1]]).toEqual(["", "2023-04-13", "2023-04-13"]);
  expect(r.summary.unreadDateRows).toBe(1);
});

test("demo results, then a check with a real key: the Change log gets no demo rows", async () => {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  const { values } = demoSampleSheet(localDay(NOW));
  s.api.seed("Sheet1", "A1", values);
  const n = values.length - 1;
  const store = memoryStore();
  const t0 = Date.now();
  const check = async (apiKey: string) => {
    s.api.select("Sheet1", `A1:A${n + 1}`);
    const prep = await prepareCheck(excelRun, { plan });
    if (!prep.ok) throw new Error(prep.message);
    const client = createClient({ baseUrl: sb.baseUrl, apiKey, fetch: (u, i) => fetch(u, i as RequestInit) as never });
    return runCheck(prep.check, { excelRun, client, plan, store, now: () => NOW + Date.now() - t0 });
  };
  const width = values[0].length;
  const column = (key: string) => {
    const c = width + OUTPUT_COLUMNS.findIndex((x) => x.key === key);
    return s.api
      .read("Sheet1", `${colLetters(c)}2:${colLetters(c)}${n + 1}`)
      .values.map((r: unknown[]) => String(r[0]));
  };
  await check("demo");
  expect(column("message").filter((m: string) => m.includes(DEMO_NOTE)).length).toBeGreaterThan(50);
  const demoExpiry = column("gas_expiry");
  const second = await check("sandbox-professional");
  // The real key answered the rows (the sandbox knows the demo's UPRNs): real results now, none says demo.
  expect(column("message").filter((m: string) => m.includes(DEMO_NOTE))).toEqual([]);
  expect(column("matched_uprn").filter((u: string) => /^\d+$/.test(u)).length).toBeGreaterThan(50);
  // The demo answers from its data for the computer's day, the sandbox for DAY: the values differ, so a change check
  // that took the demo's for history would have logged them.
  expect(column("gas_expiry").filter((v: string, i: number) => v !== demoExpiry[i]).length).toBeGreaterThan(20);
  const log = s.api.sheetNames().includes("Change log") ? (s.api.sourceGrid("Change log") as unknown[][]) : [];
  expect(log.slice(1).filter((r) => r.some((v) => v !== "" && v !== null))).toEqual([]);
  expect(second.runLog).toMatch(/no changes/);
});
