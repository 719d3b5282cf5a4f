/**
 * The parity scenarios (sheet-model.ts runs them): for each, the grid the user starts from, what they change and
 * select before each check, and what the grid must show and both add-ins must say besides being the same in both.
 */
import { EDITED_BLOCK_NOTE, outputHeaders } from "../../core";
import { findExamples } from "../../sandbox/dataset";
import { AT, EPC_STATUS, MATCHED, MESSAGE, W, colLetters, u, type Step } from "./hosts";
import { sandboxDataset } from "../helpers/sandbox";

/**
 * The register's named examples: a postcode with one property, one shared by several, a short UPRN... From the data
 * set of the day both sandboxes stand on (AT), so that this process builds it once, not once for the wall clock's day
 * too.
 */
const ex = findExamples(sandboxDataset(new Date(AT)));
/** The results block's column of `what` (Matched UPRN, Message) from a 0-based block start, rows first..last (1-based). */
export const column = (grid: string[][], start: number, what: number, first: number, last: number) =>
  grid.slice(first - 1, last).map((r) => r[start + what]);

const stacked = () => [
  ["UPRN", "Notes"],
  [u[0], "a"],
  [u[1], "b"],
  [u[2], "c"],
  [],
  [],
  [],
  ["UPRN", "Notes"],
  [u[3], "d"],
  [u[4], "e"],
  [u[5], "f"],
];
const sideBySide = () => [
  ["UPRN", "Postcode", "", "UPRN", "Postcode"],
  ...[0, 1, 2].map((i) => [u[i], "", "", u[3 + i], ""]),
];
const noGap = () => [["UPRN", "Postcode", "UPRN", "Postcode"], ...[0, 1, 2].map((i) => [u[i], "", u[3 + i], ""])];

export interface Scenario {
  name: string;
  /** Which suite holds it: tables and selections, or rows (inputs, duplicates, re-checks after the user's changes). */
  group: "tables" | "rows" | "blocks";
  grid: () => unknown[][];
  /** A function where a step names the sandbox's UPRNs (known only once it runs). */
  steps: Step[] | (() => Step[]);
  /** What the grid must show besides being the same in both hosts. */
  expect: (g: string[][]) => void;
  /** What each host must have said it checks, one pattern for each check. */
  said?: RegExp[];
  /** The checks each host must have refused, one pattern each, in order (none when absent). */
  refused?: RegExp[];
}

