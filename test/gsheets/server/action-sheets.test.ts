/**
 * The "Action list" and "Compliance summary" sheets as Apps Script builds them: the BUILT Code.js in a vm, real HTTP to
 * the sandbox, the spreadsheet in memory. What a run produces, what survives a second run, that the summary's live
 * formulas (computed by a real formula engine) count what the block holds, one chart however often it is rebuilt,
 * writes that do not grow with the rows, the calendar, a block of an earlier version, and the window settings.
 */
import ICAL from "ical.js";
import {
  CHECK_LABELS,
  CHECK_NAMES,
  MEMBERS,
  SUMMARY_CHART_TITLE,
  WINDOWS,
  WINDOW_COLOURS,
  outputHeaders,
  parseCheckResult,
  obligationsFor,
} from "../../../core";
import { computeSheet } from "../../helpers/formulas";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import type { FakeSheet } from "../harness/fake-sheets";
import {
  passTime,
  sandboxForFile,
  startSandboxProcess,
  type SandboxProcess,
  type SandboxProperty,
} from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, seedTable } from "../harness/table";
import { ACTION_LIST_HEADERS } from "../../helpers/action-list";

/** The file's one clock, injected: the sandbox's day and every vm's "now" at noon of DAY, never the wall clock's. */
const DAY = "2027-01-31";
const AT = Date.parse(`${DAY}T12:00:00Z`);
const onDay = { today: DAY, clockOffsetMs: AT - Date.now() };
const sandbox = sandboxForFile({ msPerProperty: 0, ...onDay }, { resetEach: true });
let props: SandboxProperty[];

/** A new execution on the file's clock, configured for `sb`. */
function onClock(env: GasEnvironment, sb: SandboxProcess = sandbox): GasEnvironment {
  env.clock.offsetMs = AT - Date.now();
  configure(env, sb);
  return env;
}

beforeAll(async () => {
  props = await sandbox.properties(2500);
});

const HEADERS = ACTION_LIST_HEADERS;
const sheetNamed = (env: GasEnvironment, name: string) =>
  env.spreadsheet.sheets.find((s) => s.getName() === name) as FakeSheet | undefined;
/** Dates come from the vm's realm: not `instanceof Date` here. */
const isDate = (d: unknown): d is Date => Object.prototype.toString.call(d) === "[object Date]";
const isoOf = (d: unknown) => (isDate(d) ? new Date(d.getTime() + 12 * 3600e3).toISOString().slice(0, 10) : String(d));

/** A table of sandbox properties with a Landlord column, checked whole; returns the environment after the run. */
async function checkTable(rows: SandboxProperty[], env = createGasEnvironment()): Promise<GasEnvironment> {
  onClock(env);
  if (!env.sheet.getRange) throw new Error("no sheet");
  const { firstRow, lastRow } = seedTable(
    env.sheet,
    ["UPRN", "Address", "Landlord"],
    rows.map((p, i) => [p.uprn, p.address, `Landlord ${i % 7}`]),
  );
  env.sheet.select(`A${firstRow}:C${lastRow}`);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  const polls = await pollToEnd(env);
  expect(polls[polls.length - 1].phase).toBe("done");
  return env;
}

/** The Action list's rows: the open ones (until the first blank row) and those of the Closed section. */
function listRows(env: GasEnvironment): {
  header: unknown[];
  open: unknown[][];
  closed: unknown[][];
  sheet: FakeSheet;
} {
  const sheet = sheetNamed(env, "Action list")!;
  const rows = sheet.peek(1, 1, sheet.getLastRow(), HEADERS.length);
  const blank = rows.findIndex((r, i) => i > 0 && r.every((v) => v === ""));
  const open = rows.slice(1, blank < 0 ? rows.length : blank);
  const closed = blank < 0 ? [] : rows.slice(blank + 2);
  return { header: rows[0], open, closed, sheet };
}

/** The block's column of an output header, read from the checked sheet. */
function blockColumn(env: GasEnvironment, key: string): unknown[] {
  const col = outputCol(env.sheet, key);
  return env.sheet.peek(2, col, env.sheet.getLastRow() - 1, 1).map((r) => r[0]);
}

