/**
 * The sidebar's bulk check under everyday actions, over the built Code.js and the real sandbox: a sort, a column
 * inserted or deleted, rows inserted or deleted, a cell edited or a result cell typed into mid-run, writes refused,
 * failures after the service made the job, a daily quota, a filter. Each ends with every row holding its own property's result or its own reason, and no job sent twice.
 */
import { OUTPUT_COLUMNS } from "../../../core";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import { passTime, sandboxForFile, type SandboxProperty, startSandboxProcess } from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, seedTable, runWords } from "../harness/table";
import { blockColumn, configuredEnv, resultAt } from "../../helpers/gsheets-results";

// Jobs of at most 5, and a day quota a test can reach: the plan the add-on is set to (Professional, 1,000) is
// larger, so the first submit's 413 teaches it the real cap, as with a real server.
const sandbox = sandboxForFile(
  { msPerProperty: 20, limits: { professional: { batchCap: 5, perDay: 10_000 } } },
  { resetEach: true },
);
let props: SandboxProperty[];
const W = OUTPUT_COLUMNS.length;
const MATCHED = OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn");
const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");

beforeAll(async () => {
  props = await sandbox.properties(80);
});

function table(n: number, opts: { header?: boolean } = {}) {
  const env = configuredEnv(sandbox);
  const rows = props.slice(0, n).map((p) => [p.uprn, `note ${p.uprn}`]);
  if (opts.header === false) {
    env.sheet.seed(1, 1, rows);
    env.sheet.select(`A1:B${n}`);
    return { env, firstRow: 1, lastRow: n };
  }
  const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN", "My notes"], rows);
  env.sheet.select(`A${firstRow}:B${lastRow}`);
  return { env, firstRow, lastRow };
}

/** Each data row: [its UPRN now, the Matched UPRN and Message of its results block at blockCol]. */
function rowsOf(env: GasEnvironment, firstRow: number, lastRow: number, blockCol: number) {
  const input = env.sheet.peek(firstRow, 1, lastRow - firstRow + 1, 1).map((r) => String(r[0]));
  const block = env.sheet.peek(firstRow, blockCol, lastRow - firstRow + 1, W);
  return input.map((uprn, i) => ({
    uprn,
    matched: String(block[i][MATCHED] ?? ""),
    message: String(block[i][MESSAGE] ?? ""),
  }));
}

/** Sorts rows [first, last] by `order` (a permutation of offsets), moving whole rows as Sheets' sort does. */
function sortRows(env: GasEnvironment, first: number, last: number, order: number[], cols: number) {
  const rows = env.sheet.peek(first, 1, last - first + 1, cols);
  env.sheet.seed(
    first,
    1,
    order.map((i) => rows[i]),
  );
}

const bulkSubmits = async () => (await sandbox.stats()).bulk_submit;

test("sort during a run: 20 of 20 rows end with their own property's results", async () => {
  const { env, firstRow, lastRow } = table(20);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  const blockCol = outputCol(env.sheet, "compliance_score");
  // The user sorts the table (results columns included) descending by UPRN while the jobs run.
  const order = Array.from({ length: 20 }, (_v, i) => 19 - i);
  sortRows(env, firstRow, lastRow, order, blockCol + W - 1);
  const last = (await pollToEnd(env)).pop();
  expect(runWords(last)).toMatch(/^Done\. 20 rows checked\./);
  const rows = rowsOf(env, firstRow, lastRow, blockCol);
  expect(rows.filter((r) => r.matched === r.uprn)).toHaveLength(20);
});

test("only the input column sorted during a run: results still follow their property", async () => {
  const { env, firstRow, lastRow } = table(12);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  sortRows(env, firstRow, lastRow, [3, 1, 11, 0, 5, 4, 10, 2, 9, 8, 7, 6], 2);
  await pollToEnd(env);
  const rows = rowsOf(env, firstRow, lastRow, outputCol(env.sheet, "compliance_score"));
  expect(rows.filter((r) => r.matched === r.uprn)).toHaveLength(12);
});

