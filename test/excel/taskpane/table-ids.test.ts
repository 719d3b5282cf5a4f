/**
 * A table's Action IDs in Excel, as core's tableIds decides them: the pane's check over the real sandbox (loopback
 * HTTP), the workbook in the Excel stand-in. What the user typed on the Action list stays on its actions when the
 * table's sheet is renamed, rows are inserted above it and a column left of it; and a list written with the ids of
 * earlier versions keeps its typed cells after the upgrade. A table checked above another on its sheet, then deleted,
 * never renames the other: a table's number on its sheet is kept with its record in the workbook's settings.
 */
import { tableIds, type PlanName } from "../../../core";
import { memoryStore } from "../../../excel/settings";
import { buildActionSheets } from "../../../excel/taskpane/action-sheets";
import { lastBlock, runCheck } from "../../../excel/taskpane/check-run";
import { localDay } from "../../../excel/taskpane/stored";
import { TEST_DAY, dayClock } from "../../helpers/clock";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { expectTypedKept, listColumn, typeOnActionList, type TypedOnList } from "../../helpers/action-list";
import { colLetters, prepared, proClient, workbook } from "../../helpers/excel-workbook";
import { recheckOnOpen } from "../../../excel/taskpane/watch";
import { RECHECK_DAYS, WATCHED_BLOCKS, recordBlock, watchedBlocks } from "../../../excel/taskpane/watch-settings";

// The sandbox's register, the pane's runs and the Action list's refreshes on one clock from noon of a fixed day.
const clock = dayClock();
let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ today: TEST_DAY, now: clock.date });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const plan: PlanName = "professional";
const col = listColumn;
/** The workbook's day as the pane's run takes it (the computer's local day), so the refresh lists on the same day. */
const today = () => localDay(clock.now());

/** A table (UPRN, Address) on Sheet1 checked whole by the pane; the Action list is built after the run. */
async function checked(n: number) {
  const { s, excelRun } = workbook();
  const store = memoryStore();
  const rows = sb.dataset().properties.slice(0, n);
  s.api.seed("Sheet1", "A1", [["UPRN", "Address"], ...rows.map((p) => [p.uprn, p.address_line_1])]);
  s.api.select("Sheet1", `A1:A${n + 1}`);
  await runCheck(await prepared(excelRun, { plan }), { excelRun, client: proClient(sb, { clock }), plan, store });
  return { api: s.api, excelRun, place: (await lastBlock(store))! };
}

const listGrid = (api: any) => api.sourceGrid("Action list") as unknown[][];
/** An action as the user knows it: its property, check and due date (the row's Due cell, a serial). */
const actionKey = (r: readonly unknown[]) => `${r[col("UPRN")]}|${r[col("Check")]}|${r[col("Due")]}`;

/** Types Done on every third open action and a note on every other one; returns what was typed, by action. */
const typeOnList = (api: any) =>
  typeOnActionList(listGrid(api), actionKey, (i, done, notes) =>
    api.seed("Action list", `${colLetters(col("Done"))}${i + 1}`, [[done, notes]]),
  );
const expectKept = (api: any, typed: TypedOnList) => expectTypedKept(listGrid(api), actionKey, typed);

test("a renamed sheet, two rows inserted above the table and a column left of it: the Action list keeps every typed Done and note on its action, under the same Action IDs", async () => {
  const { api, excelRun, place } = await checked(60);
  expect(place.sheetId).toMatch(/^\{[0-9A-F-]+\}$/);
  const typed = typeOnList(api);
  // Core's id of a table at A1 of this sheet, as Google Sheets names a table at A1 of its sheet (with its own sheet id).
  const [table] = tableIds([{ sheetId: place.sheetId!, headerRow: 0, firstColumn: 0 }]);
  expect([...typed.values()].every((t) => String(t.id).startsWith(`${table}.`))).toBe(true);
  api.renameSheet("Sheet1", "Lettings");
  api.insertRows("Lettings", 0, 2);
  api.insertColumns("Lettings", 0, 1);
  const r = await buildActionSheets(excelRun, place, { today: today(), withinDays: 30 });
  expect(r.line).toMatch(/Action list/);
  expect(r.ok).toBe(true);
  expectKept(api, typed);
  // The Table column names the sheet as it is called now, and where the table starts now.
  expect(listGrid(api)[1][col("Table")]).toBe("Lettings");
  // The block is read where it is now: its row numbers are the sheet's rows after the insert.
  const rows = listGrid(api)
    .slice(1)
    .map((x) => x[col("Row")])
    .filter((x) => x !== "");
  expect(Math.min(...(rows as number[]))).toBeGreaterThanOrEqual(4);
});

