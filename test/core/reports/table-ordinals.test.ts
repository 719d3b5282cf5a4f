/**
 * A table's number on its sheet (core/reports/action-ids.ts tableOrdinals): given once when its record is first kept
 * and kept with it, so that no other table checked, moved or removed on the sheet changes a table's Action IDs.
 */
import { portfolioTables, shortHash, tableIds, tableOrdinals, type TablePlaceFacts } from "../../../core";

const at = (
  headerRow: number | null,
  firstColumn = 0,
  ordinal?: number,
  sheetId: string | number = 7,
): TablePlaceFacts => ({
  sheetId,
  headerRow,
  firstColumn,
  ...(ordinal === undefined ? {} : { ordinal }),
});

test("the first table of a sheet is 1, and a new one takes 1 + the sheet's highest, wherever it stands", () => {
  expect(tableOrdinals([], at(20))).toEqual([1]);
  // A new table above the one recorded: the recorded one keeps 1, the new one is 2.
  expect(tableOrdinals([at(20, 0, 1)], at(0))).toEqual([1, 2]);
  // Left of it on the same header row: the same.
  expect(tableOrdinals([at(20, 5, 1)], at(20, 0))).toEqual([1, 2]);
  // Another sheet's numbers are its own.
  expect(tableOrdinals([at(20, 0, 1), at(0, 0, 4, 8)], at(0))).toEqual([1, 4, 2]);
});

test("removing a table never renumbers another, and a new one after it takes a number above every one kept", () => {
  expect(tableOrdinals([at(40, 0, 3), at(20, 0, 1)])).toEqual([3, 1]);
  expect(tableOrdinals([at(40, 0, 3), at(20, 0, 1)], at(0))).toEqual([3, 1, 4]);
});

test("records found at one place are one table and keep the lowest number they had (a table checked again after it moved)", () => {
  expect(tableOrdinals([at(5, 0, 1), at(30, 0, 2), at(5, 0, 3)])).toEqual([1, 2, 1]);
  // The run's table found where a record's table is now: the record's number, not a new one.
  expect(tableOrdinals([at(30, 0, 2), at(5, 0, 1)], at(30))).toEqual([2, 1, 2]);
});

test("records of an earlier version, which kept no number, are numbered by their order on the sheet as before, skipping numbers taken", () => {
  // Only earlier records: the order on the sheet, top to bottom then left to right (the ids those lists hold).
  expect(tableOrdinals([at(40), at(0, 4), at(0, 0), at(null, 0, undefined, 8)])).toEqual([3, 2, 1, 1]);
  // A new table above them all does not move them: it is numbered after them.
  expect(tableOrdinals([at(40), at(10)], at(0))).toEqual([2, 1, 3]);
  // Beside records that kept their number, an earlier one takes the lowest number free.
  expect(tableOrdinals([at(40, 0, 1), at(10)])).toEqual([1, 2]);
  // Numbers that are not whole numbers from 1 are read as none.
  expect(tableOrdinals([at(10, 0, 0), at(40, 0, 2.5)])).toEqual([1, 2]);
});

test("a table's id is its sheet's hashed id, with its number after it from 2: the first keeps the form t<hash>", () => {
  const t = `t${shortHash("7")}`;
  expect(tableIds([at(20, 0, 1), at(0, 0, 2), at(60, 0, 5)])).toEqual([t, `${t}n2`, `${t}n5`]);
  expect(tableIds([at(20, 0, 1)], at(0))).toEqual([t, `${t}n2`]);
  // The portfolio: the current run's table, new above a recorded one, leaves the recorded one its id.
  const named = portfolioTables([{ f: at(20, 0, 1) }], { f: at(0) }, (x) => x.f);
  expect(named.map((x) => x.id)).toEqual([t, `${t}n2`]);
});