test("a run builds both sheets: the listed actions are overdue, due within 30 days or a failed check's, by date, with real dates and the user's Landlord column", async () => {
  const env = await checkTable(props.slice(0, 300));
  const { header, open, sheet } = listRows(env);
  expect(header).toEqual(HEADERS);
  expect(open.length).toBeGreaterThan(20);
  const uprns = new Set(props.slice(0, 300).map((p) => p.uprn));
  // The block's own status of a listed row's check, by its UPRN and the list's Check label.
  const matched = blockColumn(env, "matched_uprn").map(String);
  const statusOf = (uprn: unknown, label: unknown) => {
    const key = MEMBERS.find(([name]) => CHECK_LABELS[name] === label)![1];
    return blockColumn(env, key)[matched.indexOf(String(uprn))];
  };
  let previous = "";
  open.forEach((r, i) => {
    expect(WINDOWS as readonly unknown[]).toContain(r[0]);
    // Due is a real date: a serial with the date format, read back by Sheets as a Date.
    expect(isDate(r[1])).toBe(true);
    expect(sheet.formatAt(i + 2, 2)).toBe("yyyy-mm-dd");
    const due = isoOf(r[1]);
    expect(due >= previous).toBe(true);
    previous = due;
    expect(
      r[0] === "Overdue" ||
        (typeof r[2] === "number" && r[2] >= 0 && r[2] <= 30) ||
        (statusOf(r[3], r[6]) === "fail" && r[0] !== "OK" && r[0] !== "Plan"),
    ).toBe(true);
    expect(uprns.has(String(r[3]))).toBe(true);
    expect(String(r[5])).toMatch(/^Landlord \d$/);
    expect(CHECK_NAMES.length).toBe(5);
    expect(String(r[7]).length).toBeGreaterThan(10);
  });
  // Text is written as text: nothing on the list is a formula.
  expect(sheet.formulas()).toEqual([]);
  expect(sheet.frozenRows).toBe(1);
  // Window cells coloured by rule, the same colours as the results block's.
  const overdue = open.findIndex((r) => r[0] === "Overdue");
  expect(sheet.effectiveFill(overdue + 2, 1)).toBe(WINDOW_COLOURS.Overdue.fill);
  // Every row of the block whose own Window is Overdue has its action on the list.
  const windows = blockColumn(env, "window");
  const blockUprns = blockColumn(env, "matched_uprn");
  const listed = new Set(open.filter((r) => r[0] === "Overdue").map((r) => String(r[3])));
  windows.forEach((w, i) => {
    if (w === "Overdue") expect(listed.has(String(blockUprns[i]))).toBe(true);
  });
  // The block's Action due is a real date too, and its Window coloured.
  const due = outputCol(env.sheet, "action_due");
  const row = windows.findIndex((w) => w === "Overdue") + 2;
  expect(isDate(cellValue(env.sheet, row, due))).toBe(true);
  expect(env.sheet.effectiveFill(row, outputCol(env.sheet, "window"))).toBe(WINDOW_COLOURS.Overdue.fill);
  expect(sheetNamed(env, "Compliance summary")).toBeDefined();
  // The user's sheet is still the active one.
  expect(env.spreadsheet.active).toBe(env.sheet);
});

test("the summary's live COUNTIF formulas equal the block's own counts, and one stacked chart shows actions due per month", async () => {
  const env = await checkTable(props.slice(300, 700));
  const summary = sheetNamed(env, "Compliance summary")!;
  const values = computeSheet(
    { Sheet1: env.sheet.sourceGrid(), "Compliance summary": summary.sourceGrid() },
    "Compliance summary",
  );
  const rowOf = (label: string) => values.findIndex((r) => r[0] === label);
  const statusCols = ["epc_status", "gas_status", "eicr_status", "licensing_status", "deposit_status"].map((k) =>
    blockColumn(env, k),
  );
  const n = statusCols[0].filter((v) => v !== "").length;
  const at = rowOf("Check");
  statusCols.forEach((col, i) => {
    const count = (w: string) => col.filter((v) => v === w).length;
    expect(values[at + 1 + i].slice(1, 7)).toEqual([
      count("pass"),
      count("warning"),
      count("fail"),
      count("not_required"),
      count("error") + count("unknown"),
      n,
    ]);
  });
  const risk = blockColumn(env, "risk_level");
  const r = rowOf("Risk level");
  ["low", "medium", "high"].forEach((level, i) =>
    expect(values[r + 1 + i][1]).toBe(risk.filter((v) => v === level).length),
  );
  const windows = blockColumn(env, "window");
  const w = rowOf("Window");
  WINDOWS.forEach((name, i) => expect(values[w + 1 + i][1]).toBe(windows.filter((v) => v === name).length));
  expect(String(values[1][1])).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  // The chart: stacked columns over the Overdue row and 18 months, by check.
  expect(summary.charts).toHaveLength(1);
  const chart = summary.charts[0];
  expect(chart.type).toBe("COLUMN");
  expect(chart.options.isStacked).toBe(true);
  // Its title is core's, the same words as Excel's chart.
  expect(chart.options.title).toBe(SUMMARY_CHART_TITLE);
  const range = chart.ranges[0];
  expect([range.rows, range.cols]).toEqual([20, 6]);
  expect(cellValue(summary, range.row + 1, 1)).toBe("Overdue");
});

