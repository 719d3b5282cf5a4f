/**
 * The Action list of the whole spreadsheet as Apps Script builds it: the BUILT Code.js in a vm, real HTTP to the
 * sandbox, the spreadsheet in memory. Several tables (on two sheets, two on one sheet) share one list and one summary;
 * notes, Done and the user's own columns stay on their actions through checks, refreshes, duplicate UPRNs, a narrower
 * window, the scheduled re-check and the spreadsheet's own time zone (the clock injected, never the wall's); history
 * is only of the same property, never of demo answers; everything built from demo answers says so.
 */
import ICAL from "ical.js";
import {
  CHANGE_LOG_HEADERS,
  DEMO_NOTE,
  LIST_STATE_COLOURS,
  RUN_LOG_HEADERS,
  daysBetween,
  tableIds,
} from "../../../core";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import { zonedParts, zonedTimeToUtc, type FakeSheet } from "../harness/fake-sheets";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { configure, outputCol, pollToEnd } from "../harness/table";

const sandbox = sandboxForFile(
  {
    msPerProperty: 0,
    limits: { professional: { perMinute: 100000, perDay: 1000000 } },
  },
  { resetEach: true },
);
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(1000);
});

const isDate = (d: unknown): d is Date => Object.prototype.toString.call(d) === "[object Date]";
const sheetNamed = (env: GasEnvironment, name: string) =>
  env.spreadsheet.sheets.find((s) => s.getName() === name) as FakeSheet | undefined;

/** A sheet holding a table (UPRN, Address, Landlord) whose header is at `row`; returns its data rows. */
function seed(
  sheet: FakeSheet,
  rows: SandboxProperty[],
  row = 1,
  uprnOf?: (p: SandboxProperty, i: number) => string,
): { first: number; last: number } {
  if (sheet.maxRows < row + rows.length + 10) sheet.maxRows = row + rows.length + 10;
  if (sheet.maxCols < 60) sheet.maxCols = 60;
  sheet.seed(row, 1, [
    ["UPRN", "Address", "Landlord"],
    ...rows.map((p, i) => [uprnOf ? uprnOf(p, i) : p.uprn, p.address, `Landlord ${i % 7}`]),
  ]);
  return { first: row + 1, last: row + rows.length };
}

/** Checks rows of a sheet from the sidebar, to the end. */
async function check(env: GasEnvironment, sheet: FakeSheet, a1: string): Promise<void> {
  env.spreadsheet.active = sheet;
  sheet.select(a1);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  const polls = await pollToEnd(env, undefined, 3000);
  expect(polls[polls.length - 1].phase).toBe("done");
}

/** The Action list as the sheet holds it: header, every row, and the open rows (before the first blank row). */
function list(env: GasEnvironment) {
  const sheet = sheetNamed(env, "Action list")!;
  const grid = sheet.peek(1, 1, sheet.getLastRow(), sheet.getLastColumn());
  const header = grid[0].map(String);
  const blank = grid.findIndex((r, i) => i > 0 && r.every((v) => v === ""));
  const open = grid.slice(1, blank < 0 ? grid.length : blank);
  const c = (h: string) => header.indexOf(h);
  return { sheet, grid, header, open, c };
}

/** Types a note on every `every`th open row (naming its Action ID), as a user would; note -> Action ID. */
function typeNotes(env: GasEnvironment, every = 1): Map<string, string> {
  const { sheet, open, c } = list(env);
  const notes = new Map<string, string>();
  const column = open.map((r, i) => {
    if (i % every) return [r[c("Notes")]];
    const note = `note ${i} for ${r[c("Action ID")]}`;
    notes.set(note, String(r[c("Action ID")]));
    return [note];
  });
  if (column.length) sheet.seed(2, c("Notes") + 1, column);
  return notes;
}

/** Every note on the list now: note -> the Action ID of its row, and the rows filed as Closed. */
function notesNow(env: GasEnvironment): { notes: Map<string, string>; closed: number } {
  const { grid, c } = list(env);
  const notes = new Map<string, string>();
  let closed = 0;
  for (const r of grid.slice(1)) {
    if (r[c("Window")] === "Closed") closed++;
    if (r[c("Notes")]) notes.set(String(r[c("Notes")]), String(r[c("Action ID")]));
  }
  return { notes, closed };
}

