/**
 * Which table the pane checks and where its results go, on sheets holding more than one table or a title row: the
 * task pane's prepareCheck / runCheck against the sandbox over loopback, with the Excel stand-in as the workbook. Core's
 * core/sheet decides; test/parity/sheet-model.test.ts holds the same sheets in Google Sheets too.
 */
import { OUTPUT_COLUMNS, createClient, outputHeaders, type PlanName } from "../../core";
import { prepareCheck, runCheck, type ExcelRun, type RunDeps } from "../../excel/taskpane/check-run";
import { knownUprns, sandbox, type Sandbox } from "../helpers/sandbox";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Excel stand-in is plain JavaScript that the built pane's page also loads as a script, so it has no ES exports
const { createStandIn, colLetters } = require("./standin/excel-standin.js");

const W = OUTPUT_COLUMNS.length;
const MATCHED = OUTPUT_COLUMNS.findIndex((c) => c.header === "Matched UPRN");

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandbox(0);
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

function workbook() {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  return { s, excelRun, api: s.api };
}
function client() {
  return createClient({
    baseUrl: sb.baseUrl,
    apiKey: "sandbox-professional",
    fetch: (u, i) => fetch(u, i as RequestInit) as never,
  });
}
async function prepared(excelRun: ExcelRun, opts: { plan: PlanName } = { plan: "professional" }) {
  const prep = await prepareCheck(excelRun, opts);
  if (!prep.ok) throw new Error(prep.message);
  return prep.check;
}
function deps(excelRun: ExcelRun, extra: Partial<RunDeps> = {}): RunDeps {
  return { excelRun, client: client(), plan: "professional", actionSheets: false, ...extra };
}
/** Output block rows [first, last] (1-based sheet rows) starting at a 0-based column. */
function block(api: any, sheet: string, startCol: number, first: number, last: number) {
  return api.read(sheet, `${colLetters(startCol)}${first}:${colLetters(startCol + W - 1)}${last}`);
}

describe("tables side by side, and a title row above the header", () => {
  test("side by side, the LEFT table checked first, then the right one: each table keeps its own results block", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 6);
    api.seed("Sheet1", "A1", [
      ["UPRN", "Postcode", "", "UPRN", "Postcode"],
      [u[0], "", "", u[3], ""],
      [u[1], "", "", u[4], ""],
      [u[2], "", "", u[5], ""],
    ]);
    api.select("Sheet1", "A2:B4");
    const left = await prepared(excelRun);
    expect(left.rows.map((r) => r.property?.uprn)).toEqual(u.slice(0, 3));
    await runCheck(left, deps(excelRun));
    const leftAt = left.origin.columnIndex;
    expect(leftAt).toBeGreaterThanOrEqual(5); // not over the right table
    expect(block(api, "Sheet1", leftAt, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(u.slice(0, 3));

    api.select("Sheet1", "D2:E4");
    const right = await prepared(excelRun);
    expect(right.rows.map((r) => r.property?.uprn)).toEqual(u.slice(3, 6));
    await runCheck(right, deps(excelRun));
    expect(block(api, "Sheet1", leftAt, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(u.slice(0, 3));
    expect(right.origin.columnIndex).not.toBe(leftAt);
    expect(block(api, "Sheet1", right.origin.columnIndex, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(
      u.slice(3, 6),
    );
  });

  test("side by side with no gap column, rows of the right table selected: the right table's UPRNs are checked, its results beside it", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 6);
    api.seed("Sheet1", "A1", [
      ["UPRN", "Postcode", "UPRN", "Postcode"],
      ...[0, 1, 2].map((i) => [u[i], "", u[3 + i], ""]),
    ]);
    api.select("Sheet1", "C2:D4");
    const check = await prepared(excelRun);
    expect(check.mapping).toEqual({ uprn: 0, postcode: 1 });
    expect(check.region.columnIndex).toBe(2);
    expect(check.rows.map((r) => r.property?.uprn)).toEqual(u.slice(3, 6));
    expect(check.origin.columnIndex).toBe(4);
  });

  test("a title row mentioning UPRN above the real header: the header row (Ref | UPRN | Postcode) is used, every row checked", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 4);
    api.seed("Sheet1", "A1", [
      ["UPRN checks - March 2026", "", ""],
      ["Ref", "UPRN", "Postcode"],
      ...u.map((x, i) => [`P${i}`, x, ""]),
    ]);
    api.select("Sheet1", "B3:B6");
    const check = await prepared(excelRun);
    expect(check.mapping).toMatchObject({ uprn: 1, postcode: 2 });
    expect(check.problems).toEqual([]);
    expect(check.rows.map((r) => r.property?.uprn)).toEqual(u);
    await runCheck(check, deps(excelRun));
    expect(api.read("Sheet1", "D2").values[0][0]).toBe(OUTPUT_COLUMNS[0].header);
    expect(api.read("Sheet1", "A1:D1").values[0]).toEqual(["UPRN checks - March 2026", "", "", ""]);
  });
});

describe("stacked tables (two tables one above the other, blank rows between)", () => {
  function stacked(api: any, u: string[]) {
    api.seed("Sheet1", "A1", [
      ["UPRN", "Notes"],
      [u[0], "a"],
      [u[1], "b"],
      [u[2], "c"],
    ]);
    api.seed("Sheet1", "A8", [
      ["UPRN", "Notes"],
      [u[3], "d"],
      [u[4], "e"],
      [u[5], "f"],
    ]);
  }

  test.each([["whole column A:A"], ["A2:A11"]])(
    "both tables checked, then %s selected: the lower table's results header is never overwritten, and no error rows are written beside the blank rows",
    async (sel) => {
      const { excelRun, api } = workbook();
      const u = knownUprns(sb, 6);
      stacked(api, u);
      api.select("Sheet1", "A1");
      await runCheck(await prepared(excelRun), deps(excelRun));
      api.select("Sheet1", "A8");
      await runCheck(await prepared(excelRun), deps(excelRun));
      api.select("Sheet1", sel === "whole column A:A" ? "A:A" : "A2:A11");
      const prep = await prepareCheck(excelRun, { plan: "professional" });
      if (prep.ok) await runCheck(prep.check, deps(excelRun));
      expect(block(api, "Sheet1", 2, 8, 8).values[0]).toEqual(outputHeaders());
      const gap = block(api, "Sheet1", 2, 5, 7).values as unknown[][];
      expect(gap.flat().every((v) => v === "")).toBe(true);
      api.select("Sheet1", "A9");
      const lower = await prepared(excelRun);
      expect(lower.inPlace).toBe(true);
      expect(lower.origin.columnIndex).toBe(2);
    },
  );
});
