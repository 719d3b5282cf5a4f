/**
 * Scheduled re-checks in Google Sheets, on the BUILT Code.js with a stand-in ScriptApp whose triggers
 * are kept as Google keeps them (one time-driven trigger per user and document, or creating another throws). Each
 * firing of the trigger is a fresh execution (a new vm over the same stores), timed on the vm's clock.
 */
import { CHANGE_LOG_HEADERS, OUTPUT_COLUMNS, RUN_LOG_HEADERS } from "../../../core";
import { createGasEnvironment, type FakeTrigger, type GasEnvironment } from "../harness/gas";
import { sandboxForFile, type SandboxProperty, startSandboxProcess } from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, seedTable } from "../harness/table";

const SIX_MINUTES = 6 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
const DAY1 = "2027-01-31";
const HANDLER = "scheduledRecheck";

// Limits raised so that several checks of 2,500 rows in a few minutes are not slowed by the per-minute limit; the
// plan's cap stays 1,000 a job, so 2,500 rows are 3 jobs.
const sandbox = sandboxForFile({
  msPerProperty: 0,
  today: DAY1,
  limits: { professional: { perMinute: 100000, perDay: 1000000 } },
});
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(2500);
});

/** The Run log's runs: a reminder digest's row (digest.test.ts) is not one. */
function runLog(env: GasEnvironment): unknown[][] {
  const sheet = env.spreadsheet.getSheetByName("Run log");
  if (!sheet) return [];
  return sheet
    .peek(2, 1, Math.max(0, sheet.getLastRow() - 1), RUN_LOG_HEADERS.length)
    .filter((r) => r[RUN_LOG_HEADERS.indexOf("Trigger")] !== "digest");
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
  expect(daily.message).toMatch(
    /^Scheduled: Daily between 07:00 and 08:00 \(Europe\/London\), as owner@example\.com\. Apps Script picks a minute within that hour\./,
  );
  expect(daily.message).toMatch(/Nothing to re-check yet/);
  const first = onlyTrigger(env);
  expect(first).toMatchObject({
    handler: HANDLER,
    user: "owner@example.com",
    every: { days: 1, hour: 7, timeZone: "Europe/London" },
  });
  expect(daily.schedule).toMatchObject({
    mode: "daily",
    hour: 7,
    runsAs: "owner@example.com",
    mine: true,
    warning: "",
    stale: "",
  });
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
  for (const bad of [
    { mode: "daily", hour: 24 },
    { mode: "daily", hour: "7.5" },
    { mode: "weekly", hour: 3, weekday: "Funday" },
    { mode: "hourly" },
  ]) {
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
  const { lastRow } = seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 5).map((p) => [p.uprn]),
  );
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
  const { lastRow } = seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 5).map((p) => [p.uprn]),
  );
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
  expect(stale).toMatch(
    /^Results may be out of date: no scheduled re-check has succeeded for more than 26 hours \(since .* UTC\)\. Last problem in the Run log: Re-authorisation needed/,
  );

  // Access given again, the trigger fires: fresh again.
  env.script.authStatus = "NOT_REQUIRED";
  fire(env, onlyTrigger(env));
  expect(env.run("getSidebarState").schedule.stale).toBe("");
});

