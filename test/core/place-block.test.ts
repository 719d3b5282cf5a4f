/**
 * Where a table ends and where its results block goes (core's placeBlock, which the Sheets sidebar calls with its one
 * read of the cells right of the table): beside the table when those columns are free, after the last column in use
 * when they are not, in place when our block is found, and never over a block of ours the user changed.
 */
import { OUTPUT_COLUMNS } from "../../core";
import { placeBlock } from "../../core/sheet/placement";

const W = OUTPUT_COLUMNS.length;
const blank = () => [[""], [""]];

test("the table runs over the header cells next to its input columns; free columns beside it take the block", () => {
  const reads: [number, number][] = [];
  const r = placeBlock({
    edge: ["UPRN", "Postcode", "Notes", "", "x"],
    inputEnd: 2,
    lastUsed: 5,
    beside: (end, width) => (reads.push([end, width]), blank()),
  });
  expect(r).toEqual({ tableEnd: 3, besideFree: true, blockCol: 4 });
  expect(reads).toEqual([[3, 2]]);
});

test("a user's cells right of the table: the block goes one blank column after the last column in use", () => {
  const r = placeBlock({
    edge: ["UPRN", "Notes"],
    inputEnd: 1,
    lastUsed: 9,
    beside: () => [["", "mine"]],
  });
  expect(r).toEqual({ tableEnd: 2, besideFree: false, blockCol: 11 });
});

test("our block found in place ends the table there; a changed block of ours is never written over or read beside", () => {
  expect(
    placeBlock({ edge: ["UPRN", "Notes", "Compliance score"], inputEnd: 1, found: 3, lastUsed: 2 + W, beside: blank }),
  ).toMatchObject({ tableEnd: 2, blockCol: 3 });
  const changed = placeBlock({
    edge: ["UPRN", "Compliance score", "x"],
    inputEnd: 1,
    changedAt: 2,
    lastUsed: 1 + W + 1,
    beside: () => {
      throw new Error("not read");
    },
  });
  expect(changed).toEqual({ tableEnd: 1, besideFree: false, blockCol: 1 + W + 1 + 2 });
});

test("tables side by side with no gap: the chosen table ends at its own last column", () => {
  expect(
    placeBlock({ edge: ["UPRN", "Postcode", "UPRN", "Postcode"], inputEnd: 1, limit: 2, lastUsed: 4, beside: blank }),
  ).toMatchObject({ tableEnd: 2 });
});
