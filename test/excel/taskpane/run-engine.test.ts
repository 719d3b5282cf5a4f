/**
 * The task pane's bulk check driving core's run engine (core/run.ts, core/run/drive.ts), against the real sandbox over
 * loopback HTTP with the Excel stand-in as the workbook: results follow their property when the user sorts, inserts or
 * deletes rows or columns mid-run; edited rows are said, not overwritten; nothing paid for is lost when writes are
 * refused or the quota runs out; a submit spoiled after its job was made is never sent twice; hidden rows are skipped.
 */
import { OUTPUT_COLUMNS, createClient, runSummary, type PlanName } from "../../../core";
import { memoryStore } from "../../../excel/settings";
import {
  prepareCheck,
  resumeRun,
  runCheck,
  summaryText,
  type ExcelRun,
  type RunDeps,
} from "../../../excel/taskpane/check-run";
import { loadUnfinished, unfinishedText } from "../../../excel/taskpane/unfinished";
import type { SandboxOptions } from "../../../sandbox/app";
import { testClock } from "../../helpers/clock";
import {
  MATCHED,
  MESSAGE,
  OUTPUT_WIDTH as WIDTH,
  colLetters,
  deleteColumns,
  workbook,
} from "../../helpers/excel-workbook";
import { knownUprns, startTestSandbox, type Sandbox } from "../../helpers/sandbox";

const DAY = 86_400_000;

/** One clock for the sandbox's jobs and the pane's waits: a job of 20 at 400 ms a property takes 8 s on it, not in real time. */
const clock = testClock();

function start(opts: SandboxOptions = {}): Promise<Sandbox> {
  return startTestSandbox({ now: clock.date, ...opts });
}

/** A client whose fetch lets a test act on the sheet right after a given request's answer (before it is written). */
function clientWith(
  sb: Sandbox,
  after?: (req: {
    method: string;
    url: string;
    body?: string;
    n: { post: number; get: number };
  }) => void | Promise<void>,
) {
  const n = { post: 0, get: 0 };
  const client = createClient({
    baseUrl: sb.baseUrl,
    apiKey: "sandbox-professional",
    sleep: clock.sleep,
    now: clock.now,
    fetch: clock.fetch(async (u, i) => {
      if (i.method === "POST") n.post++;
      else if (u.includes("/results")) n.get++;
      const res = await fetch(u, i as RequestInit);
      await after?.({ method: i.method, url: u, body: i.body, n });
      return res as never;
    }),
  });
  return Object.assign(client, { sent: n });
}

/** A sheet of `uprns` under a "UPRN | Notes" header (or none), checked with the whole table selected. */
async function prepared(excelRun: ExcelRun, api: any, uprns: string[], header = true, plan: PlanName = "professional") {
  api.seed("Sheet1", "A1", [...(header ? [["UPRN", "Notes"]] : []), ...uprns.map((u, i) => [u, `note ${i}`])]);
  api.select("Sheet1", `A1:B${uprns.length + (header ? 1 : 0)}`);
  const prep = await prepareCheck(excelRun, header ? { plan } : { plan, mapping: { uprn: 0 }, hasHeader: false });
  if (!prep.ok) throw new Error(prep.message);
  return prep.check;
}

/** For every row from `first` (0-based) with a UPRN in column `uprnCol`: its UPRN and the Matched UPRN of the block at `blockCol`. */
function pairs(api: any, first: number, last: number, uprnCol: number, blockCol: number) {
  const rows = api.read("Sheet1", `A${first + 1}:${colLetters(blockCol + WIDTH - 1)}${last + 1}`).values as unknown[][];
  return rows
    .filter((r) => r[uprnCol] !== "")
    .map((r) => ({
      uprn: String(r[uprnCol]),
      matched: String(r[blockCol + MATCHED]),
      message: String(r[blockCol + MESSAGE]),
    }));
}

function deps(excelRun: ExcelRun, client: ReturnType<typeof createClient>, extra: Partial<RunDeps> = {}): RunDeps {
  return { excelRun, client, plan: "professional", sleep: clock.sleep, now: clock.now, ...extra };
}

