/**
 * Reminder digests in Google Sheets, on the BUILT Code.js with a MailApp stand-in that records each message and keeps
 * the daily recipient quota and the size of a message. Three tables of 3,400 rows in all on three sheets, each row
 * assigned to a person (or to a name that is not an address, or to no one), checked from the sidebar; the schedule's
 * trigger then fires as Apps Script fires it, with the sandbox's clock (its certificates expire as it moves) and the
 * vm's moved on together. What each person should get is read from the Action list sheets the re-checks wrote (Window
 * and Days left for one Action ID, 60 days apart) and the source rows' Assigned to, never from the digest's own
 * arithmetic; each action is compared whole (its row, check and due day), not counted.
 */
import { simpleParser } from "mailparser";
import { RUN_LOG_HEADERS } from "../../../core";
import { createGasEnvironment, formatDate, type GasEnvironment, type SentMail } from "../harness/gas";
import type { FakeSheet } from "../harness/fake-sheets";
import { passTime, startSandboxProcess, type SandboxProcess, type SandboxProperty } from "../harness/sandbox";
import { configure, pollToEnd } from "../harness/table";

const DAY1 = "2027-01-31";
const DAY = 24 * 60 * 60 * 1000;
/**
 * The three tables and their rows, 3,400 in all: each table is two of the plan's jobs of 1,000, the digest's state takes
 * several of a property's 9 KB values, and every first digest is more than an email holds.
 */
const TABLES: [string, number][] = [
  ["North", 1200],
  ["South", 1100],
  ["East", 1100],
];
const ROWS = TABLES.reduce((n, [, rows]) => n + rows, 0);
const THRESHOLDS = [90, 60, 30, 7];
const PEOPLE = ["ana@example.com", "bo@example.co.uk", "Jo Smith", "", "cé@example.com"];
const OWNER = "owner@example.com";

let sandbox: SandboxProcess;
let props: SandboxProperty[];

beforeAll(async () => {
  sandbox = await startSandboxProcess({
    msPerProperty: 0,
    today: DAY1,
    limits: { professional: { perMinute: 100000, perDay: 1000000 } },
  });
  props = await sandbox.properties(ROWS);
});
afterAll(async () => {
  await sandbox?.close();
});

function seed(sheet: FakeSheet, rows: SandboxProperty[]): number {
  if (sheet.maxRows < rows.length + 10) sheet.maxRows = rows.length + 10;
  if (sheet.maxCols < 60) sheet.maxCols = 60;
  sheet.seed(1, 1, [
    ["UPRN", "Address", "Assigned to"],
    ...rows.map((p, i) => [p.uprn, p.address, PEOPLE[i % PEOPLE.length]]),
  ]);
  return rows.length + 1;
}

async function check(env: GasEnvironment, sheet: FakeSheet, a1: string): Promise<void> {
  env.spreadsheet.active = sheet;
  sheet.select(a1);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  const polls = await pollToEnd(env, undefined, 3000);
  expect(polls[polls.length - 1].phase).toBe("done");
}

/** The trigger fires: a fresh execution, as Apps Script starts one. Gives the number of executions the pass took. */
async function fire(env: GasEnvironment): Promise<number> {
  for (let execution = 1; execution <= 4; execution++) {
    expect(env.script.triggers).toHaveLength(1);
    const t = env.script.triggers[0];
    // A re-check not done within one execution left its follow-up, which Apps Script fires an hour on. The harness
    // counts an execution's time on the real clock, which a busy machine stretches.
    if (execution > 1) await passTime(env, t.afterMs ?? 0);
    createGasEnvironment({ from: env }).run(t.handler, { authMode: "FULL", triggerUid: t.id });
    // The re-check ended: the schedule's own trigger is back.
    if (env.script.triggers[0].every) return execution;
  }
  throw new Error("The scheduled re-check did not end within four executions.");
}

