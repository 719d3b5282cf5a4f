/**
 * The "Action list" and "Compliance summary" sheets as the task pane builds them after a check: the pane's run over
 * the real sandbox (loopback HTTP), the workbook in the Excel stand-in. What a run produces, what survives a second
 * run, that the summary's live COUNTIFs (computed by a real formula engine over the stand-in's cells) count what the
 * block holds, one chart after two runs, sync counts that do not grow with the rows, the calendar, a legacy block.
 */
import ICAL from "ical.js";
import {
  CHECK_LABELS,
  MEMBERS,
  OUTPUT_COLUMNS,
  SUMMARY_CHART_TITLE,
  WINDOWS,
  WINDOW_COLOURS,
  createClient,
  obligationsFor,
  outputHeaders,
  parseCheckResult,
  type PlanName,
} from "../../../core";
import { memoryStore } from "../../../excel/settings";
import { actionCalendarText, buildActionSheets, CHART_NAME } from "../../../excel/taskpane/action-sheets";
import { lastBlock, prepareCheck, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { localDay } from "../../../excel/taskpane/stored";
import { checkResultFor } from "../../../sandbox/dataset";
import { TEST_DAY, dayClock } from "../../helpers/clock";
import { computeSheet } from "../../helpers/formulas";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { ACTION_LIST_HEADERS } from "../../helpers/action-list";
import { colLetters, createStandIn } from "../../helpers/excel-standin";

// The sandbox's register, the pane's runs (their client's clock) and the lists' day on one clock from a fixed noon.
const clock = dayClock();
let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ today: TEST_DAY, now: clock.date });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const W = OUTPUT_COLUMNS.length;
const HEADERS = ACTION_LIST_HEADERS;
/** The pane's day: the computer's own day on the test clock. */
const today = () => localDay(clock.now());
const iso = (serial: unknown) =>
  typeof serial === "number" ? new Date((serial - 25569) * 86400000).toISOString().slice(0, 10) : String(serial);
const plan: PlanName = "professional";

function workbook() {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  return { s, excelRun, api: s.api };
}
function client() {
  return createClient({
    baseUrl: sb.baseUrl,
    apiKey: "sandbox-professional",
    fetch: (u, i) => fetch(u, i as RequestInit) as never,
    now: clock.now,
  });
}
const properties = (from: number, n: number) => sb.dataset().properties.slice(from, from + n);

/** A table (UPRN, Address, Landlord) checked whole by the pane; the workbook after the run and the run's summary. */
async function checked(
  from: number,
  n: number,
  wb = workbook(),
  store = memoryStore(),
  deps: Record<string, unknown> = {},
) {
  const rows = properties(from, n);
  wb.api.seed("Sheet1", "A1", [
    ["UPRN", "Address", "Landlord"],
    ...rows.map((p, i) => [p.uprn, p.address_line_1, `Landlord ${i % 5}`]),
  ]);
  wb.api.select("Sheet1", `A1:A${n + 1}`);
  const prep = await prepareCheck(wb.excelRun, { plan });
  if (!prep.ok) throw new Error(prep.message);
  const summary = await runCheck(prep.check, { excelRun: wb.excelRun, client: client(), plan, store, ...deps });
  return { ...wb, rows, summary, store };
}

function listOf(api: any) {
  const grid = api.sourceGrid("Action list") as unknown[][];
  const blank = grid.findIndex((r, i) => i > 0 && r.every((v) => v === ""));
  return {
    header: grid[0],
    open: grid.slice(1, blank < 0 ? grid.length : blank),
    closed: blank < 0 ? [] : grid.slice(blank + 2),
    grid,
  };
}
const blockColumn = (api: any, n: number, key: string) => {
  const c = 3 + OUTPUT_COLUMNS.findIndex((x) => x.key === key);
  return api.read("Sheet1", `${colLetters(c)}2:${colLetters(c)}${n + 1}`).values.map((r: unknown[]) => r[0]);
};