describe("results follow their property", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await start({ msPerProperty: 400 });
  });
  afterAll(() => sb.close());
  beforeEach(() => sb.reset());

  test("the user sorts the whole table (the results block with it) after the first poll: 20 of 20 rows end with their own property's results", async () => {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(sb, 20);
    const check = await prepared(excelRun, api, uprns);
    expect(check.origin.columnIndex).toBe(2);
    let written = 0;
    const client = clientWith(sb, ({ n }) => {
      // After the first poll's results were written: reverse the rows, inputs and block alike.
      if (n.get === 2 && !written++) {
        const half = pairs(api, 1, 20, 0, 2).filter((p) => p.matched !== "").length;
        expect(half).toBeGreaterThan(0);
        expect(half).toBeLessThan(20);
        api.reorderRows(
          "Sheet1",
          1,
          Array.from({ length: 20 }, (_, i) => 19 - i),
        );
      }
    });
    const summary = await runCheck(check, deps(excelRun, client));
    expect(written).toBe(1);
    const out = pairs(api, 1, 20, 0, 2);
    expect(out.map((p) => p.uprn)).toEqual([...uprns].reverse());
    expect(out.filter((p) => p.matched === p.uprn)).toHaveLength(20);
    expect(summary.title).toBe("Done");
  }, 30_000);

  test("the user sorts only the input columns while the job runs: results are written by property, not by position", async () => {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(sb, 20);
    const check = await prepared(excelRun, api, uprns);
    // A shuffle of column A only (B, the notes, and the block stay), right after the job was sent.
    const order = [5, 12, 0, 19, 3, 7, 1, 14, 9, 2, 17, 4, 11, 6, 16, 8, 13, 10, 18, 15];
    const client = clientWith(sb, ({ method }) => {
      if (method === "POST") api.reorderRows("Sheet1", 1, order, 0, 1);
    });
    const summary = await runCheck(check, deps(excelRun, client));
    const out = pairs(api, 1, 20, 0, 2);
    expect(out.map((p) => p.uprn)).toEqual(order.map((i) => uprns[i]));
    expect(out.filter((p) => p.matched === p.uprn)).toHaveLength(20);
    expect(summary.title).toBe("Done");
  }, 30_000);

  test("the user sorts only the input columns after the first poll's results were written: those rows get their new property's results too", async () => {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(sb, 20);
    const check = await prepared(excelRun, api, uprns);
    const order = Array.from({ length: 20 }, (_, i) => 19 - i);
    let sorted = 0;
    const client = clientWith(sb, ({ n }) => {
      if (n.get === 2 && !sorted++) {
        const written = pairs(api, 1, 20, 0, 2).filter((p) => p.matched !== "").length;
        expect(written).toBeGreaterThan(0);
        expect(written).toBeLessThan(20);
        api.reorderRows("Sheet1", 1, order, 0, 1);
      }
    });
    const summary = await runCheck(check, deps(excelRun, client));
    expect(sorted).toBe(1);
    const out = pairs(api, 1, 20, 0, 2);
    expect(out.map((p) => p.uprn)).toEqual(order.map((i) => uprns[i]));
    expect(out.filter((p) => p.matched === p.uprn)).toHaveLength(20);
    expect(summary.title).toBe("Done");
  }, 30_000);

  test("only the input columns sorted: a row that then shows another row's error takes its own property's result, an unreadable input says why at its new row", async () => {
    const { excelRun, api } = workbook();
    const uprns = ["12AB34", ...knownUprns(sb, 19)];
    const check = await prepared(excelRun, api, uprns);
    let swapped: number | undefined;
    const client = clientWith(sb, ({ n }) => {
      if (n.get !== 2 || swapped !== undefined) return;
      // The unreadable input's row (row 0) swaps inputs with a row whose result is still to come.
      const now = pairs(api, 1, 20, 0, 2);
      expect(now[0].matched).toBe("");
      expect(now[0].message).toMatch(/is not valid/);
      swapped = now.findIndex((p, i) => i > 0 && p.matched === "");
      expect(swapped).toBeGreaterThan(0);
      const order = Array.from({ length: 20 }, (_, i) => (i === 0 ? swapped! : i === swapped ? 0 : i));
      api.reorderRows("Sheet1", 1, order, 0, 1);
    });
    const summary = await runCheck(check, deps(excelRun, client));
    expect(swapped).toBeDefined();
    const out = pairs(api, 1, 20, 0, 2);
    // The row beside the swapped property took that property's result, not the unreadable input's error.
    expect(out[0]).toMatchObject({ uprn: uprns[swapped!], matched: uprns[swapped!] });
    // The unreadable input says why again on the row it moved to.
    expect(out[swapped!].uprn).toBe("12AB34");
    expect(out[swapped!].message).toMatch(/^UPRN "12AB34" is not valid/);
    expect(out.filter((p) => p.matched === p.uprn)).toHaveLength(19);
    expect(summaryText(summary)).toMatch(/^Done\. 20 rows checked, 1 with errors/);
  }, 30_000);

  test("rows inserted above and inside the table, and a row deleted, during the run: every row keeps its own results, the deleted one is said", async () => {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(sb, 20);
    const check = await prepared(excelRun, api, uprns);
    let done = false;
    const client = clientWith(sb, ({ n }) => {
      if (n.get === 1 && !done) {
        done = true;
        api.insertRows("Sheet1", 0, 2); // two rows above the table: it now starts at row 3
        api.seed("Sheet1", "A1", [["A title the user added"]]);
        api.insertRows("Sheet1", 2 + 1 + 5, 1); // a blank row inside the table, after its 5th data row
        api.deleteRows("Sheet1", 2 + 1 + 20, 1); // the last data row (its result has not arrived yet)
      }
    });
    const summary = await runCheck(check, deps(excelRun, client));
    const out = pairs(api, 3, 22, 0, 2);
    expect(out).toHaveLength(19);
    expect(out.filter((p) => p.matched === p.uprn)).toHaveLength(19);
    expect(out.map((p) => p.uprn)).toEqual(uprns.slice(0, 19));
    expect(api.read("Sheet1", "A1").values[0][0]).toBe("A title the user added");
    // Nothing written into the inserted rows, and the deleted property's result went nowhere.
    expect(
      api
        .read("Sheet1", `C1:${colLetters(2 + WIDTH - 1)}2`)
        .values.flat()
        .filter(Boolean),
    ).toEqual([]);
    expect(
      api
        .read("Sheet1", `C9:${colLetters(2 + WIDTH - 1)}9`)
        .values.flat()
        .filter(Boolean),
    ).toEqual([]);
    expect(summary.counts.gone).toBe(1);
    expect(summary.title).not.toBe("Done");
    expect(summaryText(summary)).toMatch(/1 row changed or deleted while the check ran/);
  }, 30_000);

  test("a row whose input is edited during the run says it changed, one cleared says it has no UPRN: never the old property's result", async () => {
    const { excelRun, api } = workbook();
    const all = knownUprns(sb, 22);
    const uprns = all.slice(0, 20);
    const check = await prepared(excelRun, api, uprns);
    let done = false;
    const client = clientWith(sb, ({ n }) => {
      if (n.get === 1 && !done) {
        done = true;
        api.seed("Sheet1", "A20", [[all[21]]]); // row 20 (the 19th property) now names a property not in this run
        api.seed("Sheet1", "A21", [[""]]); // row 21 (the 20th) is cleared
      }
    });
    const summary = await runCheck(check, deps(excelRun, client));
    const rows = api.read("Sheet1", `A20:${colLetters(2 + WIDTH - 1)}21`).values as unknown[][];
    // As a new check of these rows would say: the cleared row's input cannot be read.
    expect(rows.map((r) => String(r[2 + MESSAGE]))).toEqual([
      expect.stringMatching(/changed while the check ran/),
      expect.stringMatching(/^No UPRN or postcode in this row/),
    ]);
    for (const r of rows) expect(r[2 + MATCHED]).toBe("");
    expect(pairs(api, 1, 18, 0, 2).filter((p) => p.matched === p.uprn)).toHaveLength(18);
    expect(summary.title).not.toBe("Done");
  }, 30_000);

  for (const change of ["inserted", "deleted"] as const) {
    test(`a column ${change} at A, left of the UPRN column, before any result came back: every row gets its own result, the user's columns untouched`, async () => {
      const { excelRun, api } = workbook();
      const uprns = knownUprns(sb, 10);
      // "Ref | UPRN | Notes": deleting A removes Ref; inserting at A adds a column "New".
      api.seed("Sheet1", "A1", [["Ref", "UPRN", "Notes"], ...uprns.map((u, i) => [`r${i}`, u, `n${i}`])]);
      api.select("Sheet1", "B1");
      const prep = await prepareCheck(excelRun, { plan: "professional" });
      if (!prep.ok) throw new Error(prep.message);
      expect(prep.check.origin.columnIndex).toBe(3);
      let changedBeforeResults = false;
      const client = clientWith(sb, ({ method, n }) => {
        if (method !== "POST" || n.post !== 1) return;
        changedBeforeResults = n.get === 0;
        if (change === "inserted") {
          api.insertColumns("Sheet1", 0, 1);
          api.seed("Sheet1", "A1", [["New"], ...uprns.map((_u, i) => [`new${i}`])]);
        } else deleteColumns(api, "Sheet1", 0, 1);
      });
      const summary = await runCheck(prep.check, deps(excelRun, client));
      expect(changedBeforeResults).toBe(true);
      expect(summary.title).toBe("Done");
      const user =
        change === "inserted"
          ? [["New", "Ref", "UPRN", "Notes"], ...uprns.map((u, i) => [`new${i}`, `r${i}`, u, `n${i}`])]
          : [["UPRN", "Notes"], ...uprns.map((u, i) => [u, `n${i}`])];
      const width = user[0].length;
      const rows = api.read("Sheet1", `A1:${colLetters(width + WIDTH - 1)}11`).values as unknown[][];
      expect(rows.map((r) => r.slice(0, width))).toEqual(user);
      expect(rows.map((r) => r[width + MATCHED])).toEqual(["Matched UPRN", ...uprns]);
    }, 30_000);
  }

  test("the user types into a row's Message cell while it is still checking: their text is kept, and the run does not say every row was checked", async () => {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(sb, 10);
    const check = await prepared(excelRun, api, uprns);
    const typedAt = `${colLetters(2 + MESSAGE)}11`;
    let typed = false;
    const client = clientWith(sb, ({ method }) => {
      if (method === "POST" && !typed) {
        typed = true;
        api.seed("Sheet1", typedAt, [["call the agent"]]);
      }
    });
    const summary = await runCheck(check, deps(excelRun, client));
    expect(typed).toBe(true);
    expect(api.read("Sheet1", typedAt).values[0][0]).toBe("call the agent");
    expect(pairs(api, 1, 9, 0, 2).filter((p) => p.matched === p.uprn)).toHaveLength(9);
    expect(summary.title).not.toBe("Done");
  }, 30_000);
});

