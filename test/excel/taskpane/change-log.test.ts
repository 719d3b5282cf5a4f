/**
 * The Change log and the Run log in Excel: check, move the sandbox's clock
 * 60 days, check again. The Change log lists exactly the fields that changed, the expected set worked out here from
 * the sandbox's own answers on the two days; the Run log has one row per run. Node, the Excel stand-in, real HTTP.
 */
import { CHANGE_LOG_HEADERS, OUTPUT_COLUMNS, RUN_LOG_HEADERS, createClient } from "../../../core";
import { expectedChanges, loggedKey, recheckUprns } from "../../helpers/changes";
import { memoryStore } from "../../../excel/settings";
import { prepareCheck, resumeRun, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { loadUnfinished } from "../../../excel/taskpane/unfinished";
import { localDay } from "../../../excel/taskpane/stored";
import { dayClock, testClock } from "../../helpers/clock";
import { colLetters, createStandIn } from "../../helpers/excel-standin";
import { startTestSandbox } from "../../helpers/sandbox";

const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");

const DAY1 = "2027-01-31";

test("run, move the clock 60 days, run again: exactly the changed fields are logged, and two runs", async () => {
  // The pane's clock from noon of DAY1: both runs are on DAY1, the day the Change log's rows are expected on.
  const clock = dayClock(DAY1);
  const sb = await startTestSandbox({ today: DAY1, now: clock.date });
  try {
    const ds1 = sb.dataset();
    // Properties whose dates cross a threshold in 60 days, and ordinary ones.
    const uprns = recheckUprns(ds1, 120);

    const s = createStandIn();
    const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
    s.api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    const client = createClient({
      baseUrl: sb.baseUrl,
      apiKey: "sandbox-professional",
      fetch: (u, i) => fetch(u, i as RequestInit) as never,
      now: clock.now,
    });

    const run = async () => {
      s.api.select("Sheet1", `A1:A${uprns.length + 1}`);
      const prep = await prepareCheck(excelRun, { plan: "professional" });
      if (!prep.ok) throw new Error(prep.message);
      return runCheck(prep.check, { excelRun, client, plan: "professional", now: clock.now });
    };
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
