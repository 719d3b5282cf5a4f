/**
 * A table's Action IDs in Google Sheets, as core's tableIds decides them: the BUILT Code.js in a vm, real HTTP to the
 * sandbox, the spreadsheet in memory. What the user typed on the Action list stays on its actions when the table's sheet
 * is renamed, rows are inserted above it and a column left of it; and a list written with the ids of earlier versions
 * keeps its typed cells after the upgrade. A table checked above another on its sheet, then deleted, never renames the
 * other: a table's number on its sheet is kept with its record in the document's properties.
 */
import { tableIds } from "../../../core";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import type { FakeSheet } from "../harness/fake-sheets";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { configure, pollToEnd, seedTable } from "../harness/table";
import {
  LIST_HEADERS,
  expectTypedKept,
  listColumn,
  typeOnActionList,
  type TypedOnList,
} from "../../helpers/action-list";

const sandbox = sandboxForFile({ msPerProperty: 0 }, { resetEach: true });
let props: SandboxProperty[];
beforeAll(async () => {
  props = await sandbox.properties(75);
});

const col = listColumn;
const listSheet = (env: GasEnvironment) =>
  env.spreadsheet.sheets.find((s) => s.getName() === "Action list") as FakeSheet;
const listGrid = (env: GasEnvironment) => {
  const s = listSheet(env);
  return s.peek(1, 1, s.getLastRow(), LIST_HEADERS.length);
};
/** Dates come from the vm's realm: compared as their time. */
const day = (v: unknown) => (Object.prototype.toString.call(v) === "[object Date]" ? (v as Date).getTime() : v);
/** An action as the user knows it: its property, check and due date. */
const actionKey = (r: readonly unknown[]) => `${r[col("UPRN")]}|${r[col("Check")]}|${day(r[col("Due")])}`;

/** A table (UPRN, Address) at A1 of the first sheet, checked whole from the sidebar; the Action list follows the run. */
async function checked(): Promise<GasEnvironment> {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const { firstRow, lastRow } = seedTable(
    env.sheet,
    ["UPRN", "Address"],
    props.slice(0, 60).map((p) => [p.uprn, p.address]),
  );
  env.sheet.select(`A${firstRow}:B${lastRow}`);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  await pollToEnd(env);
  expect(listGrid(env)[0]).toEqual(LIST_HEADERS);
  return env;
}

type Typed = TypedOnList;

/** Types Done on every third open action and a note on every other one; returns what was typed, by action. */
const typeOnList = (env: GasEnvironment): Typed =>
  typeOnActionList(listGrid(env), actionKey, (i, done, notes) =>
    listSheet(env).seed(i + 1, col("Done") + 1, [[done, notes]]),
  );
const expectKept = (env: GasEnvironment, typed: Typed) => expectTypedKept(listGrid(env), actionKey, typed);

test("a renamed sheet, two rows inserted above the table and a column left of it: the Action list keeps every typed Done and note on its action, under the same Action IDs", async () => {
  const env = await checked();
  const typed = typeOnList(env);
  // Core's id of a table at A1 of this sheet, as Excel names a table at A1 of its sheet (with its own sheet id).
  const [table] = tableIds([{ sheetId: env.sheet.getSheetId(), headerRow: 0, firstColumn: 0 }]);
  expect([...typed.values()].every((t) => String(t.id).startsWith(`${table}.`))).toBe(true);
  env.sheet.setName("Lettings");
  env.sheet.insertRowsBefore(1, 2);
  env.sheet.insertColumnBefore(1);
  const r = env.run("refreshActionSheets", {});
  expect(r.message).toMatch(/Action list/);
  expect(r.ok).toBe(true);
  expectKept(env, typed);
  const grid = listGrid(env);
  expect(grid[1][col("Table")]).toBe("Lettings");
  // The block is read where it is now: its row numbers are the sheet's rows after the insert.
  const rows = grid
    .slice(1)
    .map((x) => x[col("Row")])
    .filter((x) => x !== "");
  expect(Math.min(...(rows as number[]))).toBeGreaterThanOrEqual(4);
});