test("tables on two sheets and two on one sheet share the list: checking each in turn keeps the others' actions and notes; the scheduled re-check lists them all", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const north = env.sheet;
  const south = env.spreadsheet.addSheet("South", 400, 60);
  const a = seed(north, props.slice(0, 60));
  // A second table on the same sheet, under the first, after a blank row.
  const b = seed(north, props.slice(100, 160), a.last + 3);
  const s = seed(south, props.slice(200, 260));
  await check(env, north, `A${a.first}:A${a.last}`);
  const aNotes = typeNotes(env);
  expect(aNotes.size).toBeGreaterThan(5);
  await check(env, north, `A${b.first}:A${b.last}`);
  expect(notesNow(env)).toEqual({ notes: aNotes, closed: 0 });
  // Notes typed again on every other row of the list (both tables'): what the list holds now is what must stay.
  typeNotes(env, 2);
  const typed = notesNow(env).notes;
  // Two tables on one sheet: the sheet's id for the first, "n2" after it for the one below (core's tableIds).
  const sheetTables = tableIds([
    { sheetId: north.getSheetId(), headerRow: 0, firstColumn: 0 },
    { sheetId: north.getSheetId(), headerRow: b.first - 2, firstColumn: 0 },
  ]);
  expect(sheetTables[1]).toBe(`${sheetTables[0]}n2`);
  expect(new Set([...typed.values()].map((id) => id.split(".")[0]))).toEqual(new Set(sheetTables));
  await check(env, south, `A${s.first}:A${s.last}`);
  expect(notesNow(env)).toEqual({ notes: typed, closed: 0 });
  const { open, c } = list(env);
  expect(new Set(open.map((r) => r[c("Table")]))).toEqual(new Set(["Sheet1 A1", `Sheet1 A${b.first - 1}`, "South"]));
  // Each row names its source row, and that row holds the UPRN listed.
  for (const r of open.slice(0, 40)) {
    const sheet = r[c("Table")] === "South" ? south : north;
    expect(String(sheet.peek(Number(r[c("Row")]), 1, 1, 1)[0][0])).toBe(String(r[c("UPRN")]));
  }
  // The summary: a line per table and the total.
  const summary = sheetNamed(env, "Compliance summary")!;
  const cells = summary.peek(1, 1, summary.getLastRow(), 7);
  const at = cells.findIndex((r) => r[0] === "Table");
  expect(cells.slice(at + 1, at + 4).map((r) => r[0])).toEqual(["Sheet1 A1", `Sheet1 A${b.first - 1}`, "South"]);
  const total = cells[at + 4];
  expect(total[0]).toBe("Total");
  expect(total[1]).toBe(180);
  expect(total[3]).toBe(open.length);

  // The scheduled re-check of the three remembered tables: the list still holds all three, with every note.
  expect(env.run("saveSchedule", { mode: "daily", hour: 7 }).ok).toBe(true);
  for (let i = 0; i < 6; i++) {
    const t = env.script.triggers[0];
    if (i > 0 && t.afterMs === undefined) break;
    createGasEnvironment({ from: env }).run(t.handler, { authMode: "FULL", triggerUid: t.id });
  }
  const runs = sheetNamed(env, "Run log")!.peek(
    2,
    1,
    sheetNamed(env, "Run log")!.getLastRow() - 1,
    RUN_LOG_HEADERS.length,
  );
  expect(runs.filter((r) => r[2] === "scheduled")).toHaveLength(3);
  expect(notesNow(env)).toEqual({ notes: typed, closed: 0 });
  expect(new Set(list(env).open.map((r) => r[c("Table")]))).toEqual(
    new Set(["Sheet1 A1", `Sheet1 A${b.first - 1}`, "South"]),
  );

  // The South sheet deleted: its actions stay on the list under their own heading, and the summary says so.
  env.spreadsheet.deleteSheet(south);
  const refreshed = env.run("refreshActionSheets", {});
  expect(refreshed.message).toMatch(/the table South was not found/);
  const { grid } = list(env);
  const heading = grid.findIndex((r) => String(r[0]).startsWith("Table no longer found: South"));
  expect(heading).toBeGreaterThan(0);
  expect(grid.slice(heading + 1).filter((r) => r[c("Table")] === "South").length).toBeGreaterThan(0);
  const states = summary.peek(1, 1, summary.getLastRow(), 7).find((r) => r[0] === "South")!;
  expect(String(states[6])).toMatch(/^No longer found/);
}, 240_000);

