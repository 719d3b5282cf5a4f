/**
 * The Action list, the Compliance summary and the calendar, built from results blocks of the sandbox's own data: the
 * list keeps what a user typed, the summary's formulas (computed by a real formula engine) count what the block holds,
 * and the calendar parses with a real iCalendar library.
 */
import ICAL from "ical.js";
import {
  ACTION_LIST_DAYS,
  CHECK_LABELS,
  CLOSED_TITLE,
  MEMBERS,
  OUTPUT_COLUMNS,
  actionCalendar,
  blockProperties,
  buildActionList,
  buildSummary,
  detectUserColumns,
  lastCheckedAt,
  nextObligation,
  outputHeaders,
  outputRow,
  parseCheckResult,
  resultFromBlockRow,
  type BlockProperty,
  type Cell,
  SUMMARY_CHART_TITLE,
} from "../../../core";
import { buildDatasetFor, checkResultFor, findExamples } from "../../../sandbox/dataset";
import { computeSheet } from "../../helpers/formulas";
import { ACTION_LIST_HEADERS } from "../../helpers/action-list";

const NOW = new Date("2027-01-31T09:30:00Z");
const TODAY = "2027-01-31";
const ds = buildDatasetFor(NOW);
const H = outputHeaders();
const at = (h: string) => H.indexOf(h);

/** A user's table: UPRN, Address, Landlord, then our block (as a host writes it, text cells) from column D. */
function table(n: number, offset = 0): { rows: Cell[][]; props: BlockProperty[] } {
  const rows: Cell[][] = [["UPRN", "Address", "Landlord", ...H]];
  for (const p of ds.properties.slice(offset, offset + n)) {
    const parsed = parseCheckResult(JSON.parse(JSON.stringify(checkResultFor(p))));
    if (!parsed.ok) throw new Error(parsed.message);
    rows.push([
      p.uprn,
      p.address,
      `Landlord ${p.uprn.slice(-1)}`,
      ...outputRow({ result: parsed.value }, NOW.toISOString()),
    ]);
  }
  const cols = detectUserColumns(rows[0]);
  return {
    rows,
    props: blockProperties(rows.slice(1), {
      blockColumn: 3,
      uprn: 0,
      address: 1,
      user: cols,
      dates: { monthFirst: false, today: TODAY },
    }),
  };
}

describe("reading a results block", () => {
  test("a row's action columns are what the rules give for the block's own cells, for 3,000 sandbox properties", () => {
    const { rows } = table(3000);
    let listed = 0;
    // Every row compared; the rows that differ are reported together (one expect per row is slow over 3,000 rows).
    const differ: unknown[] = [];
    for (const row of rows.slice(1)) {
      const cells = row.slice(3);
      const again = nextObligation(resultFromBlockRow(cells)!, { today: TODAY });
      const got = [cells[at("Next action")], cells[at("Action due")], cells[at("Days left")], cells[at("Window")]];
      const want = [again?.action ?? "", again?.due ?? "", again?.daysLeft ?? "", again?.window ?? ""];
      if (JSON.stringify(got) !== JSON.stringify(want)) differ.push({ uprn: row[0], got, want });
      if (again?.window === "Overdue") listed++;
    }
    expect(differ).toEqual([]);
    expect(listed).toBeGreaterThan(100);
  });

  test("the user's Owner, EICR date, Licence expiry and Deposit received columns are found by header", () => {
    expect(
      detectUserColumns(["UPRN", "Landlord", "EICR date", "Licence expiry", "Deposit received", "Gas expiry"]),
    ).toEqual({ owner: 1, eicrDate: 2, licenceExpiry: 3, depositReceived: 4 });
    expect(detectUserColumns(["Owner", "Date of last EICR", "License Expiry Date", "Deposit_paid"])).toEqual({
      owner: 0,
      eicrDate: 1,
      licenceExpiry: 2,
      depositReceived: 3,
    });
    expect(detectUserColumns(["Owner", "x"], new Set([0]))).toEqual({});
  });
});

