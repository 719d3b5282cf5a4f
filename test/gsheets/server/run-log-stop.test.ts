/**
 * After Stop in the sidebar, the rows left without a result are "not checked", never "with errors": in the Run log's
 * row, in the last-run line the sidebar shows (core's runLogLine, read back from that row), and every count en-GB
 * grouped ("1,200"). The Sheets side of test/excel/taskpane/run-log-cancel.test.ts: the BUILT Code.js against the
 * sandbox in a child process, its jobs slow enough to stop.
 */
import { RUN_LOG_HEADERS, RUN_LOG_SHEET, formatCount } from "../../../core";
import { createGasEnvironment } from "../harness/gas";
import { sandboxForFile } from "../harness/sandbox";
import { pollToEnd, startOnUprns } from "../harness/table";

const ROWS = 1_200;
// 20 ms a property: the first job of 1,000 needs 20 s, so it is still running when Stop is pressed.
const sandbox = sandboxForFile({ msPerProperty: 20 });

test("Stop: the Run log counts the rows left as not checked, with grouped numbers, in the row and the sidebar's line", async () => {
  const props = await sandbox.properties(ROWS);
  const env = createGasEnvironment();
  startOnUprns(
    env,
    sandbox,
    props.map((p) => p.uprn),
  );
  expect(env.run("pollBulkCheck").phase).toBe("running");
  expect(env.run("cancelBulkCheck").phase).toBe("stopped");
  await pollToEnd(env);

  const log = env.spreadsheet.getSheetByName(RUN_LOG_SHEET)!;
  const row = log.getRange(log.getLastRow(), 1, 1, RUN_LOG_HEADERS.length).getValues()[0];
  const at = (h: (typeof RUN_LOG_HEADERS)[number]) => row[RUN_LOG_HEADERS.indexOf(h)];
  const checked = Number(at("Checked"));
  expect({ rows: at("Rows"), errors: at("Errors") }).toEqual({ rows: ROWS, errors: 0 });
  expect(checked).toBeLessThan(ROWS);
  const line: string = env.run("getSidebarState").lastRun;
  expect(line).toContain(
    `: ${formatCount(checked)} of 1,200 rows checked, no changes, ${formatCount(ROWS - checked)} not checked`,
  );
  expect(line).not.toMatch(/with errors/);
  expect(line.replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/g, "")).not.toMatch(/\b\d{4,}\b/);
});