test("an Action list written with an earlier version's Action IDs keeps every typed Done and note on its action after a refresh", async () => {
  const env = await checked();
  const grid = listGrid(env);
  // Google Sheets' table id before core decided it: "s" + the sheet's id + "h" + its header row (1-based).
  const old = `s${env.sheet.getSheetId()}h1`;
  const now = new Map<string, unknown>();
  for (let i = 1; i < grid.length; i++) {
    const id = String(grid[i][col("Action ID")]);
    if (!id.includes(".")) continue;
    now.set(actionKey(grid[i]), id);
    listSheet(env).seed(i + 1, col("Action ID") + 1, [[old + id.slice(id.indexOf("."))]]);
  }
  const typed = typeOnList(env);
  expect([...typed.values()].every((t) => String(t.id).startsWith(`${old}.`))).toBe(true);
  const r = env.run("refreshActionSheets", {});
  expect(r.ok).toBe(true);
  // Each typed value is back on its action, whose Action ID is in the current form again.
  expectKept(env, new Map([...typed].map(([k, t]) => [k, { ...t, id: now.get(k) }])));
  expect(
    listGrid(env)
      .slice(1)
      .some((x) => String(x[col("Action ID")]).startsWith(old)),
  ).toBe(false);
});

/** Each typed value is on one row of its action, under its Action ID: none left on a row of an id the list no longer has. */
function expectOnce(env: GasEnvironment, typed: Typed) {
  const grid = listGrid(env);
  expect(typed.size).toBeGreaterThan(5);
  for (const [key, t] of typed)
    expect(
      grid
        .slice(1)
        .filter((r) => actionKey(r) === key)
        .map((r) => [r[col("Action ID")], r[col("Done")], r[col("Notes")]]),
    ).toEqual([[t.id, t.done, t.notes]]);
}

test("a second table checked above a table on the same sheet, then deleted: the first keeps its Action IDs and every typed Done and note; the new one's actions are new", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const check = async (a1: string) => {
    env.sheet.select(a1);
    const start = env.run("startBulkCheck", {});
    if (!start.ok) throw new Error(start.message);
    await pollToEnd(env);
  };
  // Table A under a header on row 21; the rows above are empty until table B is entered there.
  env.sheet.maxRows = 120;
  env.sheet.seed(21, 1, [["UPRN", "Address"], ...props.slice(0, 60).map((p) => [p.uprn, p.address])]);
  await check("A22:B81");
  const typed = typeOnList(env);
  const [tableA] = tableIds([{ sheetId: env.sheet.getSheetId(), headerRow: 0, firstColumn: 0 }]);
  expect([...typed.values()].every((t) => String(t.id).startsWith(`${tableA}.`))).toBe(true);

  env.sheet.seed(1, 1, [["UPRN", "Address"], ...props.slice(60, 75).map((p) => [p.uprn, p.address])]);
  await check("A2:B16");
  // Each table's record keeps its number on the sheet: A's 1, B's 2.
  const records = Object.entries(env.documentProperties.getProperties())
    .filter(([k]) => k.startsWith("compliance.watch."))
    .map(([, v]) => JSON.parse(v) as { headerRow: number; ordinal: number });
  expect(records.map((w) => [w.headerRow, w.ordinal]).sort()).toEqual([
    [1, 2],
    [21, 1],
  ]);
  expect(env.run("refreshActionSheets", {}).ok).toBe(true);
  expectOnce(env, typed);
  const bUprns = new Set(props.slice(60, 75).map((p) => p.uprn));
  const bIds = listGrid(env)
    .slice(1)
    .filter((r) => bUprns.has(String(r[col("UPRN")])))
    .map((r) => String(r[col("Action ID")]));
  expect(bIds.length).toBeGreaterThan(0);
  expect(bIds.every((id) => id.startsWith(`${tableA}n2.`))).toBe(true);

  // Table B's rows deleted: table A moves up 17 rows and still keeps everything typed on it.
  env.sheet.deleteRows(1, 17);
  expect(env.run("refreshActionSheets", {}).ok).toBe(true);
  // Only table B is no longer found (its actions kept under its heading).
  expect(
    listGrid(env)
      .filter((r) => /^Table no longer found/.test(String(r[0])))
      .map((r) => String(r[0]).split(".")[0]),
  ).toEqual(["Table no longer found: Sheet1 A1"]);
  expectOnce(env, typed);
});

test("a table checked again after rows were inserted above it: the records of its two places are one table, which keeps its Action IDs and what was typed on them", async () => {
  const env = await checked();
  const typed = typeOnList(env);
  env.sheet.insertRowsBefore(1, 3);
  env.sheet.select("A5:B64");
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  await pollToEnd(env);
  const records = Object.keys(env.documentProperties.getProperties()).filter((k) => k.startsWith("compliance.watch."));
  expect(records).toHaveLength(2);
  expect(env.run("refreshActionSheets", {}).ok).toBe(true);
  expectOnce(env, typed);
});