test("a check builds the Action list: overdue, due-within-30-days and failed checks' actions by date, real dates, Landlord column, window colours, frozen header", async () => {
  const { api, summary } = await checked(0, 300);
  expect(summary.actionSheets).toMatch(
    /^"Action list": \d+ actions overdue or due within 30 days from 1 table\. "Compliance summary" refreshed\.$/,
  );
  const { header, open } = listOf(api);
  expect(header).toEqual(HEADERS);
  expect(open.length).toBeGreaterThan(20);
  const read = api.read("Action list", `A2:K${open.length + 1}`);
  // The block's own status of a listed row's check, by its UPRN and the list's Check label.
  const matched = blockColumn(api, 300, "matched_uprn").map(String);
  const statusOf = (uprn: unknown, label: unknown) => {
    const key = MEMBERS.find(([name]) => CHECK_LABELS[name] === label)![1];
    return blockColumn(api, 300, key)[matched.indexOf(String(uprn))];
  };
  let previous = "";
  open.forEach((r, i) => {
    expect(WINDOWS as readonly unknown[]).toContain(r[0]);
    expect(typeof r[1]).toBe("number");
    expect(read.numberFormats[i][1]).toBe("yyyy-mm-dd");
    expect(iso(r[1]) >= previous).toBe(true);
    previous = iso(r[1]);
    expect(
      r[0] === "Overdue" ||
        (typeof r[2] === "number" && r[2] >= 0 && r[2] <= 30) ||
        (statusOf(r[3], r[6]) === "fail" && r[0] !== "OK" && r[0] !== "Plan"),
    ).toBe(true);
    expect(String(r[5])).toMatch(/^Landlord \d$/);
    expect(read.fills[i][0]).toBe(WINDOW_COLOURS[r[0] as keyof typeof WINDOW_COLOURS].fill);
  });
  expect(read.formulas.flat().filter(Boolean)).toEqual([]);
  expect(api.frozenRows("Action list")).toBe(1);
  // Every property whose own row says Overdue has its action on the list.
  const windows = blockColumn(api, 300, "window");
  const uprns = blockColumn(api, 300, "matched_uprn");
  const listed = new Set(open.filter((r) => r[0] === "Overdue").map((r) => String(r[3])));
  windows.forEach((w: unknown, i: number) => w === "Overdue" && expect(listed.has(String(uprns[i]))).toBe(true));
  // The block's own Action due is a real date and its Window coloured.
  const due = 3 + OUTPUT_COLUMNS.findIndex((x) => x.key === "action_due");
  const first = windows.indexOf("Overdue") + 2;
  const cell = api.read("Sheet1", `${colLetters(due)}${first}:${colLetters(due + 3)}${first}`);
  expect(typeof cell.values[0][0]).toBe("number");
  expect(cell.numberFormats[0][0]).toBe("yyyy-mm-dd");
  expect(cell.fills[0][2]).toBe(WINDOW_COLOURS.Overdue.fill); // Action due, Days left, Window
});

test("the summary's COUNTIFs, computed by a real formula engine, equal the block's counts; one stacked chart after two runs", async () => {
  const wb = await checked(300, 400);
  const values = computeSheet(
    { Sheet1: wb.api.sourceGrid("Sheet1"), "Compliance summary": wb.api.sourceGrid("Compliance summary") },
    "Compliance summary",
  );
  const rowOf = (label: string) => values.findIndex((r) => r[0] === label);
  const keys = ["epc_status", "gas_status", "eicr_status", "licensing_status", "deposit_status"];
  keys.forEach((k, i) => {
    const col = blockColumn(wb.api, 400, k);
    const n = (w: string) => col.filter((v: unknown) => v === w).length;
    expect(values[rowOf("Check") + 1 + i].slice(1, 7)).toEqual([
      n("pass"),
      n("warning"),
      n("fail"),
      n("not_required"),
      n("error") + n("unknown"),
      400,
    ]);
  });
  const risk = blockColumn(wb.api, 400, "risk_level");
  ["low", "medium", "high"].forEach((l, i) =>
    expect(values[rowOf("Risk level") + 1 + i][1]).toBe(risk.filter((v: unknown) => v === l).length),
  );
  const windows = blockColumn(wb.api, 400, "window");
  WINDOWS.forEach((w, i) =>
    expect(values[rowOf("Window") + 1 + i][1]).toBe(windows.filter((v: unknown) => v === w).length),
  );
  // Run again: the chart is updated in place, not added.
  wb.api.select("Sheet1", "A1:A401");
  const again = await prepareCheck(wb.excelRun, { plan });
  if (!again.ok) throw new Error(again.message);
  await runCheck(again.check, { excelRun: wb.excelRun, client: client(), plan, store: wb.store });
  const charts = wb.api.charts("Compliance summary");
  expect(charts).toHaveLength(1);
  // Its title is core's, the same words as the Sheets chart.
  expect(charts[0]).toMatchObject({
    name: CHART_NAME,
    type: "ColumnStacked",
    seriesBy: "Columns",
    title: SUMMARY_CHART_TITLE,
  });
  const months = rowOf("Actions due");
  expect(charts[0].source).toBe(`Compliance summary!A${months + 1}:F${months + 20}`);
});

