/**
 * The Action list of the whole workbook as the task pane builds it: the pane's run over the real sandbox (loopback
 * HTTP), the workbook in the Excel stand-in, the blocks remembered in the workbook's settings as the pane records
 * them. Several tables (two sheets, two on one sheet) share the list; notes, Done and the user's own columns stay on
 * their actions through checks, refreshes, a sort, duplicate UPRNs, a narrower window and the re-check on open;
 * history only of the same property, never of demo answers; everything built from demo answers says so.
 */
import ICAL from "ical.js";
import {
  CHANGE_LOG_HEADERS,
  DEMO_NOTE,
  LIST_STATE_COLOURS,
  RUN_LOG_HEADERS,
  createClient,
  type PlanName,
} from "../../../core";
import { demoSampleSheet } from "../../../core/demo/demo";
import { memoryStore } from "../../../excel/settings";
import { actionCalendarText, buildActionSheets } from "../../../excel/taskpane/action-sheets";
import { lastBlock, prepareCheck, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { localDay } from "../../../excel/taskpane/stored";
import { recheckOnOpen } from "../../../excel/taskpane/watch";
import { RECHECK_DAYS, recordBlock, watchedBlocks } from "../../../excel/taskpane/watch-settings";
import { testClock } from "../../helpers/clock";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { STANDIN_LIMIT_BYTES, createStandIn } from "../../helpers/excel-standin";

// The client and the sandbox share a test clock: polls and pacing move it on instead of waiting.
const clock = testClock();
let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ msPerProperty: 0, now: clock.date });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const plan: PlanName = "professional";
const client = (apiKey = "sandbox-professional") =>
  createClient({
    baseUrl: sb.baseUrl,
    apiKey,
    fetch: clock.fetch((u, i) => fetch(u, i as RequestInit) as never),
    sleep: clock.sleep,
    now: clock.now,
  });

/** A workbook whose checks are remembered in its settings, as the pane records them. */
function workbook() {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  const settings = s.Office.context.document.settings;
  const store = memoryStore();
  const deps = (key?: string) => ({
    excelRun,
    client: client(key),
    plan,
    store,
    onBlockWritten: (place: Parameters<typeof recordBlock>[1], at: string) => recordBlock(settings, place, at),
    tables: () => watchedBlocks(settings),
  });
  return { s, api: s.api, excelRun, settings, store, deps };
}
type Workbook = ReturnType<typeof workbook>;

/** A table (UPRN, Address, Landlord) at a sheet's row (1-based header row). */
function seed(
  wb: Workbook,
  sheet: string,
  rows: { uprn: string; address_line_1: string }[],
  row = 1,
  uprnOf?: (i: number) => string,
) {
  wb.api.seed(sheet, `A${row}`, [
    ["UPRN", "Address", "Landlord"],
    ...rows.map((p, i) => [uprnOf ? uprnOf(i) : p.uprn, p.address_line_1, `Landlord ${i % 5}`]),
  ]);
  return { first: row + 1, last: row + rows.length };
}

async function check(wb: Workbook, sheet: string, a1: string, extra: Record<string, unknown> = {}) {
  wb.api.select(sheet, a1);
  const prep = await prepareCheck(wb.excelRun, { plan });
  if (!prep.ok) throw new Error(prep.message);
  return runCheck(prep.check, { ...wb.deps(), ...extra });
}

function list(wb: Workbook) {
  const grid = wb.api.sourceGrid("Action list") as unknown[][];
  const header = grid[0].map(String);
  const blank = grid.findIndex((r, i) => i > 0 && r.every((v) => v === "" || v === null));
  const open = grid.slice(1, blank < 0 ? grid.length : blank);
  const c = (h: string) => header.indexOf(h);
  return { grid, header, open, c };
}

function typeNotes(wb: Workbook, every = 1): void {
  const { open, c } = list(wb);
  wb.api.seed(
    "Action list",
    `${String.fromCharCode(65 + c("Notes"))}2`,
    open.map((r, i) => [i % every ? r[c("Notes")] : `note ${i} for ${r[c("Action ID")]}`]),
  );
}

