/**
 * Each row gets its country's rules, as the task pane's run writes them over the real sandbox (loopback HTTP), the
 * workbook in the Excel stand-in: Scotland's deposit counted in working days from the Tenancy start column, Wales's
 * contract-holder wording, Northern Ireland said to be out of scope with no deadline; and the user's own-obligation
 * columns (smoke alarms, legionella with its Evidence, Rent Smart Wales, Scottish landlord registration) on the Action
 * list by the row's country, with the summary counting actions marked done without evidence.
 */
import { DONE_WITHOUT_EVIDENCE, OUTPUT_COLUMNS, createClient, serialDate, type PlanName } from "../../../core";
import { memoryStore } from "../../../excel/settings";
import { buildActionSheets } from "../../../excel/taskpane/action-sheets";
import { lastBlock, prepareCheck, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { localDay } from "../../../excel/taskpane/stored";
import { checkResultFor } from "../../../sandbox/dataset";
import { TEST_DAY, dayClock } from "../../helpers/clock";
import { countryTable } from "../../helpers/country-table";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { createStandIn, colLetters } from "../../helpers/excel-workbook";

// The sandbox's register and the pane's day on one clock from noon of a fixed day.
const clock = dayClock();
let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ today: TEST_DAY, now: clock.date });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());
afterEach(() => {
  delete (globalThis as { Office?: unknown }).Office;
});

const plan: PlanName = "professional";
/** The pane's day: the computer's own day on the test clock. */
const today = () => localDay(clock.now());
const day = (v: unknown) => (typeof v === "number" ? serialDate(v) : String(v ?? ""));

function table() {
  const props = sb.dataset().properties.map((p) => ({
    uprn: p.uprn,
    postcode: p.postcode,
    address: p.address,
    checks: checkResultFor(p).checks as Record<string, unknown>,
  }));
  return countryTable(props, today());
}

async function run(t: ReturnType<typeof table>) {
  const s = createStandIn();
  s.api.state.displayLanguage = "en-GB";
  (globalThis as { Office?: unknown }).Office = s.Office;
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  s.api.seed("Sheet1", "A1", [t.header, ...t.rows]);
  s.api.select("Sheet1", `A1:A${t.rows.length + 1}`);
  const prep = await prepareCheck(excelRun, { plan });
  if (!prep.ok) throw new Error(prep.message);
  const client = createClient({
    baseUrl: sb.baseUrl,
    apiKey: "sandbox-professional",
    fetch: (u, i) => fetch(u, i as RequestInit) as never,
    now: clock.now,
  });
  const store = memoryStore();
  const summary = await runCheck(prep.check, { excelRun, client, plan, store, now: clock.now });
  const at = (row: number, key: string) => {
    const c = t.header.length + OUTPUT_COLUMNS.findIndex((x) => x.key === key);
    return s.api.read("Sheet1", `${colLetters(c)}${row + 2}`).values[0][0];
  };
  return { s, excelRun, store, summary, at };
}

function listOf(s: { api: { sourceGrid(name: string): unknown[][] } }) {
  const grid = s.api.sourceGrid("Action list");
  const header = grid[0].map(String);
  const c = (h: string) => header.indexOf(h);
  return { grid, header, c, rows: grid.slice(1).filter((r) => r[c("UPRN")] !== "" && r[c("UPRN")] != null) };
}

