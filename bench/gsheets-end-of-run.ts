/**
 * Google Sheets, measured on the BUILT Code.js in a vm against the sandbox (build first: npm run build:gsheets):
 * - the SpreadsheetApp calls of a 2,500-row check's last poll (the one that writes the last results), and of the call
 *   the sidebar makes right after it (finishBulkCheck: the Action list, the Compliance summary and the Run log);
 * - the HTTP requests of a scheduled re-check of 10,000 rows, against the floor: one POST per job of the plan's cap,
 *   one GET per job once done, and the further result pages.
 * Run: npx tsx bench/gsheets-end-of-run.ts
 */
import { createGasEnvironment, type GasEnvironment } from "../test/gsheets/harness/gas";
import {
  passTime,
  startSandboxProcess,
  type SandboxProcess,
  type SandboxProperty,
} from "../test/gsheets/harness/sandbox";
import { summary } from "./summary";

/**
 * Checks rows A2:A(n+1) from the sidebar, polling as the sidebar does (its waits on the vm's and the sandbox's one
 * clock), then asking for the end of the run; returns each poll's SpreadsheetApp calls and the end call's.
 */
async function checkFromSidebar(
  env: GasEnvironment,
  rows: number,
): Promise<{ polls: number[]; lastPoll: string[]; end: string[] }> {
  env.sheet.select(`A2:A${rows + 1}`);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  let p = start.progress;
  const polls: number[] = [];
  let lastPoll: string[] = [];
  while (p && p.phase === "running") {
    await passTime(env, Math.min(p.waitMs, 5000));
    const mark = env.log.mark();
    p = env.run("pollBulkCheck");
    const calls = env.log.since(mark);
    polls.push(calls.length);
    lastPoll = calls.map((c) => `${c.target}.${c.method}`);
  }
  if (!p || p.phase !== "done") throw new Error(`the check ended ${p?.phase}: ${p?.message}`);
  let end: string[] = [];
  if (p.endDue) {
    const mark = env.log.mark();
    p = env.run("finishBulkCheck");
    end = env.log.since(mark).map((c) => `${c.target}.${c.method}`);
    if (!p || p.endDue) throw new Error("the end of the run was not built");
  }
  return { polls, lastPoll, end };
}

function table(sandbox: SandboxProcess, props: SandboxProperty[], rows: number): GasEnvironment {
  const env = createGasEnvironment();
  const saved = env.run("saveSettings", {
    apiKey: "sandbox-professional",
    baseUrl: sandbox.baseUrl,
    plan: "professional",
  });
  if (!saved.ok) throw new Error(saved.message);
  env.sheet.maxRows = rows + 10;
  env.sheet.seed(1, 1, [["UPRN"], ...props.slice(0, rows).map((p) => [p.uprn])]);
  return env;
}

/** The last poll of a 2,500-row check, in a new spreadsheet (the Action list, summary and Run log are made in it). */
export async function lastPollCalls(sandbox: SandboxProcess, props: SandboxProperty[]) {
  const env = table(sandbox, props, 2500);
  const { polls, lastPoll, end } = await checkFromSidebar(env, 2500);
  // A poll that writes results and ends nothing (the largest before the last), for comparison.
  const before = Math.max(0, ...polls.slice(0, -1));
  console.log(
    `sheets: 2,500-row check, ${polls.length} polls; the last made ${lastPoll.length} SpreadsheetApp calls (a poll before it, at most ${before}); the end of the run (Action list, summary, Run log) ${end.length} calls in its own server call`,
  );
  summary(
    "Google Sheets, SpreadsheetApp calls in a 2,500-row run's last poll",
    lastPoll.length,
    "calls",
    25,
    "target: 25",
    0,
  );
  return { last: lastPoll.length, before, end: end.length };
}

/** A scheduled re-check of a 10,000-row table the sidebar checked first: its requests, by method. */
export async function scheduledRecheckRequests(sandbox: SandboxProcess, props: SandboxProperty[]) {
  const env = table(sandbox, props, 10000);
  await checkFromSidebar(env, 10000);
  const saved = env.run("saveSchedule", { mode: "daily", hour: 1 });
  if (!saved.ok) throw new Error(saved.message);
  const mark = env.fetches.length;
  let executions = 0;
  for (let i = 0; i < 6; i++) {
    const t = env.script.triggers[0];
    if (!t || (i > 0 && t.afterMs === undefined)) break; // the schedule's own trigger is back: the re-check ended
    if (t.afterMs !== undefined) await passTime(env, t.afterMs);
    createGasEnvironment({ from: env }).run(t.handler, { authMode: "FULL", triggerUid: t.id });
    executions++;
  }
  const sent = env.fetches.slice(mark);
  const posts = sent.filter((f) => f.method === "POST").length;
  const gets = sent.length - posts;
  // The floor: one POST per job of the plan's cap (1,000), one GET per job once it is done, which brings its first
  // page of 1,000 results: a further page only past 1,000 a job, so none here.
  const jobs = Math.ceil(10000 / 1000);
  const floor = jobs + jobs;
  console.log(
    `sheets: scheduled re-check of 10,000 rows: ${sent.length} requests (${posts} POST, ${gets} GET) in ${executions} execution(s); floor ${floor}`,
  );
  summary(
    "a scheduled re-check of 10,000 rows (requests)",
    sent.length,
    "requests",
    floor,
    `floor: ${floor} (${jobs} POSTs of 1,000, 1 GET per job once done)`,
    0,
  );
  return { requests: sent.length, floor };
}

/**
 * Jobs that take a moment (2 ms a property: about 2 s a job of 1,000), so that polling has something to wait for;
 * limits raised so that the sidebar's check before the re-check does not use the day's allowance.
 */
function sandboxForBench(): Promise<SandboxProcess> {
  return startSandboxProcess({ msPerProperty: 2, limits: { professional: { perMinute: 100000, perDay: 1000000 } } });
}

async function main(): Promise<void> {
  // A sandbox for each measurement, so that neither meets the jobs, rate windows or clock the other left behind.
  for (const measure of [lastPollCalls, scheduledRecheckRequests]) {
    const sandbox = await sandboxForBench();
    try {
      await measure(sandbox, await sandbox.properties(10000));
    } finally {
      await sandbox.close();
    }
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
