/**
 * A failed check is never OK, and an F or G rating keeps its first-reported day, in the BUILT task pane (headless
 * Chromium, the Excel stand-in, the real sandbox over loopback), the page's clock set to noon of each day: a Scottish
 * unprotected deposit whose tenancy began 3 days ago is "Book" in the block and on the Action list though due beyond
 * 30 days; a Scottish EPC rated F, checked on one day and again the next, keeps the first day in the block and on the
 * list, and logs no change.
 */
import type { Page } from "playwright-core";
import {
  addDays,
  addWorkingDays,
  countryOf,
  daysBetween,
  nextObligation,
  serialDate,
  type CheckResult,
} from "../../../core";
import { checkResultFor, type Property } from "../../../sandbox/dataset";
import { standIn as callStandIn } from "../helpers/stand-in-page";
import { describeWithChromium } from "../../helpers/chromium";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { paneWaits, servedPane } from "../helpers/pane";

const run = describeWithChromium();
const DAY1 = "2027-01-31";
const DAY2 = "2027-02-01";
/** Noon of a day on the page's local clock (the browser runs in this process's time zone). */
const noon = (day: string) => new Date(+day.slice(0, 4), +day.slice(5, 7) - 1, +day.slice(8, 10), 12);

/** The sandbox's answer for a property, as the add-in reads it. */
const resultOf = (p: Property) => checkResultFor(p) as unknown as CheckResult;
const scottish = (p: Property) => {
  const c = countryOf(p.postcode);
  return c.kind === "country" && c.country === "Scotland";
};
/** No date of the property's crosses a threshold of the service's (expired, within 90 days) between the two days. */
const steady = (p: Property) =>
  Object.values(p.checks).every((c: { expiry?: string | null }) => {
    const d = typeof c.expiry === "string" ? daysBetween(DAY1, c.expiry) : null;
    return d === null || (Math.abs(d) > 3 && Math.abs(d - 90) > 3);
  });

run("failed checks in the built pane", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let page: Page;
  const pageErrors: string[] = [];
  const standIn = <T>(fn: string, ...args: unknown[]) => callStandIn(page)<T>(fn, ...args);
  const { waitText, waitIdle } = paneWaits(() => page, pageErrors);

  beforeAll(async () => {
    sb = await startTestSandbox({ today: DAY1 });
    ({ page } = await pane.open({
      errors: pageErrors,
      clock: { time: noon(DAY1) },
    }));
  });
  afterAll(async () => {
    await sb?.close();
  });

  test("Scotland: an unprotected deposit 3 days into its tenancy is Book and listed; an F rating keeps its first day through the next day's re-check, with no change logged", async () => {
    const start = addDays(DAY1, -3);
    const ps = sb.dataset().properties;
    const deposit = ps.find(
      (p) =>
        scottish(p) &&
        steady(p) &&
        p.checks.deposit_protection.status === "fail" &&
        nextObligation(resultOf(p), { today: DAY1, country: "Scotland", tenancyStart: start })?.check ===
          "deposit_protection",
    );
    const rated = ps.find(
      (p) =>
        scottish(p) &&
        steady(p) &&
        p.checks.epc.status === "fail" &&
        /first reported/.test(nextObligation(resultOf(p), { today: DAY1, country: "Scotland" })?.action ?? ""),
    );
    if (!deposit || !rated) throw new Error("no such Scottish sandbox properties");

    await page.fill("#base-url", sb.baseUrl);
    await page.click("#save-base-url");
    await waitText("settings-status", /^Base URL saved\.$/);
    await page.fill("#api-key", "sandbox-professional");
    await page.click("#save-key");
    await waitText("settings-status", /^Key saved and accepted/);
    await standIn("seed", "Sheet1", "A1", [
      ["UPRN", "Postcode", "Tenancy start"],
      [deposit.uprn, deposit.postcode, start],
      [rated.uprn, rated.postcode, ""],
    ]);
    const check = async () => {
      await standIn("select", "Sheet1", "A1");
      await page.evaluate(() => (document.getElementById("status")!.textContent = ""));
      await page.click("#check");
      await waitText("status", /Done/);
      await waitIdle();
    };
    const day = (v: unknown) => (typeof v === "number" ? serialDate(v) : String(v ?? ""));
    const block = async () => {
      const grid = await standIn<unknown[][]>("sourceGrid", "Sheet1");
      const h = grid[0].map(String);
      const at = (row: number, name: string) => grid[row][h.indexOf(name)];
      return [1, 2].map((r) => ({
        window: at(r, "Window"),
        due: day(at(r, "Action due")),
        action: String(at(r, "Next action")),
        checked: String(at(r, "Checked at (UTC)")),
      }));
    };
    const listed = async (uprn: string, check: string) => {
      const grid = await standIn<unknown[][]>("sourceGrid", "Action list");
      const h = grid[0].map(String);
      return grid
        .slice(1)
        .filter((r) => String(r[h.indexOf("UPRN")]).replace(/^'/, "") === uprn && r[h.indexOf("Check")] === check)
        .map((r) => [r[h.indexOf("Window")], day(r[h.indexOf("Due")])]);
    };

    await check();
    const due = addWorkingDays(start, 30);
    expect(daysBetween(DAY1, due)).toBeGreaterThan(30);
    const [dep, epc1] = await block();
    expect([dep.window, dep.due]).toEqual(["Book", due]);
    expect(await listed(deposit.uprn, "Deposit")).toEqual([["Book", due]]);
    expect([epc1.due, epc1.action]).toEqual([DAY1, expect.stringContaining(`first reported ${DAY1}`)]);
    expect(await listed(rated.uprn, "EPC")).toContainEqual(["Overdue", DAY1]);

    sb.setToday(DAY2);
    await page.clock.setSystemTime(noon(DAY2));
    await check();
    const [dep2, epc] = await block();
    expect([dep2.window, dep2.due]).toEqual(["Book", due]);
    expect(epc.checked.slice(0, 10)).toBe(new Date(noon(DAY2)).toISOString().slice(0, 10));
    expect([epc.due, epc.action]).toEqual([DAY1, expect.stringContaining(`first reported ${DAY1}`)]);
    expect(await listed(rated.uprn, "EPC")).toContainEqual(["Overdue", DAY1]);
    expect(await listed(rated.uprn, "EPC")).not.toContainEqual(["Overdue", DAY2]);
    expect(await listed(deposit.uprn, "Deposit")).toEqual([["Book", due]]);
    const log = ((await standIn<unknown[][] | null>("sourceGrid", "Change log")) ?? []).filter((r) => r[0] !== "");
    expect(log.slice(1)).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