interface Listed {
  window: string;
  days: number | null;
  assignee: string;
  /** Its due day as the digest gives it ("no date" for none). */
  due: string;
  /** The action whole, as a digest names it: "North, row 12 | Gas safety | 2027-03-01". */
  said: string;
}

/**
 * The Action list as the sheet has it (90 days): Action ID -> window, days left, the source row's Assigned to (read
 * from the table's own sheet), and the action as a digest names it (its row, check and due day in the file's zone).
 */
function actionList(env: GasEnvironment): Map<string, Listed> {
  const sheet = env.spreadsheet.getSheetByName("Action list")!;
  const grid = sheet.peek(1, 1, sheet.getLastRow(), sheet.getLastColumn());
  const h = grid[0].map(String);
  const c = (name: string) => h.indexOf(name);
  const blank = grid.findIndex((r, i) => i > 0 && r.every((v) => v === ""));
  const source = new Map<string, string>();
  for (const [s, rows] of TABLES) {
    const src = env.spreadsheet.getSheetByName(s)!;
    src.peek(2, 3, rows, 1).forEach((r, i) => source.set(`${s}\u0000${i + 2}`, String(r[0])));
  }
  const out = new Map<string, Listed>();
  for (const r of grid.slice(1, blank < 0 ? grid.length : blank)) {
    const d = r[c("Due")];
    const due =
      Object.prototype.toString.call(d) === "[object Date]"
        ? formatDate(d as Date, env.spreadsheet.timeZone, "yyyy-MM-dd")
        : String(d || "no date");
    out.set(String(r[c("Action ID")]), {
      window: String(r[c("Window")]),
      days: typeof r[c("Days left")] === "number" ? (r[c("Days left")] as number) : null,
      assignee: source.get(`${r[c("Table")]}\u0000${r[c("Row")]}`) ?? "",
      due,
      said: `${r[c("Table")]}, row ${r[c("Row")]} | ${r[c("Check")]} | ${due}`,
    });
  }
  return out;
}

/** The actions a message lists, each as its text names it (row, check, due day), sorted. */
function actionsIn(m: SentMail): string[] {
  return m.body
    .split(/\n(?=\d+\. )/)
    .slice(1)
    .map((entry) => {
      const field = (name: string) => new RegExp(`^ {3}${name}: (.*)$`, "m").exec(entry)?.[1] ?? `(no ${name})`;
      return `${field("Where")} | ${field("Check")} | ${field("Due")}`;
    })
    .sort();
}

/** What `who` should be sent of `ids` (everything for the owner, null). */
function expectedOf(list: Map<string, Listed>, ids: Iterable<string>, who: string | null): Listed[] {
  return [...ids].map((id) => list.get(id)!).filter((a) => who === null || a.assignee === who);
}

const RANK = ["Overdue", "Urgent", "Book", "Plan", "OK"];
/** Most urgent first: the window, then the due day (none last). */
const urgency = (a: Listed) => `${RANK.indexOf(a.window)}|${a.due === "no date" ? "9999" : a.due}`;

/**
 * A message lists what `who` should be sent, each action whole: every one of them, or, when they are more than an email
 * holds (MailApp's 200 KB), the most urgent ones and a line that says how many there are. Gives how many it listed.
 */
function expectListed(m: SentMail, expected: Listed[]): number {
  const listed = actionsIn(m);
  const all = expected.map((a) => a.said).sort();
  if (listed.length === all.length) {
    expect(listed).toEqual(all);
    return listed.length;
  }
  const byAction = new Map(expected.map((a) => [a.said, a]));
  for (const a of listed) expect(byAction.has(a) ? a : `not one to send: ${a}`).toBe(a);
  expect(new Set(listed).size).toBe(listed.length);
  expect(m.body).toContain(
    `Listed here: the ${listed.length.toLocaleString("en-GB")} most urgent of ${all.length.toLocaleString("en-GB")} actions, as many as an email can hold. The Action list sheet has every one.`,
  );
  // None left out is more urgent than one listed.
  const last = listed
    .map((a) => urgency(byAction.get(a)!))
    .sort()
    .pop()!;
  const shown = new Set(listed);
  const moreUrgent = expected.filter((a) => !shown.has(a.said) && urgency(a) < last).map((a) => a.said);
  expect(moreUrgent).toEqual([]);
  return listed.length;
}