describe("the results block is found again at every write and at Resume", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await start({ msPerProperty: 400 });
  });
  afterAll(() => sb.close());
  beforeEach(() => sb.reset());

  for (const header of [true, false]) {
    test(`a column inserted left of the block during the run, and another before Resume (${header ? "with" : "without"} a header row): no user cell overwritten, results land in the moved block`, async () => {
      const { excelRun, api } = workbook();
      const uprns = knownUprns(sb, 20);
      const check = await prepared(excelRun, api, uprns, header);
      expect(check.origin.columnIndex).toBe(2);
      const top = header ? 1 : 0;
      const store = memoryStore();
      const stop = new AbortController();
      let inserted = false;
      const client = clientWith(sb, ({ n }) => {
        if (n.get === 1 && !inserted) {
          inserted = true;
          // Between the notes and the block: the block moves to D; the user fills the new column C at once.
          api.insertColumns("Sheet1", 2, 1);
          api.seed(
            "Sheet1",
            `C${top + 1}`,
            uprns.map((_u, i) => [`mine ${i}`]),
          );
          // The pane closes before the job is done.
          stop.abort();
        }
      });
      const first = await runCheck(check, deps(excelRun, client, { store, signal: stop.signal }));
      expect(first.title).toBe("Stopped");
      const partial = pairs(api, top, top + 19, 0, 3);
      expect(partial.filter((p) => p.matched !== "").every((p) => p.matched === p.uprn)).toBe(true);
      // Before Resume, a column is inserted left of everything: inputs and block both move one right.
      api.insertColumns("Sheet1", 0, 1);
      api.seed(
        "Sheet1",
        `A${top + 1}`,
        uprns.map((_u, i) => [`ref ${i}`]),
      );
      const posts = sb.stats().bulk_submit;
      const saved = await loadUnfinished(store);
      expect(saved).not.toBeNull();
      const resumed = await resumeRun(saved!, deps(excelRun, clientWith(sb), { store }));
      expect(sb.stats().bulk_submit).toBe(posts);
      expect(resumed.title).toBe("Done");
      const out = pairs(api, top, top + 19, 1, 4);
      expect(out.filter((p) => p.matched === p.uprn)).toHaveLength(20);
      // The user's columns: untouched.
      const mine = api.read("Sheet1", `A${top + 1}:D${top + 20}`).values as unknown[][];
      expect(mine.map((r) => r[0])).toEqual(uprns.map((_u, i) => `ref ${i}`));
      expect(mine.map((r) => r[2])).toEqual(uprns.map((_u, i) => `note ${i}`));
      expect(mine.map((r) => r[3])).toEqual(uprns.map((_u, i) => `mine ${i}`));
      if (header) expect(api.read("Sheet1", "E1").values[0][0]).toBe(OUTPUT_COLUMNS[0].header);
      expect(await loadUnfinished(store)).toBeNull();
    }, 40_000);
  }
});

