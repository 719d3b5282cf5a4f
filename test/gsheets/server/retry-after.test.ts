/**
 * A 503 with Retry-After 3600 in the Google Sheets add-on, over the BUILT Code.js and the sandbox (its fault rules
 * send the 503): the run pauses for the hour and says until when, the sidebar's polls and an early Resume send
 * nothing before the hour has passed on the vm's clock, and Resume after it fills every row without sending the job
 * again. A new check within the hour keeps the same wait (core's runHold). The hour passes at once: the vm's clock and
 * the sandbox's are moved together.
 */
import type { GasEnvironment } from "../harness/gas";
import { passTime, sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, outputCol, pollToEnd, runWords } from "../harness/table";
import { selectedUprnTable } from "../../helpers/gsheets-results";

const HOUR = 3_600_000;
const MINUTE = 60_000;
const sandbox = sandboxForFile({ msPerProperty: 20 }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(12);
});

const table = (n: number) => selectedUprnTable(sandbox, props.slice(0, n));

const vmNow = (env: GasEnvironment) => Date.now() + env.clock.offsetMs;
const utcMinute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

/**
 * Calls the sidebar's function and, when it met the 503, the window on the vm's clock in which the 503 was answered.
 */
function call(env: GasEnvironment, name: string, seen: { at?: [number, number] }) {
  const before = vmNow(env);
  const n = env.fetches.length;
  const r = env.run(name);
  if (!seen.at && env.fetches.slice(n).some((f) => f.status === 503)) seen.at = [before, vmNow(env)];
  return r;
}

/** The sidebar asks again and again for an hour less a minute after the 503; nothing reaches the service. */
async function pollsWithinTheHour(env: GasEnvironment, refusedAt: number, atLeast = 55) {
  const fetched = env.fetches.length;
  const reached = (await sandbox.stats()).total;
  let polls = 0;
  while (vmNow(env) + MINUTE < refusedAt + HOUR) {
    // An early Resume (every tenth) is taken, and the run holds again for the same hour.
    let p = env.run(polls % 10 === 9 ? "resumeBulkCheck" : "pollBulkCheck");
    if (p.endDue) p = env.run("finishBulkCheck");
    expect(["paused", "running"]).toContain(p.phase);
    expect(p.message).toContain(`no retry before ${utcMinute(refusedAt + HOUR)} UTC`);
    polls++;
    await passTime(env, MINUTE);
  }
  expect(polls).toBeGreaterThanOrEqual(atLeast);
  expect(env.fetches.length).toBe(fetched);
  expect((await sandbox.stats()).total).toBe(reached);
}

/** Resume once the hour has passed: every row gets its result, with `posts` jobs sent (0: only results collected). */
async function resumesAfterTheHour(
  env: GasEnvironment,
  refusedAt: number,
  rows: { firstRow: number; lastRow: number },
  posts: number,
) {
  const { firstRow, lastRow } = rows;
  await passTime(env, refusedAt + HOUR - vmNow(env) + 1000);
  const fetched = env.fetches.length;
  expect(env.run("resumeBulkCheck").phase).toBe("running");
  const last = (await pollToEnd(env)).pop();
  expect(last.phase).toBe("done");
  expect(runWords(last)).toMatch(new RegExp(`^Done\\. ${lastRow - firstRow + 1} rows checked\\.`));
  expect(env.fetches.length).toBeGreaterThan(fetched);
  expect(env.fetches.slice(fetched).filter((f) => f.method === "POST")).toHaveLength(posts);
  const matched = outputCol(env.sheet, "matched_uprn");
  for (let r = firstRow; r <= lastRow; r++)
    expect(String(cellValue(env.sheet, r, matched))).toBe(props[r - firstRow].uprn);
}

