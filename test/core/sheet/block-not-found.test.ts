/**
 * What both add-ins say when a table's results block is not where core looks for it (core/sheet/placement.ts
 * blockNotFound), and how a header row of ours the user changed is read (inspectHeaderBlock): the words compared whole.
 */
import {
  OUTPUT_COLUMNS,
  blockNotFound,
  findBlockNow,
  inspectHeaderBlock,
  outputHeaders,
  sentence,
  sheetNotFound,
} from "../../../core";

const W = OUTPUT_COLUMNS.length;
const headers = outputHeaders();
/** A header row: the user's UPRN and Tenant columns, then our block from column C (index 2). */
const headerRow = (block: string[] = headers) => ["UPRN", "Tenant", ...block];
const last = (first: number) => String.fromCharCode(65 + first + W - 1 - 26);

test("our block intact is found with no change; a row without it is no block of ours", () => {
  expect(inspectHeaderBlock(headerRow())).toEqual({ start: 2, changes: [] });
  expect(inspectHeaderBlock(["UPRN", "Tenant", "EPC rating", "Notes"])).toBeNull();
});

test("a header renamed inside our block: the block is found changed, with the column, what it says and what we wrote", () => {
  const renamed = [...headers];
  renamed[3] = "My EPC";
  expect(inspectHeaderBlock(headerRow(renamed))).toEqual({
    start: 2,
    changes: [{ column: 5, found: "My EPC", expected: headers[3] }],
  });
  // Core no longer finds the block there, and says which column changed, naming the sheet and the block's columns.
  const grid = [headerRow(renamed), ["100023336956", "A. Tenant", ...Array<string>(W).fill("")]];
  expect(findBlockNow(grid, { headerRow: 0, blockColumn: 2 })).toBeUndefined();
  expect(blockNotFound("Lettings 2026", 2, grid[0])).toBe(
    `the results columns (C:A${last(2)}) on "Lettings 2026" were changed: column F is headed "My EPC" where "${headers[3]}" was expected`,
  );
});

test("columns deleted, or a table without a header row whose rows no longer hold our block: deleted or moved", () => {
  expect(blockNotFound("Sheet1", 3, ["UPRN", "Tenant"])).toBe(
    `the results columns (D:A${last(3)}) on "Sheet1" were deleted or moved`,
  );
  expect(blockNotFound("Sheet1", 1)).toBe(`the results columns (B:A${last(1)}) on "Sheet1" were deleted or moved`);
  expect(sentence(blockNotFound("Sheet1", 1))).toBe(
    `The results columns (B:A${last(1)}) on "Sheet1" were deleted or moved`,
  );
});

test("a checked table's sheet that is gone: deleted (both add-ins find a sheet by its id, which a rename keeps); a record kept by name only may have been renamed", () => {
  expect(sheetNotFound("North")).toBe('the sheet "North" was deleted');
  expect(sentence(sheetNotFound("North", true))).toBe(
    'The sheet "North" was deleted, or renamed before its id was recorded',
  );
});