test("nothing paid for is lost: writes refused, the pane closed, then Resume writes every row with no new job, and nothing said Done before", async () => {
  const sb = await start({ msPerProperty: 100 });
  try {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(sb, 20);
    const check = await prepared(excelRun, api, uprns);
    const store = memoryStore();
    const stop = new AbortController();
    // Excel refuses every write from the first poll on (a cell being edited); the pane is closed 2.5 s later.
    const client = clientWith(sb, ({ n }) => {
      if (n.get === 1 && !api.state.cellEditMode) {
        api.setCellEditMode(true);
        void clock.sleep(2_500).then(() => stop.abort());
      }
    });
    const notices: string[] = [];
    await expect(
      runCheck(
        check,
        deps(excelRun, client, { store, signal: stop.signal, writeRetryMs: 300, onNotice: (t) => notices.push(t) }),
      ),
    ).rejects.toThrow(/finish editing the cell.*Resume/);
    expect(notices.some((t) => /finish editing the cell/.test(t))).toBe(true);
    expect(pairs(api, 1, 20, 0, 2).filter((p) => p.matched !== "")).toEqual([]);
    const saved = await loadUnfinished(store);
    expect(saved).not.toBeNull();
    expect(runSummary(saved!.state).title).not.toBe("Done");
    expect(unfinishedText(saved!)).not.toMatch(/Done/);
    expect(saved!.state.jobs.every((j) => j.poll?.jobId)).toBe(true);

    api.setCellEditMode(false);
    const posts = sb.stats().bulk_submit;
    expect(posts).toBe(1);
    const resumed = await resumeRun(saved!, deps(excelRun, clientWith(sb), { store }));
    expect(sb.stats().bulk_submit).toBe(posts);
    expect(resumed.title).toBe("Done");
    expect(summaryText(resumed)).toMatch(/^Done\. 20 rows checked\./);
    expect(pairs(api, 1, 20, 0, 2).filter((p) => p.matched === p.uprn)).toHaveLength(20);
    expect(await loadUnfinished(store)).toBeNull();
  } finally {
    await sb.close();
  }
}, 40_000);

