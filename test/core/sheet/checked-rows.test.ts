/**
 * Which rows a check takes against the rows selected, and the sentence both add-ins say about it (core planTable and
 * checkedRowsNote): the header row means the whole table, a selection into a second table keeps to the first, and
 * blank rows at the end are left out.
 */
import { checkedRowsNote, planTable, rowsAfterBlank, rowsAsideNotes, type TablePlan } from "../../../core";

const U = ["100023336956", "100023336957", "100023336958", "100023336959"];
const stacked = [["UPRN", "Notes"], [U[0], "a"], [U[1], "b"], [], ["UPRN", "Notes"], [U[2], "c"], [U[3], "d"]];

/** Plans a check of rows [from, to] (0-based offsets) of a grid that starts at A1, and says it as a host would. */
function plan(values: unknown[][], from: number, to: number) {
  const p = planTable({
    values,
    column: 0,
    rows: [from, to],
    wide: values,
    lastUsed: Math.max(...values.map((r) => r.length)) - 1,
    sheetColumns: 16384,
  }) as TablePlan;
  expect(p.ok).toBe(true);
  const rowNo = (i: number) => p.top + i + 1;
  const note = checkedRowsNote({
    firstRow: rowNo(p.rows[0].index),
    lastRow: rowNo(p.rows[p.rows.length - 1].index),
    whole: p.whole,
    anotherHeaderRow: p.anotherTable === undefined ? undefined : rowNo(p.anotherTable),
    blankBelow: p.blankRowsSkipped,
  });
  return { rows: p.rows.map((r) => rowNo(r.index)), note };
}

test("the header row selected checks the whole table, to its first blank row, and says so", () => {
  expect(plan(stacked, 0, 0)).toEqual({
    rows: [2, 3],
    note: "You selected the header row, so the whole table is checked: rows 2–3.",
  });
});

test("a title row above the header selected checks the whole table, as rows above the table", () => {
  const titled = [["UPRN checks - March"], ["UPRN", "Notes"], [U[0], "a"], [U[1], "b"]];
  expect(plan(titled, 0, 0)).toEqual({
    rows: [3, 4],
    note: "You selected rows above the table, so the whole table is checked: rows 3–4.",
  });
});

test("the header row under a title selected checks the whole table under it, the title left out", () => {
  const titled = [["UPRN checks - March"], ["UPRN", "Notes"], [U[0], "a"], [U[1], "b"]];
  expect(plan(titled, 1, 1)).toEqual({
    rows: [3, 4],
    note: "You selected the header row, so the whole table is checked: rows 3–4.",
  });
});

test("a selection running into a second table keeps to the first and names the second's header row", () => {
  expect(plan(stacked, 1, 6)).toEqual({
    rows: [2, 3],
    note: "Checked rows 2–3: the selection runs into another table (its header is row 5), which is left as it is.",
  });
});

test("blank rows at the end of a selection are left out, and one is said in the singular", () => {
  const tail = [["UPRN"], [U[0]], [U[1]], [""], [" "]];
  expect(plan(tail, 1, 4).note).toBe("Checked rows 2–3: the selected rows below 3 are empty and were left out.");
  expect(plan(tail, 1, 3).note).toBe("Checked rows 2–3: the selected row below 3 is empty and was left out.");
});

test("the rows selected, all of them checked: nothing to say", () => {
  expect(plan(stacked, 1, 2)).toEqual({ rows: [2, 3], note: "" });
});

test("rows not sent as they stand are counted in one sentence each, in both add-ins' words, and nothing is said of none", () => {
  expect(rowsAsideNotes({ invalid: 3, duplicates: 1, hidden: 2 })).toEqual([
    "3 rows with input errors; see their Message.",
    "1 duplicate row shares a check with an earlier row.",
    "2 rows hidden by a filter were skipped: not sent and not written.",
  ]);
  expect(rowsAsideNotes({ invalid: 1, duplicates: 1200, hidden: 1 })).toEqual([
    "1 row with input errors; see its Message.",
    "1,200 duplicate rows share a check with an earlier row.",
    "1 row hidden by a filter was skipped: not sent and not written.",
  ]);
  expect(rowsAsideNotes({ invalid: 0, duplicates: 0, hidden: 0 })).toEqual([]);
});

test("rows of data below the blank row that ends the whole table are named as not checked; a second table below is not", () => {
  // The table's last row is sheet row 3; then one blank row, two rows of data, a blank row and more.
  const below = [[], [U[2], "c"], ["", "d"], [], [U[3], ""]];
  const left = rowsAfterBlank(below, 3);
  expect(left).toEqual({ firstBlank: 4, lastBlank: 4, firstRow: 5, lastRow: 6 });
  expect(checkedRowsNote({ firstRow: 2, lastRow: 3, whole: "header", leftBelow: left })).toBe(
    "You selected the header row, so the whole table is checked: rows 2–3. Rows 5–6, below the blank row 4, are not checked: select them to check them too.",
  );
  expect(
    checkedRowsNote({ firstRow: 2, lastRow: 3, whole: "header", leftBelow: rowsAfterBlank([[], [], [U[2]]], 3) }),
  ).toBe(
    "You selected the header row, so the whole table is checked: rows 2–3. Row 6, below the blank rows 4–5, is not checked: select it to check it too.",
  );
  // Stacked tables: what stands below the blank rows is another table's header, left as it is.
  expect(rowsAfterBlank(stacked.slice(3), 3)).toBeUndefined();
  // Nothing below, or no blank row (the table ran to the end of what was read).
  expect(rowsAfterBlank([[], []], 3)).toBeUndefined();
  expect(rowsAfterBlank([[U[2]]], 3)).toBeUndefined();
});