test("a second run keeps Done and Notes typed between runs; an action that went away moves to Closed with them", async () => {
  const wb = await checked(700, 200);
  const { open } = listOf(wb.api);
  const gone = String(open[0][3]);
  const kept = open.find((r) => String(r[3]) !== gone)!;
  const keptRow = open.indexOf(kept) + 2;
  wb.api.seed("Action list", "L2", [[true]]);
  wb.api.seed("Action list", `M${keptRow}`, [["=booked with ACME, ref 7"]]);
  // The first action's property is replaced in the table by one with nothing due soon.
  const calm = sb
    .dataset()
    .properties.slice(1000)
    .find((p) => {
      const r = parseCheckResult(checkResultFor(p));
      return (
        r.ok &&
        obligationsFor(r.value, { today: today() }).every(
          (o) => o.window !== "Overdue" && (o.daysLeft === null || o.daysLeft > 90),
        )
      );
    })!;
  const row = wb.rows.findIndex((p) => p.uprn === gone) + 2;
  wb.api.seed("Sheet1", `A${row}`, [[calm.uprn, calm.address_line_1]]);
  wb.api.select("Sheet1", "A1:A201");
  const again = await prepareCheck(wb.excelRun, { plan });
  if (!again.ok) throw new Error(again.message);
  const summary = await runCheck(again.check, { excelRun: wb.excelRun, client: client(), plan, store: wb.store });
  expect(summary.actionSheets).toMatch(/1 closed row kept for its notes/);
  const second = listOf(wb.api);
  const same = second.open.find((r) => String(r[3]) === String(kept[3]) && r[6] === kept[6] && r[1] === kept[1])!;
  expect(same[12]).toBe("=booked with ACME, ref 7");
  expect(wb.api.read("Action list", "A1:N400").formulas.flat().filter(Boolean)).toEqual([]);
  expect(second.open.some((r) => String(r[3]) === gone)).toBe(false);
  expect(String(second.grid[second.open.length + 2][0])).toMatch(/^Closed/);
  expect(second.closed).toHaveLength(1);
  expect(second.closed[0][3]).toBe(gone);
  expect(second.closed[0][11]).toBe(true);
  expect(wb.api.sheetNames().filter((n: string) => n === "Action list" || n === "Compliance summary")).toHaveLength(2);
});

test("building the two sheets costs the same syncs for 100 rows as for 2,000; the calendar parses into one event per action", async () => {
  const syncsFor = async (n: number) => {
    const wb = await checked(0, n, workbook(), memoryStore(), { actionSheets: false });
    const place = (await lastBlock((wb as any).store))!;
    const first = await buildActionSheets(wb.excelRun, place, { today: today(), withinDays: 30 });
    const again = await buildActionSheets(wb.excelRun, place, { today: today(), withinDays: 30 });
    return { wb, place, first: first.writeSyncs, again: again.writeSyncs, open: again.open };
  };
  const small = await syncsFor(100);
  const large = await syncsFor(2000);
  expect(large.first).toBe(small.first);
  expect(large.again).toBe(small.again);
  expect(small.again).toBe(1);
  const cal = await actionCalendarText(large.wb.excelRun, large.place, {
    today: today(),
    withinDays: 30,
    nowIso: new Date(clock.now()).toISOString(),
  });
  if (!cal.ok) throw new Error(cal.message);
  const events = new ICAL.Component(ICAL.parse(cal.ics)).getAllSubcomponents("vevent");
  expect(events).toHaveLength(large.open);
  const list = listOf(large.wb.api).open;
  // Compared as whole lists, not with two expects for each event of a 2,000-row block.
  expect(events.map((e) => (e.getFirstPropertyValue("dtstart") as ICAL.Time).toString())).toEqual(
    list.map((r) => iso(r[1])),
  );
  expect(events.map((e) => String(e.getFirstSubcomponent("valarm")!.getFirstPropertyValue("trigger")))).toEqual(
    events.map(() => "-P7D"),
  );
});

test("a results block an earlier version wrote (23 columns) is found and upgraded in place", async () => {
  const wb = workbook();
  const legacy = outputHeaders().slice(0, outputHeaders().indexOf("Message") + 1);
  const rows = properties(1200, 5);
  wb.api.seed("Sheet1", "A1", [["UPRN", ...legacy], ...rows.map((p) => [p.uprn, ...legacy.map(() => "")])]);
  wb.api.select("Sheet1", "A1:A6");
  const prep = await prepareCheck(wb.excelRun, { plan });
  if (!prep.ok) throw new Error(prep.message);
  expect(prep.check.inPlace).toBe(true);
  expect(prep.check.origin.columnIndex).toBe(1);
  await runCheck(prep.check, { excelRun: wb.excelRun, client: client(), plan });
  expect(wb.api.read("Sheet1", `B1:${colLetters(W)}1`).values[0]).toEqual(outputHeaders());
  expect(wb.api.read("Sheet1", "A1:BZ1").values[0].filter((h: unknown) => h === "Compliance score")).toHaveLength(1);
});
