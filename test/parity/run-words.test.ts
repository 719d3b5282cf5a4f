/**
 * The same run is said in the same words by both add-ins: the line while a check goes (the pane's progress words, the
 * sidebar's status), the sentence for a run left unfinished, and the end of a run (its headline and details, core's
 * runEndWords). Each case runs the Excel pane's check (check-run.ts on
 * the Excel stand-in) and the built Code.js (the Sheets stand-in) against one sandbox, and compares the text whole,
 * its start moment as the minute it really was. Both say core/run/run-lines.ts's words.
 */
import { OUTPUT_COLUMNS, createClient, type PlanName } from "../../core";
import { memoryStore } from "../../excel/settings";
import { prepareCheck, resumeRun, runCheck, summaryText, type ExcelRun } from "../../excel/taskpane/check-run";
import { loadUnfinished, unfinishedText } from "../../excel/taskpane/unfinished";
import { createGasEnvironment, type GasEnvironment } from "../gsheets/harness/gas";
import { passTime, startSandboxProcess, type SandboxProcess } from "../gsheets/harness/sandbox";
import { API_KEY, configure, pollToEnd } from "../gsheets/harness/table";
import { colLetters, createStandIn } from "../helpers/excel-standin";
import { testClock } from "../helpers/clock";

let sandbox: SandboxProcess;
/** Jobs done at once, for the runs that end by themselves. */
let fast: SandboxProcess;
let uprns: string[];
beforeAll(async () => {
  // Slow jobs (2 s a property), so a run stopped after its first results page has none of its rows answered yet.
  [sandbox, fast] = await Promise.all([startSandboxProcess({ msPerProperty: 2000 }), startSandboxProcess()]);
  uprns = (await sandbox.properties(5)).map((p) => p.uprn);
});
afterAll(async () => {
  await Promise.all([sandbox?.close(), fast?.close()]);
});