test("a table of several jobs re-checked by the trigger: submitted in one execution, collected in the next, each under 6 minutes, every job sent once; the block and the Change log are what a check from the sidebar gives", async () => {
  // 1,200 rows: two jobs of the plan's 1,000, as many executions as 10,000 rows take (npm run bench measures those).
  const rows = props.slice(0, 1200).map((p) => [p.uprn]);
  // Two copies of the same spreadsheet: one re-checked by the schedule, the other by the sidebar's button.
  const scheduled = createGasEnvironment();
  const manual = createGasEnvironment();
  // Both first checked on the add-on's clock at 10:00 UTC on the sandbox's day, whatever the hour the suite runs at: a
  // first check of each either side of midnight would give the two different first-reported days.
  for (const env of [scheduled, manual]) {
    env.clock.offsetMs = Date.parse(`${DAY1}T10:00:00Z`) - Date.now();
    configure(env, sandbox);
    seedTable(env.sheet, ["UPRN"], rows);
    await checkFromSidebar(env, "A1:A1201");
  }
  // 60 days on at the service: certificates expire, statuses change.
  const moved = await fetch(`${sandbox.url}/__sandbox/clock`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ advance_days: 60 }),
  });
  expect(moved.ok).toBe(true);
  // Both re-checked on the add-on's clock at 01:00 UTC the next day, so that "days to next expiry" and the windows
  // (counted from the day of the check) are worked out on the same day in both.
  const tomorrow = Date.parse(`${DAY1}T10:00:00Z`) + 15 * HOUR;
  scheduled.clock.offsetMs = tomorrow - Date.now();
  expect(scheduled.run("saveSchedule", { mode: "daily", hour: 1 }).ok).toBe(true);

  const submitsBefore = (await sandbox.stats()).bulk_submit;
  // Every request takes 130 s of the vm's clock: the first job goes alone, then the second, and the re-check cannot fit
  // one execution.
  scheduled.network.hangMs = 130000;
  const executions: { ms: number; posts: number; gets: number; trigger: FakeTrigger }[] = [];
  for (let i = 0; i < 8; i++) {
    const t = onlyTrigger(scheduled);
    if (i > 0 && t.afterMs === undefined) break; // the schedule's own trigger is back: the re-check ended
    if (t.afterMs !== undefined) scheduled.clock.offsetMs += t.afterMs;
    const mark = scheduled.fetches.length;
    fire(scheduled, t);
    const sent = scheduled.fetches.slice(mark);
    executions.push({
      ms: scheduled.vmDurations[scheduled.vmDurations.length - 1].ms,
      posts: sent.filter((f) => f.method === "POST").length,
      gets: sent.filter((f) => f.method === "GET").length,
      trigger: t,
    });
  }
  scheduled.network.hangMs = 0;
  expect(executions.length).toBeGreaterThanOrEqual(2);
  for (const e of executions) expect(e.ms).toBeLessThan(SIX_MINUTES);
  // The first execution was the schedule's trigger; each later one a one-off follow-up an hour on (an add-on's minimum).
  expect(executions[0].trigger.every).toMatchObject({ days: 1, hour: 1 });
  for (const e of executions.slice(1)) expect(e.trigger.afterMs).toBe(HOUR);
  // Submitted in the first execution, each job once; later executions only collect.
  expect(executions[0].posts).toBe(2);
  for (const e of executions.slice(1)) expect(e.posts).toBe(0);
  expect(executions[executions.length - 1].gets).toBeGreaterThan(0);
  expect((await sandbox.stats()).bulk_submit - submitsBefore).toBe(2);
  // Back to the schedule: one trigger, daily at 01:00.
  expect(onlyTrigger(scheduled).every).toMatchObject({ days: 1, hour: 1 });
  expect(scheduled.run("getSidebarState").schedule).toMatchObject({ pending: "", stale: "" });

  manual.clock.offsetMs = tomorrow - Date.now();
  await checkFromSidebar(manual, "A1:A1201");

  // The results block: the same in both, row for row (but the time of the check).
  const block = (env: GasEnvironment) => {
    const start = outputCol(env.sheet, "compliance_score");
    const checkedAt = OUTPUT_COLUMNS.findIndex((c) => c.key === "checked_at");
    return env.sheet
      .peek(2, start, 1200, OUTPUT_COLUMNS.length)
      .map((r) => r.map((v, i) => (i === checkedAt ? "" : v instanceof Date ? v.toISOString() : v)));
  };
  const got = block(scheduled);
  expect(got).toEqual(block(manual));
  expect(String(cellValue(scheduled.sheet, 1201, outputCol(scheduled.sheet, "matched_uprn")))).toBe(props[1199].uprn);
  expect(got.filter((r) => /Checking/.test(String(r[OUTPUT_COLUMNS.findIndex((c) => c.key === "message")])))).toEqual(
    [],
  );

  // The Change log: the same changes (but the Run at time), found by the same rules.
  const changes = (env: GasEnvironment) => {
    const log = env.spreadsheet.getSheetByName("Change log")!;
    return log
      .peek(2, 1, log.getLastRow() - 1, CHANGE_LOG_HEADERS.length)
      .map((r) => JSON.stringify(r.slice(1)))
      .sort();
  };
  const logged = changes(scheduled);
  expect(logged.length).toBeGreaterThan(100);
  expect(logged).toEqual(changes(manual));

  // The Run log: the sidebar's check, then the schedule's, with the same counts as the sidebar's second check.
  const s = runLog(scheduled);
  const m = runLog(manual);
  expect(s.map((r) => r[TRIGGER])).toEqual(["manual", "scheduled"]);
  const counts = (r: unknown[]) =>
    ["Rows", "Checked", "Changed", "Worse", "Errors", "Problem"].map(
      (h) => r[RUN_LOG_HEADERS.indexOf(h as (typeof RUN_LOG_HEADERS)[number])],
    );
  expect(counts(s[1])).toEqual(counts(m[1]));
  expect(counts(s[1]).slice(0, 3)).toEqual([1200, 1200, logged.length]);
}, 900000);

