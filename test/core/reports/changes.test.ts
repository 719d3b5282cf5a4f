/** core/reports/changes.ts: what counts as a change, its direction, the baseline, rows not answered, and the archive rule. */
import {
  RUN_LOG_HEADERS,
  changeLogOverflow,
  changeLogRow,
  olderThanDays,
  outputHeaders,
  outputRow,
  rowChanges,
  runLogEntryOfRow,
  runLogLine,
  runLogRow,
  serviceError,
  checkingRow,
  waitingRow,
  isDemoRow,
  type CheckResult,
} from "../../../core";

const AT = "2026-11-25T10:00:00Z";
const result = (
  over: Partial<Record<string, unknown>> = {},
  checks: Record<string, Record<string, unknown>> = {},
): CheckResult =>
  ({
    uprn: "100023336956",
    address: "10 Downing Street, London, SW1A 2AA",
    compliance_score: 80,
    risk_level: "low",
    checks: {
      epc: { status: "pass", rating: "C", expiry: "2030-01-01" },
      gas_safety: { status: "pass", last_certificate: "2026-06-01", expiry: "2027-06-01" },
      eicr: { status: "pass", expiry: "2029-01-01" },
      licensing: { status: "not_required" },
      deposit_protection: { status: "pass", scheme: "DPS" },
      ...checks,
    },
    last_updated: "2026-11-20T09:00:00Z",
    ...over,
  }) as CheckResult;
const row = (r: CheckResult) => outputRow({ result: r }, AT, undefined, undefined, { windows: undefined });

test("a first result is the baseline; the same result again is no change", () => {
  expect(rowChanges(undefined, row(result()))).toEqual([]);
  expect(rowChanges(outputRow(undefined, AT), row(result()))).toEqual([]);
  expect(rowChanges(row(result()), row(result()))).toEqual([]);
});

test("each changed field once, with its direction", () => {
  const was = row(result());
  const now = row(
    result(
      { compliance_score: 60, risk_level: "medium" },
      {
        gas_safety: { status: "warning", last_certificate: "2026-06-01", expiry: "2026-12-20" },
        epc: { status: "pass", rating: "B", expiry: "2030-01-01" },
      },
    ),
  );
  const got = rowChanges(was, now).map((c) => [c.check, c.field, c.was, c.now, c.direction]);
  expect(got).toEqual(
    expect.arrayContaining([
      ["", "Compliance score", "80", "60", "worse"],
      ["", "Risk level", "low", "medium", "worse"],
      ["EPC", "Rating", "C", "B", "better"],
      ["Gas safety", "Status", "pass", "warning", "worse"],
      ["Gas safety", "Expiry", "2027-06-01", "2026-12-20", "worse"],
    ]),
  );
  expect(got.every(([, field]) => field !== "Last updated (UTC)" && field !== "Checked at (UTC)")).toBe(true);
});

test("a row the service did not answer this time is not a change", () => {
  const was = row(result());
  const failed = outputRow({ error: serviceError("server", "http_500", "") }, AT, was);
  expect(String(failed[outputHeaders().indexOf("Message")])).toMatch(/^Not refreshed at /);
  expect(rowChanges(was, failed)).toEqual([]);
  const gone = outputRow({ error: serviceError("not_found", "property_not_found", "No property") }, AT);
  expect(rowChanges(was, gone)).toEqual([]);
});

