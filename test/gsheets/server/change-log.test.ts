/**
 * The Change log and the Run log in Google Sheets, on the BUILT Code.js:
 * check, move the sandbox's clock 60 days (POST /__sandbox/clock), check again. The Change log lists exactly the
 * fields that changed (worked out from the sandbox's answers on the two days); the Run log has two rows.
 */
import { CHANGE_LOG_HEADERS, RUN_LOG_HEADERS } from "../../../core";
import { buildDatasetFor, datasetOnDay } from "../../../sandbox/dataset";
import { expectedChanges, loggedKey, recheckUprns } from "../../helpers/changes";
import { vmAtNoon } from "../../helpers/clock";
import { createGasEnvironment } from "../harness/gas";
import { sandboxForFile } from "../harness/sandbox";
import { configure, pollToEnd } from "../harness/table";

const DAY1 = "2027-01-31";
const sandbox = sandboxForFile({ msPerProperty: 0, today: DAY1 });

test("run, move the clock 60 days, run again: exactly the changed fields are logged, and two runs", async () => {
  const ds1 = buildDatasetFor(new Date(`${DAY1}T12:00:00Z`));
  const uprns = recheckUprns(ds1, 120);

  // The spreadsheet's clock from noon of DAY1 in its zone: both runs are on DAY1, the Change log's day.
  const env = vmAtNoon(createGasEnvironment(), DAY1);
  configure(env, sandbox);
  env.sheet.seed(1, 1, [["UPRN"], ...uprns.map((u) => [u])]);
  const run = async () => {
    env.sheet.select(`A1:A${uprns.length + 1}`);
    const start = env.run("startBulkCheck", {});
    if (!start.ok) throw new Error(start.message);
    return (await pollToEnd(env)).pop();
  };
  const first = await run();
  expect(first.phase).toBe("done");
  expect(first.details.join(" ")).toMatch(/no changes/);
  expect(env.spreadsheet.getSheetByName("Change log")).toBeNull();

  const moved = await (
    await fetch(`${sandbox.url}/__sandbox/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advance_days: 60 }),
    })
  ).json();
  expect(moved).toEqual({ today: "2027-04-01", anchor: DAY1 });
  const second = await run();
  expect(second.phase).toBe("done");

  const expected = expectedChanges(ds1, datasetOnDay(ds1, "2027-04-01"), uprns, DAY1);
  expect(expected.size).toBeGreaterThan(20);
  const log = env.spreadsheet.getSheetByName("Change log")!;
  const values = log.peek(1, 1, log.getLastRow(), CHANGE_LOG_HEADERS.length);
  expect(values[0]).toEqual([...CHANGE_LOG_HEADERS]);
  const rows = values.slice(1);
  expect(new Set(rows.map(loggedKey))).toEqual(expected);
  expect(rows.length).toBe(expected.size);
  for (const r of rows) if (r[4] === "Status" && r[5] === "warning" && r[6] === "fail") expect(r[7]).toBe("worse");

  const runs = env.spreadsheet.getSheetByName("Run log")!;
  const rl = runs.peek(1, 1, runs.getLastRow(), RUN_LOG_HEADERS.length);
  expect(rl[0]).toEqual([...RUN_LOG_HEADERS]);
  expect(rl.length).toBe(3);
  expect(rl[2][6]).toBe(expected.size);
  expect(second.details.join(" ")).toMatch(new RegExp(`${expected.size.toLocaleString("en-GB")} changes`));
});
