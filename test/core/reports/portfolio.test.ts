/**
 * The Action list of a whole workbook (core/reports/action-list.ts), the calendar made from it (core/reports/ics.ts) and what the
 * Change log compares (core/reports/changes.ts): several tables on one list, what the user typed kept on its action through
 * refreshes, sorts, duplicate UPRNs, a narrower window and a table deleted; history only of the same property, never
 * of demo answers.
 */
import ICAL from "ical.js";
import {
  CLOSED_TITLE,
  portfolioOrder,
  tableAnchor,
  DEMO_NOTE,
  GONE_TITLE,
  LATER_TITLE,
  actionCalendar,
  buildPortfolioList,
  buildSummary,
  outputHeaders,
  rowChanges,
  runLogRow,
  type BlockProperty,
  type Cell,
  type PortfolioTable,
} from "../../../core";
import { buildDatasetFor } from "../../../sandbox/dataset";
import { blockCellsFor, readBlockTable } from "../../helpers/block-table";

const NOW = new Date("2027-01-31T09:30:00Z");
const TODAY = "2027-01-31";
const ds = buildDatasetFor(NOW);
const H = outputHeaders();

/** Block rows of sandbox properties (cached: the rules run once per property). */
const blockRows = ds.properties.slice(0, 2000).map((p) => ({ p, cells: blockCellsFor(p, NOW) }));

/** A user's table of n rows (UPRN, Address, then our block); `uprnOf` lets rows share a UPRN. */
function table(
  n: number,
  o: { offset?: number; uprnOf?: (i: number) => string; demo?: boolean } = {},
): BlockProperty[] {
  const rows: Cell[][] = [];
  for (let i = 0; i < n; i++) {
    const { p, cells } = blockRows[((o.offset ?? 0) + i) % blockRows.length];
    const block = [...cells];
    if (o.demo) block[H.indexOf("Message")] = `${DEMO_NOTE}.`;
    rows.push([o.uprnOf ? o.uprnOf(i) : p.uprn, `${p.address} #${i}`, ...block]);
  }
  return readBlockTable(rows, TODAY);
}

const OPTS = { today: TODAY, withinDays: 90 };
const col = (list: { headers: string[] }, h: string) => list.headers.indexOf(h);
/** The open rows of a list as the sheet holds them. */
const openRows = (list: { values: Cell[][]; open: number }) => list.values.slice(1, 1 + list.open);
/** Types a note on every open row (its Action ID in it), as a user would; returns the sheet. */
function typeNotes(list: ReturnType<typeof buildPortfolioList>, every = 1): unknown[][] {
  const sheet = list.values.map((r) => [...r]) as unknown[][];
  const [n, id] = [col(list, "Notes"), col(list, "Action ID")];
  for (let i = 1; i <= list.open; i += every) sheet[i][n] = `note for ${sheet[i][id]}`;
  return sheet;
}
/** Every row of the list that carries a note: note -> the Action ID it is on. */
function notesOn(list: ReturnType<typeof buildPortfolioList>): Map<string, string> {
  const [n, id] = [col(list, "Notes"), col(list, "Action ID")];
  const out = new Map<string, string>();
  for (const r of list.values.slice(1)) if (r[n]) out.set(String(r[n]), String(r[id]));
  return out;
}

test("two tables on one list: refreshing one keeps the other's actions and notes; each row says its table and row", () => {
  const a: PortfolioTable = { id: "a", sheet: "Lettings", anchor: "A1", props: table(300) };
  const b: PortfolioTable = { id: "b", sheet: "Lettings", anchor: "A400", props: table(300, { offset: 500 }) };
  const first = buildPortfolioList([a], OPTS);
  const typed = typeNotes(first);
  const both = buildPortfolioList([a, b], OPTS, typed);
  const notes = notesOn(both);
  expect(notes.size).toBe(first.open);
  for (const [note, id] of notes) expect(note).toBe(`note for ${id}`);
  const tables = new Set(openRows(both).map((r) => r[col(both, "Table")]));
  expect(tables).toEqual(new Set(["Lettings A1", "Lettings A400"]));
  for (const r of openRows(both)) expect(typeof r[col(both, "Row")]).toBe("number");
  expect(both.tables.map((t) => [t.label, t.found])).toEqual([
    ["Lettings A1", true],
    ["Lettings A400", true],
  ]);
  expect(both.tables[0].open + both.tables[1].open).toBe(both.open);
  // Table b refreshed alone again (a read as it is): a's notes are still there.
  const again = buildPortfolioList([a, { ...b, props: table(300, { offset: 500 }) }], OPTS, both.values);
  expect(notesOn(again)).toEqual(notes);
});