export const scenarios: Scenario[] = [
  {
    name: "one cell selected in a data row: only that row is checked, and both add-ins say so and how to check the whole table",
    group: "tables",
    grid: () => [["UPRN", "Notes"], ...u.slice(0, 3).map((x, i) => [x, `n${i}`])],
    steps: [{ select: "B3" }],
    expect: (g) => {
      expect(column(g, 2, MATCHED, 2, 4)).toEqual(["", u[1], ""]);
      expect(g[0].slice(2, 2 + W)).toEqual(outputHeaders());
    },
    said: [
      /You selected one cell, so only its row \(row 3\) is checked\. To check the whole table, select its header row\./,
    ],
  },
  {
    name: "stacked tables, both checked, then the whole column A:A: the upper table is checked again; the lower table's results header and the blank rows between stay as they were",
    group: "tables",
    grid: stacked,
    steps: [{ select: "A2:A4" }, { select: "A9:A11" }, { select: "A:A" }],
    said: [
      /^/,
      /^/,
      /Checked rows 2–4: the selection runs into another table \(its header is row 8\), which is left as it is\./,
    ],
    expect: (g) => {
      expect(g[7].slice(2, 2 + W)).toEqual(outputHeaders());
      expect(g.slice(4, 7).every((r) => r.every((v) => v === ""))).toBe(true);
      expect(column(g, 2, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
      expect(column(g, 2, MATCHED, 9, 11)).toEqual(u.slice(3, 6));
    },
  },
  {
    name: "stacked tables, both checked, then A2:A11 across the blank rows into the lower table: the same",
    group: "tables",
    grid: stacked,
    steps: [{ select: "A2:A4" }, { select: "A9:A11" }, { select: "A2:A11" }],
    said: [
      /^/,
      /^/,
      /Checked rows 2–4: the selection runs into another table \(its header is row 8\), which is left as it is\./,
    ],
    expect: (g) => {
      expect(g[7].slice(2, 2 + W)).toEqual(outputHeaders());
      expect(g.slice(4, 7).every((r) => r.every((v) => v === ""))).toBe(true);
      expect(column(g, 2, MATCHED, 9, 11)).toEqual(u.slice(3, 6));
    },
  },
  {
    name: "stacked tables, the upper table's header row selected: only the upper table is checked",
    group: "tables",
    grid: stacked,
    steps: [{ select: "A1:B1" }],
    said: [/You selected the header row, so the whole table is checked: rows 2–4\./],
    expect: (g) => {
      expect(column(g, 2, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
      expect(g.slice(4).every((r) => r.slice(2).every((v) => v === ""))).toBe(true);
    },
  },
  {
    name: "side by side (A:B and D:E), the left table checked first, then the right one: each keeps its own block",
    group: "tables",
    grid: sideBySide,
    steps: [{ select: "A2:B4" }, { select: "D2:E4" }],
    expect: (g) => {
      const blocks = g[0].flatMap((v, i) => (v === outputHeaders()[0] ? [i] : []));
      expect(blocks).toEqual([6, 6 + W + 1]);
      expect(column(g, 6, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
      expect(column(g, 6 + W + 1, MATCHED, 2, 4)).toEqual(u.slice(3, 6));
    },
  },
  {
    name: "side by side (A:B and D:E), the right table checked first, then the left one: each keeps its own block",
    group: "tables",
    grid: sideBySide,
    steps: [{ select: "D2:E4" }, { select: "A2:B4" }],
    expect: (g) => {
      expect(column(g, 5, MATCHED, 2, 4)).toEqual(u.slice(3, 6));
      expect(column(g, 5 + W + 1, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
    },
  },
  {
    name: "side by side with no gap column (A:B and C:D), the right table's rows selected, then the left's: each table's own UPRNs are checked, each into its own block",
    group: "tables",
    grid: noGap,
    steps: [{ select: "C2:D4" }, { select: "A2:B4" }],
    expect: (g) => {
      expect(column(g, 4, MATCHED, 2, 4)).toEqual(u.slice(3, 6));
      expect(column(g, 4 + W + 1, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
    },
  },
  {
    name: "a title row mentioning UPRN above the real header (Ref | UPRN | Postcode): the header row is used, every row checked, the title untouched",
    group: "tables",
    grid: () => [
      ["UPRN checks - March 2026", "", ""],
      ["Ref", "UPRN", "Postcode"],
      ...u.slice(0, 4).map((x, i) => [`P${i}`, x, ""]),
    ],
    steps: [{ select: "B3:B6" }],
    expect: (g) => {
      expect(g[0].slice(0, 4)).toEqual(["UPRN checks - March 2026", "", "", ""]);
      expect(g[1].slice(3, 3 + W)).toEqual(outputHeaders());
      expect(column(g, 3, MATCHED, 3, 6)).toEqual(u.slice(0, 4));
    },
  },
  {
    name: "a title row mentioning UPRN above the header, the title selected and then the header row: each checks the whole table under the header, and both add-ins say so",
    group: "tables",
    grid: () => [
      ["UPRN checks - March 2026", "", ""],
      ["Ref", "UPRN", "Postcode"],
      ...u.slice(0, 3).map((x, i) => [`P${i}`, x, ""]),
    ],
    steps: [{ select: "A1" }, { select: "A2:C2" }],
    expect: (g) => {
      expect(g[0].slice(0, 4)).toEqual(["UPRN checks - March 2026", "", "", ""]);
      expect(g[1].slice(3, 3 + W)).toEqual(outputHeaders());
      expect(column(g, 3, MATCHED, 3, 5)).toEqual(u.slice(0, 3));
    },
    said: [
      /You selected rows above the table, so the whole table is checked: rows 3–5\./,
      /You selected the header row, so the whole table is checked: rows 3–5\./,
    ],
  },
  {
    name: "four rows with one UPRN: all four get the result; the three copies say which row was checked",
    group: "rows",
    grid: () => [["UPRN"], [u[6]], [u[6]], [u[6]], [u[6]]],
    steps: [{ select: "A2:A5" }],
    said: [/3 duplicate rows share a check with an earlier row\./],
    expect: (g) => {
      expect(column(g, 1, MATCHED, 2, 5)).toEqual([u[6], u[6], u[6], u[6]]);
      expect(column(g, 1, MESSAGE, 3, 5)).toEqual([
        "Same property as row 2; checked once.",
        "Same property as row 2; checked once.",
        "Same property as row 2; checked once.",
      ]);
    },
  },
  {
    name: "the user's own EPC columns and Notes beside the UPRN: results go right of them, nothing of theirs overwritten",
    group: "tables",
    grid: () => [
      ["UPRN", "Postcode", "EPC status", "EPC rating", "Notes"],
      ...u.slice(0, 3).map((x) => [x, "", "pass", "C", "mine"]),
    ],
    steps: [{ select: "A2:A4" }],
    expect: (g) => {
      expect(g.slice(1, 4).map((r) => r.slice(2, 5))).toEqual([0, 1, 2].map(() => ["pass", "C", "mine"]));
      expect(column(g, 5, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
    },
  },
  {
    name: "a table checked twice, from one cell and then from its header row: the block is updated in place, no second block",
    group: "tables",
    grid: () => [["UPRN", "Notes"], ...u.slice(0, 3).map((x, i) => [x, `n${i}`])],
    steps: [{ select: "B3" }, { select: "A1:B1" }],
    said: [
      /You selected one cell, so only its row \(row 3\) is checked\./,
      /You selected the header row, so the whole table is checked: rows 2–4\./,
    ],
    expect: (g) => {
      expect(g[0].filter((v) => v === outputHeaders()[0])).toHaveLength(1);
      expect(column(g, 2, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
    },
  },
  {
    name: "a postcode-only table, postcodes in lower case and without a space: each is read, and one shared by several properties is asked about at its row",
    group: "rows",
    grid: () => [
      ["Postcode", "Notes"],
      [ex.singlePropertyPostcode.postcode.toLowerCase(), "a"],
      [ex.singlePropertyPostcode.postcode.replace(" ", ""), "b"],
      [ex.sharedPostcode.postcode, "c"],
      [ex.unknownPostcode, "d"],
    ],
    steps: [{ select: "A2:A5" }],
    said: [new RegExp(`Results go in columns C:${colLetters(2 + W - 1)}, right of your data in A:B\\.`)],
    expect: (g) => {
      expect(column(g, 2, MATCHED, 2, 3)).toEqual([0, 1].map(() => ex.singlePropertyPostcode.property.uprn));
      expect(column(g, 2, MESSAGE, 4, 5).every((m) => m !== "")).toBe(true);
    },
  },
  {
    name: "UPRN, Postcode and Address: a UPRN row, a row found by postcode and address, and an address the postcode holds several of",
    group: "rows",
    grid: () => [
      ["UPRN", "Postcode", "Address"],
      [u[0], "", ""],
      ["", ex.sharedPostcode.postcode, ex.sharedPostcode.properties[0].address_line_1],
      ["", ex.ambiguousAddress.postcode, ex.ambiguousAddress.address],
    ],
    steps: [{ select: "A1:C1" }],
    expect: (g) => {
      expect(column(g, 3, MATCHED, 2, 3)).toEqual([u[0], ex.sharedPostcode.properties[0].uprn]);
      expect(column(g, 3, MESSAGE, 4, 4)[0]).not.toBe("");
    },
  },
  {
    name: "mistakes in the UPRN column (TBC beside a postcode, N/A, not known, a UPRN with spaces, a blank row): every row has its result or a message at its own row",
    group: "rows",
    grid: () => [
      ["UPRN", "Postcode", "Notes"],
      [u[0], "", "a"],
      ["TBC", ex.singlePropertyPostcode.postcode, "b"],
      ["N/A", "", "c"],
      [],
      ["not known", "", "e"],
      [u[1].replace(/(\d{4})(\d{4})/, "$1 $2 "), "", "f"],
      [u[2], "", "g"],
    ],
    steps: [{ select: "A2:A8" }],
    said: [/3 rows with input errors; see their Message\./],
    expect: (g) => {
      expect(column(g, 3, MATCHED, 2, 8)).toEqual([
        u[0],
        ex.singlePropertyPostcode.property.uprn,
        "",
        "",
        "",
        u[1],
        u[2],
      ]);
      for (const r of [3, 4, 6]) expect(column(g, 3, MESSAGE, r, r)[0]).not.toBe("");
    },
  },
  {
    name: "UPRNs typed as numbers, one shorter than 12 digits: each is read as its UPRN",
    group: "rows",
    grid: () => [["UPRN"], [Number(u[0])], [Number(ex.shortUprn.property.uprn)], [Number(u[1])]],
    steps: [{ select: "A2:A4" }],
    expect: (g) => {
      expect(column(g, 1, MATCHED, 2, 4)).toEqual([u[0], ex.shortUprn.property.uprn, u[1]]);
    },
  },
  {
    name: "a table whose header is C4, with blank columns left of it and blank rows above: the header row selected checks it, the results go right of it",
    group: "tables",
    grid: () => [[], [], [], ["", "", "UPRN", "Notes"], ...u.slice(0, 3).map((x, i) => ["", "", x, `n${i}`])],
    steps: [{ select: "C4:D4" }],
    said: [/You selected the header row, so the whole table is checked: rows 5–7\./],
    expect: (g) => {
      expect(g[3].slice(4, 4 + W)).toEqual(outputHeaders());
      expect(column(g, 4, MATCHED, 5, 7)).toEqual(u.slice(0, 3));
    },
  },
  {
    name: "checked, then sorted by the user (whole rows), then checked again: each row keeps its own results, one block",
    group: "rows",
    grid: () => [["UPRN", "Notes"], ...u.slice(0, 4).map((x, i) => [x, `n${i}`])],
    steps: [{ select: "A1:B1" }, { change: [{ sort: { first: 2, order: [3, 1, 0, 2] } }], select: "A1:B1" }],
    expect: (g) => {
      expect(g[0].filter((v) => v === outputHeaders()[0])).toHaveLength(1);
      expect(g.slice(1, 5).map((r) => [r[0], r[1], r[2 + MATCHED]])).toEqual(
        [3, 1, 0, 2].map((i) => [u[i], `n${i}`, u[i]]),
      );
    },
  },
  {
    name: "checked, then a row inserted in the middle with a new UPRN, then checked again: the new row gets its results, the others keep theirs",
    group: "rows",
    grid: () => [["UPRN", "Notes"], ...u.slice(0, 3).map((x, i) => [x, `n${i}`])],
    steps: () => [
      { select: "A1:B1" },
      { change: [{ insertRowBefore: 3 }, { type: { at: "A3", values: [[u[5], "new"]] } }], select: "A1:B1" },
    ],
    expect: (g) => {
      expect(column(g, 2, MATCHED, 2, 5)).toEqual([u[0], u[5], u[1], u[2]]);
    },
  },
  {
    name: "checked, then the user renames our Message header, then checks again: their column is left alone and the results are written again",
    group: "rows",
    grid: () => [["UPRN", "Notes"], ...u.slice(0, 3).map((x, i) => [x, `n${i}`])],
    steps: [
      { select: "A1:B1" },
      { change: [{ type: { at: colLetters(2 + MESSAGE) + "1", values: [["My remarks"]] } }], select: "A1:B1" },
    ],
    said: [
      /Results go in columns C:\w+, right of your data in A:B\./,
      new RegExp(
        `The results columns from an earlier check \\(C:${colLetters(2 + W - 1)}\\) were changed \\(a column inserted or a header renamed\\), so they are left as they are and fresh results go in a new block\\.\nResults go in columns ${colLetters(3 + W)}:${colLetters(2 + 2 * W)}, after the last column in use \\(${colLetters(1 + W)}\\)`,
      ),
    ],
    expect: (g) => {
      expect(g[0]).toContain("My remarks");
    },
  },
  {
    name: "the user's Done column right of the results block, then a re-check: it stays on its row and is not overwritten",
    group: "rows",
    grid: () => [["UPRN", "Notes"], ...u.slice(0, 3).map((x, i) => [x, `n${i}`])],
    steps: [
      { select: "A1:B1" },
      {
        change: [{ type: { at: colLetters(2 + W) + "1", values: [["Done"], ["yes"], [""], ["no"]] } }],
        select: "A1:B1",
      },
    ],
    said: [/^/, new RegExp(`Results are updated in place in columns C:${colLetters(2 + W - 1)}\\.`)],
    expect: (g) => {
      expect(g.slice(0, 4).map((r) => r[2 + W])).toEqual(["Done", "yes", "", "no"]);
      expect(column(g, 2, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
    },
  },
  {
    name: "one UPRN in both of two stacked tables: each table's row gets the result",
    group: "tables",
    grid: () => [["UPRN", "Notes"], [u[0], "a"], [u[1], "b"], [], [], ["UPRN", "Notes"], [u[2], "c"], [u[0], "d"]],
    steps: [{ select: "A1:B1" }, { select: "A6:B6" }],
    expect: (g) => {
      expect(column(g, 2, MATCHED, 2, 3)).toEqual([u[0], u[1]]);
      expect(column(g, 2, MATCHED, 7, 8)).toEqual([u[2], u[0]]);
    },
  },
  {
    name: "side by side with no gap column, the left table's header selected: only the left table is checked",
    group: "tables",
    grid: noGap,
    steps: [{ select: "A1:B1" }],
    said: [
      new RegExp(
        `Results go in columns F:${colLetters(5 + W - 1)}, after the last column in use \\(D\\), so none of your columns is overwritten\\.`,
      ),
    ],
    expect: (g) => {
      expect(column(g, 5, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
      expect(g[0].filter((v) => v === outputHeaders()[0])).toHaveLength(1);
    },
  },
  {
    name: "a UPRN the register does not hold among good ones: its row says so, the others get results",
    group: "rows",
    grid: () => [["UPRN"], [u[0]], [ex.unknownUprn], [u[1]]],
    steps: [{ select: "A2:A4" }],
    expect: (g) => {
      expect(column(g, 1, MATCHED, 2, 4)).toEqual([u[0], "", u[1]]);
      expect(column(g, 1, MESSAGE, 3, 3)[0]).not.toBe("");
    },
  },
  {
    name: "a filter hides two rows, then the header row is selected: the hidden rows are neither sent nor written",
    group: "rows",
    grid: () => [["UPRN", "Notes"], ...u.slice(0, 5).map((x, i) => [x, `n${i}`])],
    steps: [{ change: [{ filterOut: [3, 5] }], select: "A1:B1" }],
    said: [/2 rows hidden by a filter were skipped: not sent and not written\./],
    expect: (g) => {
      expect(column(g, 2, MATCHED, 2, 6)).toEqual([u[0], "", u[2], "", u[4]]);
    },
  },
  {
    name: "a blank row in the middle of a table, its header row selected: the rows above it are checked, and both add-ins name the rows below it as not checked",
    group: "tables",
    grid: () => [["UPRN", "Notes"], [u[0], "a"], [u[1], "b"], [], [u[2], "c"], [u[3], "d"]],
    steps: [{ select: "A1:B1" }],
    said: [
      /You selected the header row, so the whole table is checked: rows 2–3\. Rows 5–6, below the blank row 4, are not checked: select them to check them too\./,
    ],
    expect: (g) => {
      expect(column(g, 2, MATCHED, 2, 3)).toEqual([u[0], u[1]]);
      expect(g.slice(3, 6).every((r) => r.slice(2).every((v) => v === ""))).toBe(true);
    },
  },
  {
    name: "no header row, the UPRN column chosen by hand: checked, checked again in place, then a status cell retyped and checked again: the edited block is left as it is, the new one stands one blank column after it",
    group: "tables",
    grid: () => [
      [u[0], "a"],
      [u[1], "b"],
      [u[2], "c"],
    ],
    steps: [
      { select: "A1:A3", mapping: { uprn: "A" }, hasHeader: false },
      { select: "A1:A3", mapping: { uprn: "A" }, hasHeader: false },
      {
        change: [{ type: { at: `${colLetters(2 + EPC_STATUS)}2`, values: [["ask agent"]] } }],
        select: "A1:A3",
        mapping: { uprn: "A" },
        hasHeader: false,
      },
    ],
    said: [
      /No header row: the results columns have no headers either, so the rows stay aligned; a re-run finds them and updates them in place\./,
      new RegExp(`Results are updated in place in columns C:${colLetters(2 + W - 1)}\\.`),
      new RegExp(
        `${EDITED_BLOCK_NOTE.replace(/[()]/g, "\\$&")}\nResults go in columns ${colLetters(3 + W)}:${colLetters(2 + 2 * W)}, after the last column in use \\(${colLetters(1 + W)}\\)`,
      ),
    ],
    expect: (g) => {
      expect(column(g, 2, MATCHED, 1, 3)).toEqual(u.slice(0, 3));
      expect(g[1][2 + EPC_STATUS]).toBe("ask agent");
      expect(g.slice(0, 3).every((r) => r[2 + W] === "")).toBe(true);
      expect(column(g, 3 + W, MATCHED, 1, 3)).toEqual(u.slice(0, 3));
    },
  },
  {
    name: "checked, then only the user's columns sorted (the results left where they were), then checked again: every row's results are its own again",
    group: "rows",
    grid: () => [["UPRN", "Notes"], ...u.slice(0, 4).map((x, i) => [x, `n${i}`])],
    steps: [
      { select: "A1:B1" },
      { change: [{ sort: { first: 2, order: [3, 1, 0, 2], columns: 2 } }], select: "A1:B1" },
    ],
    expect: (g) => {
      expect(g.slice(1, 5).map((r) => [r[0], r[1], r[2 + MATCHED]])).toEqual(
        [3, 1, 0, 2].map((k) => [u[k], `n${k}`, u[k]]),
      );
    },
  },
];
