/**
 * The same sheet gets the same grid in Excel and in Google Sheets. Each scenario seeds one grid, then selects and
 * checks one or more times, in the Excel stand-in (the pane's prepareCheck and runCheck) and in the Sheets stand-in
 * running the built Code.js (startBulkCheck, polled to the end), both against the sandbox; the two sheets must then
 * hold the same cells. Both add-ins decide the table, its header, the rows checked and the results block with
 * core/sheet. Times and dates are compared as "a time" / "a date" (each host writes them in its own form).
 */
import { OUTPUT_COLUMNS, createClient, outputHeaders } from "../../core";
import { prepareCheck, runCheck, type ExcelRun } from "../../excel/taskpane/check-run";
import { createGasEnvironment } from "../gsheets/harness/gas";
import { startSandboxProcess, type SandboxProcess } from "../gsheets/harness/sandbox";
import { configure, pollToEnd } from "../gsheets/harness/table";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Excel stand-in is plain JavaScript that the built pane's page also loads as a script, so it has no ES exports
const { createStandIn, colLetters } = require("../excel/standin/excel-standin.js");

const W = OUTPUT_COLUMNS.length;
const MATCHED = OUTPUT_COLUMNS.findIndex((c) => c.header === "Matched UPRN");
const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");
const ROWS = 14;
const COLS = 2 * W + 12;

let sandbox: SandboxProcess;
let u: string[];
beforeAll(async () => {
  sandbox = await startSandboxProcess({ msPerProperty: 1 });
  u = (await sandbox.properties(8)).map((p) => p.uprn);
});
afterAll(async () => {
  await sandbox?.close();
});

/** A cell as both hosts can be compared on it: times and dates by kind, numbers and text as text. */
function cell(v: unknown): string {
  if (v === null || v === undefined || v === "") return "";
  if (Object.prototype.toString.call(v) === "[object Date]") return "<date>";
  // Excel holds a date as its serial (days since 1899-12-30): 20000 is 1954, 80000 is 2119.
  if (typeof v === "number" && v > 20000 && v < 80000) return "<date>";
  const s = String(v);
  if (/^\d{4}-\d{2}-\d{2}/.test(s)) return "<date>";
  return s;
}
const normalise = (grid: unknown[][]) => grid.map((r) => r.map(cell));

interface Step {
  select: string;
}

async function inExcel(grid: unknown[][], steps: Step[]): Promise<{ grid: string[][]; refused: string[] }> {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  const client = createClient({
    baseUrl: sandbox.baseUrl,
    apiKey: "sandbox-professional",
    fetch: (url, init) => fetch(url, init as RequestInit) as never,
  });
  s.api.seed("Sheet1", "A1", grid);
  const refused: string[] = [];
  for (const [i, step] of steps.entries()) {
    s.api.select("Sheet1", step.select);
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (!prep.ok) {
      refused.push(prep.message);
      continue;
    }
    // Each check a minute after the one before, as a user's are: this run's rows are known by their Checked at time.
    await runCheck(prep.check, {
      excelRun,
      client,
      plan: "professional",
      actionSheets: false,
      now: () => Date.now() + i * 60_000,
    });
  }
  return { grid: normalise(s.api.read("Sheet1", `A1:${colLetters(COLS - 1)}${ROWS}`).values), refused };
}

async function inSheets(grid: unknown[][], steps: Step[]): Promise<{ grid: string[][]; refused: string[] }> {
  const env = createGasEnvironment();
  configure(env, sandbox);
  env.sheet.maxCols = Math.max(env.sheet.maxCols, COLS + W);
  env.sheet.seed(1, 1, grid);
  const refused: string[] = [];
  for (const step of steps) {
    env.sheet.select(step.select);
    const r = env.run("startBulkCheck", {});
    if (!r.ok) {
      refused.push(r.message);
      continue;
    }
    await pollToEnd(env);
  }
  return { grid: normalise(env.sheet.peek(1, 1, ROWS, COLS)), refused };
}

/** The results block's column of `what` (Matched UPRN, Message) from a 0-based block start, rows first..last (1-based). */
const column = (grid: string[][], start: number, what: number, first: number, last: number) =>
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

interface Scenario {
  name: string;
  grid: () => unknown[][];
  steps: Step[];
  /** What the grid must show besides being the same in both hosts. */
  expect: (g: string[][]) => void;
}

