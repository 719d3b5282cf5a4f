/**
 * A table's id on the Action list (core/reports/action-ids.ts tableIds, portfolioTables) and the reading of lists an
 * earlier version wrote (core/reports/legacy-table-ids.ts): what changes an id and what does not, a list of old ids
 * whose typed cells go back on their actions, and a reminder digest whose last state knew the old ids.
 */
import {
  buildDigest,
  buildPortfolioList,
  digestActions,
  legacyTableId,
  portfolioTables,
  tableIds,
  type BlockProperty,
  type TablePlaceFacts,
} from "../../../core";
import { buildDatasetFor } from "../../../sandbox/dataset";
import { blockCellsFor, readBlockTable } from "../../helpers/block-table";

const NOW = new Date("2027-01-31T09:30:00Z");
const TODAY = "2027-01-31";
const ds = buildDatasetFor(NOW);

const EXCEL_SHEET = "{00000001-0001-0000-0000-000000000000}";

test("a table's id is its sheet's id (hashed to letters and digits), and its order among the sheet's tables after the first", () => {
  const one = tableIds([{ sheetId: EXCEL_SHEET, headerRow: 0, firstColumn: 0 }]);
  expect(one[0]).toMatch(/^t[0-9a-z]+$/);
  // Rows inserted above and columns inserted left move the table: its id stays.
  expect(tableIds([{ sheetId: EXCEL_SHEET, headerRow: 7, firstColumn: 3 }])).toEqual(one);
  // Another sheet, another id; a Sheets sheet id (a number) is read as its text.
  expect(tableIds([{ sheetId: 0, headerRow: 0, firstColumn: 0 }])[0]).not.toBe(one[0]);
  expect(tableIds([{ sheetId: 123, headerRow: 0, firstColumn: 0 }])).toEqual(
    tableIds([{ sheetId: "123", headerRow: 0, firstColumn: 0 }]),
  );
  // Two tables on one sheet: top to bottom, then left to right; the first keeps the sheet's id alone.
  const stacked: TablePlaceFacts[] = [
    { sheetId: 5, headerRow: 40, firstColumn: 0 },
    { sheetId: 5, headerRow: 0, firstColumn: 9 },
    { sheetId: 5, headerRow: 0, firstColumn: 0 },
    { sheetId: 6, headerRow: null, firstColumn: 2 },
  ];
  const [t5] = tableIds([{ sheetId: 5, headerRow: 0, firstColumn: 0 }]);
  const [t6] = tableIds([{ sheetId: 6, headerRow: 3, firstColumn: 0 }]);
  expect(tableIds(stacked)).toEqual([`${t5}n3`, `${t5}n2`, t5, t6]);
  // Every table of the sheet moved down by rows inserted above all of them: the same ids.
  expect(tableIds(stacked.map((t) => ({ ...t, headerRow: t.headerRow === null ? null : t.headerRow + 2 })))).toEqual(
    tableIds(stacked),
  );
});

test("the portfolio names each table once: two records found at one place are one table, the current run's record in its place", () => {
  const facts = (t: { at: number }) => ({ sheetId: 1, headerRow: t.at, firstColumn: 0 });
  const stale = { at: 0, name: "recorded before rows were inserted" };
  const other = { at: 50, name: "the table below" };
  const again = { at: 0, name: "recorded by the check after" };
  const current = { at: 0, name: "this run" };
  const named = portfolioTables([stale, other, again], current, facts);
  expect(named.map((t) => t.table.name)).toEqual(["this run", "the table below"]);
  expect(named.map((t) => t.id)).toEqual(tableIds([facts(current), facts(other)]));
  expect(portfolioTables([other], undefined, facts).map((t) => t.table)).toEqual([other]);
});

test("each add-in's earlier form of a table id, from the table as it was recorded", () => {
  // FNV-1a of "Sheet1", base 36, as the Excel pane made it.
  expect(legacyTableId({ host: "excel", sheet: "Sheet1", headerRow: 0, blockColumn: 3, firstInput: 0 })).toBe(
    "xhsf62jh1c1",
  );
  expect(legacyTableId({ host: "excel", sheet: "Sheet1", headerRow: null, blockColumn: 3 })).toBe("xhsf62jb4");
  expect(legacyTableId({ host: "gsheets", sheetId: 0, headerRow: 1, blockCol: 4, inputFirstCol: 1 })).toBe("s0h1");
  expect(legacyTableId({ host: "gsheets", sheetId: 9, headerRow: 40, blockCol: 12, inputFirstCol: 8 })).toBe("s9h40c8");
  expect(legacyTableId({ host: "gsheets", sheetId: 9, headerRow: 0, blockCol: 4 })).toBe("s9b4");
});