describe("the Action list", () => {
  test("lists every overdue action, every failed check's, and those due within N days, by due date, formula-safe", () => {
    const { props } = table(1000);
    // The block's own status of a check, by the list's UPRN and Check label.
    const statusKey = Object.fromEntries(MEMBERS.map(([name, key]) => [CHECK_LABELS[name], key]));
    const statusOf = (uprn: unknown, label: unknown) =>
      props.find((p) => p.uprn === uprn)!.cells[OUTPUT_COLUMNS.findIndex((c) => c.key === statusKey[String(label)])];
    const failed = props.flatMap((p) =>
      MEMBERS.filter(([, key]) => p.cells[OUTPUT_COLUMNS.findIndex((c) => c.key === key)] === "fail").map(
        ([name]) => `${p.uprn} ${CHECK_LABELS[name]}`,
      ),
    );
    expect(failed.length).toBeGreaterThan(100);
    for (const n of ACTION_LIST_DAYS) {
      const list = buildActionList(props, { today: TODAY, withinDays: n, ownerHeader: "Landlord" });
      expect(list.headers).toEqual(ACTION_LIST_HEADERS);
      const open = list.values.slice(1, 1 + list.open);
      expect(open.length).toBeGreaterThan(10);
      const dues = open.map((r) => String(r[1]));
      expect([...dues].sort()).toEqual(dues);
      // Checked over every row, reported together: beyond the window, only what answers a failed check.
      expect(
        open.filter(
          (r) =>
            !(r[0] === "Overdue" || (typeof r[2] === "number" && r[2] >= 0 && r[2] <= n)) &&
            statusOf(r[3], r[6]) !== "fail",
        ),
      ).toEqual([]);
      // Every failed check is listed, whatever the window, and never as OK or Plan.
      const listed = new Set(open.map((r) => `${r[3]} ${r[6]}`));
      expect(failed.filter((f) => !listed.has(f))).toEqual([]);
      expect(open.filter((r) => statusOf(r[3], r[6]) === "fail" && (r[0] === "OK" || r[0] === "Plan"))).toEqual([]);
      expect(open.flat().filter((v) => typeof v === "string" && /^[=+\-@]/.test(v))).toEqual([]);
    }
    const week = buildActionList(props, { today: TODAY, withinDays: 7 }).open;
    const quarter = buildActionList(props, { today: TODAY, withinDays: 90 }).open;
    expect(quarter).toBeGreaterThan(week);
  });

  test("Done and Notes survive a refresh, matched by the action's identity; a row whose action went away moves to Closed", () => {
    const { props } = table(400);
    const first = buildActionList(props, { today: TODAY, withinDays: 30, ownerHeader: "Landlord" });
    const sheet = first.values.map((r) => [...r]) as unknown[][];
    // The user ticks Done on one row, types a note on another, and moves the Notes column to the front (a sheet is not still).
    sheet[1][first.doneColumn] = true;
    sheet[2][first.notesColumn] = "=Booked with ACME, ref 7";
    const key2 = { uprn: sheet[2][3], check: sheet[2][6] };
    const moved = sheet.map((r) => [r[first.notesColumn], ...r.filter((_v, i) => i !== first.notesColumn)]);
    // Next run: the property of row 1 has its certificate renewed (its action goes away).
    const gone = String(sheet[1][3]);
    const second = buildActionList(
      props.filter((p) => p.uprn !== gone),
      { today: TODAY, withinDays: 30, ownerHeader: "Landlord" },
      moved,
    );
    // The user's order of columns stays: Notes first now.
    expect(second.headers[0]).toBe("Notes");
    const [u, c] = [second.headers.indexOf("UPRN"), second.headers.indexOf("Check")];
    const row2 = second.values.find((r) => r[u] === key2.uprn && r[c] === key2.check)!;
    expect(row2[second.notesColumn]).toBe("'=Booked with ACME, ref 7");
    expect(second.closedTitleRow).not.toBeNull();
    expect(second.values[second.closedTitleRow!][0]).toBe(CLOSED_TITLE);
    const closed = second.values.slice(second.closedTitleRow! + 1);
    expect(closed).toHaveLength(1);
    expect(closed[0][u]).toBe(gone);
    expect(closed[0][second.doneColumn]).toBe(true);
    expect(closed[0][second.windowColumn]).toBe("Closed");
    // And a third refresh keeps the Closed row (it still carries Done) without doubling it.
    const third = buildActionList(
      props.filter((p) => p.uprn !== gone),
      { today: TODAY, withinDays: 30, ownerHeader: "Landlord" },
      second.values,
    );
    expect(third.closed).toBe(1);
    expect(third.values.filter((r) => r[u] === gone)).toHaveLength(1);
  });

  test("an action due now (none on record, a check failed) keeps its Action ID and what was typed on it the next day; a list that dated it with the day it was made gives its typed rows back", () => {
    const { props } = table(300);
    const opts = (today: string) => ({ today, withinDays: 30, ownerHeader: "Landlord" });
    const first = buildActionList(props, opts(TODAY));
    const [id, notes] = ["Action ID", "Notes"].map((h) => first.headers.indexOf(h));
    const isNow = (r: readonly unknown[]) => /\.now(-[0-9a-z]+)?$/.test(String(r[id]));
    expect(first.values.slice(1).filter(isNow).length).toBeGreaterThan(3);
    const typed = first.values.map((r, i) =>
      i > 0 && isNow(r) ? r.map((v, k) => (k === notes ? `note for ${String(r[id])}` : v)) : r,
    );
    const notesOf = (values: readonly (readonly unknown[])[]) =>
      new Map(
        values
          .slice(1)
          .filter((r) => r[notes])
          .map((r) => [String(r[id]), String(r[notes])]),
      );
    expect(notesOf(typed).size).toBeGreaterThan(3);
    const nextDay = buildActionList(props, opts("2027-02-01"), typed);
    expect(nextDay.closed).toBe(0);
    expect(notesOf(nextDay.values)).toEqual(notesOf(typed));
    // An earlier version's list: the same actions under the day that list was made, as it wrote them.
    const dated = typed.map((r, i) =>
      i > 0 && isNow(r) ? r.map((v, k) => (k === id ? String(v).replace(/\.now(-[0-9a-z]+)?$/, ".20270130$1") : v)) : r,
    );
    const upgraded = buildActionList(props, opts(TODAY), dated);
    expect(upgraded.closed).toBe(0);
    expect(notesOf(upgraded.values)).toEqual(notesOf(typed));
  });

  test("the calendar is valid iCalendar: one all-day event per open action, a reminder 7 days before", () => {
    const { props } = table(500);
    const list = buildActionList(props, { today: TODAY, withinDays: 30 });
    const text = actionCalendar(list, { nowIso: NOW.toISOString() });
    expect(text.split("\r\n").every((l) => new TextEncoder().encode(l).length <= 75)).toBe(true);
    const cal = new ICAL.Component(ICAL.parse(text));
    const events = cal.getAllSubcomponents("vevent");
    expect(events).toHaveLength(list.open);
    const uids = new Set(events.map((e) => e.getFirstPropertyValue("uid")));
    expect(uids.size).toBe(events.length);
    const [check, action] = [list.headers.indexOf("Check"), list.headers.indexOf("Action")];
    events.forEach((e, i) => {
      const row = list.values[1 + i];
      const start = e.getFirstPropertyValue("dtstart") as ICAL.Time;
      expect(start.isDate).toBe(true);
      expect(start.toString()).toBe(row[1]);
      expect(String(e.getFirstPropertyValue("summary"))).toBe(
        `${row[check]}: ${String(row[action]).replace(/^'/, "")}`,
      );
      const alarm = e.getFirstSubcomponent("valarm")!;
      expect(String(alarm.getFirstPropertyValue("trigger"))).toBe("-P7D");
    });
  });
});