const scenarios: Scenario[] = [
  {
    name: "stacked tables, both checked, then the whole column A:A: the upper table is checked again; the lower table's results header and the blank rows between stay as they were",
    grid: stacked,
    steps: [{ select: "A2:A4" }, { select: "A9:A11" }, { select: "A:A" }],
    expect: (g) => {
      expect(g[7].slice(2, 2 + W)).toEqual(outputHeaders());
      expect(g.slice(4, 7).every((r) => r.every((v) => v === ""))).toBe(true);
      expect(column(g, 2, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
      expect(column(g, 2, MATCHED, 9, 11)).toEqual(u.slice(3, 6));
    },
  },
  {
    name: "stacked tables, both checked, then A2:A11 across the blank rows into the lower table: the same",
    grid: stacked,
    steps: [{ select: "A2:A4" }, { select: "A9:A11" }, { select: "A2:A11" }],
    expect: (g) => {
      expect(g[7].slice(2, 2 + W)).toEqual(outputHeaders());
      expect(g.slice(4, 7).every((r) => r.every((v) => v === ""))).toBe(true);
      expect(column(g, 2, MATCHED, 9, 11)).toEqual(u.slice(3, 6));
    },
  },
  {
    name: "stacked tables, the upper table's header row selected: only the upper table is checked",
    grid: stacked,
    steps: [{ select: "A1:B1" }],
    expect: (g) => {
      expect(column(g, 2, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
      expect(g.slice(4).every((r) => r.slice(2).every((v) => v === ""))).toBe(true);
    },
  },
  {
    name: "side by side (A:B and D:E), the left table checked first, then the right one: each keeps its own block",
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
    grid: sideBySide,
    steps: [{ select: "D2:E4" }, { select: "A2:B4" }],
    expect: (g) => {
      expect(column(g, 5, MATCHED, 2, 4)).toEqual(u.slice(3, 6));
      expect(column(g, 5 + W + 1, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
    },
  },
  {
    name: "side by side with no gap column (A:B and C:D), the right table's rows selected, then the left's: each table's own UPRNs are checked, each into its own block",
    grid: noGap,
    steps: [{ select: "C2:D4" }, { select: "A2:B4" }],
    expect: (g) => {
      expect(column(g, 4, MATCHED, 2, 4)).toEqual(u.slice(3, 6));
      expect(column(g, 4 + W + 1, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
    },
  },
  {
    name: "a title row mentioning UPRN above the real header (Ref | UPRN | Postcode): the header row is used, every row checked, the title untouched",
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
    name: "four rows with one UPRN: all four get the result; the three copies say which row was checked",
    grid: () => [["UPRN"], [u[6]], [u[6]], [u[6]], [u[6]]],
    steps: [{ select: "A2:A5" }],
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
    grid: () => [["UPRN", "Notes"], ...u.slice(0, 3).map((x, i) => [x, `n${i}`])],
    steps: [{ select: "B3" }, { select: "A1:B1" }],
    expect: (g) => {
      expect(g[0].filter((v) => v === outputHeaders()[0])).toHaveLength(1);
      expect(column(g, 2, MATCHED, 2, 4)).toEqual(u.slice(0, 3));
    },
  },
];

describe("the same grid in Excel and Google Sheets", () => {
  test.each(scenarios.map((s) => [s.name, s] as const))("%s", async (_name, s) => {
    const excel = await inExcel(s.grid(), s.steps);
    const sheets = await inSheets(s.grid(), s.steps);
    expect(excel.refused).toEqual([]);
    expect(sheets.refused).toEqual([]);
    const brief = (g: string[][]) =>
      g
        .map(
          (r, i) =>
            `${i + 1}: ${r.slice(0, 6).join("|")} || ${r
              .map((v, c) =>
                v === "Matched UPRN" || /^\d{12}$/.test(v) || (c % 1 === 0 && /Same|changed|not valid|No UPRN/.test(v))
                  ? `${c}:${v.slice(0, 30)}`
                  : "",
              )
              .filter(Boolean)
              .join(" ")}`,
        )
        .join("\n");
    if (process.env.SHOW_GRIDS) console.log(`EXCEL\n${brief(excel.grid)}\nSHEETS\n${brief(sheets.grid)}`);
    s.expect(excel.grid);
    expect(sheets.grid).toEqual(excel.grid);
  });
});