test("Scottish, Welsh and Northern Irish postcodes get their country's rules in the block; an unreadable Tenancy start is said and counted", async () => {
  const t = table();
  const { summary, at } = await run(t);
  // Scotland: the deposit within 30 working days of the tenancy's start (Tenancy start column).
  expect(String(at(0, "next_action"))).toMatch(/within 30 working days of the tenancy's start/);
  expect(day(at(0, "action_due"))).toBe(t.expect.scotDepositDue);
  // Wales: the contract-holder's deposit rule (Renting Homes (Wales) Act 2016, s.45).
  expect(String(at(1, "next_action"))).toMatch(/contract-holder/);
  // Northern Ireland: out of scope, said in the row, no deadline.
  expect(String(at(2, "message"))).toMatch(/^Northern Ireland: its own law applies/);
  expect([at(2, "next_action"), at(2, "action_due"), at(2, "window")]).toEqual(["", "", ""]);
  // England: England's rules, no country message.
  expect(String(at(3, "message"))).not.toMatch(/Northern Ireland|Scotland|Wales/);
  expect(at(4, "message")).toBe(
    'Tenancy start "soon" is not a date the add-in can read: type it as 2021-03-15 or 15/03/2021.',
  );
  expect(summary.unreadDateRows).toBe(1);
});

test("own-obligation columns give actions on the Action list by the row's country, with their Evidence; the summary counts actions done without evidence", async () => {
  const t = table();
  const { s, excelRun, store, summary } = await run(t);
  expect(summary.actionSheets).toMatch(/^"Action list": /);
  let list = listOf(s);
  const rowsOf = (uprn: string) => list.rows.filter((r) => String(r[list.c("UPRN")]).replace(/^'/, "") === uprn);
  const checks = (uprn: string) => rowsOf(uprn).map((r) => String(r[list.c("Check")]));
  const { scot, wales, ni, eng1, eng2 } = t.props;
  expect(list.header).toContain("Evidence");
  // Scotland: landlord registration, 3 years; its smoke alarms have no check date there, so no action.
  const reg = rowsOf(scot.uprn).find((r) => r[list.c("Check")] === "Landlord registration (Scotland)")!;
  expect(day(reg[list.c("Due")])).toBe(t.expect.scotRegistrationDue);
  expect(checks(scot.uprn)).not.toContain("Smoke alarms");
  // Wales: Rent Smart Wales, 5 years; Scotland's landlord registration does not apply there.
  const rsw = rowsOf(wales.uprn).find((r) => r[list.c("Check")] === "Rent Smart Wales")!;
  expect(day(rsw[list.c("Due")])).toBe(t.expect.walesRegistrationDue);
  expect(String(rsw[list.c("Rule")])).toMatch(/Housing \(Wales\) Act 2014/);
  expect(checks(wales.uprn)).not.toContain("Landlord registration (Scotland)");
  // Northern Ireland: nothing listed.
  expect(rowsOf(ni.uprn)).toEqual([]);
  // England: the smoke alarms checked before the tenancy began are due on its first day; legionella has no date, with its Evidence.
  const smoke = rowsOf(eng1.uprn).find((r) => r[list.c("Check")] === "Smoke alarms")!;
  expect(day(smoke[list.c("Due")])).toBe(t.expect.engSmokeDue);
  const leg1 = rowsOf(eng1.uprn).find((r) => r[list.c("Check")] === "Legionella risk assessment")!;
  const leg2 = rowsOf(eng2.uprn).find((r) => r[list.c("Check")] === "Legionella risk assessment")!;
  expect([leg1[list.c("Due")], leg1[list.c("Evidence")]]).toEqual(["", "https://example.org/legionella-eng1.pdf"]);
  expect(leg2[list.c("Evidence")]).toBe("");

  // Done typed on both legionella actions and on Rent Smart Wales with evidence typed on the list: one lacks evidence.
  const idRow = (id: unknown) => list.grid.findIndex((r) => r[list.c("Action ID")] === id) + 1;
  const letter = (h: string) => colLetters(list.c(h));
  for (const r of [leg1, leg2, rsw])
    s.api.seed("Action list", `${letter("Done")}${idRow(r[list.c("Action ID")])}`, [["x"]]);
  s.api.seed("Action list", `${letter("Evidence")}${idRow(rsw[list.c("Action ID")])}`, [
    ["https://rentsmart.example/cert"],
  ]);
  const again = await buildActionSheets(excelRun, (await lastBlock(store))!, { today: today(), withinDays: 90 });
  expect(again.ok).toBe(true);
  list = listOf(s);
  // What was typed in Evidence stays on its action, like Notes.
  expect(list.rows.find((r) => r[list.c("Action ID")] === rsw[list.c("Action ID")])![list.c("Evidence")]).toBe(
    "https://rentsmart.example/cert",
  );
  const cells = s.api.sourceGrid("Compliance summary");
  const line = cells.find((r: unknown[]) => r[0] === DONE_WITHOUT_EVIDENCE);
  expect(line?.[1]).toBe(1);
});