test("a scheduled re-check makes no more requests than the sidebar's check: one POST per job of 1,000, one GET per job once done", async () => {
  // Jobs that take a while (2 ms a property: 2 s a job of 1,000). The trigger's Utilities.sleep moves the script's clock
  // and the sandbox's follows it (harness/gas.ts), so the polls the run makes while the jobs work are counted.
  const timed = await startSandboxProcess({
    msPerProperty: 2,
    today: DAY1,
    limits: { professional: { perMinute: 100000, perDay: 1000000 } },
  });
  try {
    const rows = (await timed.properties(1200)).map((p) => [p.uprn]);
    const env = createGasEnvironment();
    configure(env, timed);
    seedTable(env.sheet, ["UPRN"], rows);
    const mark0 = env.fetches.length;
    await checkFromSidebar(env, "A1:A1201");
    const bySidebar = env.fetches.length - mark0;
    expect(env.run("saveSchedule", { mode: "daily", hour: 1 }).ok).toBe(true);
    const mark = env.fetches.length;
    fire(env, onlyTrigger(env));
    const sent = env.fetches.slice(mark);
    // Ended in that execution: the schedule's own trigger is back.
    expect(onlyTrigger(env).every).toMatchObject({ days: 1, hour: 1 });
    // The floor: 2 jobs, each one POST and one GET once done (its one page of results); at most 1.25 times it.
    const floor = 2 + 2;
    expect(sent.filter((f) => f.method === "POST")).toHaveLength(2);
    expect(sent.length).toBeGreaterThanOrEqual(floor);
    expect(sent.length).toBeLessThanOrEqual(Math.floor(1.25 * floor));
    expect(sent.length).toBeLessThanOrEqual(bySidebar);
    const message = outputCol(env.sheet, "message");
    expect(env.sheet.peek(2, message, 1200, 1).filter((r) => /Checking/.test(String(r[0])))).toEqual([]);
    expect(runLog(env).map((r) => r[TRIGGER])).toEqual(["manual", "scheduled"]);
  } finally {
    await timed.close();
  }
}, 300000);

