/**
 * Each row gets its country's rules, as the BUILT Code.js writes them over the real sandbox: Scotland's deposit counted
 * in working days from the Tenancy start column, Wales's contract-holder wording, Northern Ireland said to be out of
 * scope with no deadline; the user's own-obligation columns on the Action list by the row's country, with their
 * Evidence, and the summary's count of actions marked done without evidence. The same table checked by the Excel task
 * pane (its stand-in, the same sandbox) gets the same block.
 */
import { DONE_WITHOUT_EVIDENCE, OUTPUT_COLUMNS, createClient, serialDate, type PlanName } from "../../../core";
import { memoryStore } from "../../../excel/settings";
import { prepareCheck, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { localDay } from "../../../excel/taskpane/stored";
import { TEST_DAY, dayClock, vmAtNoon } from "../../helpers/clock";
import { countryTable } from "../../helpers/country-table";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import type { FakeSheet } from "../harness/fake-sheets";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, runWords, seedTable } from "../harness/table";
import { colLetters, createStandIn } from "../../helpers/excel-standin";

const sandbox = sandboxForFile({ msPerProperty: 0, today: TEST_DAY }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(20000);
});
afterEach(() => {
  delete (globalThis as { Office?: unknown }).Office;
});

/**
 * The file's zone is the computer's, as Excel's always is, so that the Sheets file and the Excel workbook stand on one
 * day at any hour (in UTC+14 the UTC day is the day before from 10:00 UTC), and "today" is that zone's day.
 */
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
/** Both add-ins' clocks from noon of TEST_DAY in that zone (the pane's here, the spreadsheet's by vmAtNoon). */
const clock = dayClock();
const today = () => localDay(clock.now());
const isDate = (d: unknown): d is Date => Object.prototype.toString.call(d) === "[object Date]";
const sheetNamed = (env: GasEnvironment, name: string) =>
  env.spreadsheet.sheets.find((s) => s.getName() === name) as FakeSheet | undefined;
const table = () => countryTable(props, today());

async function runSheets(t: ReturnType<typeof table>) {
  const env = createGasEnvironment();
  configure(env, sandbox);
  env.spreadsheet.timeZone = ZONE;
  vmAtNoon(env);
  const { firstRow, lastRow } = seedTable(env.sheet, t.header, t.rows);
  env.sheet.select(`A${firstRow}:A${lastRow}`);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  const polls = await pollToEnd(env);
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("done");
  const inZone = (v: unknown) =>
    isDate(v) ? new Intl.DateTimeFormat("en-CA", { timeZone: env.spreadsheet.timeZone }).format(v) : String(v ?? "");
  const at = (row: number, key: string) => cellValue(env.sheet, firstRow + row, outputCol(env.sheet, key));
  return { env, last, at, inZone };
}

function listOf(env: GasEnvironment) {
  const sheet = sheetNamed(env, "Action list")!;
  const grid = sheet.peek(1, 1, sheet.getLastRow(), sheet.getLastColumn());
  const header = grid[0].map(String);
  const c = (h: string) => header.indexOf(h);
  return { sheet, grid, header, c, rows: grid.slice(1).filter((r) => r[c("UPRN")] !== "") };
}

