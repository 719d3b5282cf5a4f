/**
 * Own-obligation headers as agents type them, in the BUILT Excel pane (headless Chromium, the demo key: no service):
 * two smoke-alarm columns (one a Smoke & CO column, which counts for the CO alarms too) give the later date and name its
 * column on the Action list, "RTR expiry date" is read, and a header that looks like a compliance date but is not read
 * is said once in the pane's status; a header of another purpose ("Notes on smoke") is not.
 */
import type { Page } from "playwright-core";
import { demoSampleSheet } from "../../../core/demo/demo";
import { DEMO_NOTE } from "../../../core/demo/demo-key";
import { serialDate } from "../../../core/compliance/obligations";
import { describeWithChromium } from "../../helpers/chromium";
import { OWN_CELLS, OWN_EXPECT, OWN_HEADERS, occurrences } from "../../helpers/own-headers-table";
import { standIn } from "../helpers/stand-in-page";
import { servedPane } from "../helpers/pane";

const run = describeWithChromium();

run("own-obligation headers in the built pane", () => {
  const pane = servedPane();
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ page } = await pane.open({
      errors: pageErrors,
    }));
  });

  test("headers as agents type them and two columns for one obligation on the Action list; the unread header said once", async () => {
    await page.click("#try-demo");
    await page.waitForFunction(() => /^demo/.test(document.getElementById("key-state")!.textContent ?? ""));
    // Two of the demo's properties (English, known to the demo key), with the own columns after its columns.
    const { values } = demoSampleSheet("2026-01-15");
    const rows = [[...values[0], ...OWN_HEADERS], ...values.slice(1, 3).map((r, i) => [...r, ...OWN_CELLS[i]])];
    await page.evaluate((v) => {
      const x = (window as any).__excelStandIn;
      x.seed("Sheet1", "A1", v);
      x.select("Sheet1", `A1:A${v.length}`);
      document.getElementById("status")!.textContent = "";
    }, rows);
    await page.click("#check");
    await page.waitForFunction(
      () => /^(Done|Finished)/.test(document.getElementById("status")!.textContent ?? ""),
      undefined,
      { timeout: 60_000 },
    );
    const status = (await page.textContent("#status")) ?? "";
    expect(occurrences(status, OWN_EXPECT.unread)).toBe(1);
    expect(status).not.toContain("Notes on smoke");

    const grid = await standIn(page)<unknown[][]>("sourceGrid", "Action list");
    const h = grid[0].map(String);
    const c = (name: string) => h.indexOf(name);
    const day = (v: unknown) => (typeof v === "number" ? serialDate(v) : String(v ?? ""));
    const find = (uprn: unknown, check: string) =>
      grid.find((r) => String(r[c("UPRN")]).replace(/^'/, "") === String(uprn) && r[c("Check")] === check);
    // Every action of a demo answer says so first.
    const demo = (action: string) => `${DEMO_NOTE}: ${action}`;
    rows.slice(1).forEach((r, i) => {
      const smoke = find(r[0], "Smoke alarms")!;
      expect([day(smoke[c("Due")]), smoke[c("Action")]]).toEqual([OWN_EXPECT.due, demo(OWN_EXPECT.smokeAction[i])]);
      const co = find(r[0], "Carbon monoxide alarms")!;
      expect([day(co[c("Due")]), co[c("Action")]]).toEqual([OWN_EXPECT.due, demo(OWN_EXPECT.coAction)]);
    });
    expect(day(find(rows[1][0], "Right to Rent follow-up")![c("Due")])).toBe(OWN_EXPECT.rtrDue);
    expect(find(rows[2][0], "Right to Rent follow-up")).toBeUndefined();
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