/** A user's table of sandbox properties (UPRN, Address, then our block), as the hosts read it. */
const sandboxTable = (n: number): BlockProperty[] =>
  readBlockTable(
    ds.properties.slice(0, n).map((p) => [p.uprn, p.address, ...blockCellsFor(p, NOW)]),
    TODAY,
  );

test("a list written with an earlier form's ids keeps Done, Notes and the user's own column on the same actions", () => {
  const OLD = "xhsf62jh1c1";
  const table = { id: "tabc", formerIds: [OLD], sheet: "Sheet1", props: sandboxTable(40) };
  const opts = { today: TODAY, withinDays: 90 };
  const fresh = buildPortfolioList([table], opts);
  const [idCol, notes, done] = [fresh.idColumn, fresh.notesColumn, fresh.doneColumn];
  expect(fresh.open).toBeGreaterThan(5);
  // The same list as the earlier version wrote it (its ids in the old form), typed on, with a column of the user's own.
  const old = fresh.values.map((r, i) => {
    if (i === 0) return [...r, "Follow up"];
    const id = String(r[idCol]);
    const row: unknown[] = [...r, i <= fresh.open ? `ring agent ${i}` : ""];
    if (id.startsWith("tabc.")) row[idCol] = OLD + id.slice(4);
    if (i <= fresh.open) row[notes] = `note for ${id}`;
    if (i === 2) row[done] = "Yes";
    return row;
  });
  const again = buildPortfolioList([table], opts, old);
  const follow = again.headers.indexOf("Follow up");
  expect(again.kept).toBe(0);
  // Every action typed on is listed again under its current id with its note (the one ticked Done, past its due
  // date, under Closed).
  const listed = again.values.filter((r) => String(r[idCol]).includes("."));
  expect(listed).toHaveLength(fresh.open);
  for (const r of listed) {
    const id = String(r[idCol]);
    expect(id.startsWith("tabc.")).toBe(true);
    expect(r[again.notesColumn]).toBe(`note for ${id}`);
  }
  // The user's column and Done went with their rows' actions.
  const at = (v: string) => again.values.findIndex((r) => r[idCol] === v);
  const second = String(fresh.values[2][idCol]);
  expect(again.values[at(second)][again.doneColumn]).toBe("Yes");
  expect(again.values[at(second)][follow]).toBe("ring agent 2");
  // Without the table's earlier id, the same rows would be a table no longer found.
  const lost = buildPortfolioList([{ ...table, formerIds: [] }], opts, old);
  expect(lost.kept).toBeGreaterThan(5);
});

test("a reminder digest after the upgrade says nothing new of actions the last digest knew under their earlier ids", () => {
  const props = sandboxTable(60);
  const opts = { today: TODAY, withinDays: 90 };
  const before = buildPortfolioList([{ id: "s0h1", sheet: "Sheet1", props }], opts);
  const d1 = buildDigest(null, digestActions(before, [{ id: "s0h1", sheet: "Sheet1", props }]), { today: TODAY });
  expect(d1.entries.length).toBeGreaterThan(5);
  const now = [{ id: "t1abc", formerIds: ["s0h1"], sheet: "Sheet1", props }];
  const after = buildPortfolioList(now, opts);
  const acts = digestActions(after, now);
  expect(acts.open.every((a) => a.id.startsWith("t1abc.") && a.formerIds![0] === `s0h1${a.id.slice(5)}`)).toBe(true);
  expect(buildDigest(d1.next, acts, { today: TODAY }).entries).toEqual([]);
  // Without the earlier ids, every action would be news again.
  const unknown = digestActions(after, [{ ...now[0], formerIds: [] }]);
  expect(buildDigest(d1.next, unknown, { today: TODAY }).entries).toHaveLength(d1.entries.length);
});
