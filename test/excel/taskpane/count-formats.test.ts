/**
 * Counts in the sheets the pane builds show as its words write them, en-GB grouped ("1,200", never "1200"): the Run
 * log's count columns, the Compliance summary's counts (its live COUNTIFs and the lines per table) and the Action list's
 * Days left, each cell a number under "#,##0", the format test/gsheets/server/count-formats.test.ts holds for Sheets.
 * The pane's own code on the Excel stand-in (Range.text shows what the cell displays), real HTTP to a sandbox.
 */
import { ACTION_LIST_SHEET, RUN_LOG_HEADERS, RUN_LOG_SHEET, SUMMARY_SHEET, type Cell } from "../../../core";
import { memoryStore } from "../../../excel/settings";
import { runCheck } from "../../../excel/taskpane/check-run";
import { knownUprns, sandbox } from "../../helpers/sandbox";
import { prepared, proClient, workbook } from "../../helpers/excel-workbook";

const ROWS = 1_200;
const COUNTS = ["Rows", "Checked", "Changed", "Worse", "Errors", "Requests used", "Quota left"];

test("a 1,200-row run: the Run log, the summary's counts and the Action list's Days left are shown grouped", async () => {
  const fast = await sandbox(1);
  try {
    const { s, excelRun } = workbook();
    s.api.seed("Sheet1", "A1", [["UPRN"], ...knownUprns(fast, ROWS).map((u) => [u])]);
    s.api.select("Sheet1", "A1");
    const summary = await runCheck(await prepared(excelRun), {
      excelRun,
      client: proClient(fast),
      plan: "professional",
      store: memoryStore(),
    });
    expect(summary.cancelled).toBeFalsy();
    /** What a range of a sheet shows: its values, number formats and displayed text (Range.text). */
    const shown = (sheet: string, address: string) =>
      excelRun(async (context) => {
        const range = context.workbook.worksheets.getItem(sheet).getRange(address);
        range.load("values, numberFormat, text");
        await context.sync();
        return { values: range.values as Cell[][], formats: range.numberFormat as string[][], text: range.text };
      });

    // The Run log: the run's row, its counts under "#,##0", its Rows shown "1,200"; the other columns as before.
    const log = await shown(RUN_LOG_SHEET, "A2:L2");
    RUN_LOG_HEADERS.forEach((h, i) =>
      expect([h, log.formats[0][i]]).toEqual([h, COUNTS.includes(h) ? "#,##0" : "General"]),
    );
    const rows = RUN_LOG_HEADERS.indexOf("Rows");
    expect(log.values[0][rows]).toBe(ROWS);
    expect(log.text[0][rows]).toBe("1,200");

    // The summary: every COUNTIF, COUNTA and SUM under "#,##0"; the average score keeps General (a score of 0 to 100).
    const grid = s.api.read(SUMMARY_SHEET, "A1:G60");
    const counted = grid.formulas
      .flatMap((r: (string | null)[], i: number) => r.map((f, j) => [f ?? "", grid.numberFormats[i][j]]))
      .filter(([f]: string[]) => /^=\(?(COUNTIF|COUNTA|SUM)\(/.test(f));
    expect(counted.length).toBeGreaterThan(30);
    expect(new Set(counted.map(([, format]: string[]) => format))).toEqual(new Set(["#,##0"]));
    const values = grid.values as Cell[][];
    const average = values.findIndex((r) => r[0] === "Average score");
    expect(grid.numberFormats[average][1]).toBe("General");
    // The line per table and the Total: 1,200 properties, shown "1,200"; the due-per-month counts under "#,##0" too.
    const total = values.findIndex((r) => r[0] === "Total");
    expect(values[total][1]).toBe(ROWS);
    expect((await shown(SUMMARY_SHEET, `B${total + 1}`)).text[0][0]).toBe("1,200");
    expect(grid.numberFormats[total].slice(1, 6)).toEqual(Array(5).fill("#,##0"));
    const overdue = values.findIndex((r) => r[0] === "Overdue" && typeof r[1] === "number");
    expect(grid.numberFormats[overdue].slice(1, 6)).toEqual(Array(5).fill("#,##0"));

    // The Action list's Days left: a count of days, grouped as the digest words it ("3,650 days left").
    const list = s.api.read(ACTION_LIST_SHEET, "A1:Z2500");
    const head = list.values[0] as Cell[];
    const days = head.indexOf("Days left");
    const rowCol = head.indexOf("Row");
    expect(days).toBeGreaterThanOrEqual(0);
    /** The formats of column `c`'s cells that hold a number. */
    const formatsOf = (c: number) =>
      list.values.flatMap((r: Cell[], i: number) => (typeof r[c] === "number" ? [list.numberFormats[i][c]] : []));
    expect(formatsOf(days).length).toBeGreaterThan(25);
    expect(new Set(formatsOf(days))).toEqual(new Set(["#,##0"]));
    // Row stays a row number as the sheet numbers its rows ("1201").
    expect(formatsOf(rowCol).length).toBeGreaterThan(25);
    expect(new Set(formatsOf(rowCol))).toEqual(new Set(["0"]));
  } finally {
    await fast.close();
  }
}, 120_000);