test("a table no longer found keeps its rows under its own heading, and the summary says so", () => {
  const a: PortfolioTable = { id: "a", sheet: "North", props: table(200) };
  const b: PortfolioTable = { id: "b", sheet: "South", props: table(200, { offset: 300 }) };
  const first = buildPortfolioList([a, b], OPTS);
  const typed = typeNotes(first, 3);
  const bRows = openRows(first).filter((r) => r[col(first, "Table")] === "South").length;
  const gone = buildPortfolioList([a, { ...b, props: null, problem: 'the sheet "South" was deleted' }], OPTS, typed);
  const heading = gone.values.findIndex((r) => String(r[0]).startsWith(`${GONE_TITLE}: South`));
  expect(heading).toBeGreaterThan(0);
  expect(gone.values[heading][0]).toMatch(/deleted/);
  expect(gone.values.slice(heading + 1).filter((r) => r[col(gone, "Table")] === "South")).toHaveLength(bRows);
  expect(gone.kept).toBe(bRows);
  expect(notesOn(gone)).toEqual(notesOn(buildPortfolioList([a, b], OPTS, typed)));
  const summary = buildSummary([], table(200), { today: TODAY, asOf: "x", tables: gone.tables });
  const south = summary.cells.find((r) => r[0] === "South")!;
  expect(String(south[6])).toMatch(/^No longer found .*deleted.*: \d+ of its actions kept/);
  // The user deletes those rows: the heading goes with them.
  const cleared = gone.values.slice(0, heading - 1);
  expect(
    buildPortfolioList([a, { ...b, props: null }], OPTS, cleared).values.some((r) =>
      String(r[0]).startsWith(GONE_TITLE),
    ),
  ).toBe(false);
});

// Two bulk jobs' worth of rows, as in the Excel case: what it holds does not depend on size (npm run bench measures size).
test("2,000 rows with 5 % duplicate UPRNs: every note survives a refresh and a sort, and the calendar's UIDs are unique", () => {
  // Every 20th row repeats the UPRN of the row before it (another flat of the same property).
  const uprnOf = (i: number) => String(200000000000 + (i % 20 === 19 ? i - 1 : i));
  const props = table(2000, { uprnOf });
  const t: PortfolioTable = { id: "t1", sheet: "Portfolio", props };
  const first = buildPortfolioList([t], OPTS);
  expect(first.open).toBeGreaterThan(200);
  const typed = typeNotes(first);
  // The table sorted by address (rows move; each row keeps its own identity).
  const sorted = [...props].sort((x, y) => (x.address < y.address ? 1 : -1)).map((p, i) => ({ ...p, row: i + 2 }));
  const again = buildPortfolioList([{ ...t, props: sorted }], OPTS, typed);
  const notes = notesOn(again);
  expect(notes.size).toBe(first.open);
  for (const [note, id] of notes) expect(note).toBe(`note for ${id}`);
  const ids = openRows(again).map((r) => String(r[col(again, "Action ID")]));
  expect(new Set(ids).size).toBe(ids.length);
  const cal = new ICAL.Component(ICAL.parse(actionCalendar(again, { nowIso: NOW.toISOString() })));
  const uids = cal.getAllSubcomponents("vevent").map((e) => String(e.getFirstPropertyValue("uid")));
  expect(uids).toHaveLength(again.open);
  expect(new Set(uids).size).toBe(uids.length);
});

test("a column the user inserts anywhere in the list keeps its values on the same actions, with Done", () => {
  const t: PortfolioTable = { id: "t1", sheet: "Sheet1", props: table(400) };
  const first = buildPortfolioList([t], OPTS);
  const at = 3;
  const id = col(first, "Action ID");
  const sheet = first.values.map((r, i) => {
    const row = [...r] as unknown[];
    row.splice(at, 0, i === 0 ? "Assigned to" : i % 2 ? `Agent ${r[id]}` : "");
    return row;
  });
  // Done on an action not yet due: it stays open, ticked.
  const future = sheet.findIndex(
    (r, i) => i > 0 && typeof r[col(first, "Days left")] === "number" && (r[col(first, "Days left")] as number) >= 0,
  );
  sheet[future][col({ headers: sheet[0] as string[] }, "Done")] = true;
  const again = buildPortfolioList([t], OPTS, sheet);
  expect(again.headers[at]).toBe("Assigned to");
  const aid = col(again, "Action ID");
  const assigned = openRows(again).filter((r) => r[at]);
  expect(assigned).toHaveLength(Math.ceil(first.open / 2));
  for (const r of assigned) expect(r[at]).toBe(`Agent ${r[aid]}`);
  expect(openRows(again).find((r) => r[aid] === first.values[future][id])![col(again, "Done")]).toBe(true);
});

test("narrowing the window lists the typed-on actions beyond it under Later, not Closed; widening brings every note back", () => {
  const t: PortfolioTable = { id: "t1", sheet: "Sheet1", props: table(800) };
  const wide = buildPortfolioList([t], OPTS);
  const typed = typeNotes(wide);
  const narrow = buildPortfolioList([t], { ...OPTS, withinDays: 7 }, typed);
  expect(narrow.closed).toBe(0);
  expect(narrow.later).toBeGreaterThan(0);
  expect(narrow.open + narrow.later).toBe(wide.open);
  expect(narrow.values.some((r) => String(r[0]).startsWith(LATER_TITLE))).toBe(true);
  expect(narrow.values.some((r) => r[0] === CLOSED_TITLE)).toBe(false);
  const back = buildPortfolioList([t], OPTS, narrow.values);
  expect(back.later).toBe(0);
  expect(notesOn(back)).toEqual(notesOn(buildPortfolioList([t], OPTS, typed)));
  for (const [note, id] of notesOn(back)) expect(note).toBe(`note for ${id}`);
});

