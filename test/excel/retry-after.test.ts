/**
 * A 503 with Retry-After 3600 in the Excel add-in: the pane's check pauses for the hour, says why and until when, and
 * Resume after it collects every row with no new job; the COMPLIANCE functions' cells say the same and send nothing
 * before the hour, whichever recalculation asks. Real HTTP to the sandbox (its fault rules send the 503) on the test
 * clock; the Excel stand-in is the workbook.
 */
import { createClient, runSummary } from "../../core";
import { CheckBatcher, toFunctionError } from "../../excel/functions/batcher";
import { memoryStore } from "../../excel/settings";
import { prepareCheck, resumeRun, runCheck, summaryText, type RunDeps } from "../../excel/taskpane/check-run";
import { loadUnfinished, unfinishedText } from "../../excel/taskpane/unfinished";
import { testClock } from "../helpers/clock";
import { MATCHED, workbook } from "../helpers/excel-workbook";
import { knownUprns, startTestSandbox, type Sandbox } from "../helpers/sandbox";

const clock = testClock();
const HOUR = 3_600_000;
let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ msPerProperty: 400, now: clock.date });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

/** The pane's client on the test clock, and every request it sent with its time and its answer's status. */
function loggedClient() {
  const { log, fetch: f } = loggedFetch();
  const client = createClient({
    baseUrl: sb.baseUrl,
    apiKey: "sandbox-professional",
    fetch: f,
    sleep: clock.sleep,
    now: clock.now,
  });
  return { log, client };
}

/** Every request that reached the sandbox, with its time on the test clock and its answer's status. */
function loggedFetch() {
  const log: { method: string; at: number; status: number }[] = [];
  const f = clock.fetch(async (u, i) => {
    const at = clock.now();
    const res = await fetch(u, i as RequestInit);
    log.push({ method: i.method, at, status: res.status });
    return res as never;
  });
  return { log, fetch: f };
}

test("the pane's check: a poll answered 503 with Retry-After 3600 pauses the run, says the service asked for the hour, and Resume after it fills every row with no new job", async () => {
  sb.setFaults([{ kind: "error_503", route: "bulk_results", count: 1, retry_after: 3600 }]);
  const { log, client } = loggedClient();
  const deps = (extra: Partial<RunDeps> = {}): RunDeps => ({
    excelRun: run,
    client,
    plan: "professional",
    sleep: clock.sleep,
    now: clock.now,
    ...extra,
  });
  const { excelRun: run, api } = workbook();
  const uprns = knownUprns(sb, 20);
  api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
  api.select("Sheet1", "A1:A21");
  const prep = await prepareCheck(run, { plan: "professional" });
  if (!prep.ok) throw new Error(prep.message);
  const store = memoryStore();

  const summary = await runCheck(prep.check, deps({ store }));
  const refused = log.find((l) => l.status === 503)!;
  expect(refused).toBeDefined();
  expect(summary.title).toBe("Paused");
  expect(summary.resumable).toBe(true);
  expect(summary.pausedUntilMs! - refused.at).toBeGreaterThanOrEqual(HOUR);
  expect(summary.pausedUntilMs! - refused.at).toBeLessThan(HOUR + 1000);
  const until = new Date(summary.pausedUntilMs!).toISOString().slice(0, 16).replace("T", " ");
  expect(summaryText(summary)).toMatch(/unavailable \(HTTP 503\) and asked for no retry before/);
  expect(summaryText(summary)).toContain(`Resume after ${until} UTC`);
  expect(log[log.length - 1]).toBe(refused);
  const saved = await loadUnfinished(store);
  expect(saved).not.toBeNull();
  expect(unfinishedText(saved!)).toContain(`Resume after ${until} UTC`);
  expect(runSummary(saved!.state).title).toBe("Paused");

  clock.advance(summary.pausedUntilMs! - clock.now());
  const posts = log.filter((l) => l.method === "POST").length;
  const resumed = await resumeRun(saved!, deps({ store }));
  expect(resumed.title).toBe("Done");
  expect(log.filter((l) => l.method === "POST").length).toBe(posts);
  const after = log.filter((l) => l.at > refused.at);
  expect(Math.min(...after.map((l) => l.at))).toBeGreaterThanOrEqual(refused.at + HOUR);
  const block = api.read("Sheet1", "B2:AZ21").values as unknown[][];
  expect(block.map((r) => String(r[MATCHED]))).toEqual(uprns);
});

