/**
 * Counts in the sheets the add-in builds show as its words write them, en-GB grouped ("1,200", never "1200"): the Run
 * log's count columns, the Compliance summary's counts (its live COUNTIFs and the lines per table) and the Action list's
 * Days left, each cell a number under "#,##0". The Excel side is test/excel/taskpane/count-formats.test.ts, which holds
 * the same format. The BUILT Code.js against the sandbox in a child process.
 */
import { ACTION_LIST_SHEET, RUN_LOG_HEADERS, RUN_LOG_SHEET, SUMMARY_SHEET } from "../../../core";
import { createGasEnvironment } from "../harness/gas";
import { sandboxForFile } from "../harness/sandbox";
import { pollToEnd, startOnUprns } from "../harness/table";

const ROWS = 1_200;
const sandbox = sandboxForFile({ msPerProperty: 1 });
const COUNTS = ["Rows", "Checked", "Changed", "Worse", "Errors", "Requests used", "Quota left"];

test("a 1,200-row run: the Run log, the summary's counts and the Action list's Days left are shown grouped", async () => {
  const props = await sandbox.properties(ROWS);
  const env = createGasEnvironment();
  env.sheet.maxRows = ROWS + 20;
  startOnUprns(
    env,
    sandbox,
    props.map((p) => p.uprn),
  );
  await pollToEnd(env);

  // The Run log: the run's row, its counts under "#,##0", its Rows shown "1,200"; the other columns as before.
  const log = env.spreadsheet.getSheetByName(RUN_LOG_SHEET)!;
  expect(log.getLastRow()).toBe(2);
  const row = log.getRange(2, 1, 1, RUN_LOG_HEADERS.length);
  const formats = row.getNumberFormats()[0];
  RUN_LOG_HEADERS.forEach((h, i) => expect([h, formats[i]]).toEqual([h, COUNTS.includes(h) ? "#,##0" : "General"]));
  expect(row.getValues()[0][RUN_LOG_HEADERS.indexOf("Rows")]).toBe(ROWS);
  expect(row.getDisplayValues()[0][RUN_LOG_HEADERS.indexOf("Rows")]).toBe("1,200");

  // The summary: every COUNTIF, COUNTA and SUM under "#,##0"; the average score keeps General (a score of 0 to 100).
  const summary = env.spreadsheet.getSheetByName(SUMMARY_SHEET)!;
  const all = summary.getDataRange();
  const cells = all.getFormulas();
  const summaryFormats = all.getNumberFormats();
  const counted = cells.flatMap((r, i) => r.map((f, j) => [f, summaryFormats[i][j]])).filter(([f]) => /^=/.test(f));
  const countFormulas = counted.filter(([f]) => /^=\(?(COUNTIF|COUNTA|SUM)\(/.test(f));
  expect(countFormulas.length).toBeGreaterThan(30);
  expect(new Set(countFormulas.map(([, format]) => format))).toEqual(new Set(["#,##0"]));
  const values = all.getValues();
  const average = values.findIndex((r) => r[0] === "Average score");
  expect(summaryFormats[average][1]).toBe("General");
  // The line per table and the Total: 1,200 properties, shown "1,200"; the due-per-month counts under "#,##0" too.
  const total = values.findIndex((r) => r[0] === "Total");
  expect(values[total][1]).toBe(ROWS);
  expect(all.getDisplayValues()[total][1]).toBe("1,200");
  expect(summaryFormats[total].slice(1, 6)).toEqual(Array(5).fill("#,##0"));
  const overdue = values.findIndex((r) => r[0] === "Overdue" && typeof r[1] === "number");
  expect(summaryFormats[overdue].slice(1, 6)).toEqual(Array(5).fill("#,##0"));

  // The Action list's Days left: a count of days, grouped as the digest words it ("3,650 days left").
  const list = env.spreadsheet.getSheetByName(ACTION_LIST_SHEET)!;
  const listRange = list.getDataRange();
  const head = listRange.getValues()[0];
  const listFormats = listRange.getNumberFormats();
  expect(listFormats.length).toBeGreaterThan(25);
  const days = head.indexOf("Days left");
  const rowCol = head.indexOf("Row");
  expect(days).toBeGreaterThanOrEqual(0);
  expect(new Set(listFormats.slice(1).map((r) => r[days]))).toEqual(new Set(["#,##0"]));
  // Row stays a row number as the sheet numbers its rows ("1201").
  expect(new Set(listFormats.slice(1).map((r) => r[rowCol]))).toEqual(new Set(["0"]));
}, 300_000);
