/**
 * A run's life cycle in the task pane (core/run/session.ts through excel/taskpane/check-run.ts): a check begun while
 * another run is unfinished leaves that run's rows and Resume alone, and a key refused mid-way writes its reason on
 * every row and a Run log row. The pane's logic against the real sandbox over loopback, the Excel stand-in as the
 * workbook; Stop is pressed at a point the test chooses (after the first results page), not after a wall-clock delay.
 */
import { OUTPUT_COLUMNS, RUN_LOG_HEADERS, createClient, markTag, runTag } from "../../../core";
import { memoryStore } from "../../../excel/settings";
import { prepareCheck, resumeRun, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { loadUnfinished, resumeFirst, setAsideRefused } from "../../../excel/taskpane/unfinished";
import { knownUprns, sandbox, type Sandbox } from "../../helpers/sandbox";
import { colLetters, createStandIn } from "../../helpers/excel-standin";

const W = OUTPUT_COLUMNS.length;
const col = (key: string) => OUTPUT_COLUMNS.findIndex((c) => c.key === key);
const MATCHED = col("matched_uprn");
const MESSAGE = col("message");

let sb: Sandbox;
beforeAll(async () => {
  // Slow jobs (20 ms a property), so a run is still collecting when it is stopped.
  sb = await sandbox(20);
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

function workbook() {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  return { excelRun, api: s.api };
}
/** A client whose fetch calls `after` once each reply has arrived (the test's hook into the run's progress). */
function client(apiKey = "sandbox-professional", after?: (url: string, method: string) => void) {
  return createClient({
    baseUrl: sb.baseUrl,
    apiKey,
    fetch: async (u, i) => {
      const res = await fetch(u, i as RequestInit);
      after?.(u, (i as RequestInit).method ?? "GET");
      return res as never;
    },
  });
}
async function prepared(excelRun: ExcelRun) {
  const prep = await prepareCheck(excelRun, { plan: "professional" });
  if (!prep.ok) throw new Error(prep.message);
  return prep.check;
}
const block = (api: any, first: number, last: number) =>
  api.read("Sheet1", `${colLetters(1)}${first}:${colLetters(1 + W - 1)}${last}`).values as unknown[][];

test("a stopped run, then a check of two other rows, then Resume: no row is called changed, the paid job is collected without a new POST", async () => {
  const { excelRun, api } = workbook();
  const u = knownUprns(sb, 120);
  api.seed("Sheet1", "A1", [["UPRN"], ...u.map((x) => [x])]);
  const store = memoryStore();

  // Run 1 (rows 2-101): stopped as soon as its job's first results page has arrived (the job is paid for, not done).
  api.select("Sheet1", "A2:A101");
  const stop = new AbortController();
  const first = await runCheck(await prepared(excelRun), {
    excelRun,
    client: client(undefined, (url, method) => method === "GET" && url.includes("/results") && stop.abort()),
    plan: "professional",
    store,
    actionSheets: false,
    signal: stop.signal,
  });
  expect(first.cancelled).toBe(true);
  expect(first.resumable).toBe(true);
  const afterStop = sb.stats();
  expect(afterStop.bulk_submit).toBe(1);
  const waiting = block(api, 2, 101)
    .map((r, i) => ({ i, m: String(r[MESSAGE]) }))
    .filter((r) => /^Checking…/.test(r.m));
  expect(waiting.length).toBeGreaterThan(10);
  const stopped = await loadUnfinished(store);
  // Each waiting row carries its run's tag, so any later check knows it is not its own.
  for (const w of waiting) expect(markTag(w.m)).toBe(runTag(stopped!.state.runId));

  // Before a second check the pane asks whether to resume the unfinished one first (core's words).
  expect(await resumeFirst(store)).toMatch(
    /is unfinished: \d+ rows wait for results already paid for\. Resume it first\?/,
  );

  // Run 2: two other rows (110-111), checked anyway.
  api.select("Sheet1", "A110:A111");
  const second = await runCheck(await prepared(excelRun), {
    excelRun,
    client: client(),
    plan: "professional",
    store,
    actionSheets: false,
  });
  expect(second.title).toBe("Done");
  expect(block(api, 110, 111).map((r) => r[MATCHED])).toEqual([u[108], u[109]]);
  const afterSecond = block(api, 2, 101);
  for (const w of waiting) expect(afterSecond[w.i][MESSAGE]).toBe(w.m);
  expect(afterSecond.filter((r) => /changed while the check ran/.test(String(r[MESSAGE])))).toEqual([]);

  // Resume: the stopped run is still there, and its job is collected with GETs only.
  const saved = await loadUnfinished(store);
  expect(saved?.state.runId).toBe(stopped!.state.runId);
  const beforeResume = sb.stats();
  expect(beforeResume.bulk_submit).toBe(2);
  const resumed = await resumeRun(saved!, {
    excelRun,
    client: client(),
    plan: "professional",
    store,
    actionSheets: false,
  });
  expect(resumed.title).toBe("Done");
  const used = sb.stats();
  expect(used.bulk_submit).toBe(2);
  expect(used.bulk_results).toBeGreaterThan(beforeResume.bulk_results);
  expect(block(api, 2, 101).map((r) => r[MATCHED])).toEqual(u.slice(0, 100));
  expect(block(api, 2, 101).filter((r) => /^Checking…|changed/.test(String(r[MESSAGE])))).toEqual([]);
  // Nothing is left to resume.
  expect(await loadUnfinished(store)).toBeNull();
  expect(await resumeFirst(store)).toBe("");
}, 60_000);

test("two unfinished runs: a third check is refused naming both, before any write or POST, and each run's Resume still collects its paid job", async () => {
  const { excelRun, api } = workbook();
  const u = knownUprns(sb, 70);
  api.seed("Sheet1", "A1", [["UPRN"], ...u.map((x) => [x])]);
  const store = memoryStore();
  const stopAfterFirstPage = async (range: string) => {
    api.select("Sheet1", range);
    const stop = new AbortController();
    const r = await runCheck(await prepared(excelRun), {
      excelRun,
      client: client(undefined, (url, method) => method === "GET" && url.includes("/results") && stop.abort()),
      plan: "professional",
      store,
      actionSheets: false,
      signal: stop.signal,
    });
    expect(r.resumable).toBe(true);
  };
  await stopAfterFirstPage("A2:A31");
  await stopAfterFirstPage("A32:A61");
  expect(sb.stats().bulk_submit).toBe(2);

  // A third check: core's cap (one run set aside) is reached, so it is refused, naming both runs.
  const refusal = await setAsideRefused(store);
  expect(refusal).toMatch(
    /^Two checks are unfinished already \(30 rows on Sheet1, started .* UTC, run \w+; and 30 rows on Sheet1, started .* UTC, run \w+\)\. Choose Resume to finish one first, so that no job already paid for is lost; then check these rows\.$/,
  );
  api.select("Sheet1", "A65:A66");
  await expect(
    runCheck(await prepared(excelRun), {
      excelRun,
      client: client(),
      plan: "professional",
      store,
      actionSheets: false,
    }),
  ).rejects.toThrow(refusal);
  expect(sb.stats().bulk_submit).toBe(2);
  expect(block(api, 65, 66).map((r) => r[MESSAGE])).toEqual(["", ""]);

  // Resume twice: the newest run, then the one set aside; both collected with GETs only.
  for (const [first, last] of [
    [32, 61],
    [2, 31],
  ]) {
    const saved = await loadUnfinished(store);
    const done = await resumeRun(saved!, {
      excelRun,
      client: client(),
      plan: "professional",
      store,
      actionSheets: false,
    });
    expect(done.title).toBe("Done");
    expect(block(api, first, last).map((r) => r[MATCHED])).toEqual(u.slice(first - 2, last - 1));
  }
  expect(await loadUnfinished(store)).toBeNull();
  expect(sb.stats().bulk_submit).toBe(2);
}, 60_000);

test("a key revoked after it was saved: every row says why, one POST is spent, and the Run log has the run with its reason", async () => {
  const { excelRun, api } = workbook();
  const u = knownUprns(sb, 6);
  api.seed("Sheet1", "A1", [["UPRN"], ...u.map((x) => [x])]);
  api.select("Sheet1", "A1:A7");
  const summary = await runCheck(await prepared(excelRun), {
    excelRun,
    client: client("not-a-real-key"),
    plan: "professional",
    store: memoryStore(),
  });
  expect(summary.title).toBe("Failed");
  expect(summary.fatal).toMatch(/API key was not accepted/);
  expect(sb.stats().bulk_submit).toBe(1);
  for (const r of block(api, 2, 7)) expect(String(r[MESSAGE])).toMatch(/API key was not accepted/);
  const log = api.read("Run log", "A1:L3").values as unknown[][];
  expect(log[0]).toEqual([...RUN_LOG_HEADERS]);
  expect(String(log[1][11])).toMatch(/API key was not accepted/);
  expect(log[2][0]).toBe("");
}, 60_000);