function notesNow(wb: Workbook): { notes: Map<string, string>; closed: number } {
  const { grid, c } = list(wb);
  const notes = new Map<string, string>();
  let closed = 0;
  for (const r of grid.slice(1)) {
    if (r[c("Window")] === "Closed") closed++;
    if (r[c("Notes")]) notes.set(String(r[c("Notes")]), String(r[c("Action ID")]));
  }
  return { notes, closed };
}

const props = (from: number, n: number) => sb.dataset().properties.slice(from, from + n);

test("tables on two sheets and two on one sheet share the list: checking each in turn keeps the others' notes; re-check on open lists them all", async () => {
  const wb = workbook();
  const a = seed(wb, "North", props(0, 50));
  const b = seed(wb, "North", props(100, 50), 55);
  const s = seed(wb, "South", props(200, 50));
  await check(wb, "North", `A${a.first}:A${a.last}`);
  typeNotes(wb);
  const aNotes = notesNow(wb).notes;
  await check(wb, "North", `A${b.first}:A${b.last}`);
  expect(notesNow(wb)).toEqual({ notes: aNotes, closed: 0 });
  typeNotes(wb, 2);
  const typed = notesNow(wb).notes;
  await check(wb, "South", `A${s.first}:A${s.last}`);
  expect(notesNow(wb)).toEqual({ notes: typed, closed: 0 });
  const { open, c } = list(wb);
  expect(new Set(open.map((r) => r[c("Table")]))).toEqual(new Set(["North A1", "North A55", "South"]));
  // The re-check on open of the three remembered blocks: the list still holds every table and note.
  wb.settings.set(RECHECK_DAYS, 0);
  const out = await recheckOnOpen({ ...wb.deps(), settings: wb.settings, now: () => clock.now() + 60_000 });
  expect(out).toMatchObject({ due: 3, checked: 3 });
  expect(notesNow(wb)).toEqual({ notes: typed, closed: 0 });
  expect(new Set(list(wb).open.map((r) => r[c("Table")]))).toEqual(new Set(["North A1", "North A55", "South"]));
  const runs = wb.api.sourceGrid("Run log") as unknown[][];
  expect(runs.filter((r) => r[RUN_LOG_HEADERS.indexOf("Trigger")] === "on open")).toHaveLength(3);
}, 120_000);

// Two bulk jobs' worth of rows (the size of a run is measured in npm run bench, not here).
test("1,500 rows with 5 % duplicate UPRNs: every note survives a refresh and a sort of the table; the calendar's UIDs are unique", async () => {
  const wb = workbook();
  const rows = props(0, 1500);
  const t = seed(wb, "Sheet1", rows, 1, (i) => (i % 20 === 19 ? rows[i - 1].uprn : rows[i].uprn));
  await check(wb, "Sheet1", `A1:A${t.last}`, { actionDays: 90 });
  typeNotes(wb);
  const notes = notesNow(wb).notes;
  expect(notes.size).toBeGreaterThan(150);
  // The user sorts the whole table, block and all, in reverse.
  wb.api.reorderRows(
    "Sheet1",
    1,
    rows.map((_p, i) => rows.length - 1 - i),
  );
  const place = (await lastBlock(wb.store))!;
  const o = { today: localDay(clock.now()), withinDays: 90, tables: watchedBlocks(wb.settings) };
  const again = await buildActionSheets(wb.excelRun, place, o);
  expect(again.ok).toBe(true);
  expect(notesNow(wb)).toEqual({ notes, closed: 0 });
  // Each row says where its property is now.
  const { open, c } = list(wb);
  const sheet = wb.api.sourceGrid("Sheet1") as unknown[][];
  for (const r of open.slice(0, 200)) expect(String(sheet[Number(r[c("Row")]) - 1][0])).toBe(String(r[c("UPRN")]));
  const cal = await actionCalendarText(wb.excelRun, place, { ...o, nowIso: clock.date().toISOString() });
  if (!cal.ok) throw new Error(cal.message);
  const uids = new ICAL.Component(ICAL.parse(cal.ics))
    .getAllSubcomponents("vevent")
    .map((e) => String(e.getFirstPropertyValue("uid")));
  expect(uids).toHaveLength(open.length);
  expect(new Set(uids).size).toBe(uids.length);
}, 300_000);