test("demo results are never history: not through the run's Checking… mark, a wait, nor a result not refreshed", () => {
  const demo = outputRow({ result: { ...result(), demo: true } as CheckResult }, AT);
  const real = row(result({ compliance_score: 55, risk_level: "high" }, { gas_safety: { status: "fail" } }));
  expect(rowChanges(demo, real)).toEqual([]);
  // The real key's run marks the row first; the change check reads the marked row.
  const marked = checkingRow(demo, AT, "run-1");
  expect(String(marked[outputHeaders().indexOf("Message")])).toMatch(
    /^Checking… \(run [0-9a-z]{5}; .*Demo data, not a real check\.$/,
  );
  expect(isDemoRow(marked)).toBe(true);
  expect(rowChanges(marked, real)).toEqual([]);
  const waiting = waitingRow(
    marked,
    AT,
    serviceError("rate_limited", "rate_limited", "Paused: the plan's rate limit"),
    "run-1",
  );
  expect(isDemoRow(waiting)).toBe(true);
  expect(rowChanges(waiting, real)).toEqual([]);
  const kept = outputRow({ error: serviceError("network", "timeout", "no answer") }, AT, marked);
  expect(String(kept[outputHeaders().indexOf("Message")])).toMatch(
    /^Not refreshed at .*; Demo data, not a real check\.$/,
  );
  expect(rowChanges(kept, real)).toEqual([]);
  // A real result marked and checked again is history, as before.
  const again = row(result());
  expect(rowChanges(checkingRow(real, AT, "run-2"), again).length).toBeGreaterThan(0);
  expect(isDemoRow(checkingRow(real, AT, "run-2"))).toBe(false);
});

test("log rows are formula-safe; the archive takes exactly the overflow", () => {
  const r = changeLogRow(AT, {
    uprn: "1",
    address: "=HYPERLINK(1)",
    check: "",
    field: "Next action",
    was: "+x",
    now: "y",
    direction: "changed",
  });
  expect(r[2]).toBe("'=HYPERLINK(1)");
  expect(r[5]).toBe("'+x");
  expect(changeLogOverflow(49_990, 5)).toBe(0);
  expect(changeLogOverflow(49_990, 20)).toBe(10);
  expect(changeLogOverflow(3, 60_000)).toBe(3);
  expect(
    runLogLine({
      startedAt: AT,
      endedAt: AT,
      trigger: "manual",
      runBy: "",
      rows: 10,
      checked: 9,
      changed: 2,
      worse: 1,
      errors: 1,
    }),
  ).toBe(
    "Last run 2026-11-25 10:00 UTC (manual): 9 of 10 rows checked, 2 changes (1 worse), 1 with errors. See the Change log and Run log sheets.",
  );
});

test("a Run log row read back gives the same line as the entry written (counts as numbers or text); other rows are not runs", () => {
  const entry = {
    startedAt: AT,
    endedAt: AT,
    trigger: "on open" as const,
    runBy: "a@b",
    rows: 12,
    checked: 10,
    changed: 3,
    worse: 2,
    errors: 2,
    quotaLeft: 480,
    problem: "Stopped: the quota is used up.",
  };
  const row = runLogRow(entry);
  expect(runLogLine(runLogEntryOfRow(row)!)).toBe(runLogLine(entry));
  expect(runLogEntryOfRow(row.map((v) => (typeof v === "number" ? String(v) : v)))).toEqual(runLogEntryOfRow(row));
  // A problem that ends in a full stop gives one full stop, not two.
  expect(runLogLine(entry)).toContain("with errors. Stopped: the quota is used up. See the Change log");
  // Times a spreadsheet turned into dates read back as the same times: a Date (Sheets) or a serial (Excel).
  const asDates = [new Date(AT), new Date(AT), ...row.slice(2)];
  expect(runLogLine(runLogEntryOfRow(asDates)!)).toBe(runLogLine(entry));
  const serial = Date.parse(AT) / 86_400_000 + 25569;
  expect(runLogLine(runLogEntryOfRow([serial, serial, ...row.slice(2)])!)).toBe(runLogLine(entry));
  expect(runLogEntryOfRow([...RUN_LOG_HEADERS])).toBeNull();
  expect(runLogEntryOfRow(["", "", "", ""])).toBeNull();
  expect(runLogEntryOfRow([AT, AT, "by hand", "", 1])).toBeNull();
});

test("olderThanDays: more than N whole days before now; a missing or unreadable time is old", () => {
  const now = Date.parse("2026-11-25T10:00:00Z");
  expect(olderThanDays("2026-11-18T10:00:00Z", 7, now)).toBe(false);
  expect(olderThanDays("2026-11-18T09:59:59Z", 7, now)).toBe(true);
  expect(olderThanDays("2026-11-25T09:59:00Z", 0, now)).toBe(true);
  expect(olderThanDays(undefined, 7, now)).toBe(true);
  expect(olderThanDays("not a date", 7, now)).toBe(true);
});
