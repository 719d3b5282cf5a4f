/**
 * The lines both add-ins say as a check begins (core startNotes), from a real plan of a real grid: what the
 * selection means, where the results go, no header row, and the rows not sent as they stand, in that order.
 */
import {
  nothingToSendLine,
  planTable,
  rowsAfterBlank,
  startNotes,
  type TablePlan,
  type TableSnapshot,
} from "../../../core";

const U = ["100023336956", "100023336957", "100023336958", "100023336959"];

function plan(values: unknown[][], rows: [number, number], more: Partial<TableSnapshot> = {}): TablePlan {
  const p = planTable({
    values,
    column: 0,
    rows,
    wide: values,
    lastUsed: Math.max(...values.map((r) => r.length)) - 1,
    sheetColumns: 16384,
    ...more,
  });
  if (!p.ok) throw new Error(p.problem);
  return p;
}

test("one cell selected: its row only, then where the results go, each line with its kind", () => {
  const grid = [
    ["UPRN", "Notes"],
    [U[0], "a"],
    [U[1], "b"],
    [U[2], "c"],
  ];
  const p = plan(grid, [2, 2], { columns: [0, 0] });
  expect(
    startNotes({ plan: p, firstRow: 1, selection: { rows: [2, 2], oneCell: true }, rows: p.rows, hidden: 0 }),
  ).toEqual([
    {
      kind: "one-cell",
      text: "You selected one cell, so only its row (row 3) is checked. To check the whole table, select its header row.",
    },
    { kind: "results-place", text: "Results go in columns C:AD, right of your data in A:B." },
  ]);
});

test("the header row selected on a sheet starting at row 5: the whole table, the rows left below, and the rows set aside", () => {
  // Sheet rows 5 (header) to 10; a blank row 11 ends the table, rows 12–13 below it are data left unchecked.
  const grid = [["UPRN"], [U[0]], [U[1]], [U[1]], ["abc"], [U[2]]];
  const p = plan(grid, [0, 0]);
  const leftBelow = rowsAfterBlank([[], [U[3]], ["x"]], 10);
  // Row 10 hidden by a filter: the host set it aside before asking.
  const shown = p.rows.filter((r) => r.index !== 5);
  const notes = startNotes({
    plan: p,
    firstRow: 5,
    selection: { rows: [0, 0], oneCell: false },
    leftBelow,
    rows: shown,
    hidden: 1,
  });
  expect(notes.map((n) => n.kind)).toEqual(["rows-checked", "results-place", "input-errors", "duplicates", "hidden"]);
  expect(notes.map((n) => n.text)).toEqual([
    "You selected the header row, so the whole table is checked: rows 6–10. Rows 12–13, below the blank row 11, are not checked: select them to check them too.",
    "Results go in columns B:AC, right of your data in A:A.",
    "1 row with input errors; see its Message.",
    "1 duplicate row shares a check with an earlier row.",
    "1 row hidden by a filter was skipped: not sent and not written.",
  ]);
});

test("a table without a header row: the results place, then that its columns have no headers either", () => {
  const grid = [[U[0]], [U[1]]];
  const p = plan(grid, [0, 1], { mapping: { uprn: 0 }, hasHeader: false });
  const notes = startNotes({
    plan: p,
    firstRow: 1,
    selection: { rows: [0, 1], oneCell: false },
    rows: p.rows,
    hidden: 0,
  });
  expect(notes).toEqual([
    { kind: "results-place", text: "Results go in columns B:AC, right of your data in A:A." },
    {
      kind: "no-header",
      text: "No header row: the results columns have no headers either, so the rows stay aligned; a re-run finds them and updates them in place.",
    },
  ]);
});

test("the host's own place (an Excel Table's columns) replaces core's, and no selection means nothing said of one", () => {
  const grid = [[U[0]], [U[1]]];
  const p = plan(grid, [0, 1], { mapping: { uprn: 0 }, hasHeader: false });
  expect(
    startNotes({ plan: p, firstRow: 1, ownPlace: "In the Table's own columns.", rows: p.rows, hidden: 0 }),
  ).toEqual([{ kind: "results-place", text: "In the Table's own columns." }]);
  const one = plan([["UPRN"], [U[0]], [U[1]]], [2, 2]);
  expect(startNotes({ plan: one, firstRow: 1, rows: one.rows, hidden: 0 }).map((n) => n.kind)).toEqual([
    "results-place",
  ]);
});

test("none of the rows to check valid: one line for both add-ins, the count as a person writes it", () => {
  expect(nothingToSendLine(1)).toBe(
    "Nothing was sent: none of the 1 row has a valid UPRN or postcode. Each row's Message says what to fix.",
  );
  expect(nothingToSendLine(1200)).toBe(
    "Nothing was sent: none of the 1,200 rows has a valid UPRN or postcode. Each row's Message says what to fix.",
  );
});
