/**
 * Scheduled re-checks in Google Sheets (issue 10 §2), on the BUILT Code.js with a stand-in ScriptApp whose triggers
 * are kept as Google keeps them (one time-driven trigger per user and document, or creating another throws). Each
 * firing of the trigger is a fresh execution (a new vm over the same stores), timed on the vm's clock.
 */
import { CHANGE_LOG_HEADERS, OUTPUT_COLUMNS, RUN_LOG_HEADERS } from "../../core";
import { createGasEnvironment, type FakeTrigger, type GasEnvironment } from "./harness/gas";
import { startSandboxProcess, type SandboxProcess, type SandboxProperty } from "./harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, seedTable } from "./harness/table";

const SIX_MINUTES = 6 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
const DAY1 = "2027-01-31";
const HANDLER = "scheduledRecheck";

let sandbox: SandboxProcess;
let props: SandboxProperty[];

beforeAll(async () => {
  // Limits raised so that four checks of 10,000 rows in a few minutes are not slowed by the per-minute limit; the
  // plan's cap stays 1,000 a job, so 10,000 rows are 10 jobs.
  sandbox = await startSandboxProcess({ msPerProperty: 0, today: DAY1, limits: { professional: { perMinute: 100000, perDay: 1000000 } } });
  props = await sandbox.properties(10000);
});
afterAll(async () => {
  await sandbox?.close();
});

function runLog(env: GasEnvironment): unknown[][] {
  const sheet = env.spreadsheet.getSheetByName("Run log");
  if (!sheet) return [];
  return sheet.peek(2, 1, Math.max(0, sheet.getLastRow() - 1), RUN_LOG_HEADERS.length);
}

const PROBLEM = RUN_LOG_HEADERS.indexOf("Problem");
const TRIGGER = RUN_LOG_HEADERS.indexOf("Trigger");

/** Checks the table from the sidebar, to the end: this records it for the schedule. */
async function checkFromSidebar(env: GasEnvironment, a1: string) {
  env.sheet.select(a1);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  const last = (await pollToEnd(env, undefined, 2000)).pop();
  expect(last.phase).toBe("done");
  return last;
}

/** The trigger fires: a fresh execution, as Apps Script starts one, with the event object it passes. */
function fire(env: GasEnvironment, t: FakeTrigger): GasEnvironment {
  const exec = createGasEnvironment({ from: env });
  exec.run(t.handler, { authMode: "FULL", triggerUid: t.id });
  return exec;
}

function onlyTrigger(env: GasEnvironment): FakeTrigger {
  expect(env.script.triggers).toHaveLength(1);
  return env.script.triggers[0];
}

test("the trigger is installed once and replaced, never duplicated, when the schedule changes; it shows who it runs as; Off removes it", () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  env.spreadsheet.timeZone = "Europe/London";
  expect(env.run("getSidebarState").schedule).toMatchObject({ mode: "off", runsAs: "" });

  const daily = env.run("saveSchedule", { mode: "daily", hour: 7 });
  expect(daily.ok).toBe(true);
  expect(daily.message).toMatch(/^Scheduled: Daily between 07:00 and 08:00 \(Europe\/London\), as owner@example\.com\. Apps Script picks a minute within that hour\./);
  expect(daily.message).toMatch(/Nothing to re-check yet/);
  const first = onlyTrigger(env);
  expect(first).toMatchObject({ handler: HANDLER, user: "owner@example.com", every: { days: 1, hour: 7, timeZone: "Europe/London" } });
  expect(daily.schedule).toMatchObject({ mode: "daily", hour: 7, runsAs: "owner@example.com", mine: true, warning: "", stale: "" });
  expect(daily.schedule.summary).toBe("Daily between 07:00 and 08:00 (Europe/London), as owner@example.com.");

  // Changed: the trigger is replaced (the old one deleted first: a second would be refused).
  const weekly = env.run("saveSchedule", { mode: "weekly", hour: 18, weekday: "FRIDAY" });
  expect(weekly.ok).toBe(true);
  const second = onlyTrigger(env);
  expect(second.id).not.toBe(first.id);
  expect(second.every).toMatchObject({ weeks: 1, weekday: "FRIDAY", hour: 18 });
  expect(env.script.deleted).toEqual([first.id]);
  expect(weekly.schedule.summary).toBe("Every Friday between 18:00 and 19:00 (Europe/London), as owner@example.com.");

  // Saved again as it is, and from a fresh execution (a reopened sidebar): still one.
  env.run("saveSchedule", { mode: "weekly", hour: 18, weekday: "FRIDAY" });
  createGasEnvironment({ from: env }).run("saveSchedule", { mode: "daily", hour: 23 });
  expect(onlyTrigger(env).every).toMatchObject({ days: 1, hour: 23 });
  expect(env.script.created).toHaveLength(4);

  // Refused input leaves the trigger as it was.
  for (const bad of [{ mode: "daily", hour: 24 }, { mode: "daily", hour: "7.5" }, { mode: "weekly", hour: 3, weekday: "Funday" }, { mode: "hourly" }]) {
    const r = env.run("saveSchedule", bad);
    expect(r.ok).toBe(false);
    expect(onlyTrigger(env).every).toMatchObject({ days: 1, hour: 23 });
  }

  // Another editor sees whose schedule it is; their own trigger list is empty.
  env.script.user = "editor@example.com";
  const seen = env.run("getSidebarState").schedule;
  expect(seen).toMatchObject({ mode: "daily", runsAs: "owner@example.com", mine: false });
  expect(seen.warning).toMatch(/set by owner@example\.com: it runs as them/);
  env.script.user = "owner@example.com";

  const off = env.run("saveSchedule", { mode: "off" });
  expect(off.ok).toBe(true);
  expect(env.script.triggers).toHaveLength(0);
  expect(off.schedule.mode).toBe("off");

  // No key: nothing is installed (the trigger would run with the key of the person who set it).
  env.run("removeApiKey");
  const noKey = env.run("saveSchedule", { mode: "daily", hour: 7 });
  expect(noKey.ok).toBe(false);
  expect(noKey.message).toMatch(/API key/);
  expect(env.script.triggers).toHaveLength(0);
});