describe("the Compliance summary", () => {
  test("its 'as of' stamp, the same in both add-ins: the latest Checked at in UTC, or 'not checked yet' when no row has one", () => {
    const { props } = table(3);
    expect(lastCheckedAt(props)).toBe(`${NOW.toISOString().slice(0, 10)} ${NOW.toISOString().slice(11, 19)} UTC`);
    expect(lastCheckedAt([])).toBe("not checked yet");
  });

  test("its live formulas count what the block holds (computed by a real formula engine)", () => {
    const { rows, props } = table(1500);
    const block = { sheet: "Portfolio (main)", column: 3, firstRow: 1, lastRow: rows.length - 1 };
    const summary = buildSummary(block, props, { today: TODAY, asOf: lastCheckedAt(props) });
    const values = computeSheet({ "Portfolio (main)": rows, Summary: summary.cells }, "Summary");
    const body = rows.slice(1);
    const count = (header: string, word: string) => body.filter((r) => r[3 + at(header)] === word).length;
    const statusHeaders = ["EPC status", "Gas safety status", "EICR status", "Licensing status", "Deposit status"];
    statusHeaders.forEach((h, i) => {
      const r = values[summary.tables.status + 1 + i];
      expect(r.slice(1, 6)).toEqual([
        count(h, "pass"),
        count(h, "warning"),
        count(h, "fail"),
        count(h, "not_required"),
        count(h, "error") + count(h, "unknown"),
      ]);
      expect(r[6]).toBe(body.length);
    });
    ["low", "medium", "high"].forEach((level, i) =>
      expect(values[summary.tables.risk + 1 + i][1]).toBe(count("Risk level", level)),
    );
    ["Overdue", "Urgent", "Book", "Plan", "OK"].forEach((w, i) =>
      expect(values[summary.tables.window + 1 + i][1]).toBe(count("Window", w)),
    );
    expect(values[1][1]).toBe("2027-01-31 09:30:00 UTC");
    // The chart table: an Overdue row, then 18 months from this one.
    const months = values.slice(summary.tables.months + 1, summary.tables.months + summary.chart.rowCount);
    expect(months.map((r) => r[0])).toEqual(["Overdue", "2027-01", "2027-02", ...months.slice(3).map((r) => r[0])]);
    expect(months).toHaveLength(19);
    expect(months[0].slice(1).reduce((a: number, b) => a + Number(b), 0)).toBeGreaterThan(0);
    expect(summary.chart).toEqual({
      firstRow: summary.tables.months,
      firstColumn: 0,
      rowCount: 20,
      columnCount: 6,
      title: SUMMARY_CHART_TITLE,
    });
    expect(OUTPUT_COLUMNS.length).toBe(H.length);
  });

  test.each([
    ["one block", 1],
    ["two blocks", 2],
    ["three blocks", 3],
  ])("every formula over %s equals the count of its rows (computed by a real formula engine)", (_blocks, n) => {
    // Three tables: two on one sheet (the second below the first, as a user stacks them) and one on another sheet. Some
    // rows lose their risk level (an error row), so that "other / none" has something to count.
    const parts = [table(120, 0), table(90, 200), table(60, 400)].slice(0, n);
    parts.forEach((p, k) =>
      p.rows.slice(1).forEach((r, i) => {
        if (i % (7 + k) === 0) r[3 + at("Risk level")] = "";
      }),
    );
    const sheets: Record<string, Cell[][]> = { Main: [], Other: [] };
    const blocks = parts.map((p, k) => {
      const sheet = k === 2 ? "Other" : "Main";
      const firstRow = sheets[sheet].length + 1;
      sheets[sheet].push(...p.rows);
      if (k === 0) sheets[sheet].push([]);
      return { sheet, column: 3, firstRow, lastRow: firstRow + p.rows.length - 2 };
    });
    const body = parts.flatMap((p) => p.rows.slice(1));
    const summary = buildSummary(
      blocks,
      parts.flatMap((p) => p.props),
      { today: TODAY, asOf: "x" },
    );
    const values = computeSheet({ ...sheets, Summary: summary.cells }, "Summary");
    const count = (header: string, word: string) => body.filter((r) => r[3 + at(header)] === word).length;
    const statusHeaders = ["EPC status", "Gas safety status", "EICR status", "Licensing status", "Deposit status"];
    expect(statusHeaders.map((_h, i) => values[summary.tables.status + 1 + i])).toEqual(
      statusHeaders.map((h, i) => [
        summary.cells[summary.tables.status + 1 + i][0],
        count(h, "pass"),
        count(h, "warning"),
        count(h, "fail"),
        count(h, "not_required"),
        count(h, "error") + count(h, "unknown"),
        body.length,
      ]),
    );
    const levels = ["low", "medium", "high"].map((l) => count("Risk level", l));
    const other = body.length - levels.reduce((a, b) => a + b, 0);
    expect(other).toBeGreaterThan(0);
    const scores = body.map((r) => r[3 + at("Compliance score")]).filter((v): v is number => typeof v === "number");
    const risk = values.slice(summary.tables.risk + 1, summary.tables.risk + 6).map((r) => r.slice(0, 2));
    expect(risk.slice(0, 4)).toEqual([
      ["low", levels[0]],
      ["medium", levels[1]],
      ["high", levels[2]],
      ["other / none", other],
    ]);
    expect(risk[4][0]).toBe("Average score");
    expect(risk[4][1]).toBeCloseTo(scores.reduce((a, b) => a + b, 0) / scores.length, 9);
    expect(values.slice(summary.tables.window + 1, summary.tables.window + 6).map((r) => r.slice(0, 2))).toEqual(
      ["Overdue", "Urgent", "Book", "Plan", "OK"].map((w) => [w, count("Window", w)]),
    );
    // Every formula of the sheet is one of those compared above.
    const formulas = summary.cells.flatMap((r, i) => r.flatMap((v, j) => (String(v).startsWith("=") ? [[i, j]] : [])));
    const compared = [
      ...statusHeaders.flatMap((_h, i) => [1, 2, 3, 4, 5, 6].map((j) => [summary.tables.status + 1 + i, j])),
      ...[1, 2, 3, 4, 5].map((i) => [summary.tables.risk + i, 1]),
      ...[1, 2, 3, 4, 5].map((i) => [summary.tables.window + i, 1]),
    ];
    expect(formulas).toEqual(compared);
  });

  test("the counts follow an edit made without the add-in", () => {
    const { rows, props } = table(50);
    const block = { sheet: "Sheet1", column: 3, firstRow: 1, lastRow: rows.length - 1 };
    const summary = buildSummary(block, props, { today: TODAY, asOf: "x" });
    const before = computeSheet({ Sheet1: rows, S: summary.cells }, "S")[summary.tables.status + 1][3] as number;
    const edited = rows.map((r) => [...r]);
    const i = edited.findIndex((r, k) => k > 0 && r[3 + at("EPC status")] !== "fail");
    edited[i][3 + at("EPC status")] = "fail";
    expect(computeSheet({ Sheet1: edited, S: summary.cells }, "S")[summary.tables.status + 1][3]).toBe(before + 1);
  });

  test("sandbox examples land in the windows the rules say", () => {
    const ex = findExamples(ds);
    const row = (p: (typeof ds.properties)[number]) => {
      const parsed = parseCheckResult(checkResultFor(p));
      if (!parsed.ok) throw new Error(parsed.message);
      return outputRow({ result: parsed.value }, NOW.toISOString());
    };
    expect(row(ex.epcByRating.G)[at("Window")]).toBe("Overdue");
    expect(row(ex.eicrMissing)[at("Window")]).toBe("Overdue");
    expect(row(ex.deposit.unprotected)[at("Window")]).toBe("Overdue");
  });
});