test("the daily quota runs out mid-run: the run pauses with its jobs kept, says when to resume, and Resume after the reset fetches every result with no new job", async () => {
  const sb = await start({ msPerProperty: 400, limits: { professional: { perDay: 2 } } });
  try {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(sb, 20);
    const check = await prepared(excelRun, api, uprns);
    const store = memoryStore();
    const summary = await runCheck(check, deps(excelRun, clientWith(sb), { store }));
    expect(summary.title).toBe("Paused");
    expect(summary.resumable).toBe(true);
    expect(summary.pausedUntilMs).toBeGreaterThan(clock.now() + 3_600_000);
    const text = summaryText(summary);
    expect(text).toMatch(/^Paused\. .*choose Resume after \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/s);
    const saved = await loadUnfinished(store);
    expect(saved).not.toBeNull();
    const job = saved!.state.jobs[0];
    expect(job.poll?.jobId).toBeTruthy();
    expect(job.poll?.resultsUrl).toBeTruthy();
    expect(job.poll?.cursor).toBeTruthy();
    expect(unfinishedText(saved!)).toMatch(/Resume after \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    // Rows still waiting say so, and still read "Checking…" so Resume finds them.
    const waiting = pairs(api, 1, 20, 0, 2).filter((p) => p.matched === "");
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((p) => /^Checking… (\(run \w+\) )?Waiting/.test(p.message))).toBe(true);

    // A day later the quota is back.
    clock.advance(DAY + 60_000);
    const posts = sb.stats().bulk_submit;
    const resumed = await resumeRun(saved!, deps(excelRun, clientWith(sb), { store }));
    expect(sb.stats().bulk_submit).toBe(posts);
    expect(resumed.title).toBe("Done");
    expect(pairs(api, 1, 20, 0, 2).filter((p) => p.matched === p.uprn)).toHaveLength(20);
    expect(await loadUnfinished(store)).toBeNull();
  } finally {
    await sb.close();
  }
}, 40_000);