function runLog(env: GasEnvironment): unknown[][] {
  const sheet = env.spreadsheet.getSheetByName("Run log")!;
  return sheet.peek(2, 1, sheet.getLastRow() - 1, RUN_LOG_HEADERS.length);
}
const col = (h: (typeof RUN_LOG_HEADERS)[number]) => RUN_LOG_HEADERS.indexOf(h);

const undated = (id: string) => id.replace(/\.\d{8}(-[0-9a-z]+)?$/, "$1");

test("a scheduled re-check of three tables emails each person exactly their new, more urgent and past-a-threshold actions; nothing changed sends nothing; a short quota sends the owner one digest", async () => {
  const env = createGasEnvironment();
  env.clock.offsetMs = Date.parse(`${DAY1}T06:00:00Z`) - Date.now();
  env.spreadsheet.timeZone = "Europe/London";
  configure(env, sandbox);
  expect(env.run("saveSettings", { actionDays: 90 }).ok).toBe(true);
  env.sheet.setName(TABLES[0][0]);
  let from = 0;
  for (const [i, [name, rows]] of TABLES.entries()) {
    const s = i === 0 ? env.sheet : env.spreadsheet.addSheet(name, 10, 60);
    const last = seed(s, props.slice(from, (from += rows)));
    await check(env, s, `A2:A${last}`);
  }
  const saved = env.run("saveSchedule", { mode: "daily", hour: 7 });
  expect(saved.ok).toBe(true);
  expect(saved.message).toMatch(/Reminder digests are emailed to owner@example\.com/);
  expect(saved.schedule.digest).toMatchObject({ on: true, thresholds: "90, 60, 30, 7", last: "No digest sent yet." });

  // The first scheduled re-check: every action is new; the owner gets all, each person theirs.
  await passTime(env, 1.5 * 60 * 60 * 1000);
  const mark = env.log.mark();
  const executions = await fire(env);
  // The digest lists from the tables the pass's Action list was just built from: no table is read again after it is
  // written (unless the pass ran out of its execution's time as its last table ended, and the next execution ended it).
  const calls = env.log.since(mark);
  const listWritten = calls.map((c) => c.write && c.sheet === "Action list").lastIndexOf(true);
  expect(listWritten).toBeGreaterThan(0);
  const readAfter = calls
    .slice(listWritten)
    .filter((c) => c.method === "getValues" && TABLES.some(([name]) => name === c.sheet));
  if (executions === 1) expect(readAfter).toEqual([]);
  // The pass's end reads each table whole once for the Action list (the one it checked last is a remembered table too,
  // and is not read twice), and the digest lists from the Action list it wrote rather than reading it back.
  const lastBlockWrite = calls.map((c) => c.write && TABLES.some(([name]) => name === c.sheet)).lastIndexOf(true);
  const wholeTableReads = calls
    .slice(lastBlockWrite, listWritten)
    .filter((c) => c.method === "getValues" && TABLES.some(([name]) => name === c.sheet))
    .filter((c) => Number(/^A1:[A-Z]+(\d+)$/.exec(c.a1 ?? "")?.[1]) > 1000);
  if (executions === 1) expect(wholeTableReads.map((c) => c.sheet).sort()).toEqual(["East", "North", "South"]);
  const listReadAfter = calls.slice(listWritten).filter((c) => c.method === "getValues" && c.sheet === "Action list");
  if (executions === 1) expect(listReadAfter).toEqual([]);
  const day1 = actionList(env);
  expect(day1.size).toBeGreaterThan(1000);
  // The state the next digest compares with is kept in pieces, as a property value holds 9 KB.
  expect(Number(env.documentProperties.getProperty("compliance.digest.state"))).toBeGreaterThan(1);
  const first = env.mail.sent.slice();
  const to = (list: SentMail[], who: string) => list.filter((m) => m.to === who);
  // A first digest is more than an email holds: each message lists the most urgent, as many as fit.
  for (const who of [OWNER, "ana@example.com", "bo@example.co.uk"]) {
    const mine = expectedOf(day1, day1.keys(), who === OWNER ? null : who);
    expect(to(first, who)).toHaveLength(1);
    const listed = expectListed(to(first, who)[0], mine);
    expect(listed).toBeGreaterThan(50);
    expect(listed).toBeLessThan(mine.length);
  }
  for (const m of first)
    expect(Buffer.byteLength(m.body) + Buffer.byteLength(m.htmlBody ?? "")).toBeLessThanOrEqual(200_000);
  // Neither the name nor the non-ASCII address is guessed at: the owner is told, with the rows.
  expect(first.map((m) => m.to).sort()).toEqual(["ana@example.com", "bo@example.co.uk", OWNER]);
  expect(to(first, OWNER)[0].body).toMatch(/"Jo Smith" \(Assigned to, (North|South|East) row \d+/);
  expect(to(first, OWNER)[0].body).toMatch(/"cé@example\.com" \(Assigned to/);
  expect(to(first, OWNER)[0].body).toMatch(/To stop them, open the spreadsheet/);
  expect(to(first, OWNER)[0].htmlBody).toMatch(
    /href="https:\/\/docs\.google\.com\/spreadsheets\/d\/[\w-]+\/edit#gid=\d+&amp;range=A\d+"/,
  );
  const logged = runLog(env).filter((r) => r[col("Trigger")] === "digest");
  expect(logged).toHaveLength(1);
  expect(logged[0][col("Rows")]).toBe(day1.size);
  expect(String(logged[0][col("Problem")])).toMatch(/^Digest sent to owner@example\.com \([\d,]+ actions\), /);
  expect(env.run("getSidebarState").schedule.digest.last).toMatch(
    /^Last digest 2027-01-31 \d\d:\d\d UTC to owner@example\.com, /,
  );
  // The digest's row is not the last run's line, nor a problem for the stale banner.
  expect(env.run("getSidebarState").lastRun).toMatch(/\(scheduled\)/);

  // 60 days on: the sandbox's certificates have aged with its clock.
  await passTime(env, 60 * DAY);
  await fire(env);
  const day61 = actionList(env);
  const second = env.mail.sent.slice(first.length);
  const expected = new Set<string>();
  // An overdue action is said once: one overdue last time, same row and check, under another date is the same one
  // ("do it now" obligations carry each day's own date).
  const overdueOnDay1 = new Map<string, Listed>();
  for (const [k, v] of day1)
    if (v.window === "Overdue" && !overdueOnDay1.has(undated(k))) overdueOnDay1.set(undated(k), v);
  for (const [id, now] of day61) {
    const was = day1.get(id);
    const sameOverdue = !was && now.window === "Overdue" ? overdueOnDay1.get(undated(id)) : undefined;
    const before = was ?? sameOverdue;
    const news =
      !before ||
      RANK.indexOf(now.window) < RANK.indexOf(before.window) ||
      (!sameOverdue &&
        before.days !== null &&
        now.days !== null &&
        THRESHOLDS.some((t) => before.days! > t && now.days! <= t));
    if (news) expected.add(id);
  }
  expect(expected.size).toBeGreaterThan(100);
  expect(expected.size).toBeLessThan(day61.size);
  expectListed(to(second, OWNER)[0], expectedOf(day61, expected, null));
  for (const who of ["ana@example.com", "bo@example.co.uk"]) {
    const mine = expectedOf(day61, expected, who);
    expect(mine.length).toBeGreaterThan(10);
    expect(to(second, who)).toHaveLength(1);
    expectListed(to(second, who)[0], mine);
  }
  // Nobody else: the name and the non-ASCII address are the owner's to sort out, as on the first day.
  expect(second.map((m) => m.to).sort()).toEqual(["ana@example.com", "bo@example.co.uk", OWNER]);
  expect(to(second, OWNER)[0].subject).toMatch(
    /^Compliance reminders: [\d,]+ actions \([\d,]+ overdue\) in Properties$/,
  );
  expect(to(second, OWNER)[0].body).toMatch(/since the last digest \(2027-01-31\)/);

  // The same day again, nothing changed: no email at all.
  await passTime(env, 2 * 60 * 60 * 1000);
  const before = env.mail.sent.length;
  await fire(env);
  expect(env.mail.sent.length).toBe(before);

  // A week on with the day's quota nearly used: the owner alone, with everything, and the Run log names the others.
  await passTime(env, 7 * DAY);
  const today = new Date(Date.now() + env.clock.offsetMs).toISOString().slice(0, 10);
  env.mail.used.set(today, env.mail.dailyQuota - 1);
  await fire(env);
  const third = env.mail.sent.slice(before);
  expect(third.map((m) => m.to)).toEqual([OWNER]);
  expect(third[0].body).toMatch(
    /quota had 1 left, so this digest went to you alone, with every action; not sent theirs: /,
  );
  const last = runLog(env)
    .filter((r) => r[col("Trigger")] === "digest")
    .pop()!;
  expect(String(last[col("Problem")])).toMatch(
    /^Digest sent to owner@example\.com \([\d,]+ actions\)\. The day's email quota had 1 left: not sent theirs: .*ana@example\.com/,
  );
  expect(last[col("Errors")]).toBeGreaterThan(0);
  // What the stand-in sent parses as mail does.
  const parsed = await simpleParser(`To: ${OWNER}\r\nSubject: x\r\n\r\n${third[0].body}`);
  expect(parsed.text).toContain("Compliance reminders");
}, 600_000);

test("demo results: the digest says demo in its subject and body, goes to the owner alone and starts no real reminders; turned off, it sends nothing", async () => {
  const env = createGasEnvironment();
  env.clock.offsetMs = Date.parse(`${DAY1}T06:00:00Z`) - Date.now();
  configure(env, sandbox, "demo", "professional");
  const inserted = env.run("insertSampleTable");
  expect(inserted.ok).toBe(true);
  const demo = env.spreadsheet.active;
  const last = demo.getLastRow();
  // Every demo row assigned to someone: none of them may hear of demo results.
  demo.seed(1, demo.getLastColumn() + 1, [
    ["Assigned to"],
    ...Array.from({ length: last - 1 }, () => ["ana@example.com"]),
  ]);
  await check(env, demo, `A2:A${last}`);
  expect(env.run("saveSchedule", { mode: "daily", hour: 7 }).ok).toBe(true);
  await passTime(env, 1.5 * 60 * 60 * 1000);
  await fire(env);
  expect(env.mail.sent.map((m) => m.to)).toEqual([OWNER]);
  const m = env.mail.sent[0];
  expect(m.subject).toMatch(/^\[DEMO\] /);
  expect(m.body).toMatch(/Demo data, not a real check/);
  expect(m.htmlBody).toMatch(/Demo data, not a real check/);
  // No state kept: the same demo results tomorrow are said again (to the owner alone), never as real reminders.
  await passTime(env, DAY);
  await fire(env);
  expect(env.mail.sent.map((x) => x.to)).toEqual([OWNER, OWNER]);

  // Turned off in the Schedule tab: nothing is sent, though the same results were said again each day until now.
  const off = env.run("saveDigest", { on: false, thresholds: "90, 60, 30, 7", extra: "", summaryDay: "" });
  expect(off.ok).toBe(true);
  expect(off.schedule.digest.on).toBe(false);
  await passTime(env, DAY);
  await fire(env);
  expect(env.mail.sent).toHaveLength(2);
  // The re-check itself went on: the Run log has the day's scheduled row, and no digest row for it.
  const log = runLog(env);
  expect(log[log.length - 1][col("Trigger")]).toBe("scheduled");
}, 300_000);
