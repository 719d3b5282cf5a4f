/**
 * A run's life cycle in the sidebar (core/run/session.ts through gsheets/server/bulk.ts and sheetrun.ts), on the
 * BUILT Code.js against the sandbox in a child process: a check begun while another run is unfinished leaves that
 * run's rows and Resume alone; a key revoked after it was saved writes its reason on every row and a Run log row; a
 * run paused on the day's quota is offered for Resume when the sidebar is opened the next day, and Resume collects
 * its jobs with GETs only; a run's marks reach the sheet before its first submit leaves. Days pass on the injected clocks (the harness's and the sandbox's), never the wall's.
 */
import { OUTPUT_COLUMNS, RUN_LOG_HEADERS, markTag } from "../../../core";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import { sandboxForFile, type SandboxProperty, startSandboxProcess } from "../harness/sandbox";
import { configure, outputCol, pollToEnd, seedTable } from "../harness/table";

const W = OUTPUT_COLUMNS.length;
const MATCHED = OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn");
const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");
const DAY_MS = 24 * 3600 * 1000;

// Slow jobs (20 ms a property), so a run is still collecting when it is stopped.
const sandbox = sandboxForFile({ msPerProperty: 20 }, { resetEach: true });
let props: SandboxProperty[];
beforeAll(async () => {
  props = await sandbox.properties(120);
});

function rowsOf(env: GasEnvironment, firstRow: number, lastRow: number) {
  const blockCol = outputCol(env.sheet, "compliance_score");
  const input = env.sheet.peek(firstRow, 1, lastRow - firstRow + 1, 1).map((r) => String(r[0]));
  const block = env.sheet.peek(firstRow, blockCol, lastRow - firstRow + 1, W);
  return input.map((uprn, i) => ({
    uprn,
    matched: String(block[i][MATCHED] ?? ""),
    message: String(block[i][MESSAGE] ?? ""),
  }));
}

test("a stopped run, then a check of other rows, then Resume: no row is called changed, each paid job is POSTed once and collected", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 120).map((p) => [p.uprn]),
  );

  // Run 1 (rows 2-101): one job, sent, polled once, then stopped while the service still works on it.
  env.sheet.select("A2:A101");
  const first = env.run("startBulkCheck", {});
  expect(first.ok).toBe(true);
  expect(env.run("pollBulkCheck").phase).toBe("running");
  const stopped = env.run("cancelBulkCheck");
  expect(stopped.phase).toBe("stopped");
  expect(stopped.resumable).toBe(true);
  const waiting = rowsOf(env, 2, 101)
    .map((r, i) => ({ i, m: r.message }))
    .filter((r) => /^Checking…/.test(r.m));
  expect(waiting.length).toBeGreaterThan(10);
  expect(new Set(waiting.map((w) => markTag(w.m))).size).toBe(1);
  const afterStop = await sandbox.stats();
  expect(afterStop.bulk_submit).toBe(1);

  // Run 2 (rows 110-111): the sidebar first asks to resume the unfinished run; nothing is sent for that question.
  env.sheet.select("A110:A111");
  const asked = env.run("startBulkCheck", {});
  expect(asked.ok).toBe(false);
  expect(asked.askResume).toBe(true);
  expect(asked.message).toMatch(/is unfinished: \d+ rows wait for results already paid for\. Resume it first\?/);
  expect((await sandbox.stats()).bulk_submit).toBe(1);
  // Checked anyway: the stopped run is set aside, its rows are left as they are.
  const second = env.run("startBulkCheck", { anyway: true });
  expect(second.ok).toBe(true);
  const done2 = (await pollToEnd(env)).pop();
  expect(done2.phase).toBe("done");
  expect(done2.resumable).toBe(true);
  expect(rowsOf(env, 110, 111).map((r) => r.matched)).toEqual([props[108].uprn, props[109].uprn]);
  const rows1 = rowsOf(env, 2, 101);
  for (const w of waiting) expect(rows1[w.i].message).toBe(w.m);
  expect(rows1.filter((r) => /changed while the check ran/.test(r.message))).toEqual([]);
  const beforeResume = await sandbox.stats();
  expect(beforeResume.bulk_submit).toBe(2);

  // Resume (from a sidebar opened again): the run set aside is collected with GETs only, every row filled once.
  const reopened = createGasEnvironment({ from: env });
  expect(reopened.run("getSidebarState").run.resumable).toBe(true);
  expect(reopened.run("resumeBulkCheck").phase).toBe("running");
  const done1 = (await pollToEnd(reopened)).pop();
  expect(done1.phase).toBe("done");
  expect(done1.resumable).toBe(false);
  const used = await sandbox.stats();
  expect(used.bulk_submit).toBe(2);
  expect(used.bulk_results).toBeGreaterThan(beforeResume.bulk_results);
  const filled = rowsOf(reopened, 2, 101);
  expect(filled.map((r) => r.matched)).toEqual(props.slice(0, 100).map((p) => p.uprn));
  expect(filled.filter((r) => /^Checking…|changed/.test(r.message))).toEqual([]);
  // Nothing is left to resume, and a new check starts without asking.
  expect(reopened.run("getSidebarState").run.resumable).toBe(false);
}, 120_000);

