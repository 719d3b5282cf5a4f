/**
 * A failed check is never OK, and an F or G rating keeps its first-reported day, as the BUILT Code.js writes them over
 * the real sandbox: a Scottish unprotected deposit whose tenancy began 3 days ago is "Book" in the block and on the
 * Action list though due beyond 30 days; a Scottish EPC rated F, checked on one day and again the next (the vm's clock
 * moved a day, the sandbox's with it), keeps the first day in the block and on the list, and logs no change.
 */
import { addDays, addWorkingDays, countryOf, daysBetween, nextObligation, type CheckResult } from "../../../core";
import { createGasEnvironment } from "../harness/gas";
import { zonedTimeToUtc, type FakeSheet } from "../harness/fake-sheets";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, seedTable } from "../harness/table";

const DAY1 = "2027-01-31";
const DAY2 = "2027-02-01";
const sandbox = sandboxForFile({ msPerProperty: 0, today: DAY1 });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(20000);
});

const asResult = (p: SandboxProperty) =>
  ({ uprn: p.uprn, address: p.address, compliance_score: 0, risk_level: "high", checks: p.checks }) as CheckResult;
const scottish = (p: SandboxProperty) => {
  const c = countryOf(p.postcode);
  return c.kind === "country" && c.country === "Scotland";
};
/** No date of the property's crosses a threshold of the service's (expired, within 90 days) between the two days. */
const steady = (p: SandboxProperty) =>
  Object.values(p.checks).every((c) => {
    const d = typeof c.expiry === "string" ? daysBetween(DAY1, c.expiry) : null;
    return d === null || (Math.abs(d) > 3 && Math.abs(d - 90) > 3);
  });

test("Scotland: an unprotected deposit 3 days into its tenancy is Book and listed; an F rating keeps its first day through a re-check the next day, with no change logged", async () => {
  const start = addDays(DAY1, -3);
  const deposit = props.find(
    (p) =>
      scottish(p) &&
      steady(p) &&
      p.checks.deposit_protection?.status === "fail" &&
      nextObligation(asResult(p), { today: DAY1, country: "Scotland", tenancyStart: start })?.check ===
        "deposit_protection",
  );
  const rated = props.find(
    (p) =>
      scottish(p) &&
      steady(p) &&
      p.checks.epc?.status === "fail" &&
      /^[FG]$/.test(String(p.checks.epc?.rating)) &&
      /first reported/.test(nextObligation(asResult(p), { today: DAY1, country: "Scotland" })?.action ?? ""),
  );
  if (!deposit || !rated) throw new Error("no such Scottish sandbox properties");

  const env = createGasEnvironment();
  configure(env, sandbox);
  // The vm's clock at noon of DAY1 in the spreadsheet's zone; the sandbox's follows it.
  env.clock.offsetMs = zonedTimeToUtc(`${DAY1} 12:00:00`, env.spreadsheet.timeZone) - Date.now();
  const { firstRow, lastRow } = seedTable(
    env.sheet,
    ["UPRN", "Postcode", "Tenancy start"],
    [
      [deposit.uprn, deposit.postcode, start],
      [rated.uprn, rated.postcode, ""],
    ],
  );
  const inZone = (v: unknown) =>
    Object.prototype.toString.call(v) === "[object Date]"
      ? new Intl.DateTimeFormat("en-CA", { timeZone: env.spreadsheet.timeZone }).format(v as Date)
      : String(v ?? "");
  const run = async () => {
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    const begun = env.run("startBulkCheck", {});
    if (!begun.ok) throw new Error(begun.message);
    const polls = await pollToEnd(env);
    expect(polls[polls.length - 1].phase).toBe("done");
  };
  const block = (row: number, key: string) => cellValue(env.sheet, firstRow + row, outputCol(env.sheet, key));
  const listed = (uprn: string, check: string) => {
    const sheet = env.spreadsheet.getSheetByName("Action list") as FakeSheet;
    const grid = sheet.peek(1, 1, sheet.getLastRow(), sheet.getLastColumn());
    const h = (name: string) => grid[0].indexOf(name);
    return grid
      .slice(1)
      .filter((r) => String(r[h("UPRN")]).replace(/^'/, "") === uprn && r[h("Check")] === check)
      .map((r) => [r[h("Window")], inZone(r[h("Due")])]);
  };

  await run();
  const due = addWorkingDays(start, 30);
  expect(daysBetween(DAY1, due)).toBeGreaterThan(30);
  expect([block(0, "window"), inZone(block(0, "action_due"))]).toEqual(["Book", due]);
  expect(listed(deposit.uprn, "Deposit")).toEqual([["Book", due]]);
  expect([inZone(block(1, "action_due")), String(block(1, "next_action"))]).toEqual([
    DAY1,
    expect.stringContaining(`first reported ${DAY1}`),
  ]);
  expect(listed(rated.uprn, "EPC")).toContainEqual(["Overdue", DAY1]);

  env.clock.offsetMs += 86_400_000;
  await run();
  expect(inZone(block(1, "checked_at")).slice(0, 10)).toBe(DAY2);
  expect([inZone(block(1, "action_due")), String(block(1, "next_action"))]).toEqual([
    DAY1,
    expect.stringContaining(`first reported ${DAY1}`),
  ]);
  expect(listed(rated.uprn, "EPC")).toContainEqual(["Overdue", DAY1]);
  expect(listed(rated.uprn, "EPC")).not.toContainEqual(["Overdue", DAY2]);
  expect(listed(deposit.uprn, "Deposit")).toEqual([["Book", due]]);
  expect(env.spreadsheet.getSheetByName("Change log")).toBeNull();
});