test("a second run updates both sheets in place: Done and Notes typed between runs survive, an action that went away moves to Closed with them, still one chart", async () => {
  const rows = props.slice(700, 900);
  const env = await checkTable(rows);
  const first = listRows(env);
  const list = first.sheet;
  const done = HEADERS.indexOf("Done") + 1;
  const notes = HEADERS.indexOf("Notes") + 1;
  // The user ticks Done on the first action and writes a note (that looks like a formula) on another property's action.
  const goneUprn = String(first.open[0][3]);
  const kept = first.open.find((r) => String(r[3]) !== goneUprn)!;
  const keptRow = first.open.indexOf(kept) + 2;
  list.seed(2, done, [[true]]);
  list.seed(keptRow, notes, [["'=booked with ACME, ref 7"]]);

  // Between runs, the first action's property is replaced in the table by one with nothing due.
  const calm = props.slice(1000).find((p) => {
    const parsed = parseCheckResult(JSON.parse(JSON.stringify({ uprn: p.uprn, checks: p.checks })));
    return (
      parsed.ok &&
      obligationsFor(parsed.value, { today: DAY }).every(
        (o) => o.window !== "Overdue" && (o.daysLeft === null || o.daysLeft > 90),
      )
    );
  })!;
  const tableRow = rows.findIndex((p) => p.uprn === goneUprn) + 2;
  env.sheet.seed(tableRow, 1, [[calm.uprn, calm.address]]);
  env.sheet.select(`A2:C${rows.length + 1}`);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  await pollToEnd(env);

  const second = listRows(env);
  expect(
    env.spreadsheet.sheets.filter((s) => ["Action list", "Compliance summary"].includes(s.getName())),
  ).toHaveLength(2);
  const again = second.open.find(
    (r) => String(r[3]) === String(kept[3]) && r[6] === kept[6] && isoOf(r[1]) === isoOf(kept[1]),
  )!;
  expect(again[notes - 1]).toBe("=booked with ACME, ref 7");
  expect(second.sheet.formulas()).toEqual([]);
  expect(second.open.some((r) => String(r[3]) === goneUprn)).toBe(false);
  expect(cellValue(second.sheet, second.open.length + 3, 1)).toMatch(/^Closed/);
  const closed = second.closed.filter((r) => String(r[3]) === goneUprn);
  expect(closed).toHaveLength(1);
  expect(closed[0][done - 1]).toBe(true);
  expect(closed[0][0]).toBe("Closed");
  expect(sheetNamed(env, "Compliance summary")!.charts).toHaveLength(1);
});

test("building the two sheets costs the same number of writes for 100 rows as for 2,000", async () => {
  const writes = async (n: number) => {
    const env = createGasEnvironment();
    env.sheet.maxRows = n + 20;
    const counts: string[][] = [];
    onClock(env);
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(0, n).map((p) => [p.uprn]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env, (_w, _c, _p, actionWrites) => counts.push(actionWrites ?? []));
    const built = counts.filter((c) => c.length);
    expect(built).toHaveLength(1);
    // A refresh by the sidebar's button, once the sheets exist: the steady cost.
    const mark = env.log.mark();
    const refreshed = env.run("refreshActionSheets", {});
    expect([refreshed.ok, refreshed.message]).toEqual([true, expect.stringContaining("refreshed")]);
    const refresh = env.log.writesSince(mark).map((c) => `${c.target}.${c.method}`);
    return { first: built[0], refresh };
  };
  const small = await writes(100);
  const large = await writes(2000);
  // A list longer than a new sheet's 1,000 rows grows the sheet once: one call more, whatever the length.
  const grow = (w: string[]) => w.filter((x) => x !== "Sheet.insertRowsAfter");
  expect(grow(large.first)).toEqual(grow(small.first));
  expect(large.first.length - grow(large.first).length).toBeLessThanOrEqual(1);
  expect(grow(large.refresh)).toEqual(grow(small.refresh));
  expect(small.refresh.length).toBeLessThanOrEqual(12);
});

