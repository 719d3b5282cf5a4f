/**
 * Where the results block goes (core's planTable, which both add-ins ask): beside the table when those columns are
 * free, after the last column in use when they are not, in place when our block is found, and never over a block of
 * ours the user changed, with or without a header row.
 */
import { OUTPUT_COLUMNS, lastColumnInUse, planTable, type TablePlan } from "../../../core";
import { resultsPlaceNote } from "../../../core/sheet/placement";
import { columnLetters } from "../../../core/sheet/layout";

const W = OUTPUT_COLUMNS.length;

/** A row of our results block as a check writes it, without a header row: the score, status words, Checked at. */
const ours = (score: number) =>
  OUTPUT_COLUMNS.map((c) =>
    c.key === "compliance_score"
      ? score
      : c.kind === "status"
        ? "pass"
        : c.header.startsWith("Checked at")
          ? "2026-03-01 10:00:00"
          : "",
  );

test("where the results go is said in one set of words for both add-ins, in the columns the user sees", () => {
  const end = (at: number) => columnLetters(at + W - 1);
  expect(resultsPlaceNote({ kind: "beside", at: 2, dataFirst: 0 })).toBe(
    `Results go in columns C:${end(2)}, right of your data in A:B.`,
  );
  expect(resultsPlaceNote({ kind: "in-place", at: 2, dataFirst: 0 })).toBe(
    `Results are updated in place in columns C:${end(2)}.`,
  );
  // One blank column between the last column in use (D) and the new block (F).
  expect(resultsPlaceNote({ kind: "after", at: 5, dataFirst: 0 })).toBe(
    `Results go in columns F:${end(5)}, after the last column in use (D), so none of your columns is overwritten.`,
  );
  expect(resultsPlaceNote({ kind: "after-changed", at: W + 3, dataFirst: 0, changedAt: 1 }).split("\n")).toEqual([
    `The results columns from an earlier check (B:${end(1)}) were changed (a column inserted or a header renamed), so they are left as they are and fresh results go in a new block.`,
    `Results go in columns ${columnLetters(W + 3)}:${end(W + 3)}, after the last column in use (${columnLetters(W + 1)}), so none of your columns is overwritten.`,
  ]);
});

test("without a header row, a block of ours the user edited is left as it is and the new block stands one blank column after its whole width", () => {
  const input = [
    ["100023336956", "a"],
    ["100023336957", "b"],
  ];
  const wide = input.map((r, i) => [...r, ...ours(60 + i)]);
  const snapshot = (grid: unknown[][]) => ({
    values: input,
    column: 0,
    rows: [0, 1] as [number, number],
    wide: grid,
    lastUsed: Math.max(...grid.map((r) => r.map((v) => v !== "").lastIndexOf(true))),
    sheetColumns: 16384,
    mapping: { uprn: 0 },
    hasHeader: false,
  });
  expect(planTable(snapshot(wide))).toMatchObject({ ok: true, kind: "in-place", at: 2 });
  const status = OUTPUT_COLUMNS.findIndex((c) => c.key === "epc_status");
  const edited = wide.map((r, i) => (i === 1 ? r.map((v, c) => (c === 2 + status ? "ask agent" : v)) : r));
  const p = planTable(snapshot(edited)) as TablePlan;
  // The old block's last columns are blank (Message, ...): they count as used, so C:AD is kept and AE stays blank.
  expect(p).toMatchObject({ ok: true, kind: "after", editedAt: 2, at: 2 + W + 1 });
});

test("without a header row, a column the user inserted inside our block: the block is still known by its rows, left as it is, and the new block stands one blank column after its whole width", () => {
  const input = [["100023336956"], ["100023336957"]];
  // The block at B, then a column of the user's inserted at C, inside it: every column of ours after its first moved.
  const wide = input.map((r, i) => {
    const block = ours(60 + i);
    return [...r, block[0], "mine", ...block.slice(1)];
  });
  const p = planTable({
    values: input,
    column: 0,
    rows: [0, 1],
    wide,
    lastUsed: Math.max(...wide.map((r) => r.map((v) => v !== "").lastIndexOf(true))),
    sheetColumns: 16384,
    mapping: { uprn: 0 },
    hasHeader: false,
  }) as TablePlan;
  // B:(W+1) is the widened block, whatever its last columns hold; one blank column after it.
  expect(p).toMatchObject({ ok: true, kind: "after", editedAt: 1, at: 1 + W + 2 });
});

test("columns chosen by hand under title rows: the nearest row at or above the selection that reads as a header is the header; the title is left out", () => {
  const values = [
    ["Properties", ""],
    ["Portfolio: North", ""],
    ["Property ID", "Town"],
    ["100023336956", "Leeds"],
    ["100023336957", "Leeds"],
    ["100023336958", "Leeds"],
  ];
  const p = planTable({
    values,
    column: 0,
    rows: [4, 5],
    wide: values,
    lastUsed: 1,
    sheetColumns: 16384,
    mapping: { uprn: 0 },
  }) as TablePlan;
  expect(p).toMatchObject({ ok: true, top: 2, headerRow: 0, kind: "beside", at: 2 });
  expect(p.rows.map((r) => r.index)).toEqual([2, 3]);
});

test("a header under a long preamble is found from the selection (up to 500 rows down the table)", () => {
  const values = [
    ...Array.from({ length: 11 }, (_, i) => [`Preamble line ${i + 1}`, ""]),
    ["Property ref", "Post code"],
    ...["100023336956", "100023336957", "100023336958"].map((u) => [u, ""]),
  ];
  const p = planTable({
    values,
    column: 0,
    rows: [13, 14],
    wide: values,
    lastUsed: 1,
    sheetColumns: 16384,
  }) as TablePlan;
  expect(p).toMatchObject({ ok: true, top: 11, headerRow: 0, mapping: { uprn: 0, postcode: 1 } });
  expect(p.rows.map((r) => r.index)).toEqual([2, 3]);
});

test("the last column in use is the last holding something: a cell of spaces, or none at all, is not in use", () => {
  expect(
    lastColumnInUse([
      ["UPRN", "Notes", "", "Other", "   "],
      ["1", "", null, undefined, " \t"],
    ]),
  ).toBe(3);
  expect(lastColumnInUse([["UPRN"], ["", "", "", "", "", 0]])).toBe(5);
  expect(lastColumnInUse([[" "], []])).toBe(-1);
});