test("a table with 5 % duplicate UPRNs: every note typed survives a refresh, and the calendar's UIDs are unique", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  // Every 20th row is another flat under the UPRN of the row before it.
  // 1,000 rows: the share of duplicates is what matters here; npm run bench times the large tables.
  const rows = props.slice(0, 1000);
  const t = seed(env.sheet, rows, 1, (p, i) => (i % 20 === 19 ? rows[i - 1].uprn : p.uprn));
  await check(env, env.sheet, `A1:A${t.last}`);
  env.run("refreshActionSheets", { actionDays: 90 });
  const notes = typeNotes(env);
  expect(notes.size).toBeGreaterThan(100);
  const { open, c } = list(env);
  // Both rows of a duplicated UPRN have their own action (and note) for the same check and due date.
  const dupes = new Set(rows.filter((_p, i) => i % 20 === 18).map((p) => p.uprn));
  const twice = new Map<string, number>();
  for (const r of open)
    if (dupes.has(String(r[c("UPRN")])))
      twice.set(
        `${r[c("UPRN")]}|${r[c("Check")]}|${r[c("Action ID")]!.toString().split(".").pop()}`,
        (twice.get(`${r[c("UPRN")]}|${r[c("Check")]}|${r[c("Action ID")]!.toString().split(".").pop()}`) ?? 0) + 1,
      );
  expect([...twice.values()].filter((n) => n === 2).length).toBeGreaterThan(2);
  env.run("refreshActionSheets", { actionDays: 90 });
  const now = notesNow(env);
  expect(now.closed).toBe(0);
  expect(now.notes).toEqual(notes);
  // The calendar lists the sidebar's window (30 days), as the list refreshed with it does; the notes beyond it wait under Later.
  env.run("refreshActionSheets", {});
  expect(notesNow(env)).toEqual({ notes, closed: 0 });
  const cal = env.run("actionCalendar");
  expect(cal.ok).toBe(true);
  const events = new ICAL.Component(ICAL.parse(cal.ics)).getAllSubcomponents("vevent");
  expect(events).toHaveLength(list(env).open.length);
  const uids = events.map((e) => String(e.getFirstPropertyValue("uid")));
  expect(new Set(uids).size).toBe(uids.length);
}, 300_000);

