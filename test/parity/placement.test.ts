/**
 * The same sheet gets the same placement in Excel and in Google Sheets: each case is seeded in the Excel stand-in
 * (the pane's prepareCheck) and in the Sheets stand-in running the built Code.js (startBulkCheck), and both must
 * put the results block in the same column. Both decide with core/sheet/placement.ts.
 */
import { nothingToSendLine, outputHeaders, type PlanName } from "../../core";
import { prepareCheck, type ExcelRun } from "../../excel/taskpane/check-run";
import { createGasEnvironment } from "../gsheets/harness/gas";
import { startSandboxProcess, type SandboxProcess } from "../gsheets/harness/sandbox";
import { configure } from "../gsheets/harness/table";
import { createStandIn } from "../helpers/excel-standin";

let sandbox: SandboxProcess;
let uprns: string[];
beforeAll(async () => {
  sandbox = await startSandboxProcess({ msPerProperty: 1 });
  uprns = (await sandbox.properties(5)).map((p) => p.uprn);
});
afterAll(async () => {
  await sandbox?.close();
});

const letters = (n: number) => {
  let s = "";
  for (let c = n + 1; c > 0; c = Math.floor((c - 1) / 26)) s = String.fromCharCode(65 + ((c - 1) % 26)) + s;
  return s;
};
const colIndex = (a1: string) => [.../^[A-Z]+/.exec(a1)![0]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;

async function excelColumn(grid: unknown[][], selection: string): Promise<number | string> {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  s.api.seed("Sheet1", "A1", grid);
  s.api.select("Sheet1", selection);
  const prep = await prepareCheck(excelRun, { plan: "professional" as PlanName });
  return prep.ok ? prep.check.origin.columnIndex : prep.message;
}

async function sheetsColumn(grid: unknown[][], selection: string): Promise<number | string> {
  const env = createGasEnvironment();
  configure(env, sandbox);
  // A sheet holding the grid is at least that wide (a new one has 26 columns).
  env.sheet.maxCols = Math.max(env.sheet.maxCols, Math.max(...grid.map((r) => r.length)) + 2);
  env.sheet.seed(1, 1, grid);
  env.sheet.select(selection);
  const r = env.run("startBulkCheck", {});
  if (!r.ok) return r.message;
  env.run("cancelBulkCheck");
  return colIndex(r.progress.outputA1);
}

const ours = outputHeaders();
const cases: [string, () => unknown[][], number][] = [
  [
    "the user's own EPC columns (UPRN, Postcode, EPC status, EPC rating, EPC expiry, Notes) are the user's: results go right of them",
    () => [
      ["UPRN", "Postcode", "EPC status", "EPC rating", "EPC expiry", "Notes"],
      ...uprns.slice(0, 3).map((u) => [u, "", "pass", "C", "2030-01-01", "n"]),
    ],
    6,
  ],
  [
    "a column of the user's after a gap: one blank column after it",
    () => [["UPRN", "Notes", "", "", "Other"], ...uprns.slice(0, 3).map((u) => [u, "n", "", "", "x"])],
    6,
  ],
  [
    "a cell of spaces far right is not a column in use: one blank column after the user's last real column (before: Excel went past the spaces)",
    () => [
      ["UPRN", "Notes", "", "", "Other", ...Array(30).fill(""), "   "],
      ...uprns.slice(0, 3).map((u) => [u, "n", "", "", "x"]),
    ],
    6,
  ],
  [
    "an intact results block: updated in place",
    () => [["UPRN", ...ours], ...uprns.slice(0, 3).map((u) => [u, ...ours.map(() => "")])],
    1,
  ],
  [
    "a block an earlier version wrote (its 23 headers, no action columns yet), with the user's Notes two columns after it: updated in place",
    () => {
      const legacy = ours.slice(0, ours.indexOf("Message") + 1);
      return [
        ["UPRN", ...legacy, "", "", "", "", "", "Notes"],
        ...uprns.slice(0, 3).map((u) => [u, ...legacy.map(() => ""), "", "", "", "", "", "n"]),
      ];
    },
    1,
  ],
  [
    "a results block the user changed (a column inserted inside it): left alone, a new block after everything",
    () => [
      ["UPRN", ...ours.slice(0, 3), "My flag", ...ours.slice(3)],
      ...uprns.slice(0, 3).map((u) => [u, ...ours.map(() => ""), "keep"]),
    ],
    ours.length + 3,
  ],
];

test("no header row, a re-run after the user inserted a column inside the results block: both leave it and write in the same column after it (before: Excel took the user's column for the block's first)", async () => {
  const rows = uprns.slice(0, 3).map((u) => [u]);
  const ran = async () => {
    // First run in each host, then the same column inserted at C with the user's data.
    const s = createStandIn();
    const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
    s.api.seed("Sheet1", "A1", rows);
    s.api.select("Sheet1", "A1:A3");
    const env = createGasEnvironment();
    configure(env, sandbox);
    env.sheet.seed(1, 1, rows);
    env.sheet.select("A1:A3");
    return { s, excelRun, env };
  };
  const { s, excelRun, env } = await ran();
  const prepared = await prepareCheck(excelRun, { plan: "professional", mapping: { uprn: 0 }, hasHeader: false });
  if (!prepared.ok) throw new Error(prepared.message);
  expect(prepared.check.origin.columnIndex).toBe(1);
  expect(env.run("startBulkCheck", { mapping: { uprn: "A" } }).progress.outputA1.startsWith("B1:")).toBe(true);
  // Both blocks filled the same way (Sheets by its run; the Excel stand-in with the same cells).
  const { pollToEnd } = await import("../gsheets/harness/table");
  await pollToEnd(env);
  const block = env.sheet.peek(1, 2, 3, outputHeaders().length);
  s.api.seed(
    "Sheet1",
    "B1",
    block.map((r) => r.map((v) => (v instanceof Date ? v.toISOString().slice(0, 19).replace("T", " ") : v))),
  );
  env.sheet.insertColumnBefore(3);
  env.sheet.seed(1, 3, [["mine"], ["mine"], ["mine"]]);
  const excelGrid = s.api.read("Sheet1", `A1:${letters(outputHeaders().length + 1)}3`).values as unknown[][];
  const moved = excelGrid.map((r) => [r[0], r[1], "mine", ...r.slice(2)]);
  s.api.seed("Sheet1", "A1", moved);
  s.api.select("Sheet1", "A1:A3");
  const again = await prepareCheck(excelRun, { plan: "professional", mapping: { uprn: 0 }, hasHeader: false });
  if (!again.ok) throw new Error(again.message);
  const sheets = env.run("startBulkCheck", { mapping: { uprn: "A" } });
  expect(sheets.ok).toBe(true);
  // Neither writes over the user's column or the old block: both know the widened block by its rows (core's
  // findEditedBlockByShape) and start one blank column after its whole width, its blank last columns included.
  const W = outputHeaders().length;
  expect(again.check.origin.columnIndex).toBe(W + 3);
  expect(colIndex(sheets.progress.outputA1)).toBe(W + 3);
  expect(env.sheet.peek(1, 3, 3, 1).flat()).toEqual(["mine", "mine", "mine"]);
});

test.each(cases)("%s", async (_name, grid, expected) => {
  const g = grid();
  const selection = `A2:A${g.length}`;
  const excel = await excelColumn(g, selection);
  const sheets = await sheetsColumn(g, selection);
  expect({ excel, sheets }).toEqual({ excel: expected, sheets: expected });
  expect(letters(expected)).toMatch(/^[A-Z]+$/);
});

describe("tables side by side in one header row (A:B and D:E, both UPRN / Postcode): each keeps its own results block", () => {
  // Before: Sheets read the leftmost table whatever was selected, and in both add-ins the left table took the first
  // block in the header row, the right table's, and wrote over its results. Core's detectColumnsInSelection (Sheets;
  // Excel's surrounding region) and findHeaderBlockOfTable (both) decide it now.
  const W = outputHeaders().length;
  const grid = (withRightBlock: boolean) => [
    ["UPRN", "Postcode", "", "UPRN", "Postcode", ...(withRightBlock ? ours : [])],
    ...uprns
      .slice(0, 3)
      .map((u, i) => [u, "", "", uprns[3 + (i % 2)], "", ...(withRightBlock ? ours.map(() => "") : [])]),
  ];
  test.each([
    ["the right table, no block yet: beside it", false, "D2:E4", 5],
    ["the right table, its block beside it: updated in place", true, "D2:E4", 5],
    [
      "the left table, the right table's block in the row: a block of its own after everything, not the right table's",
      true,
      "A2:B4",
      5 + W + 1,
    ],
  ])("%s", async (_name, withRightBlock, selection, expected) => {
    const g = grid(withRightBlock as boolean);
    const excel = await excelColumn(g, selection as string);
    const sheets = await sheetsColumn(g, selection as string);
    expect({ excel, sheets }).toEqual({ excel: expected, sheets: expected });
  });
});

describe("the lines said as a check begins are core's startNotes, the same in both add-ins for the same grid", () => {
  async function notesIn(grid: unknown[][], selection: string, noHeader = false) {
    const s = createStandIn();
    const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
    s.api.seed("Sheet1", "A1", grid);
    s.api.select("Sheet1", selection);
    const prep = await prepareCheck(excelRun, {
      plan: "professional",
      ...(noHeader ? { mapping: { uprn: 0 }, hasHeader: false } : {}),
    });
    const env = createGasEnvironment();
    configure(env, sandbox);
    env.sheet.seed(1, 1, grid);
    env.sheet.select(selection);
    const r = env.run("startBulkCheck", noHeader ? { mapping: { uprn: "A" } } : {});
    if (r.ok) env.run("cancelBulkCheck");
    return {
      status: r.ok ? r.progress.message : "",
      excel: prep.ok ? prep.check.placement.split("\n") : prep.message,
      // A run with nothing to send ends at once, and its end lines (runend.ts) follow the lines it began with.
      sheets: r.ok
        ? (r.progress.notes as string[])
            .flatMap((n) => n.split("\n"))
            .slice(0, prep.ok ? prep.check.placement.split("\n").length : undefined)
        : r.message,
    };
  }
  const place = "Results go in columns C:AD, right of your data in A:B.";

  test("one cell selected: its row only, then where the results go", async () => {
    const grid = [["UPRN", "Notes"], ...uprns.slice(0, 3).map((u) => [u, "n"])];
    const expected = [
      "You selected one cell, so only its row (row 3) is checked. To check the whole table, select its header row.",
      place,
    ];
    expect(await notesIn(grid, "A3")).toMatchObject({ excel: expected, sheets: expected });
  });

  test("the header row selected: the whole table, the rows below its blank row named, a duplicate counted", async () => {
    const grid = [
      ["UPRN", "Notes"],
      [uprns[0], "a"],
      [uprns[0], "b"],
      [uprns[1], "c"],
      ["", ""],
      [uprns[2], "d"],
    ];
    const expected = [
      "You selected the header row, so the whole table is checked: rows 2–4. Row 6, below the blank row 5, is not checked: select it to check it too.",
      place,
      "1 duplicate row shares a check with an earlier row.",
    ];
    expect(await notesIn(grid, "A1:B1")).toMatchObject({ excel: expected, sheets: expected });
  });

  test("every row invalid: nothing is sent, and both still count the rows with input errors (before: Sheets said nothing of them)", async () => {
    const grid = [
      ["UPRN", "Notes"],
      ["not a uprn", "a"],
      ["12x", "b"],
    ];
    const expected = [
      "You selected the header row, so the whole table is checked: rows 2–3.",
      place,
      "2 rows with input errors; see their Message.",
    ];
    // The pane's status line above these is the same sentence (taskpane.ts); the sidebar's is its run's message.
    expect(await notesIn(grid, "A1:B1")).toEqual({ status: nothingToSendLine(2), excel: expected, sheets: expected });
  });

  test("no header row: where the results go, then that they have no headers either", async () => {
    const grid = uprns.slice(0, 2).map((u) => [u]);
    const expected = [
      "Results go in columns B:AC, right of your data in A:A.",
      "No header row: the results columns have no headers either, so the rows stay aligned; a re-run finds them and updates them in place.",
    ];
    expect(await notesIn(grid, "A1:A2", true)).toMatchObject({ excel: expected, sheets: expected });
  });
});