test("a column the user inserts keeps its values (a date stays a date) after a refresh and after a re-check; 7 days files notes under Later, 90 brings them back", async () => {
  const wb = workbook();
  const t = seed(wb, "Sheet1", props(300, 200));
  await check(wb, "Sheet1", `A1:A${t.last}`, { actionDays: 90 });
  wb.api.insertColumns("Action list", 2, 2);
  const { open, c } = list(wb);
  wb.api.seed("Action list", "C1", [
    ["Assigned to", "Follow up"],
    ...open.map((r, i) => (i % 2 ? [`Agent for ${r[c("Action ID")]}`, 46447] : ["", ""])),
  ]);
  // Excel gives a typed date its date format.
  await wb.excelRun(async (context) => {
    context.workbook.worksheets.getItem("Action list").getRange(`D2:D${open.length + 1}`).numberFormat = open.map(
      (_r, i) => [i % 2 ? "yyyy-mm-dd" : "General"],
    );
    await context.sync();
  });
  typeNotes(wb, 3);
  const notes = notesNow(wb).notes;
  const assigned = () => {
    const l = list(wb);
    return l.grid
      .slice(1)
      .filter((r) => r[l.c("Assigned to")])
      .map((r) => [r[l.c("Assigned to")], `Agent for ${r[l.c("Action ID")]}`, r[l.c("Follow up")]]);
  };
  const typed = assigned().length;
  expect(typed).toBeGreaterThan(10);
  const place = (await lastBlock(wb.store))!;
  const refresh = (days: number) =>
    buildActionSheets(wb.excelRun, place, {
      today: localDay(clock.now()),
      withinDays: days,
      tables: watchedBlocks(wb.settings),
    });
  for (const step of [() => refresh(90), () => check(wb, "Sheet1", `A1:A${t.last}`, { actionDays: 90 })]) {
    await step();
    expect(list(wb).header.slice(2, 4)).toEqual(["Assigned to", "Follow up"]);
    const now = assigned();
    expect(now).toHaveLength(typed);
    for (const [name, expected, date] of now) expect([name, date]).toEqual([expected, 46447]);
    expect(notesNow(wb)).toEqual({ notes, closed: 0 });
  }
  // The typed date keeps its date format.
  const l = list(wb);
  const row = l.grid.findIndex((r) => r[l.c("Follow up")] === 46447);
  expect(wb.api.read("Action list", `D${row + 1}`).numberFormats[0][0]).toBe("yyyy-mm-dd");
  const narrow = await refresh(7);
  expect(narrow.closed).toBe(0);
  expect(list(wb).grid.some((r) => String(r[0]).startsWith("Later:"))).toBe(true);
  // A Later action is still to do: its Window cell is Later's grey, not Closed's (core's colour, as in Sheets).
  const w = list(wb);
  const later = w.grid.findIndex((r) => r[w.c("Window")] === "Later");
  expect(later).toBeGreaterThan(0);
  const windowCell = `${String.fromCharCode(65 + w.c("Window"))}${later + 1}`;
  expect(wb.api.read("Action list", windowCell).fills[0][0]).toBe(LIST_STATE_COLOURS.Later.fill);
  expect(LIST_STATE_COLOURS.Later.fill).not.toBe(LIST_STATE_COLOURS.Closed.fill);
  expect(notesNow(wb)).toEqual({ notes, closed: 0 });
  await refresh(90);
  expect(list(wb).grid.some((r) => String(r[0]).startsWith("Later:"))).toBe(false);
  expect(notesNow(wb)).toEqual({ notes, closed: 0 });
}, 120_000);