test("a column the user inserts in the list keeps its values (a date stays that day) after a refresh and after a re-check; a narrower window files notes under Later, and they come back", async () => {
  const env = createGasEnvironment();
  env.spreadsheet.timeZone = "Pacific/Auckland";
  configure(env, sandbox);
  const t = seed(env.sheet, props.slice(300, 500));
  await check(env, env.sheet, `A1:A${t.last}`);
  env.run("refreshActionSheets", { actionDays: 90 });
  // The user inserts "Assigned to" and "Follow up" after Due, types names and a date on every other action.
  const before = list(env);
  const grid = before.grid.map((r, i) => {
    const row = [...r];
    const id = String(r[before.c("Action ID")]);
    row.splice(
      2,
      0,
      i === 0 ? "Assigned to" : i % 2 && i <= before.open.length ? `Agent for ${id}` : "",
      i === 0 ? "Follow up" : i % 2 && i <= before.open.length ? "2027-03-01" : "",
    );
    return row.map((v) =>
      isDate(v)
        ? `${zonedParts(v.getTime(), "Pacific/Auckland").year}-${String(zonedParts(v.getTime(), "Pacific/Auckland").month).padStart(2, "0")}-${String(zonedParts(v.getTime(), "Pacific/Auckland").day).padStart(2, "0")}`
        : v,
    );
  });
  before.sheet.clear();
  before.sheet.seed(1, 1, grid);
  const notes = typeNotes(env, 3);
  // On any row of the list: a re-check lists the sidebar's window (30 days), so some are under Later then.
  const assigned = (e: GasEnvironment) => {
    const { grid, c } = list(e);
    return grid
      .slice(1)
      .filter((r) => r[c("Assigned to")])
      .map((r) => [r[c("Assigned to")], `Agent for ${r[c("Action ID")]}`, r[c("Follow up")]]);
  };
  const typed = assigned(env).length;
  expect(typed).toBeGreaterThan(10);
  const sameDay = (v: unknown) => isDate(v) && v.getTime() === zonedTimeToUtc("2027-03-01", "Pacific/Auckland");
  for (const e of [
    () => env.run("refreshActionSheets", { actionDays: 90 }),
    () => check(env, env.sheet, `A1:A${t.last}`),
  ]) {
    await e();
    expect(list(env).header.slice(2, 4)).toEqual(["Assigned to", "Follow up"]);
    const now = assigned(env);
    expect(now).toHaveLength(typed);
    for (const [name, expected, date] of now) {
      expect(name).toBe(expected);
      expect(sameDay(date)).toBe(true);
    }
    expect(notesNow(env)).toEqual({ notes, closed: 0 });
  }
  // 7 days: the actions further out that carry a note are under Later, none Closed; 90 again: every note on its action.
  env.run("refreshActionSheets", { actionDays: 7 });
  const narrow = list(env);
  expect(narrow.grid.some((r) => String(r[0]).startsWith("Later:"))).toBe(true);
  // A Later action is still to do: its Window cell is Later's grey, not Closed's (core's colour, as in Excel).
  const later = narrow.grid.findIndex((r) => r[narrow.c("Window")] === "Later");
  expect(later).toBeGreaterThan(0);
  expect(narrow.sheet.effectiveFill(later + 1, narrow.c("Window") + 1)).toBe(LIST_STATE_COLOURS.Later.fill);
  expect(notesNow(env)).toEqual({ notes, closed: 0 });
  env.run("refreshActionSheets", { actionDays: 90 });
  expect(notesNow(env)).toEqual({ notes, closed: 0 });
  expect(list(env).grid.some((r) => String(r[0]).startsWith("Later:"))).toBe(false);
  expect(assigned(env)).toHaveLength(typed);
}, 240_000);

/** Local wall time in a zone -> the instant, for the injected clock. */
const instant = (local: string, zone: string) => zonedTimeToUtc(local, zone);