test("the functions: a check answered 503 with Retry-After 3600 gives #N/A with the time, and no recalculation sends anything before the hour", async () => {
  sb.setFaults([{ kind: "error_503", route: "check", count: 1, retry_after: 3600 }]);
  const { log, fetch: f } = loggedFetch();
  const b = new CheckBatcher({
    getConfig: async () => ({ baseUrl: sb.baseUrl, apiKey: "sandbox-professional", plan: "professional" }),
    fetch: f as unknown as typeof fetch,
    now: clock.now,
    sleep: clock.sleep,
  });
  const [u1, u2] = knownUprns(sb, 2);
  const first = await b.check(u1).catch((e) => toFunctionError(e));
  expect(first).toMatchObject({ code: "notAvailable", message: expect.stringMatching(/asked for no retry before/) });
  expect(log).toHaveLength(1);
  const refusedAt = log[0].at;
  // A recalculation half an hour on (its own batch, its own client): answered without a request.
  clock.advance(30 * 60_000);
  const again = await b.check(u2).catch((e) => toFunctionError(e));
  expect(again).toMatchObject({ code: "notAvailable", message: expect.stringMatching(/no retry before/) });
  expect(log).toHaveLength(1);
  clock.advance(refusedAt + HOUR - clock.now());
  await expect(b.check(u2)).resolves.toMatchObject({ result: { uprn: u2 } });
  expect(log).toHaveLength(2);
  expect(log[1].at).toBeGreaterThanOrEqual(refusedAt + HOUR);
});

test("a submit answered 503 with Retry-After 3600 is not sent again; a new check ten minutes on sends nothing before the hour, pauses until then, and Resume after it sends its job once", async () => {
  sb.setFaults([{ kind: "error_503", route: "bulk_submit", count: 1, retry_after: 3600 }]);
  const { log, client } = loggedClient();
  const { excelRun: run, api } = workbook();
  const store = memoryStore();
  const deps: RunDeps = { excelRun: run, client, plan: "professional", sleep: clock.sleep, now: clock.now, store };
  const uprns = knownUprns(sb, 8);
  api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
  const check = async () => {
    api.select("Sheet1", "A1:A9");
    const prep = await prepareCheck(run, { plan: "professional" });
    if (!prep.ok) throw new Error(prep.message);
    return runCheck(prep.check, deps);
  };

  const first = await check();
  const refused = log.find((l) => l.status === 503)!;
  expect(refused).toMatchObject({ method: "POST" });
  expect(first.title).not.toBe("Done");
  expect(log.filter((l) => l.method === "POST")).toHaveLength(1);

  clock.advance(10 * 60_000);
  const sent = log.length;
  const second = await check();
  expect(log.length).toBe(sent);
  expect(second.title).toBe("Paused");
  expect(second.pausedUntilMs! - refused.at).toBeGreaterThanOrEqual(HOUR);
  expect(summaryText(second)).toMatch(/unavailable \(HTTP 503\) and asked for no retry before/);

  clock.advance(second.pausedUntilMs! - clock.now());
  const saved = await loadUnfinished(store);
  const resumed = await resumeRun(saved!, deps);
  expect(resumed.title).toBe("Done");
  expect(log.filter((l) => l.method === "POST")).toHaveLength(2);
  expect(Math.min(...log.slice(sent).map((l) => l.at))).toBeGreaterThanOrEqual(refused.at + HOUR);
  const block = api.read("Sheet1", "B2:AZ9").values as unknown[][];
  expect(block.map((r) => String(r[MATCHED]))).toEqual(uprns);
});