/** Excel's table id before core decided it: the sheet name's FNV-1a hash, header row and first input column, 1-based. */
function oldExcelTableId(sheet: string, headerRow: number, firstColumn: number): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < sheet.length; i++) {
    h ^= sheet.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `x${h.toString(36)}h${headerRow + 1}c${firstColumn + 1}`;
}

test("an Action list written with an earlier version's Action IDs keeps every typed Done and note on its action after a refresh", async () => {
  const { api, excelRun, place } = await checked(60);
  const grid = listGrid(api);
  const idCol = col("Action ID");
  const old = oldExcelTableId("Sheet1", 0, 0);
  // The list as the earlier version wrote it: the same actions, each Action ID starting with the old table id.
  const now = new Map<string, unknown>();
  for (let i = 1; i < grid.length; i++) {
    const id = String(grid[i][idCol]);
    if (!id.includes(".")) continue;
    now.set(actionKey(grid[i]), id);
    api.seed("Action list", `${colLetters(idCol)}${i + 1}`, [[old + id.slice(id.indexOf("."))]]);
  }
  const typed = typeOnList(api);
  expect([...typed.values()].every((t) => String(t.id).startsWith(`${old}.`))).toBe(true);
  const r = await buildActionSheets(excelRun, place, { today: today(), withinDays: 30 });
  expect(r.ok).toBe(true);
  // Each typed value is back on its action, whose Action ID is in the current form again.
  expectKept(api, new Map([...typed].map(([k, t]) => [k, { ...t, id: now.get(k) }])));
  expect(
    listGrid(api)
      .slice(1)
      .some((x) => String(x[idCol]).startsWith(old)),
  ).toBe(false);
});

/** A workbook whose checks are remembered in its settings, as the pane records them; check(a1) checks rows of Sheet1. */
function remembering() {
  const { s, excelRun } = workbook();
  const settings = s.Office.context.document.settings;
  const store = memoryStore();
  const deps = {
    excelRun,
    client: proClient(sb, { clock }),
    plan,
    store,
    onBlockWritten: (place: Parameters<typeof recordBlock>[1], at: string) => recordBlock(settings, place, at),
    tables: () => watchedBlocks(settings),
  };
  const check = async (a1: string) => {
    s.api.select("Sheet1", a1);
    await runCheck(await prepared(excelRun, { plan }), deps);
  };
  const refresh = () =>
    buildActionSheets(excelRun, deps.tables()[0], { today: today(), withinDays: 30, tables: deps.tables() });
  return { s, excelRun, settings, deps, check, refresh };
}

test("a second table checked above a table on the same sheet, then deleted: the first keeps its Action IDs and every typed Done and note; the new one's actions are new", async () => {
  const { s, settings, check, refresh } = remembering();
  const all = sb.dataset().properties;
  // Table A under a header on row 21; the rows above are empty until table B is entered there.
  s.api.seed("Sheet1", "A21", [["UPRN", "Address"], ...all.slice(0, 60).map((p) => [p.uprn, p.address_line_1])]);
  await check("A22:A81");
  const typed = typeOnList(s.api);
  const [a] = watchedBlocks(settings);
  const [tableA] = tableIds([{ sheetId: a.sheetId!, headerRow: 0, firstColumn: 0 }]);
  expect(a.ordinal).toBe(1);
  expect([...typed.values()].every((t) => String(t.id).startsWith(`${tableA}.`))).toBe(true);

  s.api.seed("Sheet1", "A1", [["UPRN", "Address"], ...all.slice(100, 115).map((p) => [p.uprn, p.address_line_1])]);
  await check("A2:A16");
  expect(watchedBlocks(settings).map((b) => [b.headerRow, b.ordinal])).toEqual([
    [20, 1],
    [0, 2],
  ]);
  expect((await refresh()).ok).toBe(true);
  expectOnce(s.api, typed);
  const bUprns = new Set(all.slice(100, 115).map((p) => p.uprn));
  const bIds = listGrid(s.api)
    .slice(1)
    .filter((r) => bUprns.has(String(r[col("UPRN")])))
    .map((r) => String(r[col("Action ID")]));
  expect(bIds.length).toBeGreaterThan(0);
  expect(bIds.every((id) => id.startsWith(`${tableA}n2.`))).toBe(true);

  // Table B's rows deleted: table A moves up 17 rows and still keeps everything typed on it.
  s.api.deleteRows("Sheet1", 0, 17);
  expect((await refresh()).ok).toBe(true);
  // Only table B is no longer found (its actions kept under its heading).
  const grid = listGrid(s.api);
  expect(
    grid.filter((r) => /^Table no longer found/.test(String(r[0]))).map((r) => String(r[0]).split(".")[0]),
  ).toEqual(["Table no longer found: Sheet1 A1"]);
  expectOnce(s.api, typed);
});