/**
 * Checks A2:A(n+1) as the sidebar does: polls until the run is done, then asks for its end (finishBulkCheck).
 * Returns the SpreadsheetApp calls of the poll that ended the run and of the end call, and that poll's progress.
 */
async function lastPollCalls(env: GasEnvironment, rows: number): Promise<{ last: number; end: number; done: any }> {
  env.sheet.select(`A2:A${rows + 1}`);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  for (let i = 0; i < 300; i++) {
    const mark = env.log.mark();
    const p = env.run("pollBulkCheck");
    const last = env.log.since(mark).length;
    if (!p || p.phase !== "running") {
      const endMark = env.log.mark();
      const ended = env.run("finishBulkCheck");
      expect(ended.endDue).toBeUndefined();
      expect(ended.details.join(" ")).toMatch(/Action list/);
      return { last, end: env.log.since(endMark).length, done: p };
    }
    await passTime(env, Math.min(p.waitMs, 3000));
  }
  throw new Error("the run did not end");
}

test("a run's last poll only writes results (at most 25 SpreadsheetApp calls); the Action list, summary and Run log follow in one call of a fixed size, and the list is complete", async () => {
  const env = createGasEnvironment();
  // Two jobs of 1,000; npm run bench measures a 2,500-row run (the calls do not grow with the rows).
  env.sheet.maxRows = 1220;
  onClock(env);
  seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 1200).map((p) => [p.uprn]),
  );
  // The first run makes the three sheets; the second finds them.
  const first = await lastPollCalls(env, 1200);
  const made = listRows(env).open;
  const second = await lastPollCalls(env, 1200);
  // The last poll writes the last results and says the end is due; "Done" only once every row has its result.
  for (const run of [first, second]) {
    expect(run.last).toBeLessThanOrEqual(25);
    expect(run.done).toMatchObject({ phase: "done", endDue: true, rows: 1200, propertiesDone: 1200 });
    expect(run.done.message).toMatch(/^Done/);
  }
  // The end of the run: the spreadsheet, its time zone and each sheet asked once, the table read once, whatever the
  // number of rows (42 calls when the sheets are made, 47 once they exist).
  expect(first.end).toBeLessThanOrEqual(47);
  expect(second.end).toBeLessThanOrEqual(47);
  // Complete: the list the run made is the one a rebuild from every row gives, and the second run's is the same.
  expect(made.length).toBeGreaterThan(25);
  expect(new Set(made.map((r) => String(r[3]))).size).toBeGreaterThan(10);
  expect(listRows(env).open).toEqual(made);
  expect(env.run("refreshActionSheets", {}).ok).toBe(true);
  expect(listRows(env).open).toEqual(made);
}, 300_000);

test("a run whose end was never asked for (the sidebar closed after the last poll) gets its Action list and Run log before the next check, once", async () => {
  // A sandbox of its own, whose jobs take longer on its clock (5 s a property: 150 s for the 30 rows of the second
  // check) than this test may run, so only the time the test lets pass ends them. With instant jobs the start call
  // itself ended the run whenever the machine paused 20 to 40 ms (the job's first look) before its next round: its
  // end was built there and no poll was ever left with it due.
  const slow = await startSandboxProcess({ msPerProperty: 5000, ...onDay });
  try {
    await endNeverAskedFor(slow);
  } finally {
    await slow.close();
  }
});
async function endNeverAskedFor(sandbox: SandboxProcess) {
  const env = createGasEnvironment();
  onClock(env, sandbox);
  seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 60).map((p) => [p.uprn]),
  );
  /** Polls as the sidebar does, each after the wait the last one asked for, until the run has ended. */
  const pollUntilEnded = async () => {
    let p = env.run("pollBulkCheck");
    for (let i = 0; i < 50 && p.phase === "running"; i++) {
      await passTime(env, p.waitMs);
      p = env.run("pollBulkCheck");
    }
    return p;
  };
  env.sheet.select("A2:A61");
  const start = env.run("startBulkCheck", {});
  expect([start.ok, start.progress.phase]).toEqual([true, "running"]);
  const p = await pollUntilEnded();
  expect(p).toMatchObject({ phase: "done", endDue: true });
  // Every row has its result; the end is not built yet.
  expect(sheetNamed(env, "Action list")).toBeUndefined();
  expect(sheetNamed(env, "Run log")).toBeUndefined();
  // The sidebar reopened shows the run as still to finish.
  expect(createGasEnvironment({ from: env }).run("getSidebarState").run.endDue).toBe(true);
  // The next check builds the first one's end before it starts: one Run log row for it, and the Action list.
  env.sheet.select("A2:A31");
  const next = env.run("startBulkCheck", {});
  expect([next.ok, next.progress.phase]).toEqual([true, "running"]);
  expect(sheetNamed(env, "Action list")).toBeDefined();
  expect(sheetNamed(env, "Run log")!.getLastRow()).toBe(2);
  expect(await pollUntilEnded()).toMatchObject({ phase: "done", endDue: true });
  expect(env.run("finishBulkCheck").endDue).toBeUndefined();
  expect(sheetNamed(env, "Run log")!.getLastRow()).toBe(3);
  expect(env.run("finishBulkCheck").endDue).toBeUndefined();
  expect(sheetNamed(env, "Run log")!.getLastRow()).toBe(3);
}

