/**
 * The Change log and the Run log in Excel: check, move the sandbox's clock
 * 60 days, check again. The Change log lists exactly the fields that changed, the expected set worked out here from
 * the sandbox's own answers on the two days; the Run log has one row per run. Node, the Excel stand-in, real HTTP.
 */
import {
  CHANGE_LOG_ARCHIVE_SHEET,
  CHANGE_LOG_HEADERS,
  CHANGE_LOG_MAX_ROWS,
  CHANGE_LOG_SHEET,
  OUTPUT_COLUMNS,
  RUN_LOG_HEADERS,
  RUN_LOG_SHEET,
  changeLogOverflow,
  changeLogRow,
  createClient,
  runLogEntryOfRow,
  runLogLine,
  type Change,
  type RunLogEntry,
} from "../../../core";
import { appendRunLogs } from "../../../excel/taskpane/action-sheets";
import { workbook } from "../../helpers/excel-workbook";
import { expectedChanges, loggedKey, recheckUprns } from "../../helpers/changes";
import { memoryStore } from "../../../excel/settings";
import { prepareCheck, resumeRun, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { loadUnfinished } from "../../../excel/taskpane/unfinished";
import { localDay } from "../../../excel/taskpane/stored";
import { dayClock, testClock } from "../../helpers/clock";
import { STANDIN_LIMIT_BYTES, colLetters, createStandIn } from "../../helpers/excel-standin";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";

const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");

const DAY1 = "2027-01-31";

/**
 * A workbook of 120 of the sandbox's properties (those whose dates cross a threshold in 60 days, and ordinary ones),
 * and a check of the whole table on the pane's clock; `onBlockWritten` runs once the run's results are written.
 */
function recheckTable(sb: Sandbox, clock: ReturnType<typeof dayClock>) {
  const uprns = recheckUprns(sb.dataset(), 120);
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  s.api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
  const client = createClient({
    baseUrl: sb.baseUrl,
    apiKey: "sandbox-professional",
    fetch: (u, i) => fetch(u, i as RequestInit) as never,
    now: clock.now,
  });
  const run = async (onBlockWritten?: () => void) => {
    s.api.select("Sheet1", `A1:A${uprns.length + 1}`);
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (!prep.ok) throw new Error(prep.message);
    return runCheck(prep.check, { excelRun, client, plan: "professional", now: clock.now, onBlockWritten });
  };
  return { s, uprns, run };
}

test("run, move the clock 60 days, run again: exactly the changed fields are logged, and two runs", async () => {
  // The pane's clock from noon of DAY1: both runs are on DAY1, the day the Change log's rows are expected on.
  const clock = dayClock(DAY1);
  const sb = await startTestSandbox({ today: DAY1, now: clock.date });
  try {
    const ds1 = sb.dataset();
    const { s, uprns, run } = recheckTable(sb, clock);
    const first = await run();
    expect(first.runLog).toMatch(/no changes/);
    expect(s.api.read("Change log", "A1:H2").values).toEqual([
      [...CHANGE_LOG_HEADERS],
      ["", "", "", "", "", "", "", ""],
    ]);

    const used1 = sb.stats();
    sb.reset();
    sb.setToday("2027-04-01");
    const ds2 = sb.dataset();
    const second = await run();
    const used2 = sb.stats();

    const expected = expectedChanges(ds1, ds2, uprns, DAY1);

    const n = second.runLog ? Number(/(\d[\d,]*) changes?/.exec(second.runLog)?.[1].replace(/,/g, "")) : NaN;
    const log = s.api.read("Change log", `A1:H${expected.size + 2}`).values as unknown[][];
    const rows = log.slice(1).filter((r) => r[0] !== "");
    const got = new Set(rows.map(loggedKey));
    expect(expected.size).toBeGreaterThan(20);
    expect(got).toEqual(expected);
    expect(n).toBe(expected.size);
    // A status that went from warning to fail is worse; every row has a direction.
    for (const r of rows) {
      expect(["better", "worse", "changed"]).toContain(r[7]);
      if (r[4] === "Status" && r[5] === "warning" && r[6] === "fail") expect(r[7]).toBe("worse");
    }

    const runs = s.api.read("Run log", "A1:L4").values as unknown[][];
    expect(runs[0]).toEqual([...RUN_LOG_HEADERS]);
    expect(runs.slice(1).filter((r) => r[0] !== "").length).toBe(2);
    expect(runs[1]).toEqual(expect.arrayContaining(["manual", uprns.length, uprns.length, 0, 0]));
    expect(runs[2][6]).toBe(expected.size);
    // Requests used: what the sandbox counted for each run (submits and result pages).
    expect(runs[1][9]).toBe(used1.bulk_submit + used1.bulk_results);
    expect(runs[2][9]).toBe(used2.bulk_submit + used2.bulk_results);
    expect(used2.bulk_submit).toBeGreaterThan(0);
    expect(runs[2][7]).toBe(rows.filter((r) => r[7] === "worse").length);
  } finally {
    await sb.close();
  }
});

test("a re-check whose writes Excel refuses part-way, then resumed: every changed field is logged once, none lost", async () => {
  // Jobs take 2 ms a property on a test clock the client shares: they progress as far as the polls wait, at once. The
  // clock starts at noon on the sandbox's day, so the day the rows are checked on is the day the expected changes use.
  const clock = testClock(Date.parse(`${DAY1}T12:00:00Z`));
  const sb = await startTestSandbox({ today: DAY1, msPerProperty: 2, now: clock.date });
  try {
    const ds1 = sb.dataset();
    // Two bulk jobs: the user starts editing while the second one's results arrive.
    const uprns = recheckUprns(ds1, 1200);
    const s = createStandIn();
    const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
    s.api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    const client = createClient({
      baseUrl: sb.baseUrl,
      apiKey: "sandbox-professional",
      fetch: clock.fetch((u, i) => fetch(u, i as RequestInit) as never),
      sleep: clock.sleep,
      now: clock.now,
    });
    const prepare = async () => {
      s.api.select("Sheet1", "A1");
      const prep = await prepareCheck(excelRun, { plan: "professional" });
      if (!prep.ok) throw new Error(prep.message);
      return prep.check;
    };
    await runCheck(await prepare(), { excelRun, client, plan: "professional" });
    sb.setToday("2027-04-01");
    const ds2 = sb.dataset();
    const store = memoryStore();
    // The user starts typing in a cell once the first job's rows are written (results of the next one arrive), and Excel
    // refuses every write from then on.
    let written = 0;
    await expect(
      runCheck(await prepare(), {
        excelRun,
        client,
        plan: "professional",
        store,
        writeRetryMs: 200,
        onProgress: (p) => {
          if (s.api.state.cellEditMode || p.rowsDone >= p.rowsTotal) return;
          const messages = s.api.read(
            "Sheet1",
            `${colLetters(1 + MESSAGE)}2:${colLetters(1 + MESSAGE)}${uprns.length + 1}`,
          ).values;
          written = messages.filter((r: unknown[]) => !/^Checking/.test(String(r[0]))).length;
          if (written > 0) s.api.setCellEditMode(true);
        },
      }),
    ).rejects.toThrow(/could not be written/);
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(uprns.length);
    // Nothing of the re-check is in the Change log yet, but the changes of the rows written are kept for Resume.
    expect(s.api.read("Run log", "A3:C3").values[0][0]).toBe("");
    const saved = await loadUnfinished(store);
    expect(saved?.changes?.length).toBeGreaterThan(0);
    s.api.setCellEditMode(false);
    await resumeRun(saved!, { excelRun, client, plan: "professional", store });

    const expected = expectedChanges(ds1, ds2, uprns, localDay(clock.now()));
    const rows = (s.api.read("Change log", `A1:H${expected.size + 50}`).values as unknown[][])
      .slice(1)
      .filter((r) => r[0] !== "");
    const keys = rows.map(loggedKey);
    expect(new Set(keys)).toEqual(expected);
    expect(keys.length).toBe(expected.size);
    expect(await loadUnfinished(store)).toBeNull();
  } finally {
    await sb.close();
  }
});

const RUN_AT = "2027-01-31T12:00:00.000Z";
/** The kinds of change a run logs, with the long texts a Next action change carries: a row of 130 to 220 bytes. */
const KINDS = [
  { check: "EPC", field: "Status", was: "warning", now: "fail", direction: "worse" },
  { check: "Gas safety", field: "Expiry", was: "2026-03-01", now: "2027-03-01", direction: "better" },
  {
    check: "",
    field: "Next action",
    was: "Book the annual gas safety check before the certificate expires",
    now: "Commission a new EPC: the current certificate has expired",
    direction: "changed",
  },
] as const;
/** `n` changes of a portfolio's properties, each one's fields different, in the order a run finds them. */
function changesOf(n: number, from = 0): (Change & { runAt: string })[] {
  return Array.from({ length: n }, (_, i) => ({
    ...KINDS[(from + i) % KINDS.length],
    uprn: String(100_000_000_000 + from + i),
    address: `Flat ${(from + i) % 200}, ${from + i} Kingsway Court, Manchester M20 2AB`,
    runAt: RUN_AT,
  }));
}
/** The fewest of `changesOf` whose Change log rows and formats pass the stand-in's limit by 5 %: a run just too large for one sync. */
function runPastLimit(): number {
  const perRow = JSON.stringify(changesOf(300).map((c) => changeLogRow(RUN_AT, c))).length / 300 + 33;
  return Math.ceil((STANDIN_LIMIT_BYTES * 1.05) / perRow);
}
const ENTRY = (changed: number): RunLogEntry => ({
  startedAt: "2027-01-31T11:00:00.000Z",
  endedAt: RUN_AT,
  trigger: "manual",
  runBy: "",
  rows: changed,
  checked: changed,
  changed,
  worse: 0,
  errors: 0,
});

test("a run with more changes than one 5 MB request holds logs every change once, in order, then its Run log row", async () => {
  // Sizes just past the limit (about 26,000 changes, 5.5 MB): the smallest run the old single sync could not write,
  // so the test costs seconds; larger runs only add more syncs of the same kind.
  const n = runPastLimit();
  const changes = changesOf(n);
  const { s, excelRun } = workbook();
  const counts: number[] = [];
  const line = await appendRunLogs(excelRun, changes, ENTRY(n), (k) => counts.push(k));
  expect(line).toBe(runLogLine(ENTRY(n)));
  const log = s.api.read(CHANGE_LOG_SHEET, `A1:H${n + 2}`);
  expect(log.values).toEqual([
    [...CHANGE_LOG_HEADERS],
    ...changes.map((c) => changeLogRow(RUN_AT, c)),
    ["", "", "", "", "", "", "", ""],
  ]);
  expect(log.numberFormats.slice(1, n + 1).every((r: string[]) => r.every((f) => f === "@"))).toBe(true);
  const runs = s.api.read(RUN_LOG_SHEET, "A1:L3").values;
  expect(runLogEntryOfRow(runs[1])).toMatchObject({ changed: n, endedAt: RUN_AT });
  expect(runs[2].every((v: unknown) => v === "")).toBe(true);
  // Two write syncs (more than the old one), each under the limit; the pane heard the count after each.
  expect(s.api.state.stats.maxRequestBytes).toBeLessThanOrEqual(STANDIN_LIMIT_BYTES);
  expect(s.api.state.stats.syncs).toBe(4);
  expect(counts.length).toBe(2);
  expect(counts[counts.length - 1]).toBe(n);
});

test("a large run into a nearly full Change log: the oldest rows move to the archive in order, none lost or twice", async () => {
  const { s, excelRun } = workbook();
  // The log holds CHANGE_LOG_MAX_ROWS less 1,000 rows of earlier runs; the run adds just over a request's worth, so
  // nearly as many old rows move (more than one 5 MB response and request each): the smallest case the old code failed.
  const before = CHANGE_LOG_MAX_ROWS - 1_000;
  // Earlier runs' rows are Next action changes (about 250 bytes), so the rows that move pass a 5 MB response too.
  const old = changesOf(before, 1_000_000).map((c) => changeLogRow("2026-12-01T09:00:00.000Z", { ...c, ...KINDS[2] }));
  s.api.seed(CHANGE_LOG_SHEET, "A1", [[...CHANGE_LOG_HEADERS], ...old]);
  s.api.seed(CHANGE_LOG_ARCHIVE_SHEET, "A1", [[...CHANGE_LOG_HEADERS], ["earlier", "", "", "", "", "", "", ""]]);
  const n = runPastLimit();
  const changes = changesOf(n);
  await appendRunLogs(excelRun, changes, ENTRY(n));
  const moved = changeLogOverflow(before, n);
  expect(moved).toBe(n - 1_000);
  const archive = s.api.read(CHANGE_LOG_ARCHIVE_SHEET, `A1:H${moved + 3}`).values;
  expect(archive).toEqual([
    [...CHANGE_LOG_HEADERS],
    ["earlier", "", "", "", "", "", "", ""],
    ...old.slice(0, moved),
    ["", "", "", "", "", "", "", ""],
  ]);
  const log = s.api.read(CHANGE_LOG_SHEET, `A1:H${CHANGE_LOG_MAX_ROWS + 2}`).values;
  expect(log).toEqual([
    [...CHANGE_LOG_HEADERS],
    ...old.slice(moved),
    ...changes.map((c) => changeLogRow(RUN_AT, c)),
    ["", "", "", "", "", "", "", ""],
  ]);
  expect(runLogEntryOfRow(s.api.read(RUN_LOG_SHEET, "A2:L2").values[0])).toMatchObject({ changed: n });
  expect(s.api.state.stats.maxRequestBytes).toBeLessThanOrEqual(STANDIN_LIMIT_BYTES);
  expect(s.api.state.stats.maxResponseBytes).toBeLessThanOrEqual(STANDIN_LIMIT_BYTES);
});

test("a large run's log refused part-way: the changes already logged are said, and logging the rest lands each once", async () => {
  const n = runPastLimit();
  const changes = changesOf(n);
  const { s, excelRun } = workbook();
  let logged = 0;
  // The user starts editing a cell once the first request has landed: Excel refuses the next one.
  const refused = appendRunLogs(excelRun, changes, ENTRY(n), (k) => {
    logged = k;
    s.api.setCellEditMode(true);
  });
  await expect(refused).rejects.toThrow(/cell-editing mode/);
  expect(logged).toBeGreaterThan(0);
  expect(logged).toBeLessThan(n);
  expect(s.api.read(RUN_LOG_SHEET, "A2").values[0][0]).toBe("");
  s.api.setCellEditMode(false);
  // What check-run keeps for Resume: the changes not yet in the log.
  await appendRunLogs(excelRun, changes.slice(logged), ENTRY(n));
  expect(s.api.read(CHANGE_LOG_SHEET, `A2:H${n + 2}`).values).toEqual([
    ...changes.map((c) => changeLogRow(RUN_AT, c)),
    ["", "", "", "", "", "", "", ""],
  ]);
  expect(s.api.read(RUN_LOG_SHEET, "A3").values[0][0]).toBe("");
});

test("a finished re-check whose logs Excel refuses says how many changes are not logged, and no step that would not log them", async () => {
  const clock = dayClock(DAY1);
  const sb = await startTestSandbox({ today: DAY1, now: clock.date });
  try {
    const ds1 = sb.dataset();
    const { s, uprns, run } = recheckTable(sb, clock);
    await run();
    sb.setToday("2027-04-01");
    const ds2 = sb.dataset();
    // The results are written; then the user starts typing in a cell, and Excel refuses the logs.
    const second = await run(() => s.api.setCellEditMode(true));
    s.api.setCellEditMode(false);
    const expected = expectedChanges(ds1, ds2, uprns, localDay(clock.now())).size;
    expect(expected).toBeGreaterThan(1);
    expect(second.runLog).toContain(
      `; the results are written. ${expected.toLocaleString("en-GB")} changes of this run are not in the Change log.`,
    );
    expect(second.runLog).not.toMatch(/check again|Resume/);
    // Checking again finds the values it wrote unchanged: nothing would log them.
    const third = await run();
    expect(third.runLog).toMatch(/no changes/);
  } finally {
    await sb.close();
  }
});