test("an action marked Done whose due date has passed is closed, with what was typed", () => {
  const t: PortfolioTable = { id: "t1", sheet: "Sheet1", props: table(300) };
  const first = buildPortfolioList([t], OPTS);
  const sheet = first.values.map((r) => [...r]) as unknown[][];
  const overdue = sheet.findIndex((r, i) => i > 0 && r[0] === "Overdue");
  sheet[overdue][col(first, "Done")] = "yes";
  const again = buildPortfolioList([t], OPTS, sheet);
  expect(again.closed).toBe(1);
  expect(again.open).toBe(first.open - 1);
  const closed = again.values[again.closedTitleRow! + 1];
  expect([closed[0], closed[col(again, "Done")], closed[col(again, "Action ID")]]).toEqual([
    "Closed",
    "yes",
    sheet[overdue][col(first, "Action ID")],
  ]);
});

test("demo results say so on the list, the summary and the calendar", () => {
  const t: PortfolioTable = { id: "d", sheet: "Demo properties", props: table(100, { demo: true }) };
  const list = buildPortfolioList([t], OPTS);
  expect(list.demo).toBe(true);
  for (const r of openRows(list)) expect(String(r[col(list, "Action")])).toContain(DEMO_NOTE);
  const summary = buildSummary([], t.props!, { today: TODAY, asOf: "x", tables: list.tables });
  expect(summary.cells.flat().some((v) => String(v).startsWith(`${DEMO_NOTE}: 100 of 100`))).toBe(true);
  const cal = new ICAL.Component(ICAL.parse(actionCalendar(list, { nowIso: NOW.toISOString() })));
  expect(String(cal.getFirstPropertyValue("x-wr-calname"))).toContain("Demo data");
  expect(
    runLogRow({
      startedAt: "a",
      endedAt: "b",
      trigger: "manual",
      runBy: "",
      rows: 1,
      checked: 1,
      changed: 0,
      worse: 0,
      errors: 0,
      demo: true,
    })[11],
  ).toBe(`${DEMO_NOTE}.`);
});

test("the calendar carries no control characters: a lone carriage return in an address is a line break", () => {
  const props = table(50).map((p) => ({ ...p, address: `Flat 1\r12 High St\u0007\u000b, Town\nAB1 2CD` }));
  const list = buildPortfolioList([{ id: "t1", sheet: "S", props }], OPTS);
  const ics = actionCalendar(list, { nowIso: NOW.toISOString() });
  // Line ends are CRLF only; no other control character anywhere.
  expect(ics.replace(/\r\n/g, "")).not.toMatch(/[\u0000-\u001f\u007f]/);
  const ev = new ICAL.Component(ICAL.parse(ics)).getFirstSubcomponent("vevent")!;
  expect(String(ev.getFirstPropertyValue("location"))).toBe("Flat 1\n12 High St, Town\nAB1 2CD");
});

describe("the Change log compares a row only with the same property's earlier result", () => {
  const [x, y] = [blockRows[0].cells, blockRows[1].cells];
  test("a row re-used for another UPRN starts a new baseline", () => {
    expect(blockRows[0].p.uprn).not.toBe(blockRows[1].p.uprn);
    expect(rowChanges(x, y)).toEqual([]);
  });
  test("a demo result followed by a real one (or the other way) logs nothing", () => {
    const demo = [...x];
    demo[H.indexOf("Message")] = `${DEMO_NOTE}.`;
    const real = [...x];
    real[H.indexOf("Compliance score")] = 3;
    real[H.indexOf("Risk level")] = "high";
    expect(rowChanges(demo, real)).toEqual([]);
    expect(rowChanges(real, demo)).toEqual([]);
    // The same property checked for real twice still logs its change.
    expect(rowChanges(x, real).length).toBeGreaterThan(0);
  });
});

test("one portfolio order in both add-ins: a table checked again keeps its place, a new one goes last; anchors by header row", () => {
  const id = (t: { id: string }) => t.id;
  const remembered = [{ id: "a" }, { id: "b", v: 1 }, { id: "c" }];
  expect(portfolioOrder(remembered, { id: "b", v: 2 }, id)).toEqual([{ id: "a" }, { id: "b", v: 2 }, { id: "c" }]);
  expect(portfolioOrder(remembered, { id: "d" }, id).map(id)).toEqual(["a", "b", "c", "d"]);
  expect(portfolioOrder(remembered, undefined, id)).toEqual(remembered);
  expect(tableAnchor(2, 3)).toBe("C4");
  expect(tableAnchor(0, null)).toBe("A1");
});
