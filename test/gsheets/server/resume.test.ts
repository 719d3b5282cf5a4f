/**
 * Closing the sidebar stops its polling loop: a new execution (fresh vm, same Google stores) must resume
 * the run from user properties alone; rows edited mid-run get only their own property's result.
 */
import { createGasEnvironment } from "../harness/gas";
import { passTime, sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, seedTable } from "../harness/table";

// Slow enough that the run is still going when the "sidebar" closes.
const sandbox = sandboxForFile({ msPerProperty: 3 }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(1500);
});

test("resume after the sidebar closes: a fresh execution finds the run in user properties and finishes it", async () => {
  const first = createGasEnvironment();
  configure(first, sandbox);
  const { firstRow, lastRow } = seedTable(
    first.sheet,
    ["UPRN", "Postcode"],
    props.slice(0, 1200).map((p) => [p.uprn, p.postcode]),
  );
  first.sheet.select(`A${firstRow}:B${lastRow}`);
  const start = first.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.jobIds).toHaveLength(2);
  const p1 = first.run("pollBulkCheck");
  expect(p1.phase).toBe("running");

  // The sidebar closes; later the user reopens it: a new execution with nothing in memory.
  await passTime(first, 1500);
  const second = createGasEnvironment({ from: first });
  expect(second.context).not.toBe(first.context);
  const state = second.run("getSidebarState");
  expect(state.run.phase).toBe("running");
  expect(state.run.runId).toBe(start.progress.runId);
  const polls = await pollToEnd(second);
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("done");
  expect(last.propertiesDone).toBe(1200);
  expect((await sandbox.stats()).bulk_submit).toBe(2);
  const uprn = outputCol(second.sheet, "matched_uprn");
  for (const i of [0, 599, 1000, 1199]) expect(String(cellValue(second.sheet, firstRow + i, uprn))).toBe(props[i].uprn);
  // The run's state stays far under the 9 KB a user property holds.
  for (const [k, v] of second.userProperties.data) expect(k.length + v.length).toBeLessThan(9000);
});

test("rows sorted and edited mid-run: results follow their property, an edited row is asked to re-run", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const { firstRow, lastRow } = seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 8).map((p) => [p.uprn]),
  );
  env.sheet.select(`A${firstRow}:A${lastRow}`);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  // The user swaps rows 2 and 3 and types another property into row 4 before results arrive.
  env.sheet.seed(firstRow, 1, [[props[1].uprn], [props[0].uprn], [props[100].uprn]]);
  const polls = await pollToEnd(env);
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("done");
  expect(last.notes.join(" ")).toMatch(/changed during the check/);
  const uprn = outputCol(env.sheet, "matched_uprn");
  const msg = outputCol(env.sheet, "message");
  expect(String(cellValue(env.sheet, firstRow, uprn))).toBe(props[1].uprn);
  expect(String(cellValue(env.sheet, firstRow + 1, uprn))).toBe(props[0].uprn);
  expect(String(cellValue(env.sheet, firstRow + 2, uprn))).not.toBe(props[2].uprn);
  expect(String(cellValue(env.sheet, firstRow + 2, msg))).toMatch(/changed while the check ran/);
  expect(String(cellValue(env.sheet, firstRow + 3, uprn))).toBe(props[3].uprn);
});

test("the cache emptied mid-run changes nothing: the run's state lives in user properties, rows edited meanwhile still get their own results", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const { firstRow, lastRow } = seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 8).map((p) => [p.uprn]),
  );
  env.sheet.select(`A${firstRow}:A${lastRow}`);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  env.userCache.data.clear();
  env.sheet.seed(firstRow, 1, [[props[1].uprn], [props[0].uprn]]);
  const polls = await pollToEnd(env);
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("done");
  const uprn = outputCol(env.sheet, "matched_uprn");
  expect(String(cellValue(env.sheet, firstRow, uprn))).toBe(props[1].uprn);
  expect(String(cellValue(env.sheet, firstRow + 1, uprn))).toBe(props[0].uprn);
  expect(String(cellValue(env.sheet, firstRow + 7, uprn))).toBe(props[7].uprn);
});
