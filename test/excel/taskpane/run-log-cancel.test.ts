/**
 * After Cancel, the rows left without a result are "not checked", never "with errors": in the Run log's row, in the
 * last-run line the pane and the sidebar show (core's runLogLine, read back from that row), and in the pane's status;
 * and every count is written one way, en-GB grouped ("1,200"). The pane's own code on the Excel stand-in, real HTTP to
 * a sandbox whose jobs are slow enough to cancel.
 */
import { RUN_LOG_HEADERS, RUN_LOG_SHEET, formatCount, runLogEntryOfRow, runLogLine } from "../../../core";
import { memoryStore } from "../../../excel/settings";
import { runCheck } from "../../../excel/taskpane/check-run";
import { summaryText } from "../../../excel/taskpane/run-summary";
import { knownUprns, sandbox } from "../../helpers/sandbox";
import { prepared, proClient, workbook } from "../../helpers/excel-workbook";

const ROWS = 1_200;

test("Cancel: the Run log counts the rows left as not checked, with grouped numbers, in the row and its line", async () => {
  const slow = await sandbox(10);
  try {
    const { s, excelRun } = workbook();
    s.api.seed("Sheet1", "A1", [["UPRN"], ...knownUprns(slow, ROWS).map((u) => [u])]);
    s.api.select("Sheet1", "A1");
    const abort = new AbortController();
    // The job needs about 12 s; the user cancels while it runs.
    setTimeout(() => abort.abort(), 400);
    const summary = await runCheck(await prepared(excelRun), {
      excelRun,
      client: proClient(slow),
      plan: "professional",
      store: memoryStore(),
      signal: abort.signal,
    });
    expect(summary.cancelled).toBe(true);
    const left = summary.cancelledRows;
    expect(left).toBeGreaterThan(999);

    const row = s.api.read(RUN_LOG_SHEET, "A2:L2").values[0] as unknown[];
    const at = (h: (typeof RUN_LOG_HEADERS)[number]) => row[RUN_LOG_HEADERS.indexOf(h)];
    expect({ rows: at("Rows"), checked: at("Checked"), errors: at("Errors") }).toEqual({
      rows: ROWS,
      checked: ROWS - left,
      errors: 0,
    });
    const line = runLogLine(runLogEntryOfRow(row)!);
    expect(line).toContain(
      `: ${formatCount(ROWS - left)} of 1,200 rows checked, no changes, ${formatCount(left)} not checked`,
    );
    expect(line).not.toMatch(/with errors/);
    expect(summary.runLog).toBe(line);
    // The pane's status says the same numbers the same way: never "1200" beside "1,200".
    const status = summaryText(summary);
    expect(status).toContain("of 1,200 rows checked");
    const counts = `${status}\n${line}`.replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/g, "");
    expect(counts).not.toMatch(/\b\d{4,}\b/);
  } finally {
    await slow.close();
  }
});
