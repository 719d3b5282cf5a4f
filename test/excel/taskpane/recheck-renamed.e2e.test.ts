/**
 * A checked table's sheet renamed, in the BUILT task pane (headless Chromium, the Excel stand-in, the real sandbox over
 * loopback), the page's clock set to noon of each day. The workbook remembers each checked table with its sheet's own
 * id (Worksheet.id, which a rename keeps): re-check on open finds a renamed sheet by it, and a record an earlier version
 * kept without one gets its id when the Action list's read finds its sheet by name, so that a later rename loses
 * neither. A workbook is "opened again" by reloading the page with the stand-in restored from what the workbook saved.
 */
import type { Page } from "playwright-core";
import { CHANGE_LOG_HEADERS, RUN_LOG_HEADERS, outputHeaders } from "../../../core";
import { pageWorkbook, reopenWorkbook } from "../helpers/stand-in-page";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { noonOn } from "../../helpers/clock";
import { expectedChanges, loggedKey, recheckUprns } from "../../helpers/changes";
import { describeWithChromium } from "../../helpers/chromium";
import { paneReady, paneWaits, servedPane } from "../helpers/pane";

const run = describeWithChromium();
const KEY = "sandbox-professional";
const DAY1 = "2027-01-31";
const DAY2 = "2027-04-01";
const BLOCKS = "compliance.watchedBlocks";
/** Noon of a day on the page's local clock (the browser runs in this process's time zone). */
const noon = (day: string) => new Date(noonOn(day));
/** The table's own columns: UPRN and Tenant left of the results block, Notes right of it, all typed by the user. */
const WIDTH = outputHeaders().length;
const NOTES = 2 + WIDTH;
const letter = (c: number) =>
  (c < 26 ? "" : String.fromCharCode(64 + Math.floor(c / 26))) + String.fromCharCode(65 + (c % 26));

