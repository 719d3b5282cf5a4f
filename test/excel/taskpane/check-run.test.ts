/**
 * "Check selected rows" end to end in Node: the task pane's sheet I/O and run logic against the real sandbox over HTTP,
 * with the Excel stand-in (test/excel/standin) as the workbook. Values, colours, per-row errors, in-place re-runs,
 * formula safety, cancel and resume.
 */
import { OUTPUT_COLUMNS, STATUS_COLOURS, createClient, outputHeaders, outputRow, type PlanName } from "../../../core";
import { memoryStore } from "../../../excel/settings";
import {
  prepareCheck,
  resumeRun,
  runCheck,
  summaryText,
  type ExcelRun,
  type RunProgress,
} from "../../../excel/taskpane/check-run";
import { loadUnfinished } from "../../../excel/taskpane/unfinished";
import { UNFINISHED_KEY } from "../../../excel/taskpane/stored";
import { insertAddress, writeOutputRows } from "../../../excel/taskpane/sheet";
import { checkResultFor } from "../../../sandbox/dataset";
import { testClock, type TestClock } from "../../helpers/clock";
import { knownUprns, sandbox, startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { colLetters, createStandIn } from "../../helpers/excel-standin";

let sb: Sandbox;
let examples: Record<string, any>;
beforeAll(async () => {
  sb = await sandbox(0);
  examples = await (await fetch(`${sb.url}/__sandbox/examples`)).json();
});
afterAll(() => sb.close());

function workbook() {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  return { s, excelRun, api: s.api };
}
function client(base = sb.baseUrl, apiKey = "sandbox-professional") {
  return createClient({ baseUrl: base, apiKey, fetch: (u, i) => fetch(u, i as RequestInit) as never });
}
/** A client whose waits, timeouts and time are the test clock's (the sandbox given clock.date shares it). */
function clockClient(clock: TestClock, base: string) {
  return createClient({
    baseUrl: base,
    apiKey: "sandbox-professional",
    fetch: clock.fetch((u, i) => fetch(u, i as RequestInit) as never),
    sleep: clock.sleep,
    now: clock.now,
  });
}
/** What a run on the test clock is given: the client on that clock, its sleep and its now, the Professional plan. */
function clockRun(clock: TestClock, base: string) {
  return { client: clockClient(clock, base), plan: "professional" as const, sleep: clock.sleep, now: clock.now };
}

const col = (header: string) => OUTPUT_COLUMNS.findIndex((c) => c.header === header);

function seedSheet(api: any) {
  const st = examples.uprn_by_check_status;
  api.seed("Sheet1", "A1", [
    ["UPRN", "Postcode", "Address", "My notes"],
    [st.epc.pass, "", "", "keep me 1"],
    [st.epc.fail, "", "", "keep me 2"],
    ["12ab", "", "", "keep me 3"],
    [st.gas_safety.fail, "", "", ""],
    ["", examples.single_property_postcode, "", ""],
    [examples.unknown_uprn, "", "", ""],
    [st.epc.pass, "", "", "duplicate"],
    ["", "", "1 Nowhere Street", "no postcode"],
  ]);
  api.select("Sheet1", "A1:A9");
}

test("writes results, colours and per-row errors beside the data; a second run updates in place", async () => {
  const { excelRun, api } = workbook();
  seedSheet(api);
  const plan: PlanName = "professional";
  const prep = await prepareCheck(excelRun, { plan });
  if (!prep.ok) throw new Error(prep.message);
  expect(prep.check.rows).toHaveLength(8);
  expect(prep.check.problems).toEqual([
    { row: 4, message: expect.stringMatching(/UPRN "12ab"/) },
    { row: 9, message: expect.stringMatching(/needs its postcode/) },
  ]);
  expect(prep.check.origin).toEqual({ sheet: "Sheet1", rowIndex: 0, columnIndex: 4 }); // E: after the user's 4 columns
  expect(prep.check.distinct).toBe(5);

  sb.reset();
  const summary = await runCheck(prep.check, { excelRun, client: client(), plan });
  expect(sb.stats().bulk_submit).toBe(1);
  expect(summary.rowsWritten).toBe(8);

  const last = colLetters(4 + OUTPUT_COLUMNS.length - 1);
  const out = api.read("Sheet1", `E1:${last}9`);
  expect(out.values[0]).toEqual(outputHeaders());
  const ds = sb.dataset();
  const st = examples.uprn_by_check_status;
  const score = col("Compliance score");
  const epcStatus = col("EPC status");
  const message = col("Message");
  expect(out.values[1][score]).toBe(checkResultFor(ds.byUprn.get(st.epc.pass)!).compliance_score);
  expect(out.values[1][epcStatus]).toBe("pass");
  expect(out.fills[1][epcStatus]).toBe(STATUS_COLOURS.pass.fill);
  expect(out.fonts[1][epcStatus]).toBe(STATUS_COLOURS.pass.font);
  expect(out.values[2][epcStatus]).toBe("fail");
  expect(out.fills[2][epcStatus]).toBe(STATUS_COLOURS.fail.fill);
  expect(out.values[4][col("Gas safety status")]).toBe("fail");
  // Per-row errors: in the row's Message, status cells say "error" in the error colour.
  expect(out.values[3][message]).toMatch(/UPRN "12ab"/);
  expect(out.values[3][epcStatus]).toBe("error");
  expect(out.fills[3][epcStatus]).toBe(STATUS_COLOURS.error.fill);
  expect(out.values[5][col("Matched UPRN")]).toBe(ds.byPostcode.get(examples.single_property_postcode)![0].uprn);
  expect(out.values[6][message]).toMatch(/not found|No property/i);
  // A copy of row 2's property: the same result, and its Message says which row was checked (as in Google Sheets).
  expect(out.values[7]).toEqual(
    out.values[1].map((v: unknown, i: number) => (i === message ? "Same property as row 2; checked once." : v)),
  );
  expect(out.values[8][message]).toMatch(/needs its postcode/);
  // Dates are real dates (a serial with the yyyy-mm-dd format), the day the service gave; nothing became a formula.
  expect(typeof out.values[1][col("EPC expiry")]).toBe("number");
  expect(out.numberFormats[1][col("EPC expiry")]).toBe("yyyy-mm-dd");
  expect(out.formulas.flat().filter(Boolean)).toEqual([]);
  // The user's columns are untouched.
  expect(api.read("Sheet1", "D1:D9").values.flat()).toEqual([
    "My notes",
    "keep me 1",
    "keep me 2",
    "keep me 3",
    "",
    "",
    "",
    "duplicate",
    "no postcode",
  ]);

  // Second run, selecting one cell: same block, updated in place, no second block.
  api.select("Sheet1", "B3");
  const again = await prepareCheck(excelRun, { plan });
  if (!again.ok) throw new Error(again.message);
  expect(again.check.inPlace).toBe(true);
  expect(again.check.origin.columnIndex).toBe(4);
  await runCheck(again.check, { excelRun, client: client(), plan });
  const after = api.read("Sheet1", `E1:${colLetters(4 + 2 * OUTPUT_COLUMNS.length)}9`);
  expect(after.values[0].slice(0, OUTPUT_COLUMNS.length)).toEqual(outputHeaders());
  expect(after.values.flat().slice(OUTPUT_COLUMNS.length + 1).length).toBeGreaterThan(0);
  expect(after.values.map((r: unknown[]) => r.slice(OUTPUT_COLUMNS.length).every((v) => v === ""))).toEqual(
    Array(9).fill(true),
  );
  expect(after.values[1][score]).toBe(out.values[1][score]);
});

test("a key the service rejects is reported for the whole run and on every row", async () => {
  const { excelRun, api } = workbook();
  seedSheet(api);
  const prep = await prepareCheck(excelRun, { plan: "professional" });
  if (!prep.ok) throw new Error(prep.message);
  const summary = await runCheck(prep.check, {
    excelRun,
    client: client(sb.baseUrl, "sandbox-no-api"),
    plan: "professional",
  });
  expect(summary.fatal).toMatch(/plan/i);
  expect(summary.failure?.kind).toBe("forbidden");
  const out = api.read("Sheet1", `E2:${colLetters(4 + OUTPUT_COLUMNS.length - 1)}2`);
  expect(out.values[0][col("Message")]).toMatch(/no API access/);
  // A key that is not valid: described for a person, not the service's "send Authorization: Bearer <API key>".
  const bad = await runCheck(prep.check, {
    excelRun,
    client: client(sb.baseUrl, "not-a-real-key"),
    plan: "professional",
  });
  expect(bad.failure?.kind).toBe("auth");
  expect(bad.fatal).toMatch(/key/i);
  expect(bad.fatal).not.toMatch(/Bearer|Authorization/);
});

test("a failure that hits every row sent gets one message for the whole run, whatever its kind: a wrong base URL, a refused job, a server error", async () => {
  const { excelRun, api } = workbook();
  seedSheet(api);
  const prep = await prepareCheck(excelRun, { plan: "professional" });
  if (!prep.ok) throw new Error(prep.message);
  const wrongBase = await runCheck(prep.check, {
    excelRun,
    client: client(`${sb.url}/nothing-here/v1`),
    plan: "professional",
  });
  expect(wrongBase.notRefreshed).toBe(6);
  expect(wrongBase.fatal).toMatch(/base URL/);

  sb.reset();
  sb.setFaults([{ kind: "error_500", route: "bulk_submit" }]);
  try {
    const down = await runCheck(prep.check, { excelRun, client: client(), plan: "professional" });
    expect(down.fatal).toBeDefined();
    expect(down.failure?.kind).not.toBe("auth");
  } finally {
    sb.setFaults([]);
  }

  // Rows the service did answer: no banner, whatever some rows say.
  const ok = await runCheck(prep.check, { excelRun, client: client(), plan: "professional" });
  expect(ok.fatal).toBeUndefined();
  expect(ok.failure).toBeUndefined();
});

test("a re-run the service fails is not reported as done: earlier values are kept, left out of the counts, and the progress never looks complete", async () => {
  const { excelRun, api } = workbook();
  seedSheet(api);
  const prep = await prepareCheck(excelRun, { plan: "professional" });
  if (!prep.ok) throw new Error(prep.message);
  const first = await runCheck(prep.check, { excelRun, client: client(), plan: "professional" });
  expect(first.refreshed).toBe(6);
  expect(first.rowErrors).toBe(3); // 2 never sent (invalid UPRN, no postcode), 1 not found
  expect(Object.values(first.byStatus).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  expect(summaryText(first)).toMatch(/^Done\. 8 rows checked, 3 with errors/);

  const again = await prepareCheck(excelRun, { plan: "professional" });
  if (!again.ok) throw new Error(again.message);
  sb.setFaults([{ kind: "error_500", route: "bulk_submit" }]);
  const seen: RunProgress[] = [];
  try {
    const failed = await runCheck(again.check, {
      excelRun,
      client: client(),
      plan: "professional",
      onProgress: (p) => seen.push(p),
    });
    expect(failed.refreshed).toBe(0);
    expect(failed.notRefreshed).toBe(6);
    expect(failed.kept).toBe(6);
    expect(failed.byStatus).toEqual({});
    const text = summaryText(failed);
    // core's runSummary words (one engine, one policy): a 500 on the submit means the job may exist, so it is not re-sent.
    expect(text).toMatch(/^Finished with problems\. 2 of 8 rows checked/);
    expect(text).toMatch(/6 rows not checked: sending their job failed and the service may have created it/);
    expect(text).toMatch(/The earlier values are kept\./);
    expect(text).not.toMatch(/Done|pass/);
    const last = seen[seen.length - 1];
    expect(last).toMatchObject({ rowsTotal: 8, rowsChecked: 2, rowsNotRefreshed: 6 });
  } finally {
    sb.setFaults([]);
  }
  // The sheet still shows the first run's values, each row saying it was not refreshed.
  const out = api.read("Sheet1", `E2:${colLetters(4 + OUTPUT_COLUMNS.length - 1)}2`);
  expect(out.values[0][col("EPC status")]).toBe("pass");
  expect(out.values[0][col("Message")]).toMatch(/^Not refreshed at/);
});

test("the column chooser is offered only where it can help, with the columns found already chosen", async () => {
  const { excelRun, api } = workbook();
  api.seed("Sheet1", "A1", [
    ["Ref", "Address", "PC"],
    ["r1", "10 Downing Street", "SW1A 2AA"],
  ]);
  api.select("Sheet1", "A1");
  const auto = await prepareCheck(excelRun, { plan: "professional" });
  if (auto.ok) throw new Error("expected no UPRN or Postcode column");
  expect(auto.headers).toEqual(["A (Ref)", "B (Address)", "C (PC)"]);
  expect(auto.found).toEqual({ address: 1 });
  expect(auto.hasHeader).toBe(true);

  // Numbers in the first row: no header to read, nothing to preselect.
  const b = workbook();
  b.api.seed("Sheet1", "A1", [
    [examples.uprn_by_check_status.epc.pass, "x"],
    [examples.uprn_by_check_status.epc.fail, "y"],
  ]);
  b.api.select("Sheet1", "A1:B2");
  const bare = await prepareCheck(b.excelRun, { plan: "professional" });
  if (bare.ok) throw new Error("expected the chooser");
  expect(bare.found).toEqual({});
  expect(bare.hasHeader).toBe(false);

  // A header with no rows under it: choosing columns cannot help, so none are offered.
  const c = workbook();
  c.api.seed("Sheet1", "A1", [["UPRN", "Notes"]]);
  c.api.select("Sheet1", "A1:B1");
  const empty = await prepareCheck(c.excelRun, { plan: "professional" });
  if (empty.ok) throw new Error("expected no data rows");
  expect(empty.message).toMatch(/no data rows/);
  expect(empty.headers).toEqual([]);
});

test("the place for results must be free: a user's column there is never overwritten, the block goes after it", async () => {
  const { excelRun, api } = workbook();
  api.seed("Sheet1", "A1", [["UPRN"], ["100023336956"]]);
  api.seed("Sheet1", "C1", [["Someone else's"], ["data"]]);
  api.select("Sheet1", "A1:A2");
  const prep = await prepareCheck(excelRun, { plan: "professional" });
  if (!prep.ok) throw new Error(prep.message);
  expect(prep.check.origin.columnIndex).toBe(4); // E: C is the user's, D is left blank between
  const W = OUTPUT_COLUMNS.length;
  expect(
    prep.check.placement.startsWith(
      `Results go in columns E:${colLetters(4 + W - 1)}, after the last column in use (C), so none of your columns is overwritten.`,
    ),
  ).toBe(true);
  await runCheck(prep.check, { excelRun, client: client(), plan: "professional" });
  expect(api.read("Sheet1", "C1:C2").values.flat()).toEqual(["Someone else's", "data"]);
  expect(api.read("Sheet1", "E1").values[0][0]).toBe(OUTPUT_COLUMNS[0].header);
});

test("without recognisable headers the user maps the columns by hand", async () => {
  const { excelRun, api } = workbook();
  api.seed("Sheet1", "A1", [
    ["Ref", "PC"],
    [examples.uprn_by_check_status.epc.pass, ""],
  ]);
  api.select("Sheet1", "A1");
  const auto = await prepareCheck(excelRun, { plan: "professional" });
  expect(auto.ok).toBe(false);
  expect((auto as { headers: string[] }).headers).toEqual(["A (Ref)", "B (PC)"]);
  const manual = await prepareCheck(excelRun, {
    plan: "professional",
    mapping: { uprn: 0, postcode: 1 },
    hasHeader: true,
  });
  if (!manual.ok) throw new Error(manual.message);
  expect(manual.check.rows).toHaveLength(1);
  expect(manual.check.rows[0].property).toEqual({ uprn: examples.uprn_by_check_status.epc.pass });
});

test("text from the service that starts with = + - @ is written as text, never as a formula", async () => {
  const { excelRun, api } = workbook();
  api.seed("Sheet1", "A1", [["x"]]);
  const evil = {
    uprn: "1",
    address: '=HYPERLINK("http://evil.example","click")',
    compliance_score: 50,
    risk_level: "+cmd",
    checks: { eicr: { status: "fail", detail: "@SUM(A1)" }, licensing: { status: "pass", scheme: "-1+1" } },
    last_updated: "2026-11-20T09:12:44Z",
  };
  const row = outputRow({ result: evil as never }, "2026-11-22T10:00:00Z");
  await excelRun((ctx) => writeOutputRows(ctx, { sheet: "Sheet1", rowIndex: 0, columnIndex: 2 }, [row], [0]));
  const out = api.read("Sheet1", `C1:${colLetters(2 + OUTPUT_COLUMNS.length - 1)}1`);
  expect(out.formulas.flat().filter(Boolean)).toEqual([]);
  expect(out.values[0][col("Matched address")]).toBe(evil.address);
  expect(out.values[0][col("Risk level")]).toBe("+cmd");
  expect(out.values[0][col("EICR detail")]).toBe("@SUM(A1)");
  expect(out.values[0][col("Licensing scheme")]).toBe("-1+1");
  // The stand-in does turn such text into a formula when written naively, so the check above can fail.
  api.seed("Sheet1", "A5", [[""]]);
  await excelRun(async (ctx) => {
    ctx.workbook.worksheets.getItem("Sheet1").getRange("A5").values = [[evil.address]];
    await ctx.sync();
  });
  expect(api.read("Sheet1", "A5").formulas[0][0]).toBe(evil.address);
});

test("10,000 result rows take a bounded number of syncs, each under the 5 MB request limit", async () => {
  const { excelRun, api, s } = workbook();
  const base = sb
    .dataset()
    .properties.slice(0, 50)
    .map((p) => checkResultFor(p));
  // 50 results made into rows once, repeated: the write is what is measured, not making its rows.
  const made = base.map((r) => outputRow({ result: r as never }, "2026-11-22T10:00:00Z"));
  const block = Array.from({ length: 10_000 }, (_, i) => made[i % 50]);
  const stats = await excelRun((ctx) =>
    writeOutputRows(ctx, { sheet: "Sheet1", rowIndex: 1, columnIndex: 3 }, block, block.keys()),
  );
  console.log(
    `[excel writes] 10,000 rows: ${stats.syncs} syncs, ${stats.chunks} chunks, largest request ${(s.api.state.stats.maxRequestBytes / 1e6).toFixed(2)} MB`,
  );
  expect(stats.syncs).toBeLessThanOrEqual(10);
  expect(stats.syncs).toBeGreaterThanOrEqual(2);
  expect(s.api.state.stats.maxRequestBytes).toBeLessThan(5 * 1024 * 1024);
  expect(api.read("Sheet1", "D10001").values[0][0]).toBe(block[9999][0]);
  // Without chunking the same write exceeds the limit, which the stand-in enforces as Excel on the web does.
  await expect(
    excelRun((ctx) =>
      writeOutputRows(ctx, { sheet: "Sheet1", rowIndex: 1, columnIndex: 3 }, block, block.keys(), {
        maxBytes: 1e9,
        maxRows: 1e9,
      }),
    ),
  ).rejects.toThrow(/RequestPayloadSizeLimitExceeded/);
});

test("Cancel stops the run: every row ends with values or a message, the job already sent stays collectable, and Resume fills the rest without a new job", async () => {
  const clock = testClock();
  const slow = await startTestSandbox({ msPerProperty: 10, now: clock.date });
  try {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(slow, 300);
    api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    api.select("Sheet1", "A1");
    const store = memoryStore();
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (!prep.ok) throw new Error(prep.message);
    const abort = new AbortController();
    // The job needs about 3 s; the user cancels 400 ms into the run's first wait for it (the wait given the run's
    // signal), on the test clock: the moment is the run's, not the machine's.
    const sleep = (ms: number, signal?: AbortSignal) => {
      const done = clock.sleep(ms, signal);
      if (signal === abort.signal && !abort.signal.aborted) {
        clock.advance(400);
        abort.abort();
      }
      return done;
    };
    const summary = await runCheck(prep.check, {
      excelRun,
      ...clockRun(clock, slow.baseUrl),
      store,
      signal: abort.signal,
      sleep,
    });
    expect(abort.signal.aborted).toBe(true);
    expect(summary.cancelled).toBe(true);
    expect(summary.title).toBe("Stopped");
    expect(summary.resumable).toBe(true);
    const out = api.read("Sheet1", `B2:${colLetters(OUTPUT_COLUMNS.length)}301`);
    const message = col("Message");
    const blank = out.values.filter((r: unknown[]) => r[col("EPC status")] === "" && r[message] === "");
    expect(blank).toEqual([]);
    const waiting = out.values.filter((r: unknown[]) =>
      /^Checking… (\(run \w+\) )?Stopped before/.test(String(r[message])),
    ).length;
    expect(waiting).toBeGreaterThan(0);
    expect(out.values.filter((r: unknown[]) => r[col("Matched UPRN")] !== "").length).toBe(300 - waiting);
    expect(summary.cancelledRows).toBe(waiting);
    expect(summary.refreshed).toBe(300 - waiting);
    expect(summaryText(summary)).toMatch(
      new RegExp(
        `^Stopped\\. ${300 - waiting} of 300 rows checked\\.\\n${waiting} rows are in jobs already sent: choose Resume`,
      ),
    );
    const before = slow.stats().bulk_submit;
    const resumed = await resumeRun((await loadUnfinished(store))!, {
      excelRun,
      ...clockRun(clock, slow.baseUrl),
      store,
    });
    expect(slow.stats().bulk_submit).toBe(before);
    expect(resumed.title).toBe("Done");
    expect(
      api
        .read("Sheet1", `B2:${colLetters(OUTPUT_COLUMNS.length)}301`)
        .values.map((r: unknown[]) => r[col("Matched UPRN")]),
    ).toEqual(uprns);
    expect(await loadUnfinished(store)).toBeNull();
  } finally {
    await slow.close();
  }
});

test("jobs left running when the pane closed are resumed and their results written", async () => {
  const clock = testClock();
  const slow = await startTestSandbox({ msPerProperty: 5, now: clock.date });
  try {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(slow, 200);
    api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    api.select("Sheet1", "A1");
    const store = memoryStore();
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (!prep.ok) throw new Error(prep.message);
    // The pane "closes" as soon as the job is submitted: keep what it saved, stop the run.
    const abort = new AbortController();
    let saved: string | null = null;
    const spy = {
      ...store,
      setItem: async (k: string, v: string) => {
        if (k === UNFINISHED_KEY) saved = v;
        await store.setItem(k, v);
        abort.abort();
      },
    };
    await runCheck(prep.check, {
      excelRun,
      ...clockRun(clock, slow.baseUrl),
      store: spy,
      signal: abort.signal,
    });
    expect(saved).not.toBeNull();
    await store.setItem(UNFINISHED_KEY, saved!);

    const run = await loadUnfinished(store);
    expect(run!.state.jobs).toHaveLength(1);
    const before = slow.stats().bulk_submit;
    const summary = await resumeRun(run!, {
      excelRun,
      ...clockRun(clock, slow.baseUrl),
      store,
    });
    expect(slow.stats().bulk_submit).toBe(before); // resumed, not resubmitted
    expect(summary.rowsWritten).toBe(200);
    expect(summary.errors).toBe(0);
    const out = api.read("Sheet1", `B2:${colLetters(OUTPUT_COLUMNS.length)}201`);
    expect(out.values.every((r: unknown[], i: number) => r[col("Matched UPRN")] === uprns[i])).toBe(true);
    expect(await loadUnfinished(store)).toBeNull();
  } finally {
    await slow.close();
  }
});

// Big enough that the table and our block span several 2 MB read chunks (a size figure belongs in npm run bench).
test("a re-run in place over 8,000 rows reads the table and our block in chunks, each response under Excel on the web's 5 MB", async () => {
  const { excelRun, api, s } = workbook();
  const props = sb.dataset().properties;
  const n = 8_000;
  const rows = Array.from({ length: n }, (_, i) => [props[i % props.length].uprn, "", "", `note ${i}`]);
  // Our block from an earlier run, as runCheck wrote it: header row plus one result row each.
  const results = props.slice(0, 50).map((p) => checkResultFor(p));
  const made = results.map((r) => outputRow({ result: r as never }, "2026-11-22T10:00:00Z"));
  const ours = rows.map((_r, i) => made[i % 50]);
  api.seed("Sheet1", "A1", [["UPRN", "Postcode", "Address", "Notes"], ...rows]);
  api.seed("Sheet1", "E1", [outputHeaders(), ...ours]);
  api.select("Sheet1", "A1");
  api.resetStats();
  const prep = await prepareCheck(excelRun, { plan: "enterprise" });
  if (!prep.ok) throw new Error(prep.message);
  expect(prep.check.inPlace).toBe(true);
  expect(prep.check.origin).toEqual({ sheet: "Sheet1", rowIndex: 0, columnIndex: 4 });
  expect(prep.check.rows).toHaveLength(n);
  // Chunks are stitched back in order: the last row read is the last row written.
  expect(prep.check.rows[n - 1].property).toEqual({ uprn: rows[n - 1][0] });
  expect(prep.check.previous[n]).toEqual(ours[n - 1]);
  expect(s.api.state.stats.maxResponseBytes).toBeLessThan(5 * 1024 * 1024);
  // In pieces: what was read (the table and our block) is several times the largest single response.
  const readBytes = JSON.stringify(rows).length + JSON.stringify(ours).length;
  expect(readBytes).toBeGreaterThan(2 * s.api.state.stats.maxResponseBytes);
  expect(s.api.state.stats.syncs).toBeLessThan(40);
  console.log(
    `[excel reads] re-run prepare over ${n} rows: ${s.api.state.stats.syncs} syncs, largest response ${(s.api.state.stats.maxResponseBytes / 1e6).toFixed(2)} MB`,
  );
});

test("a final write refused while the user edits a cell is retried until Excel accepts it; past the retry budget the resume record stays and Resume writes the results", async () => {
  // On the test clock: the job, the run's retries and the user's 0.6 s in the cell take no real time.
  const clock = testClock();
  const slow = await startTestSandbox({ msPerProperty: 2, now: clock.date });
  try {
    const uprns = knownUprns(slow, 300);
    // 1. Editing for 0.6 s when the last results arrive: they are written once the user presses Enter.
    const { excelRun, api } = workbook();
    api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    api.select("Sheet1", "A1");
    const store = memoryStore();
    const notices: string[] = [];
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (!prep.ok) throw new Error(prep.message);
    const summary = await runCheck(prep.check, {
      excelRun,
      ...clockRun(clock, slow.baseUrl),
      store,
      onNotice: (t) => notices.push(t),
      onProgress: (p) => {
        if (p.rowsDone === p.rowsTotal && !api.state.cellEditMode) {
          api.setCellEditMode(true);
          void clock.sleep(600).then(() => api.setCellEditMode(false));
        }
      },
    });
    expect(summary.rowsWritten).toBe(300);
    const out = api.read("Sheet1", `B2:${colLetters(OUTPUT_COLUMNS.length)}301`);
    expect(out.values.map((r: unknown[]) => r[col("Matched UPRN")])).toEqual(uprns);
    expect(notices.some((t) => /finish editing the cell/.test(t))).toBe(true);
    expect(await loadUnfinished(store)).toBeNull();

    // 2. Still editing when the retries run out: the run says what to do, and the record stays for Resume.
    const w2 = workbook();
    w2.api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    w2.api.select("Sheet1", "A1");
    const store2 = memoryStore();
    const prep2 = await prepareCheck(w2.excelRun, { plan: "professional" });
    if (!prep2.ok) throw new Error(prep2.message);
    await expect(
      runCheck(prep2.check, {
        excelRun: w2.excelRun,
        ...clockRun(clock, slow.baseUrl),
        store: store2,
        writeRetryMs: 300,
        onProgress: (p) => {
          if (p.rowsDone === p.rowsTotal) w2.api.setCellEditMode(true);
        },
      }),
    ).rejects.toThrow(/finish editing the cell.*Resume/);
    const kept = await loadUnfinished(store2);
    expect(kept).not.toBeNull();
    w2.api.setCellEditMode(false);
    const resumed = await resumeRun(kept!, {
      excelRun: w2.excelRun,
      ...clockRun(clock, slow.baseUrl),
      store: store2,
    });
    expect(resumed.errors).toBe(0);
    expect(
      w2.api
        .read("Sheet1", `B2:${colLetters(OUTPUT_COLUMNS.length)}301`)
        .values.map((r: unknown[]) => r[col("Matched UPRN")]),
    ).toEqual(uprns);
    expect(await loadUnfinished(store2)).toBeNull();
  } finally {
    await slow.close();
  }
});

test("Cancel during a resume ends the wait between polls at once", async () => {
  // On the test clock: the job, the poll's wait and the cancel 300 ms into it are all on one clock, and the cancel is
  // pressed from inside the run's own wait, so the measure is what the run waited, not how busy the machine is.
  const clock = testClock();
  // A job of 300 properties at 2 s each: however long the machine takes between the submit and the resume's first poll,
  // the job is far from done then, so the run has a wait of seconds ahead of it.
  const slow = await startTestSandbox({ msPerProperty: 2000, now: clock.date });
  const client = (base: string) => clockClient(clock, base);
  try {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(slow, 300);
    api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    api.select("Sheet1", "A1");
    const store = memoryStore();
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (!prep.ok) throw new Error(prep.message);
    // The pane closes once the job is submitted; it is reopened with what was saved then (a record saved while the
    // submit was in flight says the job may exist, and a resume of it has nothing to collect).
    const stop = new AbortController();
    let saved: string | null = null;
    const submitted = (v: string) =>
      (JSON.parse(v) as { state: { jobs: { poll?: unknown }[] } }).state.jobs.some((j) => j.poll);
    const spy = {
      ...store,
      setItem: async (_k: string, v: string) => {
        if (saved === null && submitted(v)) {
          saved = v;
          stop.abort();
        }
      },
    };
    await runCheck(prep.check, {
      excelRun,
      client: client(slow.baseUrl),
      plan: "professional",
      store: spy,
      signal: stop.signal,
      sleep: clock.sleep,
      now: clock.now,
    });
    expect(saved).not.toBeNull();
    await store.setItem(UNFINISHED_KEY, saved!);
    const run = await loadUnfinished(store);
    // The first poll asks to wait seconds (the wait between polls is the one given the run's signal: a request's
    // timeout and a write's retry are not); the user presses Cancel 300 ms into it.
    const cancel = new AbortController();
    // Each wait of the resumed run, and how much of it was left when it ended.
    const waits: { ms: number; left: number; betweenPolls: boolean }[] = [];
    const sleep = (ms: number, signal?: AbortSignal) => {
      const due = clock.now() + ms;
      const betweenPolls = signal === cancel.signal;
      const done = clock.sleep(ms, signal).then(() => void waits.push({ ms, left: due - clock.now(), betweenPolls }));
      if (betweenPolls && !cancel.signal.aborted) {
        clock.advance(300);
        cancel.abort();
      }
      return done;
    };
    const summary = await resumeRun(run!, {
      excelRun,
      client: client(slow.baseUrl),
      plan: "professional",
      store,
      signal: cancel.signal,
      sleep,
      now: clock.now,
    });
    expect(summary.cancelled).toBe(true);
    // The run's last wait, the one between polls (seconds), ended when Cancel was pressed, with most of it left.
    const last = waits[waits.length - 1];
    expect(last.betweenPolls).toBe(true);
    expect(last.ms).toBeGreaterThanOrEqual(1000);
    expect(last.left).toBeGreaterThan(last.ms - 1000);
  } finally {
    await slow.close();
  }
});

test("Insert UPRN and address: the UPRN in the active cell, the address in the table's Address column; a filled cell is never overwritten, formats change only where written", async () => {
  // A table with an Address column that already holds something: the postcode beside the UPRN is left alone.
  const t = workbook();
  t.api.seed("Sheet1", "A1", [
    ["UPRN", "Postcode", "Address"],
    ["", "SW1A 2AA", "10 Downing Street"],
    ["", "SW1A 2AA", ""],
  ]);
  t.api.select("Sheet1", "A2");
  const r1 = await t.excelRun((ctx) => insertAddress(ctx, "100023336956", "10 Downing Street, London, SW1A 2AA"));
  expect(r1.uprnAt).toBe("A2");
  expect(r1.addressAt).toBeUndefined();
  expect(r1.skipped).toMatch(/^C2 already holds "10 Downing Street"/);
  const row2 = t.api.read("Sheet1", "A2:C2");
  expect(row2.values[0]).toEqual(["100023336956", "SW1A 2AA", "10 Downing Street"]);
  expect(row2.numberFormats[0]).toEqual(["@", "General", "General"]);
  // An empty Address cell in the table gets the address, whatever stands between.
  t.api.select("Sheet1", "A3");
  const r2 = await t.excelRun((ctx) => insertAddress(ctx, "000950089293", "=1 Evil Road"));
  expect(r2).toEqual({ uprnAt: "A3", addressAt: "C3" });
  const row3 = t.api.read("Sheet1", "A3:C3");
  expect(row3.values[0]).toEqual(["000950089293", "SW1A 2AA", "=1 Evil Road"]);
  expect(row3.formulas[0]).toEqual([null, null, null]);
  expect(row3.numberFormats[0]).toEqual(["@", "General", "@"]);

  // No Address column: the cell to the right, only when it is empty.
  const u = workbook();
  u.api.seed("Sheet1", "A1", [
    ["UPRN", "Notes"],
    ["", "keep me"],
    ["", ""],
  ]);
  u.api.select("Sheet1", "A2");
  const r3 = await u.excelRun((ctx) => insertAddress(ctx, "100023336956", "10 Downing Street"));
  expect(r3.skipped).toMatch(/^B2 already holds "keep me"/);
  expect(u.api.read("Sheet1", "A2:B2").values[0]).toEqual(["100023336956", "keep me"]);
  expect(u.api.read("Sheet1", "B2").numberFormats[0][0]).toBe("General");
  u.api.select("Sheet1", "A3");
  expect(await u.excelRun((ctx) => insertAddress(ctx, "100023336956", "10 Downing Street"))).toEqual({
    uprnAt: "A3",
    addressAt: "B3",
  });
  expect(u.api.read("Sheet1", "A3:B3").values[0]).toEqual(["100023336956", "10 Downing Street"]);
});

test("rows on a sheet the add-in builds itself (Action list, Run log, ...) are refused at once, as in Google Sheets (core's ownSheetProblem)", async () => {
  for (const name of ["Action list", "Run log", "Change log", "Compliance summary"]) {
    const { excelRun, api } = workbook();
    api.seed(name, "A1", [
      ["UPRN", "Address"],
      [examples.uprn_by_check_status.epc.pass, "x"],
    ]);
    api.select(name, "A1:B2");
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (prep.ok) throw new Error(`${name}: expected a refusal`);
    expect(prep.message).toBe(
      `"${name}" is a sheet the add-in builds itself (it is written again after every check), so its rows cannot be checked. Select rows of your own table of properties, then check again.`,
    );
  }
});

test("the header row selected: the whole table, to its first fully blank row (a row with only a note is the table's), as in Google Sheets (core's wholeTableSelected / rowsOfWholeTable)", async () => {
  // Before: Excel said "The selection has no data rows" for a selected header row, where Sheets checked the table.
  const st = examples.uprn_by_check_status;
  const { excelRun, api } = workbook();
  api.seed("Sheet1", "A1", [
    ["UPRN", "Postcode", "Notes"],
    [st.epc.pass, "", ""],
    ["", "", "sold in May"],
    [st.epc.fail, "", ""],
    ["", "", ""],
    ["UPRN", "Postcode", ""],
    [st.epc.pass, "", ""],
  ]);
  for (const sel of ["A1:C1", "A1:B1", "A1"]) {
    api.select("Sheet1", sel);
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (!prep.ok) throw new Error(`${sel}: ${prep.message}`);
    expect(prep.check.rows.map((r) => r.index)).toEqual([1, 2, 3]);
    expect(prep.check.rows[1].error?.code).toBe("empty_row");
  }
});