test("two tables of a sheet recorded by an earlier version, moved down and checked again on open: each keeps its Action IDs and what was typed on them", async () => {
  const { s, settings, deps, check, refresh } = remembering();
  const all = sb.dataset().properties;
  s.api.seed("Sheet1", "A1", [["UPRN", "Address"], ...all.slice(0, 30).map((p) => [p.uprn, p.address_line_1])]);
  s.api.seed("Sheet1", "A41", [["UPRN", "Address"], ...all.slice(100, 130).map((p) => [p.uprn, p.address_line_1])]);
  await check("A2:A31");
  await check("A42:A71");
  // The records as an earlier version kept them: no number on the sheet.
  settings.set(
    WATCHED_BLOCKS,
    watchedBlocks(settings).map(({ ordinal: _n, ...b }) => b),
  );
  expect((await refresh()).ok).toBe(true);
  const typed = typeOnList(s.api);
  const [t] = tableIds([{ sheetId: watchedBlocks(settings)[0].sheetId!, headerRow: 0, firstColumn: 0 }]);
  const ids = [...typed.values()].map((x) => String(x.id));
  expect(ids.some((id) => id.startsWith(`${t}.`)) && ids.some((id) => id.startsWith(`${t}n2.`))).toBe(true);
  // Both tables move down three rows; on open each is found where it is now, checked again and recorded there.
  s.api.insertRows("Sheet1", 0, 3);
  settings.set(RECHECK_DAYS, 0);
  const out = await recheckOnOpen({ ...deps, settings, now: () => clock.now() + 60_000 });
  expect(out).toMatchObject({ due: 2, checked: 2 });
  expect(watchedBlocks(settings).map((b) => [b.headerRow, b.ordinal])).toEqual([
    [3, 1],
    [43, 2],
  ]);
  expect((await refresh()).ok).toBe(true);
  expectOnce(s.api, typed);
});

test("a table checked again after rows were inserted above it: the records of its two places are one table, which keeps its Action IDs and what was typed on them", async () => {
  const { s, settings, check, refresh } = remembering();
  const all = sb.dataset().properties;
  s.api.seed("Sheet1", "A1", [["UPRN", "Address"], ...all.slice(0, 60).map((p) => [p.uprn, p.address_line_1])]);
  await check("A2:A61");
  const typed = typeOnList(s.api);
  s.api.insertRows("Sheet1", 0, 3);
  await check("A5:A64");
  expect(watchedBlocks(settings).map((b) => b.headerRow)).toEqual([0, 3]);
  expect((await refresh()).ok).toBe(true);
  expectOnce(s.api, typed);
});

/** Each typed value is on one row of its action, under its Action ID: none left on a row of an id the list no longer has. */
function expectOnce(api: any, typed: Map<string, { id: unknown; done: unknown; notes: unknown }>) {
  const grid = listGrid(api);
  expect(typed.size).toBeGreaterThan(5);
  for (const [key, t] of typed)
    expect(
      grid
        .slice(1)
        .filter((r) => actionKey(r) === key)
        .map((r) => [r[col("Action ID")], r[col("Done")], r[col("Notes")]]),
    ).toEqual([[t.id, t.done, t.notes]]);
}