describe("a submit spoiled after the job was made", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await start({ msPerProperty: 0 });
  });
  afterAll(() => sb.close());

  for (const kind of ["created_504", "created_garbled", "created_drop"] as const) {
    test(`${kind}: exactly one job at the sandbox; the rows say not checked, the job may exist, run again`, async () => {
      sb.reset();
      sb.setFaults([{ kind, route: "bulk_submit", count: 1 }]);
      const { excelRun, api } = workbook();
      const uprns = knownUprns(sb, 20);
      const check = await prepared(excelRun, api, uprns);
      const client = clientWith(sb);
      const summary = await runCheck(check, deps(excelRun, client));
      // One POST, and the sandbox makes its job before spoiling the answer: one job. (A dropped connection is never
      // answered, so the sandbox's own request count misses it; the POSTs sent are counted here.)
      expect(client.sent.post).toBe(1);
      expect(sb.stats().bulk_submit).toBe(kind === "created_drop" ? 0 : 1);
      const out = pairs(api, 1, 20, 0, 2);
      expect(
        out.every((p) => /Not checked: sending this row's bulk job failed .*may have created the job/.test(p.message)),
      ).toBe(true);
      expect(summary.counts.maybeCreated).toBe(20);
      expect(summary.title).not.toBe("Done");
      expect(summaryText(summary)).toMatch(
        /20 rows not checked: sending their job failed and the service may have created it; run the check again for them\./,
      );
    }, 20_000);
  }
});

test("a filtered selection: rows hidden by the filter are not sent, not written, and the summary says how many", async () => {
  const sb = await start({ msPerProperty: 0 });
  try {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(sb, 20);
    const check = await prepared(excelRun, api, uprns);
    api.hideRows("Sheet1", 3, 5, true); // sheet rows 4-8: properties 2..6
    const bodies: string[] = [];
    const client = clientWith(sb, ({ method, body }) => {
      if (method === "POST" && body) bodies.push(body);
    });
    const summary = await runCheck(check, deps(excelRun, client));
    expect(bodies).toHaveLength(1);
    const sent = (JSON.parse(bodies[0]).properties as { uprn: string }[]).map((p) => p.uprn);
    expect(sent).toEqual([...uprns.slice(0, 2), ...uprns.slice(7)]);
    const out = pairs(api, 1, 20, 0, 2);
    out.forEach((p, i) => {
      if (i >= 2 && i < 7) expect([p.matched, p.message]).toEqual(["", ""]);
      else expect(p.matched).toBe(p.uprn);
    });
    expect(summary.skippedRows).toBe(5);
    expect(summary.title).toBe("Done");
    expect(summaryText(summary)).toMatch(
      /^Done\. 15 rows checked\.\n?.*5 rows hidden by a filter were skipped: not sent and not written\./s,
    );
  } finally {
    await sb.close();
  }
}, 20_000);

test("jobs not yet sent when a cell is edited are still sent, without that row", async () => {
  const sb = await start({ msPerProperty: 0, limits: { professional: { batchCap: 5 } } });
  try {
    const { excelRun, api } = workbook();
    const all = knownUprns(sb, 21);
    const uprns = all.slice(0, 20);
    const check = await prepared(excelRun, api, uprns);
    const bodies: string[] = [];
    const client = clientWith(sb, ({ method, body, n }) => {
      if (method !== "POST" || !body) return;
      bodies.push(body);
      // The first submit is refused (413, at most 5 a job); the engine cuts the jobs to 5. After the first of those
      // is made, the user edits row 13 (the 12th property, in the third job, not sent yet).
      if (n.post === 2) api.seed("Sheet1", "A13", [[all[20]]]);
    });
    const summary = await runCheck(check, deps(excelRun, client));
    const jobs = bodies
      .map((b) => (JSON.parse(b).properties as { uprn: string }[]).map((p) => p.uprn))
      .filter((l) => l.length <= 5);
    expect(jobs).toHaveLength(4);
    expect(jobs.flat()).not.toContain(uprns[11]);
    expect(jobs.flat()).toHaveLength(19);
    expect(jobs.find((l) => l.includes(uprns[10]))).toEqual([uprns[10], uprns[12], uprns[13], uprns[14]]);
    const out = pairs(api, 1, 20, 0, 2);
    expect(out[11].message).toMatch(/changed while the check ran/);
    expect(out.filter((p, i) => i !== 11 && p.matched === p.uprn)).toHaveLength(19);
    expect(summary.title).not.toBe("Done");
  } finally {
    await sb.close();
  }
}, 20_000);