test("re-authorisation needed: one Run log row says so, and nothing is fetched or written", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const { lastRow } = seedTable(env.sheet, ["UPRN"], props.slice(0, 5).map((p) => [p.uprn]));
  await checkFromSidebar(env, `A1:A${lastRow}`);
  expect(env.run("saveSchedule", { mode: "daily", hour: 6 }).ok).toBe(true);
  const t = onlyTrigger(env);
  const fetches = env.fetches.length;
  const block = env.sheet.peek(1, 1, lastRow, env.sheet.maxCols);
  const logged = runLog(env).length;

  env.script.authStatus = "REQUIRED";
  fire(env, t);
  expect(env.fetches.length).toBe(fetches);
  expect(env.sheet.peek(1, 1, lastRow, env.sheet.maxCols)).toEqual(block);
  const rows = runLog(env);
  expect(rows).toHaveLength(logged + 1);
  expect(rows[rows.length - 1][TRIGGER]).toBe("scheduled");
  expect(String(rows[rows.length - 1][PROBLEM])).toMatch(/^Re-authorisation needed/);
  // The schedule stays as it was, for when access is given again.
  expect(onlyTrigger(env).id).toBe(t.id);
  expect(env.run("getSidebarState").lastRun).toMatch(/\(scheduled\).*Re-authorisation needed/);
});

test("the stale banner: shown once no scheduled re-check has succeeded for 26 hours, with the Run log's last problem; not before", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const { lastRow } = seedTable(env.sheet, ["UPRN"], props.slice(0, 5).map((p) => [p.uprn]));
  await checkFromSidebar(env, `A1:A${lastRow}`);
  expect(env.run("saveSchedule", { mode: "daily", hour: 6 }).ok).toBe(true);
  fire(env, onlyTrigger(env));
  const after = env.run("getSidebarState");
  expect(runLog(env).pop()![TRIGGER]).toBe("scheduled");
  expect(after.schedule.stale).toBe("");
  expect(after.lastRun).toMatch(/^Last run .* UTC \(scheduled\): 5 of 5 rows checked/);
  // The schedule's trigger is back in place after a re-check that ended within its execution.
  expect(onlyTrigger(env).every).toMatchObject({ days: 1, hour: 6 });

  env.clock.offsetMs += 25 * HOUR;
  expect(env.run("getSidebarState").schedule.stale).toBe("");
  // The next day's run needs re-authorisation: it fails, and is logged so.
  env.script.authStatus = "REQUIRED";
  fire(env, onlyTrigger(env));
  env.clock.offsetMs += 2 * HOUR; // 27 hours since the last success
  const stale = env.run("getSidebarState").schedule.stale;
  expect(stale).toMatch(/^Results may be out of date: no scheduled re-check has succeeded for more than 26 hours \(since .* UTC\)\. Last problem in the Run log: Re-authorisation needed/);

  // Access given again, the trigger fires: fresh again.
  env.script.authStatus = "NOT_REQUIRED";
  fire(env, onlyTrigger(env));
  expect(env.run("getSidebarState").schedule.stale).toBe("");
});