test("only the input columns sorted after some results were written: each row then shows its own property's result or waits for it", async () => {
  // One job of five never ends, so the first results arrive while the rest are still to come.
  await sandbox.setFaults([{ kind: "job_stall", count: 1 }]);
  const { env, firstRow, lastRow } = table(20);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  const blockCol = outputCol(env.sheet, "compliance_score");
  // Jobs end at their own times: poll until every result the service will give has been written. The stalled job
  // stops after half its properties, so the rest of it, three rows, is still to come.
  let written = 0;
  for (let i = 0; i < 200 && written < 17; i++) {
    const p = env.run("pollBulkCheck");
    expect(p.phase).toBe("running");
    written = rowsOf(env, firstRow, lastRow, blockCol).filter((r) => r.matched !== "").length;
    if (written < 17) await passTime(env, Math.min(p.waitMs, 200));
  }
  expect(written).toBe(17);
  const order = Array.from({ length: 20 }, (_v, i) => 19 - i);
  sortRows(env, firstRow, lastRow, order, 2);
  expect(rowsOf(env, firstRow, lastRow, blockCol).filter((r) => r.matched === r.uprn).length).toBeLessThan(17);
  expect(env.run("pollBulkCheck").phase).toBe("running");
  const rows = rowsOf(env, firstRow, lastRow, blockCol);
  // The seventeen results follow their properties; the three still to come are marked so on their new rows.
  expect(rows.filter((r) => r.matched === r.uprn)).toHaveLength(17);
  const waiting = rows.filter((r) => r.matched !== r.uprn);
  expect(waiting).toHaveLength(3);
  for (const r of waiting) {
    expect(r.matched).toBe("");
    expect(r.message).toMatch(/^Checking…/);
  }
});

