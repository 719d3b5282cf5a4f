/**
 * Service failures as the sandbox produces them (5xx, 429, garbled JSON, failed jobs, refused keys), run
 * through the BUILT Code.js: what was already written survives, and people get a clear message.
 */
import { sandboxForFile, type SandboxProcess, type SandboxProperty, startSandboxProcess } from "../harness/sandbox";
import { cellValue, outputCol, pollToEnd, runWords } from "../harness/table";
import { selectedUprnTable } from "../../helpers/gsheets-results";

const sandbox = sandboxForFile({ msPerProperty: 1 }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(200);
});

const table = (n: number, offset = 0, on: SandboxProcess = sandbox) =>
  selectedUprnTable(on, props.slice(offset, offset + n));

test("5xx and garbled results pages are retried; the run still completes every row", async () => {
  const { env, firstRow, lastRow } = table(40);
  await sandbox.setFaults([
    { kind: "error_503", route: "bulk_results", count: 1 },
    { kind: "malformed_json", route: "bulk_results", count: 1 },
    { kind: "error_500", route: "bulk_results", count: 1 },
  ]);
  const t0 = Date.now();
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  const polls = await pollToEnd(env);
  expect(polls[polls.length - 1].phase).toBe("done");
  // A blip without Retry-After is retried within seconds, not after the rate-limit window's reset.
  expect(Date.now() - t0).toBeLessThan(20000);
  const stats = await sandbox.stats();
  expect(stats.by_status["503"]).toBe(1);
  expect(stats.by_status["500"]).toBe(1);
  const uprn = outputCol(env.sheet, "matched_uprn");
  for (let r = firstRow; r <= lastRow; r++)
    expect(String(cellValue(env.sheet, r, uprn))).toBe(props[r - firstRow].uprn);
});

test("a 429 at submission waits for Retry-After, then submits; the sidebar is told how long to wait", async () => {
  const { env, firstRow } = table(10);
  await sandbox.setFaults([{ kind: "rate_limit", route: "bulk_submit", count: 1 }]);
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.jobIds).toEqual([]);
  expect(start.progress.rateLimited).toBe(true);
  expect(start.progress.waitMs).toBeGreaterThanOrEqual(500);
  expect(start.progress.jobs[0].status).toBe("submitting");
  // Polling early sends nothing: the wait is honoured on the server too.
  const before = env.fetches.length;
  const early = env.run("pollBulkCheck");
  expect(env.fetches.length).toBe(before);
  expect(early.phase).toBe("running");
  const polls = await pollToEnd(env);
  expect(polls[polls.length - 1].phase).toBe("done");
  expect((await sandbox.stats()).bulk_submit).toBe(2);
  expect(String(cellValue(env.sheet, firstRow, outputCol(env.sheet, "matched_uprn")))).toBe(props[0].uprn);
});