const PLAN: PlanName = "professional";
const colIndex = (a1: string) => [.../^[A-Z]+/.exec(a1)![0]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;

function excelBook(grid: unknown[][], selection: string) {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  s.api.seed("Sheet1", "A1", grid);
  s.api.select("Sheet1", selection);
  return excelRun;
}

/** A client whose fetch tells `after` of each reply (the test's hook to stop the run at a point it chooses). */
const client = (after: (url: string, method: string) => void) =>
  createClient({
    baseUrl: sandbox.baseUrl,
    apiKey: API_KEY,
    fetch: async (u, i) => {
      const res = await fetch(u, i as RequestInit);
      after(u, (i as RequestInit).method ?? "GET");
      return res as never;
    },
  });

function sheetsBook(grid: unknown[][], selection: string, sb = sandbox, clockAtMs?: number): GasEnvironment {
  const env = createGasEnvironment();
  // The vm's clock set before its first request, so that the sandbox counts this clock from there.
  if (clockAtMs !== undefined) env.clock.offsetMs = clockAtMs - Date.now();
  configure(env, sb, API_KEY, PLAN);
  env.sheet.seed(1, 1, grid);
  env.sheet.select(selection);
  return env;
}

const minute = (ms: number) => `${new Date(ms).toISOString().slice(0, 10)} ${new Date(ms).toISOString().slice(11, 16)}`;

test("as a check begins, the line of the run (rows, distinct properties, jobs, rows checked) is the same in both add-ins (before: the pane said rows checked, the sidebar properties from rows written)", async () => {
  const grid = [["UPRN"], [uprns[0]], [uprns[1]], [uprns[2]], [uprns[0]], ["not a uprn"]];
  const expected = "Checking 5 rows (3 distinct properties) in 1 bulk job: 1 of 5 rows checked.";

  const excelRun = excelBook(grid, "A1");
  const prep = await prepareCheck(excelRun, { plan: PLAN });
  if (!prep.ok) throw new Error(prep.message);
  const stop = new AbortController();
  const lines: (string | undefined)[] = [];
  await runCheck(prep.check, {
    excelRun,
    client: client(() => undefined),
    plan: PLAN,
    actionSheets: false,
    signal: stop.signal,
    onProgress: (p) => {
      lines.push(p.line);
      stop.abort();
    },
  });

  const env = sheetsBook(grid, "A1");
  const r = env.run("startBulkCheck", {});
  expect(r.ok).toBe(true);
  env.run("cancelBulkCheck");

  expect({ excel: lines[0], sheets: r.progress.message }).toEqual({ excel: expected, sheets: expected });
}, 60_000);

test("a run stopped with its job sent is the same unfinished sentence in both add-ins: its rows, its sheet, the minute it began, what Resume collects (before: the sidebar named a range and no time)", async () => {
  const grid = [["UPRN"], ...uprns.map((u) => [u])];

  // Sheets: checked, polled once, stopped; then other rows checked anyway, which sets it aside and names it.
  const env = sheetsBook(grid, "A2:A4");
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  expect(env.run("pollBulkCheck").phase).toBe("running");
  expect(env.run("cancelBulkCheck").resumable).toBe(true);
  const startedAtMs = (JSON.parse(env.userProperties.data.get("compliance.run.0")!) as { startedAtMs: number })
    .startedAtMs;
  env.sheet.select("A5:A6");
  expect(env.run("startBulkCheck", { anyway: true }).ok).toBe(true);
  await pollToEnd(env);
  const notes = (env.run("getSidebarState").run.notes as string[]).filter((n) => /unfinished/.test(n));

  // Excel: the same rows, on a clock that begins at the moment the Sheets run began; stopped after its first poll.
  const excelRun = excelBook(grid, "A2:A4");
  const prep = await prepareCheck(excelRun, { plan: PLAN });
  if (!prep.ok) throw new Error(prep.message);
  const store = memoryStore();
  const stop = new AbortController();
  const t0 = Date.now();
  const summary = await runCheck(prep.check, {
    excelRun,
    client: client((url, method) => method === "GET" && url.includes("/results") && stop.abort()),
    plan: PLAN,
    store,
    actionSheets: false,
    signal: stop.signal,
    now: () => startedAtMs + (Date.now() - t0),
  });
  expect(summary.resumable).toBe(true);
  const saved = await loadUnfinished(store);

  const expected = `A check of 3 rows on Sheet1, started ${minute(startedAtMs)} UTC, is unfinished. 0 of 3 rows checked. 3 rows are in jobs already sent: choose Resume to collect them (no new job is sent).`;
  expect({ excel: unfinishedText(saved!), sheets: notes }).toEqual({ excel: expected, sheets: [expected] });
}, 120_000);

test("rows Stop kept from being sent get the same Message in both add-ins (before: 'Cancelled before…' in Excel, 'Stopped by you before…' in Sheets)", async () => {
  const grid = [["UPRN"], ...uprns.slice(0, 3).map((u) => [u])];
  const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");
  const expected = Array(3).fill("Stopped before this row was sent; run the check again for it.");
  // The job's submit is refused as too many (HTTP 429, so no job was made) and waits a minute: Stop comes first.
  const refuseSubmit = () =>
    sandbox.setFaults([{ kind: "rate_limit", route: "bulk_submit", count: 1, retry_after: 60 }]);

  await refuseSubmit();
  const env = sheetsBook(grid, "A1");
  const r = env.run("startBulkCheck", {});
  expect(r.ok).toBe(true);
  expect(env.run("cancelBulkCheck").resumable).toBe(false);
  const sheets = env.sheet
    .peek(2, colIndex(r.progress.outputA1) + 1, 3, OUTPUT_COLUMNS.length)
    .map((row) => String(row[MESSAGE]));

  await refuseSubmit();
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  s.api.seed("Sheet1", "A1", grid);
  s.api.select("Sheet1", "A1");
  const prep = await prepareCheck(excelRun, { plan: PLAN });
  if (!prep.ok) throw new Error(prep.message);
  const stop = new AbortController();
  const summary = await runCheck(prep.check, {
    excelRun,
    client: client((_u, method) => method === "POST" && stop.abort()),
    plan: PLAN,
    actionSheets: false,
    signal: stop.signal,
  });
  expect(summary.resumable).toBe(false);
  const excel = (
    s.api.read("Sheet1", `${colLetters(1)}2:${colLetters(OUTPUT_COLUMNS.length)}4`).values as unknown[][]
  ).map((row) => String(row[MESSAGE]));
  await sandbox.clearFaults();

  expect({ excel, sheets }).toEqual({ excel: expected, sheets: expected });
}, 60_000);

// ---- the end of a run: headline and details, compared whole ----

/**
 * Where both add-ins' clocks start for one case: a second into the next minute, so that two runs of under a minute
 * each end (and name a Retry-After's time) in the same minute, which their Run log lines and pauses say.
 */
const nextMinute = () => Math.ceil(Date.now() / 60_000) * 60_000 + 1000;

interface ExcelEndOptions {
  sb: SandboxProcess;
  atMs: number;
  stopOn?: (url: string, method: string) => boolean;
  /** Told of each reply before the run goes on (the test's hook to let the sandbox's jobs move on). */
  after?: (url: string, method: string) => Promise<void>;
  /** The workbook to check in (a new one with `grid` when absent), and the store its unfinished run is kept in. */
  excelRun?: ExcelRun;
  store?: ReturnType<typeof memoryStore>;
}

/** The pane's dependencies for one run on `o.sb`, its clock at `o.atMs`, stopped when `o.stopOn` says. */
function paneDeps(excelRun: ExcelRun, o: ExcelEndOptions) {
  const clock = testClock(o.atMs);
  const stop = new AbortController();
  const c = createClient({
    baseUrl: o.sb.baseUrl,
    apiKey: API_KEY,
    now: clock.now,
    sleep: clock.sleep,
    fetch: clock.fetch(async (u, i) => {
      const res = await fetch(u, i as RequestInit);
      const method = (i as RequestInit).method ?? "GET";
      await o.after?.(u, method);
      if (o.stopOn?.(u, method)) stop.abort();
      return res as never;
    }),
  });
  return {
    excelRun,
    client: c,
    plan: PLAN,
    store: o.store ?? memoryStore(),
    signal: stop.signal,
    now: clock.now,
    sleep: clock.sleep,
  };
}

/** The pane's run on the Excel stand-in, its clock at `atMs`: its status as the pane shows it, line by line. */
async function excelEnd(grid: unknown[][], selection: string, o: ExcelEndOptions): Promise<string[]> {
  const excelRun = o.excelRun ?? excelBook(grid, selection);
  const prep = await prepareCheck(excelRun, { plan: PLAN });
  if (!prep.ok) throw new Error(prep.message);
  const summary = await runCheck(prep.check, paneDeps(excelRun, o));
  return summaryText(summary).split("\n");
}

/**
 * The built Code.js's run on the Sheets stand-in, its clock at `atMs` (or in `env`, as it is): the sidebar's status,
 * then its Details.
 */
async function sheetsEnd(
  grid: unknown[][],
  selection: string,
  o: { sb: SandboxProcess; atMs: number; stop?: boolean; env?: GasEnvironment },
): Promise<string[]> {
  const env = o.env ?? sheetsBook(grid, selection, o.sb, o.atMs);
  const r = env.run("startBulkCheck", {});
  if (!r.ok) throw new Error(r.message);
  let last;
  if (o.stop) {
    expect(env.run("pollBulkCheck").phase).toBe("running");
    last = env.run("cancelBulkCheck");
  } else last = (await pollToEnd(env)).pop();
  expect(last.phase).not.toBe("running");
  return [last.message, ...last.details];
}

test("a run done with row errors ends in the same words in both add-ins, headline and details (before: 'Done:' and one line in Sheets, 'Done.' and lines in Excel)", async () => {
  const grid = [["UPRN"], [uprns[0]], [uprns[1]], ["not a uprn"], [uprns[2]]];
  const atMs = nextMinute();
  const sheets = await sheetsEnd(grid, "A1", { sb: fast, atMs });
  const excel = await excelEnd(grid, "A1", { sb: fast, atMs });
  expect(excel[0]).toBe("Done. 4 rows checked, 1 with errors (see the Message column).");
  expect(excel.slice(1)).toEqual(
    expect.arrayContaining([expect.stringMatching(/^Statuses over all checks: /), expect.stringMatching(/^Last run /)]),
  );
  expect({ excel }).toEqual({ excel: sheets });
}, 60_000);

test("a run the user stopped ends in the same words in both add-ins (before: 'Stopped by you:' in Sheets, 'Stopped.' in Excel)", async () => {
  const grid = [["UPRN"], ...uprns.slice(0, 3).map((u) => [u])];
  const atMs = nextMinute();
  const sheets = await sheetsEnd(grid, "A1", { sb: sandbox, atMs, stop: true });
  const excel = await excelEnd(grid, "A1", {
    sb: sandbox,
    atMs,
    stopOn: (url, method) => method === "GET" && url.includes("/results"),
  });
  expect(excel.slice(0, 2)).toEqual([
    "Stopped. 0 of 3 rows checked.",
    "3 rows are in jobs already sent: choose Resume to collect them (no new job is sent).",
  ]);
  expect({ excel }).toEqual({ excel: sheets });
}, 60_000);

test("a run the service failed ends in the same words in both add-ins (before: 'Finished with problems:' in Sheets, '.' in Excel)", async () => {
  const grid = [["UPRN"], ...uprns.slice(0, 3).map((u) => [u])];
  const atMs = nextMinute();
  // The job's submit answered 500: it may exist, so it is never sent again blindly, and no job id names the run apart.
  const fail = () => fast.setFaults([{ kind: "error_500", route: "bulk_submit" }]);
  await fail();
  const sheets = await sheetsEnd(grid, "A1", { sb: fast, atMs });
  await fail();
  const excel = await excelEnd(grid, "A1", { sb: fast, atMs });
  await fast.clearFaults();
  expect(excel[0]).toBe("Finished with problems. 0 of 3 rows checked.");
  expect(excel[1]).toMatch(/^3 rows not checked: sending their job failed and the service may have created it/);
  expect({ excel }).toEqual({ excel: sheets });
}, 60_000);

/** The lines of a run's end that come before the Action list's and the Run log's (which name when each host built them). */
const runLines = (words: string[]) => words.filter((l) => !/^Last run |"Action list"/.test(l));

test("a sheet checked once, then checked again and stopped before its results came, says its earlier values are kept in both add-ins (before: only the pane said it, counting the rows still waiting)", async () => {
  const grid = [["UPRN"], ...uprns.slice(0, 3).map((u) => [u])];
  const atMs = nextMinute();

  // Sheets: checked to its end on the quick sandbox, then again on the slow one, polled once and stopped.
  const env = sheetsBook(grid, "A1", fast, atMs);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  expect((await pollToEnd(env)).pop().complete).toBe(true);
  configure(env, sandbox, API_KEY, PLAN);
  env.sheet.select("A1");
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  expect(env.run("pollBulkCheck").phase).toBe("running");
  const stopped = env.run("cancelBulkCheck");
  const sheets = [stopped.message, ...stopped.details];

  // Excel: the same, in one workbook.
  const excelRun = excelBook(grid, "A1");
  expect((await excelEnd(grid, "A1", { sb: fast, atMs, excelRun }))[0]).toMatch(/^Done\./);
  const excel = await excelEnd(grid, "A1", {
    sb: sandbox,
    atMs,
    excelRun,
    stopOn: (url, method) => method === "GET" && url.includes("/results"),
  });

  expect(runLines(excel)).toEqual([
    "Stopped. 0 of 3 rows checked.",
    "3 rows are in jobs already sent: choose Resume to collect them (no new job is sent).",
    "The earlier values are kept.",
  ]);
  expect({ excel }).toEqual({ excel: sheets });
}, 120_000);

test("a run stopped with some rows answered, then resumed to its end, counts the statuses of the whole run in both add-ins (before: the pane counted only the rows its Resume wrote)", async () => {
  const grid = [["UPRN"], ...uprns.slice(0, 3).map((u) => [u])];
  const atMs = nextMinute();
  // Once the job is in, the slow sandbox is let on by one property and a half: its first results page has a row.
  const oneAnswered = (url: string, method: string) =>
    method === "POST" && /\/bulk/.test(url) ? sandbox.advanceClock(2500) : Promise.resolve();

  // Sheets: the job sent, one row answered, stopped; then the job let finish and the run resumed to its end.
  const env = sheetsBook(grid, "A1", sandbox, atMs);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  // Polled as the sidebar polls, in half-second steps, until a row is answered: some of the run before Stop, some after.
  let polled = env.run("pollBulkCheck");
  for (let i = 0; i < 20 && polled.rowsChecked === 0; i++) {
    await passTime(env, Math.min(polled.waitMs, 500));
    polled = env.run("pollBulkCheck");
  }
  expect([1, 2]).toContain(polled.rowsChecked);
  expect(env.run("cancelBulkCheck").resumable).toBe(true);
  await passTime(env, 10_000);
  expect(env.run("resumeBulkCheck").phase).toBe("running");
  const last = (await pollToEnd(env)).pop();
  const sheets = [last.message, ...last.details];

  // Excel: the same, stopped after the results page with one row, then the stored run resumed.
  const excelRun = excelBook(grid, "A1");
  const store = memoryStore();
  const prep = await prepareCheck(excelRun, { plan: PLAN });
  if (!prep.ok) throw new Error(prep.message);
  // Stopped at its second results page: a reply that comes as Stop is pressed is not taken, the first page's rows are.
  let pages = 0;
  const first = await runCheck(
    prep.check,
    paneDeps(excelRun, {
      sb: sandbox,
      atMs,
      store,
      after: oneAnswered,
      stopOn: (url, method) => method === "GET" && url.includes("/results") && ++pages === 2,
    }),
  );
  expect(first.words.headline).toMatch(/^Stopped\. [12] of 3 rows checked\.$/);
  await sandbox.advanceClock(10_000);
  const saved = await loadUnfinished(store);
  const resumed = await resumeRun(saved!, paneDeps(excelRun, { sb: sandbox, atMs: atMs + 12_500, store }));
  const excel = summaryText(resumed).split("\n");

  expect(excel[0]).toBe("Done. 3 rows checked.");
  expect(excel).toEqual(expect.arrayContaining([expect.stringMatching(/^Statuses over all checks: /)]));
  expect({ excel }).toEqual({ excel: sheets });
}, 120_000);

// Late: the pane keeps the service's stated wait for its next runs (service-hold.ts), as a user's next check would.
test("a run paused by the service's 503 ends in the same words in both add-ins, the time it named included (before: 'Paused:' and one line in Sheets)", async () => {
  const grid = [["UPRN"], ...uprns.slice(0, 3).map((u) => [u])];
  const atMs = nextMinute();
  const refuse = () => fast.setFaults([{ kind: "error_503", route: "bulk_results", count: 1, retry_after: 3600 }]);
  await refuse();
  const sheets = await sheetsEnd(grid, "A1", { sb: fast, atMs });
  await refuse();
  const excel = await excelEnd(grid, "A1", { sb: fast, atMs });
  await fast.clearFaults();
  expect(excel[0]).toMatch(
    /^Paused\. The compliance service is unavailable \(HTTP 503\) and asked for no retry before \S+ \S+ UTC\.$/,
  );
  expect({ excel }).toEqual({ excel: sheets });
}, 60_000);

// The pane keeps the service's stated wait for its next runs (service-hold.ts), as a user's next check would: this
// case's clocks start two hours on, past every wait the cases before it were asked for (its own sandbox's with them).
test("a sheet checked once, then checked again and paused by the service before its results came, says its earlier values are kept in both add-ins (before: only the pane said it)", async () => {
  const grid = [["UPRN"], ...uprns.slice(0, 3).map((u) => [u])];
  const atMs = nextMinute() + 2 * 3600_000;
  const sb = await startSandboxProcess({ clockOffsetMs: atMs - Date.now() });
  try {
    await pausedRecheck(grid, sb, atMs);
  } finally {
    await sb.close();
  }
}, 120_000);

async function pausedRecheck(grid: unknown[][], sb: SandboxProcess, atMs: number) {
  // A 503 asking for 100 s, longer than a run holds the pane or sidebar for (RUN_POLICY.pauseAfterMs): it pauses.
  const refuse = () => sb.setFaults([{ kind: "error_503", route: "bulk_results", count: 1, retry_after: 100 }]);

  const env = sheetsBook(grid, "A1", sb, atMs);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  expect((await pollToEnd(env)).pop().complete).toBe(true);
  await refuse();
  env.sheet.select("A1");
  const sheets = await sheetsEnd(grid, "A1", { sb, atMs, env });

  const excelRun = excelBook(grid, "A1");
  expect((await excelEnd(grid, "A1", { sb, atMs, excelRun }))[0]).toMatch(/^Done\./);
  await refuse();
  const excel = await excelEnd(grid, "A1", { sb, atMs, excelRun });

  expect(excel[0]).toMatch(/^Paused\. /);
  expect(runLines(excel).slice(1)).toEqual([
    expect.stringMatching(/^0 of 3 rows checked; choose Resume after .* to collect the other 3 rows/),
    "The earlier values are kept.",
  ]);
  expect({ excel }).toEqual({ excel: sheets });
}
