/**
 * The Compliance summary's live formulas over one, two and three checked tables (two on one sheet, one on another), as
 * the BUILT Code.js writes them: every formula, computed by a real formula engine over the spreadsheet's cells, equals
 * the count of the blocks' own cells. Real HTTP to the sandbox, the spreadsheet in memory.
 */
import { MEMBERS, OUTPUT_COLUMNS, WINDOWS } from "../../../core";
import { computeSheet } from "../../helpers/formulas";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import type { FakeSheet } from "../harness/fake-sheets";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { configure, pollToEnd } from "../harness/table";

const sandbox = sandboxForFile({
  msPerProperty: 0,
  limits: { professional: { perMinute: 100000, perDay: 1000000 } },
});
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(600);
});

function seed(sheet: FakeSheet, rows: SandboxProperty[], row: number): { first: number; last: number } {
  if (sheet.maxCols < 60) sheet.maxCols = 60;
  sheet.seed(row, 1, [["UPRN", "Address"], ...rows.map((p) => [p.uprn, p.address])]);
  return { first: row + 1, last: row + rows.length };
}

async function check(env: GasEnvironment, sheet: FakeSheet, a1: string): Promise<void> {
  env.spreadsheet.active = sheet;
  sheet.select(a1);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  const polls = await pollToEnd(env, undefined, 3000);
  expect(polls[polls.length - 1].phase).toBe("done");
}

test.each([
  ["one table", 1],
  ["two tables on one sheet", 2],
  ["three tables on two sheets", 3],
])("every summary formula over %s equals the count of the blocks' cells", async (_tables, n) => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const main = env.sheet;
  const other = env.spreadsheet.addSheet("Other", 400, 60);
  const a = seed(main, props.slice(0, 70), 1);
  const b = seed(main, props.slice(100, 160), a.last + 3);
  const c = seed(other, props.slice(200, 250), 1);
  const tables: [FakeSheet, { first: number; last: number }][] = (
    [
      [main, a],
      [main, b],
      [other, c],
    ] as [FakeSheet, { first: number; last: number }][]
  ).slice(0, n);
  for (const [sheet, t] of tables) await check(env, sheet, `A${t.first}:A${t.last}`);

  // The blocks' own cells, read from the sheets: each table's block starts right of its two columns.
  const body = tables.flatMap(([sheet, t]) =>
    sheet.peek(t.first, 3, t.last - t.first + 1, OUTPUT_COLUMNS.length).map((r) => r.map((v) => v)),
  );
  const col = (key: string) => OUTPUT_COLUMNS.findIndex((x) => x.key === key);
  const count = (key: string, word: string) => body.filter((r) => r[col(key)] === word).length;
  const checked = body.filter((r) => r[col("checked_at")] !== "").length;
  expect(checked).toBe(tables.reduce((s, [, t]) => s + t.last - t.first + 1, 0));

  const summary = env.spreadsheet.getSheetByName("Compliance summary") as FakeSheet;
  const values = computeSheet(
    { Sheet1: main.sourceGrid(), Other: other.sourceGrid(), "Compliance summary": summary.sourceGrid() },
    "Compliance summary",
  );
  const rowOf = (label: string) => values.findIndex((r) => r[0] === label);
  const status = rowOf("Check");
  expect(MEMBERS.map((_m, i) => values[status + 1 + i].slice(1, 7))).toEqual(
    MEMBERS.map(([, key]) => [
      count(key, "pass"),
      count(key, "warning"),
      count(key, "fail"),
      count(key, "not_required"),
      count(key, "error") + count(key, "unknown"),
      checked,
    ]),
  );
  const levels = ["low", "medium", "high"].map((l) => count("risk_level", l));
  const risk = rowOf("Risk level");
  expect(values.slice(risk + 1, risk + 5).map((r) => r.slice(0, 2))).toEqual([
    ["low", levels[0]],
    ["medium", levels[1]],
    ["high", levels[2]],
    ["other / none", checked - levels[0] - levels[1] - levels[2]],
  ]);
  const scores = body.map((r) => r[col("compliance_score")]).filter((v): v is number => typeof v === "number");
  expect(values[risk + 5][0]).toBe("Average score");
  expect(values[risk + 5][1]).toBeCloseTo(scores.reduce((s, v) => s + v, 0) / scores.length, 9);
  const w = rowOf("Window");
  expect(values.slice(w + 1, w + 1 + WINDOWS.length).map((r) => r.slice(0, 2))).toEqual(
    WINDOWS.map((name) => [name, count("window", name)]),
  );
  // Those are all the summary's formulas.
  const formulas = summary.sourceGrid().flatMap((r) => r.filter((v) => typeof v === "string" && v.startsWith("=")));
  expect(formulas).toHaveLength(MEMBERS.length * 6 + 5 + WINDOWS.length);
});