test("a failed job keeps the earlier values of its rows and says why in Message", async () => {
  const { env, firstRow, lastRow } = table(30, 50);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  await pollToEnd(env);
  const score = outputCol(env.sheet, "compliance_score");
  const msg = outputCol(env.sheet, "message");
  const before = env.sheet.peek(firstRow, score, lastRow - firstRow + 1, 1).map((r) => r[0]);
  expect(before.every((v) => typeof v === "number")).toBe(true);

  await sandbox.setFaults([{ kind: "job_fail", count: 1 }]);
  env.sheet.select(`A${firstRow}:A${lastRow}`);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  const polls = await pollToEnd(env);
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("done");
  expect(last.jobs[0].status).toBe("failed");
  // Not a success: the summary says Failed, the failed job's rows are not counted as checked.
  expect(runWords(last)).toMatch(
    /^Finished with problems\. \d+ of 30 rows checked\. \d+ rows? not refreshed because the service failed/,
  );
  expect(last.failedJobs).toBe(1);
  expect(last.propertiesDone).toBeLessThan(30);
  expect(last.jobs[0].processed).toBe(last.propertiesDone);
  // Some rows were answered before the job failed: not a failure of the whole run (core's one rule, by rows, as in
  // Excel), so no error box; the summary line says why the others were not refreshed.
  expect(last.problem).toBe("");
  expect(runWords(last)).toMatch(/not refreshed because the service failed \(.*failed/);
  const after = env.sheet.peek(firstRow, score, lastRow - firstRow + 1, 1).map((r) => r[0]);
  expect(after).toEqual(before);
  const messages = env.sheet.peek(firstRow, msg, lastRow - firstRow + 1, 1).map((r) => String(r[0]));
  expect(messages.some((m) => /Not refreshed/.test(m))).toBe(true);
});

test("a refused key and a plan without API access end the run with one POST and the reason on every row; a missing key sends nothing", async () => {
  const { env, firstRow, lastRow } = table(5);
  const msg = () => outputCol(env.sheet, "message");
  for (const [key, pattern] of [
    ["not-a-real-key", /API key was not accepted/],
    ["sandbox-no-api", /no API access/],
  ] as const) {
    // Save refuses a key the service rejects (see user-sheets.test.ts); this one was revoked after it was saved.
    env.userProperties.data.set("compliance.apiKey", key);
    const posts = (await sandbox.stats()).bulk_submit;
    const r = env.run("startBulkCheck", {});
    expect(r.ok).toBe(true);
    expect(r.progress.problem).toMatch(pattern);
    expect(JSON.stringify(r)).not.toContain(key);
    expect((await sandbox.stats()).bulk_submit).toBe(posts + 1);
    const messages = env.sheet.peek(firstRow, msg(), lastRow - firstRow + 1, 1).map((m) => String(m[0]));
    expect(messages.every((m) => pattern.test(m))).toBe(true);
  }
  env.run("removeApiKey");
  const r = env.run("startBulkCheck", {});
  expect(r.ok).toBe(false);
  expect(r.message).toMatch(/API key/);
});

test("the key removed mid-run stops the check; rows not done say so", async () => {
  const { env, firstRow, lastRow } = table(20);
  await sandbox.setFaults([{ kind: "job_stall", count: 1 }]);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  env.run("removeApiKey");
  const polls = await pollToEnd(env);
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("stopped");
  expect(runWords(last)).toMatch(/API key was removed/);
  const msg = outputCol(env.sheet, "message");
  const messages = env.sheet.peek(firstRow, msg, lastRow - firstRow + 1, 1).map((r) => String(r[0]));
  expect(messages.every((m) => m.length > 0)).toBe(true);
});

test("Stop ends a stalled job: rows keep earlier values or say they were not checked, and polling ends", async () => {
  // A sandbox of its own that processes nothing in the real time the test takes (a stalled job does half its
  // properties first): on a busy machine a millisecond a property let the first poll find results already.
  const slow = await startSandboxProcess({ msPerProperty: 600_000 });
  try {
    await stopsStalledJob(slow);
  } finally {
    await slow.close();
  }
});
async function stopsStalledJob(sandbox: SandboxProcess) {
  const { env, firstRow, lastRow } = table(15, 120, sandbox);
  await sandbox.setFaults([{ kind: "job_stall", count: 1 }]);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  expect(env.run("pollBulkCheck").phase).toBe("running");
  const stopped = env.run("cancelBulkCheck");
  expect(stopped.phase).toBe("stopped");
  // A stopped job is "stopped", not "failed", and its rows are not counted as checked.
  expect([stopped.message, stopped.details[0]]).toEqual([
    "Stopped. 0 of 15 rows checked.",
    "15 rows are in jobs already sent: choose Resume to collect them (no new job is sent).",
  ]);
  expect(stopped.complete).toBe(false);
  expect(stopped.jobs).toEqual([expect.objectContaining({ status: "stopped", processed: 0, total: 15 })]);
  expect(stopped.propertiesDone).toBe(0);
  expect(stopped.failedJobs).toBe(0);
  const msg = outputCol(env.sheet, "message");
  const messages = env.sheet.peek(firstRow, msg, lastRow - firstRow + 1, 1).map((r) => String(r[0]));
  expect(messages.every((m) => /Stopped before this row's result arrived\. Choose Resume/.test(m))).toBe(true);
  const before = env.fetches.length;
  expect(env.run("pollBulkCheck").phase).toBe("stopped");
  expect(env.fetches.length).toBe(before);
}

test("a submit answered with 500 is not sent again (the service may have made the job): one POST, its rows say so, the run does not end 'Done'", async () => {
  const { env } = table(30);
  await sandbox.setFaults([{ kind: "error_500", route: "bulk_submit", count: 100 }]);
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.jobIds).toEqual([]);
  let p = start.progress;
  for (let i = 0; i < 20 && p.phase === "running"; i++) {
    env.clock.offsetMs += p.waitMs;
    p = env.run("pollBulkCheck");
  }
  expect(p.phase).toBe("done");
  expect((await sandbox.stats()).bulk_submit).toBe(1);
  expect(runWords(p)).toMatch(
    /^Finished with problems\. 0 of 30 rows checked\. 30 rows not checked: sending their job failed and the service may have created it; run the check again for them\./,
  );
  expect(p.propertiesDone).toBe(0);
  expect(p.jobs).toEqual([{ jobId: null, status: "failed", processed: 0, total: 30 }]);
  const msg = outputCol(env.sheet, "message");
  expect(String(cellValue(env.sheet, 2, msg))).toMatch(
    /^Not checked: sending this row's bulk job failed \(HTTP 500: Internal server error \(sandbox fault\)\), and the service may have created the job anyway\. Run the check again to try again\.$/,
  );
});