test("a row re-used for another property, and a demo check followed by a real one, log no change; every sheet built from demo answers says so", async () => {
  const wb = workbook();
  const t = seed(wb, "Sheet1", props(800, 40));
  await check(wb, "Sheet1", `A1:A${t.last}`);
  const other = props(900, 2);
  wb.api.seed(
    "Sheet1",
    "A2",
    other.map((p) => [p.uprn, p.address_line_1]),
  );
  await check(wb, "Sheet1", `A1:A${t.last}`);
  const log = () =>
    ((wb.api.sourceGrid("Change log") as unknown[][] | undefined) ?? [])
      .slice(1)
      .filter((r) => r.some((v) => v !== ""));
  const logged = log().map((r) => String(r[CHANGE_LOG_HEADERS.indexOf("UPRN")]));
  for (const u of [...other.map((p) => p.uprn), props(800, 2)[0].uprn, props(800, 2)[1].uprn])
    expect(logged).not.toContain(String(u));

  // The demo's sample table, checked with the demo key, then with a real key.
  const demo = workbook();
  const { values } = demoSampleSheet(localDay(clock.now()));
  demo.api.seed("Demo properties", "A1", values);
  const demoCheck = async (key: string) => {
    demo.api.select("Demo properties", `A2:A${values.length}`);
    const prep = await prepareCheck(demo.excelRun, { plan });
    if (!prep.ok) throw new Error(prep.message);
    return runCheck(prep.check, { ...demo.deps(key) });
  };
  await demoCheck("demo");
  const l = list(demo);
  expect(l.open.length).toBeGreaterThan(0);
  for (const r of l.open) expect(String(r[l.c("Action")])).toContain(DEMO_NOTE);
  expect(
    (demo.api.sourceGrid("Compliance summary") as unknown[][])
      .flat()
      .some((v) => String(v).startsWith(`${DEMO_NOTE}:`)),
  ).toBe(true);
  const runs = () => (demo.api.sourceGrid("Run log") as unknown[][]).slice(1);
  expect(String(runs()[0][RUN_LOG_HEADERS.indexOf("Problem")])).toContain(DEMO_NOTE);
  const place = (await lastBlock(demo.store))!;
  const cal = await actionCalendarText(demo.excelRun, place, {
    today: localDay(clock.now()),
    withinDays: 30,
    tables: watchedBlocks(demo.settings),
    nowIso: clock.date().toISOString(),
  });
  if (!cal.ok) throw new Error(cal.message);
  expect(cal.ics).toMatch(/X-WR-CALNAME:.*Demo data/);
  await demoCheck("sandbox-professional");
  const changes = (demo.api.sourceGrid("Change log") as unknown[][] | undefined) ?? [];
  expect(changes.slice(1).filter((r) => r.some((v) => v !== ""))).toEqual([]);
  expect(String(runs()[1][RUN_LOG_HEADERS.indexOf("Problem")])).not.toContain(DEMO_NOTE);
  const real = list(demo);
  for (const r of real.open) expect(String(r[real.c("Action")])).not.toContain(DEMO_NOTE);
}, 120_000);

/** 600 properties checked with a 90-day Action list, and `userColumns` empty columns of the user's inserted in it at C. */
async function longList(userColumns: number) {
  const wb = workbook();
  const t = seed(wb, "Sheet1", props(0, 600));
  await check(wb, "Sheet1", `A1:A${t.last}`, { actionDays: 90 });
  wb.api.insertColumns("Action list", 2, userColumns);
  return { wb, ...list(wb) };
}

/** The Action list and summary built again from the last block, as longList made them. */
async function refreshLongList(wb: Workbook) {
  return buildActionSheets(wb.excelRun, (await lastBlock(wb.store))!, {
    today: localDay(clock.now()),
    withinDays: 90,
    tables: watchedBlocks(wb.settings),
  });
}