test("the calendar: one all-day event per listed action on its due date, with a reminder 7 days before", async () => {
  const env = await checkTable(props.slice(900, 1100));
  const { open } = listRows(env);
  const r = env.run("actionCalendar");
  expect(r.ok).toBe(true);
  expect(r.fileName).toBe("compliance-actions.ics");
  const cal = new ICAL.Component(ICAL.parse(r.ics));
  const events = cal.getAllSubcomponents("vevent");
  expect(events).toHaveLength(open.length);
  expect(r.events).toBe(open.length);
  events.forEach((e, i) => {
    const start = e.getFirstPropertyValue("dtstart") as ICAL.Time;
    expect(start.isDate).toBe(true);
    expect(start.toString()).toBe(isoOf(open[i][1]));
    expect(String(e.getFirstSubcomponent("valarm")!.getFirstPropertyValue("trigger"))).toBe("-P7D");
  });
});

test("a results block an earlier version wrote (23 columns) is upgraded in place: full headers, no second block", async () => {
  const env = createGasEnvironment();
  onClock(env);
  const legacy = outputHeaders().slice(0, outputHeaders().indexOf("Message") + 1);
  const rows = props.slice(1100, 1110);
  seedTable(
    env.sheet,
    ["UPRN", ...legacy],
    rows.map((p) => [p.uprn, ...legacy.map(() => "")]),
  );
  env.sheet.select("A2:A11");
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.progress.outputA1.startsWith("B1:")).toBe(true);
  await pollToEnd(env);
  expect(env.sheet.peek(1, 2, 1, outputHeaders().length)[0]).toEqual(outputHeaders());
  expect(env.sheet.peek(1, 1, 1, env.sheet.maxCols)[0].filter((h) => h === "Compliance score")).toHaveLength(1);
  expect(String(cellValue(env.sheet, 2, outputCol(env.sheet, "matched_uprn")))).toBe(rows[0].uprn);
});

test("window settings saved in the sidebar change the windows written; a bad value is refused with the field named", async () => {
  const rows = props.slice(1200, 1500);
  const before = blockColumnCounts(await checkTable(rows));
  const env = createGasEnvironment();
  onClock(env);
  const bad = env.run("saveSettings", { windows: { eicr: { plan: "soon" } } });
  expect(bad.ok).toBe(false);
  expect(bad.message).toContain('EICR plan window: "soon"');
  const ok = env.run("saveSettings", { windows: { gas_safety: { plan: 400, book: 400, urgent: 400 } } });
  expect(ok.ok).toBe(true);
  expect(ok.settings.windows.gas_safety).toEqual({ plan: 400, book: 400, urgent: 400 });
  const after = blockColumnCounts(await checkTable(rows, env));
  expect(after.Urgent).toBeGreaterThan(before.Urgent);
  expect(after.OK).toBeLessThan(before.OK);
});

function blockColumnCounts(env: GasEnvironment): Record<string, number> {
  const w = blockColumn(env, "window");
  return Object.fromEntries(WINDOWS.map((name) => [name, w.filter((v) => v === name).length]));
}