test("a run stored by an earlier version, with a phase of its own beside the engine's, reads as it did", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 3).map((p) => [p.uprn]),
  );
  env.sheet.select("A2:A4");
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  expect((await pollToEnd(env)).pop().phase).toBe("done");
  const data = env.userProperties.data;
  expect(data.get("compliance.run.pieces")).toBe("1");
  const stored = JSON.parse(data.get("compliance.run.0")!);
  // The phase is the engine's alone now.
  expect([stored.phase, stored.engine.phase]).toEqual([undefined, "ended"]);
  const shownAfterStoring = (phase: string) => {
    data.set("compliance.run.0", JSON.stringify({ ...stored, phase }));
    return createGasEnvironment({ from: env }).run("getSidebarState").run.phase;
  };
  // Earlier versions showed a run the user stopped once nothing was left to collect as stopped, its engine ended.
  expect(shownAfterStoring("stopped")).toBe("stopped");
  expect(shownAfterStoring("done")).toBe("done");
}, 60_000);

test("two unfinished runs: a third check is refused naming both, sends nothing, and each run's Resume still collects its paid job", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 70).map((p) => [p.uprn]),
  );
  const stopAfterOnePoll = (range: string, anyway: boolean) => {
    env.sheet.select(range);
    expect(env.run("startBulkCheck", { anyway }).ok).toBe(true);
    expect(env.run("pollBulkCheck").phase).toBe("running");
    expect(env.run("cancelBulkCheck").resumable).toBe(true);
  };
  stopAfterOnePoll("A2:A31", false);
  stopAfterOnePoll("A32:A61", true);
  expect((await sandbox.stats()).bulk_submit).toBe(2);

  // A third check, even "anyway": core's cap (one run set aside) is reached, so it is refused, naming both runs.
  env.sheet.select("A65:A66");
  const third = env.run("startBulkCheck", { anyway: true });
  expect(third.ok).toBe(false);
  expect(third.message).toMatch(
    /^Two checks are unfinished already \(30 rows on Sheet1, started .* UTC, run \w+; and 30 rows on Sheet1, started .* UTC, run \w+\)\. Choose Resume to finish one first, so that no job already paid for is lost; then check these rows\.$/,
  );
  expect((await sandbox.stats()).bulk_submit).toBe(2);
  expect(rowsOf(env, 65, 66).map((r) => r.message)).toEqual(["", ""]);

  // Resume twice: the sidebar's own run, then the one set aside; both collected with GETs only.
  for (const range of [
    [32, 61],
    [2, 31],
  ]) {
    expect(env.run("resumeBulkCheck").phase).toBe("running");
    expect((await pollToEnd(env)).pop().phase).toBe("done");
    expect(rowsOf(env, range[0], range[1]).map((r) => r.matched)).toEqual(
      props.slice(range[0] - 2, range[1] - 1).map((p) => p.uprn),
    );
  }
  expect((await sandbox.stats()).bulk_submit).toBe(2);
}, 60_000);