test("a results poll answered 503 with Retry-After 3600 pauses the run until the stated time; the sidebar's polls and an early Resume send nothing for the hour; Resume after it fills every row with no second POST", async () => {
  const { env, firstRow, lastRow } = table(12);
  await sandbox.setFaults([{ kind: "error_503", route: "bulk_results", count: 1, retry_after: 3600 }]);
  const seen: { at?: [number, number] } = {};
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.jobIds).toHaveLength(1);

  let p = call(env, "pollBulkCheck", seen);
  // The first look at the job may wait for its estimated end: that wait passes on the vm's clock until the 503 comes.
  for (let i = 0; i < 20 && !seen.at; i++) {
    await passTime(env, Math.max(1000, p.waitMs ?? 0));
    p = call(env, "pollBulkCheck", seen);
  }
  expect(seen.at).toBeDefined();
  const [from, to] = seen.at!;
  // Said as the service's outage with its time, not as the plan's rate limit, while the run still holds.
  const stated = [utcMinute(from + HOUR), utcMinute(to + HOUR)];
  expect(runWords(p)).toMatch(
    /unavailable \(HTTP 503\) and asked for no retry before \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/,
  );
  expect(stated).toContain(/no retry before (\S+ \S+) UTC/.exec(p.message)![1]);
  expect(runWords(p)).not.toMatch(/plan's rate limit/);
  for (let i = 0; i < 5 && p.phase === "running"; i++) {
    if (p.endDue) break;
    p = call(env, "pollBulkCheck", seen);
  }
  if (p.endDue) p = env.run("finishBulkCheck");
  expect(p.phase).toBe("paused");
  expect(p.resumable).toBe(true);
  expect(runWords(p)).toMatch(
    /^Paused\. The compliance service is unavailable \(HTTP 503\) and asked for no retry before (\S+ \S+) UTC\. 0 of 12 rows checked; choose Resume after \1 UTC to collect the other 12 rows \(jobs already sent are not sent again\)\./,
  );
  const until = /no retry before (\S+ \S+) UTC/.exec(p.message)![1];
  expect(stated).toContain(until);
  const stats = await sandbox.stats();
  expect(stats.by_status["503"]).toBe(1);
  expect(stats.bulk_submit).toBe(1);
  expect(env.fetches[env.fetches.length - 1].status).toBe(503);

  // The hour counts from the 503's answer: `to` is the latest it can have come.
  await pollsWithinTheHour(env, to);
  await resumesAfterTheHour(env, to, { firstRow, lastRow }, 0);
  expect((await sandbox.stats()).bulk_submit).toBe(1);
});

test("a submit answered 503 with Retry-After 3600 is not sent again (the job may exist); a new check ten minutes on sends nothing before the hour, pauses until the stated time, and Resume after it sends its job once and fills every row", async () => {
  const { env, firstRow, lastRow } = table(8);
  await sandbox.setFaults([{ kind: "error_503", route: "bulk_submit", count: 1, retry_after: 3600 }]);
  const seen: { at?: [number, number] } = {};
  let p = call(env, "startBulkCheck", seen).progress;
  expect(seen.at).toBeDefined();
  const [from, to] = seen.at!;
  const last = (await pollToEnd(env)).pop() ?? p;
  expect(last.phase).toBe("done");
  expect(runWords(last)).toMatch(
    /^Finished with problems\. 0 of 8 rows checked\. 8 rows not checked: sending their job failed and the service may have created it/,
  );
  expect((await sandbox.stats()).bulk_submit).toBe(1);

  await passTime(env, 10 * MINUTE);
  env.sheet.select(`A${firstRow}:A${lastRow}`);
  const fetched = env.fetches.length;
  const again = env.run("startBulkCheck", {});
  expect(again.ok).toBe(true);
  p = again.progress;
  if (p.endDue) p = env.run("finishBulkCheck");
  expect(env.fetches.length).toBe(fetched);
  expect(p.phase).toBe("paused");
  expect(p.resumable).toBe(true);
  const until = /no retry before (\S+ \S+) UTC/.exec(p.message)![1];
  expect([utcMinute(from + HOUR), utcMinute(to + HOUR)]).toContain(until);
  expect(runWords(p)).toContain(`choose Resume after ${until} UTC to collect the other 8 rows`);

  await pollsWithinTheHour(env, to, 45);
  expect((await sandbox.stats()).bulk_submit).toBe(1);
  await resumesAfterTheHour(env, to, { firstRow, lastRow }, 1);
  expect((await sandbox.stats()).bulk_submit).toBe(2);
});