test("only the input columns sorted, one cleared: a row that then shows another row's error takes its own property's result, an unreadable input says why at its new row", async () => {
  // Properties take 20 s each on the sandbox's clock, which moves only as the test lets time pass: after 50 s the
  // job's first two results are in and three are still to come, whatever the machine's speed.
  const slow = await startSandboxProcess({
    msPerProperty: 20_000,
    limits: { professional: { batchCap: 5, perDay: 10_000 } },
  });
  try {
    const env = configuredEnv(slow);
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN", "My notes"],
      [["12AB34", "mine 0"], ...props.slice(0, 5).map((p, i) => [p.uprn, `mine ${i + 1}`])],
    );
    env.sheet.select(`A${firstRow}:B${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    const blockCol = outputCol(env.sheet, "compliance_score");
    await passTime(env, 50_000);
    expect(env.run("pollBulkCheck").phase).toBe("running");
    const before = rowsOf(env, firstRow, lastRow, blockCol);
    expect(before.slice(1, 3).every((r) => r.matched === r.uprn)).toBe(true);
    expect(before[0].message).not.toMatch(/^Checking…/);
    // Only the two inputs are swapped: the unreadable input's error now stands beside the fourth property, whose
    // result is still to come, and that property's "Checking…" mark beside the unreadable input. The next poll marks
    // the one, and gives the other its own error again.
    sortRows(env, firstRow, lastRow, [4, 1, 2, 3, 0, 5], 2);
    // And the last property's UPRN is cleared (its note stays): that row now says it has none, as in Excel.
    env.sheet.seed(lastRow, 1, [[""]]);
    expect(env.run("pollBulkCheck").phase).toBe("running");
    const marked = rowsOf(env, firstRow, lastRow, blockCol);
    expect(marked[0]).toMatchObject({ uprn: props[3].uprn, matched: "" });
    expect(marked[0].message).toMatch(/^Checking…/);
    expect(marked[4].uprn).toBe("12AB34");
    expect(marked[4].message).toMatch(/^UPRN "12AB34" is not valid/);
    expect(marked[5].message).toMatch(/^No UPRN or postcode in this row/);
    const last = (await pollToEnd(env)).pop();
    // The cleared row's property found no row to go to: said, not Done.
    expect(runWords(last)).toMatch(/^Finished with problems\. .*1 row changed or deleted while the check ran/);
    const rows = rowsOf(env, firstRow, lastRow, blockCol);
    expect(rows.filter((r) => r.uprn && r.matched === r.uprn).map((r) => r.uprn)).toEqual(
      [3, 0, 1, 2].map((i) => String(props[i].uprn)),
    );
    expect(rows[5]).toMatchObject({ uprn: "", matched: "" });
    expect(rows[5].message).toMatch(/^No UPRN or postcode in this row/);
  } finally {
    await slow.close();
  }
});

test.each([true, false])(
  "a column inserted left of the block during a run (header row: %s): the block moves, no user cell is written over",
  async (header) => {
    const { env, firstRow, lastRow } = table(10, { header });
    const mapping = header ? {} : { mapping: { uprn: "A" } };
    const start = env.run("startBulkCheck", mapping);
    expect(start.ok).toBe(true);
    const blockCol = header ? outputCol(env.sheet, "compliance_score") : 3;
    env.sheet.insertColumnBefore(blockCol);
    // The user types in the new column at once.
    for (let r = firstRow; r <= lastRow; r++) env.sheet.seed(r, blockCol, [[`mine ${r}`]]);
    const last = (await pollToEnd(env)).pop();
    expect(last.phase).toBe("done");
    for (let r = firstRow; r <= lastRow; r++) expect(cellValue(env.sheet, r, blockCol)).toBe(`mine ${r}`);
    const rows = rowsOf(env, firstRow, lastRow, blockCol + 1);
    expect(rows.filter((r) => r.matched === r.uprn)).toHaveLength(10);
  },
);

test.each([true, false])(
  "a column inserted before Resume (header row: %s): Resume writes into the moved block, with no new job",
  async (header) => {
    const { env, firstRow, lastRow } = table(10, { header });
    expect(env.run("startBulkCheck", header ? {} : { mapping: { uprn: "A" } }).ok).toBe(true);
    const stopped = env.run("cancelBulkCheck");
    expect(stopped.phase).toBe("stopped");
    expect(stopped.resumable).toBe(true);
    const posts = await bulkSubmits();
    const blockCol = header ? outputCol(env.sheet, "compliance_score") : 3;
    env.sheet.insertColumnBefore(blockCol);
    for (let r = firstRow; r <= lastRow; r++) env.sheet.seed(r, blockCol, [[`mine ${r}`]]);
    const resumed = env.run("resumeBulkCheck");
    expect(resumed.phase).toBe("running");
    const last = (await pollToEnd(env)).pop();
    expect(runWords(last)).toMatch(/^Done\. 10 rows checked\./);
    expect(await bulkSubmits()).toBe(posts);
    for (let r = firstRow; r <= lastRow; r++) expect(cellValue(env.sheet, r, blockCol)).toBe(`mine ${r}`);
    expect(rowsOf(env, firstRow, lastRow, blockCol + 1).filter((r) => r.matched === r.uprn)).toHaveLength(10);
  },
);

test("one cell edited mid-run on a 12-job run: the jobs not yet sent still go, without that row; the run does not say Done", async () => {
  const { env, firstRow, lastRow } = table(60);
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  // The last rows' job is not sent yet (one submit at a time until one is accepted, then ten a step).
  const edited = lastRow - 1;
  env.sheet.seed(edited, 1, [["100000000000"]]);
  const last = (await pollToEnd(env)).pop();
  expect(last.jobs).toHaveLength(12);
  expect(last.jobs.every((j: { jobId: string | null }) => !!j.jobId)).toBe(true);
  expect(last.jobs[11].total).toBe(4); // sent without the edited row
  expect(await bulkSubmits()).toBe(13); // 12 jobs, plus the first submit the 413 refused
  expect(runWords(last)).not.toMatch(/^Done/);
  expect(runWords(last)).toMatch(/59 of 60 rows checked/);
  expect(runWords(last)).toMatch(/1 row changed or deleted while the check ran/);
  const rows = rowsOf(env, firstRow, lastRow, outputCol(env.sheet, "compliance_score"));
  expect(rows[edited - firstRow].message).toMatch(/changed while the check ran/);
  expect(rows.filter((r, i) => i !== edited - firstRow && r.matched === r.uprn)).toHaveLength(59);
});

test("writes refused, then Resume: every row is written from the jobs already sent, no new POST", async () => {
  const { env, firstRow, lastRow } = table(15);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  env.sheet.writeError = "Exception: You are trying to edit a protected cell or object.";
  const stopped = (await pollToEnd(env)).pop();
  expect(stopped.phase).toBe("stopped");
  expect(runWords(stopped)).toMatch(/could not be written to the sheet/);
  expect(runWords(stopped)).not.toMatch(/^Done/);
  expect(stopped.resumable).toBe(true);
  const posts = await bulkSubmits();
  env.sheet.writeError = null;
  expect(env.run("resumeBulkCheck").phase).toBe("running");
  const last = (await pollToEnd(env)).pop();
  expect(runWords(last)).toMatch(/^Done\. 15 rows checked\./);
  expect(await bulkSubmits()).toBe(posts);
  expect(
    rowsOf(env, firstRow, lastRow, outputCol(env.sheet, "compliance_score")).filter((r) => r.matched === r.uprn),
  ).toHaveLength(15);
});

describe("a submit that failed after the service made the job is never sent again", () => {
  test.each(["created_504", "created_garbled", "created_drop"])(
    "%s: one job for one batch, its rows say the job may exist",
    async (kind) => {
      const { env, firstRow, lastRow } = table(5);
      await sandbox.setFaults([{ kind, route: "bulk_submit", count: 1 }]);
      expect(env.run("startBulkCheck", {}).ok).toBe(true);
      const last = (await pollToEnd(env)).pop();
      // Counted at the client: the sandbox does not count a request whose connection it dropped.
      expect(env.fetches.filter((f) => f.method === "POST")).toHaveLength(1);
      expect(runWords(last)).toMatch(
        /5 rows not checked: sending their job failed and the service may have created it; run the check again for them\./,
      );
      for (const r of rowsOf(env, firstRow, lastRow, outputCol(env.sheet, "compliance_score")))
        expect(r.message).toMatch(/the service may have created the job anyway\. Run the check again/);
    },
  );

  test("504s after the jobs were made, three batches: three POSTs, three jobs", async () => {
    const { env } = table(15);
    await sandbox.setFaults([{ kind: "created_504", route: "bulk_submit", count: 3 }]);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    expect(await bulkSubmits()).toBe(4); // 3 jobs made, plus the first submit the 413 refused
  });

  test("fetchAll throws after sending: the POSTs it carried are not sent again", async () => {
    const { env } = table(15);
    // Start sends one submit at a time until one is accepted (a 413 first, here), then the rest in one fetchAll,
    // which throws after sending them.
    env.network.fetchAllThrowsAfterSending = "Exception: Address unavailable: http://127.0.0.1/v1/api/check/bulk";
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.network.fetchAllThrowsAfterSending = undefined;
    const posts = 2; // the 413, then the first job of 5
    const last = (await pollToEnd(env)).pop();
    expect(await bulkSubmits()).toBe(posts + 2);
    expect(runWords(last)).toMatch(/10 rows not checked: sending their job failed and the service may have created it/);
  });
});

test("the daily quota runs out mid-run: paused with the time to resume; after the reset Resume collects every row with no new POST", async () => {
  const small = await startSandboxProcess({ msPerProperty: 20, limits: { professional: { batchCap: 5, perDay: 6 } } });
  try {
    const env = createGasEnvironment();
    configure(env, small); // 1 request: the key is tried
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(0, 15).map((p) => [p.uprn]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true); // 413, then 3 jobs: 5 requests
    const paused = (await pollToEnd(env)).pop();
    expect(paused.phase).toBe("paused");
    expect(runWords(paused)).toMatch(
      /^Paused\. .*used up until .* UTC\. \d+ of 15 rows checked; choose Resume after .* UTC to collect the other \d+ rows \(jobs already sent are not sent again\)\./,
    );
    expect(paused.resumable).toBe(true);
    const posts = (await small.stats()).bulk_submit;
    expect(posts).toBe(4);
    // Rows waiting say so, and keep their "Checking…" mark for the Resume.
    const blockCol = outputCol(env.sheet, "compliance_score");
    expect(
      rowsOf(env, firstRow, lastRow, blockCol).some((r) => /^Checking… (\(run \w+\) )?Waiting/.test(r.message)),
    ).toBe(true);

    await small.advanceClock(24 * 3600 * 1000);
    env.clock.offsetMs += 24 * 3600 * 1000;
    expect(env.run("resumeBulkCheck").phase).toBe("running");
    const last = (await pollToEnd(env)).pop();
    expect(runWords(last)).toMatch(/^Done\. 15 rows checked\./);
    expect((await small.stats()).bulk_submit).toBe(posts);
    expect(rowsOf(env, firstRow, lastRow, blockCol).filter((r) => r.matched === r.uprn)).toHaveLength(15);
  } finally {
    await small.close();
  }
});

test("a filtered selection: rows hidden by the filter are not sent and not written; the summary says how many", async () => {
  const { env, firstRow, lastRow } = table(10);
  env.sheet.filteredOut = new Set([firstRow + 2, firstRow + 5]);
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.progress.properties).toBe(8);
  const last = (await pollToEnd(env)).pop();
  expect(runWords(last)).toMatch(
    /^Done\. 8 rows checked\. 2 rows hidden by a filter were skipped: not sent and not written\./,
  );
  const rows = rowsOf(env, firstRow, lastRow, outputCol(env.sheet, "compliance_score"));
  rows.forEach((r, i) => {
    if (i === 2 || i === 5) expect([r.matched, r.message]).toEqual(["", ""]);
    else expect(r.matched).toBe(r.uprn);
  });
});

test("GETs of one job are at least a second apart", async () => {
  const { env } = table(5);
  await sandbox.setFaults([{ kind: "job_stall", count: 1 }]);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  const vmNow = () => Date.now() + env.clock.offsetMs;
  const started = vmNow();
  for (let i = 0; i < 6; i++) {
    const p = env.run("pollBulkCheck");
    await passTime(env, Math.min(p.waitMs, 200)); // a sidebar that polls too often
  }
  const gets = env.fetches.filter((f) => f.method === "GET" && /results/.test(f.url)).length;
  expect(gets).toBeLessThanOrEqual(Math.ceil((vmNow() - started) / 1000) + 1);
  env.run("cancelBulkCheck");
});

describe("the sheet changing during a run", () => {
  // The input columns are found again at every poll: a column inserted or deleted left of them moves the mapping
  // with them, so no row reads its neighbour's column.
  test.each([
    ["inserted at A", false],
    ["deleted at A", true],
  ])("a column %s (left of the data) mid-run: every row still gets its own result", async (_what, del) => {
    const env = configuredEnv(sandbox);
    const ps = props.slice(0, 12);
    env.sheet.seed(1, 1, [["Ref", "UPRN"], ...ps.map((p, i) => [`r${i}`, p.uprn])]);
    env.sheet.select("A2:B13");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    if (del) env.sheet.deleteColumns(1, 1);
    else env.sheet.insertColumnBefore(1);
    const uprnCol = del ? 1 : 3;
    const last = (await pollToEnd(env)).pop();
    const col = blockColumn(env, 1);
    const rows = ps.map((_p, i) => ({
      uprn: String(cellValue(env.sheet, 2 + i, uprnCol)),
      ...resultAt(env, 2 + i, col),
    }));
    expect(rows.filter((r) => r.matched === r.uprn)).toHaveLength(12);
    expect(runWords(last)).toMatch(/^Done\. 12 rows checked/);
  });

  test("rows inserted above the header mid-run: results go to the moved rows, the title row is untouched", async () => {
    const env = configuredEnv(sandbox);
    const ps = props.slice(0, 10);
    env.sheet.seed(1, 1, [["UPRN"], ...ps.map((p) => [p.uprn])]);
    env.sheet.select("A2:A11");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.sheet.insertRowsAfter(0, 2);
    env.sheet.seed(1, 1, [["My portfolio"]]);
    const last = (await pollToEnd(env)).pop();
    expect(last.phase).toBe("done");
    const col = blockColumn(env, 3);
    ps.forEach((p, i) => expect(resultAt(env, 4 + i, col).matched).toBe(p.uprn));
    expect(cellValue(env.sheet, 1, 1)).toBe("My portfolio");
  });

  test("three rows deleted mid-run: the others get their results, the summary counts the three", async () => {
    const env = configuredEnv(sandbox);
    const ps = props.slice(0, 12);
    env.sheet.seed(1, 1, [["UPRN"], ...ps.map((p) => [p.uprn])]);
    env.sheet.select("A2:A13");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.sheet.deleteRows(6, 3);
    const last = (await pollToEnd(env)).pop();
    expect(runWords(last)).toMatch(/9 of 12 rows checked\. 3 rows changed or deleted while the check ran/);
    const col = blockColumn(env, 1);
    for (let r = 2; r <= 10; r++) expect(resultAt(env, r, col).matched).toBe(String(cellValue(env.sheet, r, 1)));
    expect(resultAt(env, 11, col).all.every((v) => v === "")).toBe(true);
  });

  test("the user types into a row's Message cell while it is still checking: their text is kept, the run does not say all rows were checked", async () => {
    const env = configuredEnv(sandbox);
    const ps = props.slice(0, 12);
    env.sheet.seed(1, 1, [["UPRN"], ...ps.map((p) => [p.uprn])]);
    env.sheet.select("A2:A13");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    const col = blockColumn(env, 1);
    expect(resultAt(env, 13, col).message).toMatch(/^Checking/);
    env.sheet.seed(13, col + MESSAGE, [["call the agent first"]]);
    const last = (await pollToEnd(env)).pop();
    expect(cellValue(env.sheet, 13, col + MESSAGE)).toBe("call the agent first");
    expect(runWords(last)).toMatch(/11 of 12 rows checked\. 1 row changed or deleted/);
  });
});