test("an Action list whose cells and number formats pass one 5 MB response is read in pieces: every note and typed date kept", async () => {
  const { wb, open, c } = await longList(2);
  // The stand-in's response limit counts every grid loaded, as Excel on the web's does.
  const LIMIT = STANDIN_LIMIT_BYTES;
  const rows = open.length + 1;
  const bytesOf = (grid: unknown) => JSON.stringify(grid).length;
  const read = () => wb.api.read("Action list", `A1:P${rows}`);
  // Each action's correspondence pasted into the user's own column: sized so the list's values alone are just under
  // the limit and its number formats take it just over, the smallest list the read of both in one sync fails on (and
  // the one a count of values alone would pass).
  const base = read();
  const formats = bytesOf(base.numberFormats);
  const each = Math.floor((LIMIT - formats / 2 - bytesOf(base.values)) / open.length);
  const letter = (i: number) =>
    `${open[i][c("Action ID")]} ${"called the tenant, access agreed; ".repeat(each)}`.slice(0, each);
  wb.api.seed("Action list", "C1", [
    ["Correspondence", "Follow up"],
    ...open.map((_r, i) => [letter(i), 46447 + (i % 30)]),
  ]);
  // Excel gives a typed date its date format.
  await wb.excelRun(async (context) => {
    context.workbook.worksheets.getItem("Action list").getRange(`D2:D${rows}`).numberFormat = open.map(() => [
      "dd/mm/yyyy",
    ]);
    await context.sync();
  });
  const before = read();
  expect(bytesOf(before.values)).toBeLessThan(LIMIT);
  expect(bytesOf(before.values) + bytesOf(before.numberFormats)).toBeGreaterThan(LIMIT);
  const typed = (grid: unknown[][]) =>
    new Map(grid.slice(1).map((r) => [String(r[c("Action ID")]), [r[c("Correspondence")], r[c("Follow up")]]]));
  const expected = typed(list(wb).grid);

  const out = await refreshLongList(wb);
  expect(out.ok).toBe(true);
  const after = list(wb);
  expect(after.open).toHaveLength(open.length);
  expect(typed(after.grid)).toEqual(expected);
  const followUp = after.header.indexOf("Follow up");
  expect(
    read()
      .numberFormats.slice(1)
      .map((r: string[]) => r[followUp]),
  ).toEqual(open.map(() => "dd/mm/yyyy"));
  // The first piece is sized before any cell is read, so Excel may refuse it (then it is read again in halves, as
  // every read of the pane is): only the requests are all within the limit.
  expect(wb.api.state.stats.maxRequestBytes).toBeLessThanOrEqual(LIMIT);
});

test("an Action list of correspondence in Ukrainian is written in requests of at most 5 MB counted in bytes, not characters: every note kept", async () => {
  const { wb, open, c } = await longList(1);
  // The stand-in's request limit counts UTF-8 bytes, as Excel on the web's does.
  const LIMIT = STANDIN_LIMIT_BYTES;
  // Letters to a tenant in Ukrainian, whose letters take two bytes each: 3.2 million characters in all, near 6 MB, so
  // a request sized by counting characters would pass the limit.
  const each = Math.floor(3_200_000 / open.length);
  const letter = (i: number) =>
    `${open[i][c("Action ID")]} ${"Зателефонували орендарю, доступ погоджено; ".repeat(each)}`.slice(0, each);
  wb.api.seed("Action list", "C1", [["Листування"], ...open.map((_r, i) => [letter(i)])]);
  const text = JSON.stringify(open.map((_r, i) => letter(i)));
  expect(text.length).toBeLessThan(3_500_000);
  expect(Buffer.byteLength(text)).toBeGreaterThan(LIMIT);
  const expected = new Map(open.map((r, i) => [String(r[c("Action ID")]), letter(i)]));

  const out = await refreshLongList(wb);
  expect(out.ok).toBe(true);
  const after = list(wb);
  const at = after.header.indexOf("Листування");
  expect(new Map(after.grid.slice(1).map((r) => [String(r[after.c("Action ID")]), r[at]]))).toEqual(expected);
  expect(wb.api.state.stats.maxRequestBytes).toBeLessThanOrEqual(LIMIT);
});