test("an execution that dies (past 6 minutes) is picked up by the follow-up it installed: the jobs already sent are collected, none is sent twice", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const { lastRow } = seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 1200).map((p) => [p.uprn]),
  );
  await checkFromSidebar(env, `A1:A${lastRow}`);
  expect(env.run("saveSchedule", { mode: "daily", hour: 5 }).ok).toBe(true);
  const submitsBefore = (await sandbox.stats()).bulk_submit;

  // First execution: 130 s a request, so it sends the two jobs and runs out of its time before collecting them all.
  env.network.hangMs = 130000;
  fire(env, onlyTrigger(env));
  const followUp = onlyTrigger(env);
  expect(followUp.afterMs).toBe(HOUR);
  expect((await sandbox.stats()).bulk_submit - submitsBefore).toBe(2);

  // The follow-up's execution hangs past 6 minutes and is ended by Apps Script, mid-request.
  env.clock.offsetMs += HOUR;
  env.network.hangMs = 7 * 60 * 1000;
  expect(() => fire(env, followUp)).toThrow(/Exceeded maximum execution time/);
  // It had put its own follow-up in place first.
  const next = onlyTrigger(env);
  expect(next.id).not.toBe(followUp.id);
  expect(next.afterMs).toBe(HOUR);

  env.clock.offsetMs += HOUR;
  env.network.hangMs = 0;
  fire(env, next);
  expect(onlyTrigger(env).every).toMatchObject({ days: 1, hour: 5 });
  expect((await sandbox.stats()).bulk_submit - submitsBefore).toBe(2);
  const uprn = outputCol(env.sheet, "matched_uprn");
  expect(String(cellValue(env.sheet, 2, uprn))).toBe(props[0].uprn);
  expect(String(cellValue(env.sheet, lastRow, uprn))).toBe(props[1199].uprn);
  const message = outputCol(env.sheet, "message");
  expect(env.sheet.peek(2, message, 1200, 1).filter((r) => /Checking/.test(String(r[0])))).toEqual([]);
  const last = runLog(env).pop()!;
  expect(last[TRIGGER]).toBe("scheduled");
  expect(counts(last)).toEqual([1200, 1200, ""]);
  expect(env.run("getSidebarState").schedule.stale).toBe("");
}, 300000);

function counts(r: unknown[]) {
  return [r[RUN_LOG_HEADERS.indexOf("Rows")], r[RUN_LOG_HEADERS.indexOf("Checked")], r[PROBLEM]];
}

test("UrlFetch's daily limit: once the re-checks have sent their share today, the trigger sends nothing, says so in the Run log, and waits for tomorrow", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const { lastRow } = seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(20, 30).map((p) => [p.uprn]),
  );
  await checkFromSidebar(env, `A1:A${lastRow}`);
  expect(env.run("saveSchedule", { mode: "daily", hour: 6 }).ok).toBe(true);
  const t = onlyTrigger(env);
  // The re-checks already sent 15,000 requests today (the count the add-on keeps in user properties).
  const nowMs = Date.now() + env.clock.offsetMs;
  env.userProperties.setProperty("compliance.fetches", `${new Date(nowMs).toISOString().slice(0, 10)}:15000`);
  const fetches = env.fetches.length;
  const logged = runLog(env).length;
  fire(env, t);
  expect(env.fetches.length).toBe(fetches);
  const rows = runLog(env);
  expect(rows).toHaveLength(logged + 1);
  expect(String(rows[rows.length - 1][PROBLEM])).toMatch(
    /^Paused: the re-checks sent 15,000 requests today.*go on tomorrow/,
  );
  // One trigger still (never two): a follow-up that fires after midnight UTC.
  const follow = onlyTrigger(env);
  expect(follow.afterMs).toBeGreaterThan(0);
  const firesAt = follow.createdAtMs + follow.afterMs!;
  expect(new Date(firesAt).toISOString().slice(0, 10)).not.toBe(new Date(nowMs).toISOString().slice(0, 10));
  expect(firesAt - nowMs).toBeLessThanOrEqual(24 * HOUR);
});