describe.each([
  ["Pacific/Kiritimati", "2026-11-26 01:00"],
  ["Pacific/Auckland", "2026-11-26 00:30"],
  ["Europe/London", "2026-03-29 00:30"],
  ["Europe/London", "2026-10-25 00:30"],
  ["America/Los_Angeles", "2026-11-25 20:00"],
  ["Pacific/Pago_Pago", "2026-11-25 22:00"],
])("a spreadsheet in %s at %s local time", (zone, local) => {
  test("notes stay on their rows through refreshes, the list's dates are the block's days, and today is the file's day", async () => {
    const env = createGasEnvironment();
    env.spreadsheet.timeZone = zone;
    env.clock.offsetMs = instant(local, zone) - Date.now();
    configure(env, sandbox);
    const t = seed(env.sheet, props.slice(600, 700));
    await check(env, env.sheet, `A1:A${t.last}`);
    const notes = typeNotes(env);
    expect(notes.size).toBeGreaterThan(5);
    for (let i = 0; i < 3; i++) {
      env.run("refreshActionSheets", {});
      expect(notesNow(env)).toEqual({ notes, closed: 0 });
    }
    const today = local.slice(0, 10);
    const day = (d: unknown) => {
      const p = zonedParts((d as Date).getTime(), zone);
      return `${p.year}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
    };
    const { open, c } = list(env);
    // The Due cell is the day in the Action ID (the day the rules gave), as the file shows it, or for an action due now
    // (none on record, a check failed) the file's day, its ID saying "now"; Days left counts from the file's day, not
    // UTC's.
    const utcDay = new Date(instant(local, zone)).toISOString().slice(0, 10);
    if (zone !== "Europe/London" || local.startsWith("2026-10")) expect(utcDay).not.toBe(today);
    for (const r of open) {
      expect(isDate(r[c("Due")])).toBe(true);
      const due = day(r[c("Due")]);
      const id = String(r[c("Action ID")]);
      if (id.endsWith(".now")) expect(due).toBe(today);
      else expect(id.endsWith(`.${due.replace(/-/g, "")}`)).toBe(true);
      expect(r[c("Days left")]).toBe(daysBetween(today, due));
    }
    // The block's own Action due of a listed row is the same day.
    const uprnCol = 1;
    const dueCol = outputCol(env.sheet, "action_due");
    const first = open.find((r) => r[c("Window")] !== "");
    const row = env.sheet
      .peek(2, 1, t.last - 1, dueCol)
      .find((r) => String(r[uprnCol - 1]) === String(first![c("UPRN")]))!;
    expect(isDate(row[dueCol - 1])).toBe(true);
    // The block counts its Days left from the file's day of the check too: every row's Days left is its Action due
    // minus the file's day, never the UTC day's count.
    const leftCol = outputCol(env.sheet, "days_left");
    const block = env.sheet.peek(2, 1, t.last - 1, Math.max(dueCol, leftCol));
    const dated = block.filter((r) => isDate(r[dueCol - 1]));
    expect(dated.length).toBeGreaterThan(50);
    for (const r of dated) expect(r[leftCol - 1]).toBe(daysBetween(today, day(r[dueCol - 1])));
  }, 120_000);
});

test("a row re-used for another property, and a demo check followed by a real one, log no change; every sheet built from demo answers says so", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const t = seed(env.sheet, props.slice(800, 840));
  await check(env, env.sheet, `A1:A${t.last}`);
  // Rows 2 and 3 now hold other properties.
  env.sheet.seed(2, 1, [
    [props[900].uprn, props[900].address],
    [props[901].uprn, props[901].address],
  ]);
  await check(env, env.sheet, `A1:A${t.last}`);
  const changeLog = () => {
    const s = sheetNamed(env, "Change log");
    return s ? s.peek(2, 1, Math.max(0, s.getLastRow() - 1), CHANGE_LOG_HEADERS.length) : [];
  };
  const logged = changeLog().map((r) => String(r[1]));
  expect(logged).not.toContain(String(props[900].uprn));
  expect(logged).not.toContain(String(props[901].uprn));
  expect(logged).not.toContain(String(props[800].uprn));

  // The demo: its sample table checked with the demo key, then the same table with a real key.
  const demo = createGasEnvironment();
  demo.run("saveSettings", { apiKey: "demo", baseUrl: sandbox.baseUrl, plan: "professional" });
  const inserted = demo.run("insertSampleTable");
  expect(inserted.ok).toBe(true);
  const sample = demo.spreadsheet.active as FakeSheet;
  const last = sample.getLastRow();
  await check(demo, sample, `A2:A${last}`);
  const l = list(demo);
  expect(l.open.length).toBeGreaterThan(0);
  for (const r of l.open) expect(String(r[l.c("Action")])).toContain(DEMO_NOTE);
  const summary = sheetNamed(demo, "Compliance summary")!;
  expect(
    summary
      .peek(1, 1, summary.getLastRow(), 7)
      .flat()
      .some((v) => String(v).startsWith(`${DEMO_NOTE}:`)),
  ).toBe(true);
  const runLog = () =>
    sheetNamed(demo, "Run log")!.peek(2, 1, sheetNamed(demo, "Run log")!.getLastRow() - 1, RUN_LOG_HEADERS.length);
  expect(String(runLog()[0][RUN_LOG_HEADERS.indexOf("Problem")])).toContain(DEMO_NOTE);
  const cal = demo.run("actionCalendar");
  expect(cal.ok).toBe(true);
  expect(cal.ics).toMatch(/X-WR-CALNAME:.*Demo data/);
  configure(demo, sandbox);
  await check(demo, sample, `A2:A${last}`);
  const demoChanges = sheetNamed(demo, "Change log");
  expect(demoChanges ? demoChanges.getLastRow() : 0).toBeLessThanOrEqual(1);
  expect(String(runLog()[1][RUN_LOG_HEADERS.indexOf("Problem")])).not.toContain(DEMO_NOTE);
  // The list built from real answers no longer says demo.
  const real = list(demo);
  for (const r of real.open) expect(String(r[real.c("Action")])).not.toContain(DEMO_NOTE);
}, 240_000);