test("Scottish, Welsh and Northern Irish postcodes get their country's rules in the block; an unreadable Tenancy start is said and counted", async () => {
  const t = table();
  const { last, at, inZone } = await runSheets(t);
  expect(String(at(0, "next_action"))).toMatch(/within 30 working days of the tenancy's start/);
  expect(inZone(at(0, "action_due"))).toBe(t.expect.scotDepositDue);
  expect(String(at(1, "next_action"))).toMatch(/contract-holder/);
  expect(String(at(2, "message"))).toMatch(/^Northern Ireland: its own law applies/);
  expect([at(2, "next_action"), at(2, "action_due"), at(2, "window")]).toEqual(["", "", ""]);
  expect(at(4, "message")).toBe(
    'Tenancy start "soon" is not a date the add-in can read: type it as 2021-03-15 or 15/03/2021.',
  );
  expect(runWords(last)).toMatch(/1 row has a date in your own columns that could not be read/);
});

test("own-obligation columns give actions on the Action list by the row's country, with their Evidence; the summary counts actions done without evidence", async () => {
  const t = table();
  const { env, inZone } = await runSheets(t);
  let list = listOf(env);
  const rowsOf = (uprn: string) => list.rows.filter((r) => String(r[list.c("UPRN")]).replace(/^'/, "") === uprn);
  const find = (uprn: string, check: string) => rowsOf(uprn).find((r) => r[list.c("Check")] === check);
  const { scot, wales, ni, eng1, eng2 } = t.props;
  expect(inZone(find(scot.uprn, "Landlord registration (Scotland)")?.[list.c("Due")])).toBe(
    t.expect.scotRegistrationDue,
  );
  expect(find(scot.uprn, "Smoke alarms")).toBeUndefined();
  const rsw = find(wales.uprn, "Rent Smart Wales")!;
  expect(inZone(rsw[list.c("Due")])).toBe(t.expect.walesRegistrationDue);
  expect(find(wales.uprn, "Landlord registration (Scotland)")).toBeUndefined();
  expect(rowsOf(ni.uprn)).toEqual([]);
  expect(inZone(find(eng1.uprn, "Smoke alarms")?.[list.c("Due")])).toBe(t.expect.engSmokeDue);
  const leg1 = find(eng1.uprn, "Legionella risk assessment")!;
  const leg2 = find(eng2.uprn, "Legionella risk assessment")!;
  expect([leg1[list.c("Due")], leg1[list.c("Evidence")]]).toEqual(["", "https://example.org/legionella-eng1.pdf"]);
  expect(leg2[list.c("Evidence")]).toBe("");

  const rowOf = (id: unknown) => list.grid.findIndex((r) => r[list.c("Action ID")] === id) + 1;
  for (const r of [leg1, leg2, rsw]) list.sheet.seed(rowOf(r[list.c("Action ID")]), list.c("Done") + 1, [["x"]]);
  list.sheet.seed(rowOf(rsw[list.c("Action ID")]), list.c("Evidence") + 1, [["https://rentsmart.example/cert"]]);
  expect(env.run("refreshActionSheets", {}).ok).toBe(true);
  list = listOf(env);
  expect(list.rows.find((r) => r[list.c("Action ID")] === rsw[list.c("Action ID")])![list.c("Evidence")]).toBe(
    "https://rentsmart.example/cert",
  );
  const summary = sheetNamed(env, "Compliance summary")!;
  const line = summary.peek(1, 1, summary.getLastRow(), 2).find((r) => r[0] === DONE_WITHOUT_EVIDENCE);
  expect(line?.[1]).toBe(1);
});

test("the same table gets the same block in Excel and in Sheets", async () => {
  const t = table();
  const sheets = await runSheets(t);
  const s = createStandIn();
  s.api.state.displayLanguage = "en-GB";
  (globalThis as { Office?: unknown }).Office = s.Office;
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  s.api.seed("Sheet1", "A1", [t.header, ...t.rows]);
  s.api.select("Sheet1", `A1:A${t.rows.length + 1}`);
  const plan: PlanName = "professional";
  const prep = await prepareCheck(excelRun, { plan });
  if (!prep.ok) throw new Error(prep.message);
  const client = createClient({
    baseUrl: sandbox.baseUrl,
    apiKey: "sandbox-professional",
    fetch: (u, i) => fetch(u, i as RequestInit) as never,
    now: clock.now,
  });
  await runCheck(prep.check, { excelRun, client, plan, store: memoryStore(), actionSheets: false, now: clock.now });
  const compared = OUTPUT_COLUMNS.filter((c) => c.kind !== "datetime");
  const excelCell = (row: number, key: string) => {
    const k = OUTPUT_COLUMNS.findIndex((x) => x.key === key);
    const v = s.api.read("Sheet1", `${colLetters(t.header.length + k)}${row + 2}`).values[0][0];
    return OUTPUT_COLUMNS[k].kind === "date" && typeof v === "number"
      ? serialDate(v)
      : String(v ?? "").replace(/^'/, "");
  };
  const sheetsCell = (row: number, key: string) => sheets.inZone(sheets.at(row, key)).replace(/^'/, "");
  for (let row = 0; row < t.rows.length; row++) {
    expect(compared.map((c) => [row, c.key, excelCell(row, c.key)])).toEqual(
      compared.map((c) => [row, c.key, sheetsCell(row, c.key)]),
    );
  }
});