test("a key revoked after it was saved: one POST, every row says why, and the Run log has the run with its reason", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 6).map((p) => [p.uprn]),
  );
  // Save refuses a key the service rejects; this one was revoked after it was saved.
  env.userProperties.data.set("compliance.apiKey", "not-a-real-key");
  env.sheet.select("A2:A7");
  const r = env.run("startBulkCheck", {});
  expect(r.ok).toBe(true);
  expect(r.progress.phase).toBe("done");
  expect(r.progress.problem).toMatch(/API key was not accepted/);
  expect(JSON.stringify(r)).not.toContain("not-a-real-key");
  expect((await sandbox.stats()).bulk_submit).toBe(1);
  for (const row of rowsOf(env, 2, 7)) expect(row.message).toMatch(/API key was not accepted/);
  const log = env.spreadsheet.getSheetByName("Run log")!;
  const rows = log.peek(1, 1, log.getLastRow(), RUN_LOG_HEADERS.length);
  expect(rows[0]).toEqual([...RUN_LOG_HEADERS]);
  expect(rows).toHaveLength(2);
  expect(String(rows[1][RUN_LOG_HEADERS.indexOf("Problem")])).toMatch(/API key was not accepted/);
});

test("paused on the day's quota, the sidebar opened the next day offers Resume, and Resume collects the jobs sent with GETs only", async () => {
  const small = await startSandboxProcess({ msPerProperty: 20, limits: { professional: { batchCap: 5, perDay: 6 } } });
  try {
    const env = createGasEnvironment();
    configure(env, small);
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(0, 15).map((p) => [p.uprn]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    const paused = (await pollToEnd(env)).pop();
    expect(paused.phase).toBe("paused");
    const posts = (await small.stats()).bulk_submit;
    const sent = paused.jobs.filter((j: { jobId: string | null }) => j.jobId).length;
    expect(sent).toBeGreaterThan(0);

    // The next day: the quota is reset, the sidebar is opened in a new execution (nothing in memory).
    await small.advanceClock(DAY_MS);
    env.clock.offsetMs += DAY_MS;
    const nextDay = createGasEnvironment({ from: env });
    const state = nextDay.run("getSidebarState");
    expect(state.run.phase).toBe("paused");
    expect(state.run.resumable).toBe(true);
    // Checking the same rows again first asks to resume: nothing is posted again.
    nextDay.sheet.select(`A${firstRow}:A${lastRow}`);
    const asked = nextDay.run("startBulkCheck", {});
    expect(asked.askResume).toBe(true);
    expect((await small.stats()).bulk_submit).toBe(posts);

    const before = await small.stats();
    expect(nextDay.run("resumeBulkCheck").phase).toBe("running");
    const done = (await pollToEnd(nextDay)).pop();
    expect(done.message).toMatch(/^Done\. 15 rows checked\./);
    const after = await small.stats();
    // The jobs sent yesterday were collected with GETs; only the jobs the quota held back were posted today.
    expect(after.bulk_submit - before.bulk_submit).toBe(paused.jobs.length - sent);
    expect(after.bulk_results).toBeGreaterThan(before.bulk_results);
    expect(rowsOf(nextDay, firstRow, lastRow).filter((r) => r.matched === r.uprn)).toHaveLength(15);
  } finally {
    await small.close();
  }
});

test("a run's Checking… marks are written and flushed to the sheet before its first submit leaves", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 3).map((p) => [p.uprn]),
  );
  env.sheet.select("A2:A4");
  const mark = env.log.mark();
  let atSubmit: { calls: { method: string; write: boolean }[]; messages: string[] } | undefined;
  env.network.beforeSend = (requests) => {
    if (atSubmit || !requests.some((r) => r.method === "POST")) return;
    atSubmit = { calls: env.log.since(mark), messages: rowsOf(env, 2, 4).map((r) => r.message) };
  };
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  expect(atSubmit!.messages.every((m) => markTag(m))).toBe(true);
  const lastWrite = atSubmit!.calls.map((c) => c.write).lastIndexOf(true);
  const flush = atSubmit!.calls.findIndex((c) => c.method === "flush");
  expect(lastWrite).toBeGreaterThanOrEqual(0);
  expect(flush).toBeGreaterThan(lastWrite);
  await pollToEnd(env);
  expect(rowsOf(env, 2, 4).map((r) => r.matched)).toEqual(props.slice(0, 3).map((p) => p.uprn));
});