run("Excel: a checked table's sheet renamed", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let page: Page;
  let uprns: string[];
  const pageErrors: string[] = [];

  const { text, waitText, waitIdle } = paneWaits(() => page, pageErrors, 60_000);
  const { standIn, dump, read } = pageWorkbook(() => page);
  /** Closes the workbook and opens it again as saved, the page's clock at `at`. */
  const reopen = async (saved: any, at: Date) => {
    await reopenWorkbook(page, saved, at);
    await paneReady(page, pageErrors);
  };
  const sheetIdOf = (saved: any, name: string) => new Map<string, string>(saved.sheetIds).get(name);
  /** What the user typed in the table: the UPRN and Tenant columns and the Notes column right of the block. */
  const typed = async (sheet: string) => {
    const n = uprns.length + 1;
    const left = await read(sheet, `A1:B${n}`);
    const notes = await read(sheet, `${letter(NOTES)}1:${letter(NOTES)}${n}`);
    return left.map((r, i) => [...r, notes[i][0]]);
  };
  const runLogTriggers = async () =>
    (await read("Run log", `A2:${letter(RUN_LOG_HEADERS.length - 1)}40`)).filter((r) => r[0] !== "").map((r) => r[2]);

  beforeAll(async () => {
    sb = await startTestSandbox({ today: DAY1 });
    uprns = recheckUprns(sb.dataset(), 30);
    ({ page } = await pane.open({
      context: { viewport: { width: 360, height: 1400 } },
      errors: pageErrors,
      consoleErrors: true,
      restoreOnReload: true,
      clock: { time: noon(DAY1) },
    }));
  });
  afterAll(async () => {
    await sb?.close();
  });

  test("a sheet renamed after its table was checked: re-check on open still finds it, checks it, and keeps what the user typed", async () => {
    await page.fill("#base-url", sb.baseUrl);
    await page.click("#save-base-url");
    await waitText("settings-status", /^Base URL saved\.$/);
    await page.fill("#api-key", KEY);
    await page.click("#save-key");
    await waitText("settings-status", /^Key saved and accepted/);

    await standIn("seed", "Sheet1", "A1", [["UPRN", "Tenant"], ...uprns.map((u, i) => [u, `T${i}`])]);
    await standIn("seed", "Sheet1", `${letter(NOTES)}1`, [["Notes"], ...uprns.map((_u, i) => [`note ${i}`])]);
    await standIn("select", "Sheet1", "A1");
    await page.click("#check");
    await waitText("status", /Done/);
    await waitIdle();
    await page.fill("#recheck-days", "3");
    await page.check("#recheck-on");
    await waitText("watch-status", /^Saved\./);
    const before = await typed("Sheet1");
    expect(before[1]).toEqual([uprns[0], "T0", "note 0"]);
    let saved = await dump();
    const id = sheetIdOf(saved, "Sheet1");
    expect(saved.settings[BLOCKS]).toEqual([expect.objectContaining({ sheet: "Sheet1", sheetId: id, blockColumn: 2 })]);

    // Renamed, and the workbook opened again when the service's answers have moved on (its day is DAY2) and the last
    // check is 60 days old (the record aged as the days would have; the page's day stays DAY1, as the block's was).
    await standIn("renameSheet", "Sheet1", "Lettings");
    sb.reset();
    const ds1 = sb.dataset();
    sb.setToday(DAY2);
    const ds2 = sb.dataset();
    saved = await dump();
    saved.settings[BLOCKS][0].checkedAt = new Date(noon(DAY1).getTime() - 60 * 86_400_000).toISOString();
    await reopen(saved, noon(DAY1));
    await waitText("status", /^Re-check on open: 1 of 1 block checked again\./);
    await waitIdle();
    expect(sb.stats().bulk_submit).toBeGreaterThanOrEqual(1);

    // Checked: every change since the first check is logged, from the run on open.
    const expected = expectedChanges(ds1, ds2, uprns, DAY1);
    expect(expected.size).toBeGreaterThan(10);
    const changes = (await read("Change log", `A1:H${expected.size + 50}`)).filter((r) => r[0] !== "");
    expect(changes[0]).toEqual([...CHANGE_LOG_HEADERS]);
    expect(new Set(changes.slice(1).map(loggedKey))).toEqual(expected);
    expect(await runLogTriggers()).toEqual(["manual", "on open"]);
    // On the renamed sheet, where the block was, around what the user typed, which is as it was.
    expect((await read("Lettings", "A1:C1"))[0]).toEqual(["UPRN", "Tenant", outputHeaders()[0]]);
    expect(await typed("Lettings")).toEqual(before);
    // The record follows the sheet: its id, its new name, the time of the check on open (the page's clock).
    saved = await dump();
    expect(saved.settings[BLOCKS]).toEqual([
      expect.objectContaining({ sheet: "Lettings", sheetId: id, headerRow: 0, blockColumn: 2 }),
    ]);
    const at = Date.parse(saved.settings[BLOCKS][0].checkedAt) - noon(DAY1).getTime();
    expect(at >= 0 && at < 10 * 60_000).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  test("a record kept without its sheet's id (as an earlier version kept it) gets the id when the portfolio's read finds its sheet by name; renamed again, the Action list and re-check on open still find it", async () => {
    // Checked by hand on the sheet as it is called now, then the record made as an earlier version kept it: the
    // sheet's name only. Checked now, so not due on open.
    await standIn("select", "Lettings", "A1");
    await page.evaluate(() => (document.getElementById("status")!.textContent = ""));
    await page.click("#check");
    await waitText("status", /Done/);
    await waitIdle();
    let saved = await dump();
    const id = sheetIdOf(saved, "Lettings");
    expect(id).toBeTruthy();
    const { sheetId: _dropped, ...old } = saved.settings[BLOCKS].find((b: any) => b.sheet === "Lettings");
    saved.settings[BLOCKS] = [{ ...old, checkedAt: noon(DAY1).toISOString() }];
    expect(saved.settings[BLOCKS][0].sheetId).toBeUndefined();
    sb.reset();
    await reopen(saved, noon(DAY1));
    // The portfolio is read on open (the digest card) and by Refresh action list: either finds the sheet by its name.
    await page.click("#refresh-actions");
    await waitText("actions-status", /Action list/);
    expect(await text("actions-status")).not.toMatch(/not refreshed|no longer found/);
    expect(sb.stats().total).toBe(0);
    saved = await dump();
    expect(saved.settings[BLOCKS]).toEqual([expect.objectContaining({ sheet: "Lettings", sheetId: id })]);

    // Renamed again: the Action list names the table by the sheet's new name, and a re-check on open finds it.
    await standIn("renameSheet", "Lettings", "Homes");
    await page.evaluate(() => (document.getElementById("actions-status")!.textContent = ""));
    await page.click("#refresh-actions");
    await waitText("actions-status", /Action list/);
    const list = await standIn<unknown[][]>("sourceGrid", "Action list");
    const table = list[0].map(String).indexOf("Table");
    expect(
      new Set(
        list
          .slice(1)
          .map((r) => r[table])
          .filter((t) => t !== ""),
      ),
    ).toEqual(new Set(["Homes"]));
    const before = await typed("Homes");
    saved = await dump();
    saved.settings[BLOCKS][0].checkedAt = new Date(noon(DAY1).getTime() - 60 * 86_400_000).toISOString();
    await reopen(saved, noon(DAY1));
    await waitText("status", /^Re-check on open: 1 of 1 block checked again\./);
    await waitIdle();
    expect((await runLogTriggers()).slice(-2)).toEqual(["manual", "on open"]);
    expect(await typed("Homes")).toEqual(before);
    expect((await dump()).settings[BLOCKS]).toEqual([expect.objectContaining({ sheet: "Homes", sheetId: id })]);
    expect(pageErrors).toEqual([]);
  });
});