test("the plan's quota used up mid re-check: the run pauses, the follow-up waits until the quota is back, and the re-check then ends with every row answered", async () => {
  // A plan of 4 requests a day. The table is checked from the sidebar while it has 3 rows (2 requests); rows are added
  // since, so the re-check of the whole table needs 3 jobs (6 requests): it runs out part-way.
  const small = await startSandboxProcess({
    msPerProperty: 0,
    today: DAY1,
    limits: { professional: { perMinute: 100000, perDay: 4 } },
  });
  try {
    const few = await small.properties(2500);
    const env = createGasEnvironment();
    configure(env, small);
    seedTable(
      env.sheet,
      ["UPRN"],
      few.slice(0, 3).map((p) => [p.uprn]),
    );
    await checkFromSidebar(env, "A1:A4");
    expect(env.run("saveSchedule", { mode: "daily", hour: 6 }).ok).toBe(true);
    env.sheet.maxRows = 2510;
    env.sheet.seed(
      5,
      1,
      few.slice(3).map((p) => [p.uprn]),
    );
    // The next day: the day's quota is back.
    env.clock.offsetMs += 24 * HOUR + 60_000;
    await small.advanceClock(24 * HOUR + 60_000);
    const logged = runLog(env).length;
    fire(env, onlyTrigger(env));
    // Paused by the quota: a follow-up set for when it comes back (not another blind hour), nothing ended yet.
    const follow = onlyTrigger(env);
    expect(follow.afterMs).toBeGreaterThan(HOUR);
    // The three jobs were sent (1 submit was the sidebar's check); collecting them ran out of the day's requests.
    expect((await small.stats()).bulk_submit).toBe(1 + 3);
    const msg = outputCol(env.sheet, "message");
    const waiting = () => env.sheet.peek(2, msg, 2500, 1).filter((r) => /^Checking/.test(String(r[0]))).length;
    expect(waiting()).toBeGreaterThan(0);
    expect(waiting()).toBeLessThan(2500);
    // The quota is back: the follow-up fires and the re-check ends.
    env.clock.offsetMs += follow.afterMs! + 60_000;
    await small.advanceClock(follow.afterMs! + 60_000);
    for (let i = 0; i < 3 && onlyTrigger(env).afterMs; i++) fire(env, onlyTrigger(env));
    expect(waiting()).toBe(0);
    // Collected, never sent again.
    expect((await small.stats()).bulk_submit).toBe(1 + 3);
    const rows = runLog(env).slice(logged);
    const last = rows[rows.length - 1];
    expect(last[TRIGGER]).toBe("scheduled");
    expect(last[RUN_LOG_HEADERS.indexOf("Checked")]).toBe(2500);
    // Back on the daily schedule.
    expect(onlyTrigger(env).every).toBeTruthy();
  } finally {
    await small.close();
  }
});

test("a table without a header row is re-checked where its rows are, its block found by what its rows hold (core's planTable, as the sidebar finds it): updated in place, no second block", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  env.sheet.seed(
    1,
    1,
    props.slice(0, 3).map((p) => [p.uprn, "mine"]),
  );
  env.sheet.select("A1:A3");
  expect(env.run("startBulkCheck", { mapping: { uprn: "A" } }).ok).toBe(true);
  expect((await pollToEnd(env, undefined, 2000)).pop().phase).toBe("done");
  const W = OUTPUT_COLUMNS.length;
  const matched = 3 + OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn");
  // The user clears one result: the re-check must write it again in the same block, not start a new one.
  env.sheet.seed(2, matched, [[""]]);
  expect(env.run("saveSchedule", { mode: "daily", hour: 1 }).ok).toBe(true);
  fire(env, onlyTrigger(env));
  expect(runLog(env).map((r) => [r[TRIGGER], r[PROBLEM]])).toEqual([
    ["manual", ""],
    ["scheduled", ""],
  ]);
  expect(env.sheet.peek(1, matched, 3, 1).flat().map(String)).toEqual(props.slice(0, 3).map((p) => p.uprn));
  expect(env.sheet.peek(1, 2, 3, 1).flat()).toEqual(["mine", "mine", "mine"]);
  expect(
    env.sheet
      .peek(1, 3 + W, 3, W)
      .flat()
      .every((v) => v === ""),
  ).toBe(true);
});
