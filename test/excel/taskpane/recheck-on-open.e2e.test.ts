/**
 * Re-check on open in the BUILT task pane, headless Chromium, the Excel
 * stand-in and the real sandbox over loopback. A workbook is "opened again" by reloading the page with the stand-in
 * restored from what the workbook saved (cells, workbook settings, startup behavior), as Excel would load the add-in
 * with it. The time since the last check is simulated by ageing the check time the workbook recorded; the page's clock
 * is set to noon of the first check's day whenever the workbook opens, so the days it counts are the same at any hour.
 */
import type { Page } from "playwright-core";
import { CHANGE_LOG_HEADERS, RUN_LOG_HEADERS, blockNotFound, outputHeaders, sentence } from "../../../core";
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
const DAYS = "compliance.recheckOnOpenDays";
/** The page's clock whenever the workbook opens: noon of DAY1 in the computer's zone. */
const AT = new Date(noonOn(DAY1));
/** The recorded check time, aged by `days`. */
const checkedDaysAgo = (days: number) => new Date(AT.getTime() - days * 86_400_000).toISOString();

run("Excel re-check on open in Chromium", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let page: Page;
  let uprns: string[];
  const pageErrors: string[] = [];

  const { text, waitText, waitIdle } = paneWaits(() => page, pageErrors, 30_000);
  const { standIn, dump, read } = pageWorkbook(() => page);
  /** Closes the workbook and opens it again as saved (after `edit`) at AT, waiting for the pane to be wired. */
  const reopen = async (saved: any) => {
    await reopenWorkbook(page, saved, AT);
    await paneReady(page, pageErrors);
  };
  const logRows = async (sheet: string, width: number) =>
    (await read(sheet, `A1:${String.fromCharCode(64 + width)}400`)).filter((r) => r[0] !== "");

  beforeAll(async () => {
    sb = await startTestSandbox({ today: DAY1 });
    uprns = recheckUprns(sb.dataset(), 40);
    ({ page } = await pane.open({
      context: { viewport: { width: 360, height: 1400 } },
      errors: pageErrors,
      consoleErrors: true,
      restoreOnReload: true,
      clock: { time: AT },
    }));
  });
  afterAll(async () => {
    await sb?.close();
  });

  test("set it, reopen too soon (nothing sent), reopen after the days: the block is checked again, logged as on open", async () => {
    await page.fill("#base-url", sb.baseUrl);
    await page.click("#save-base-url");
    await waitText("settings-status", /^Base URL saved\.$/);
    await page.fill("#api-key", KEY);
    await page.click("#save-key");
    await waitText("settings-status", /^Key saved and accepted/);

    expect(await text("last-run")).toBe("No run is logged in this workbook yet.");
    await standIn("seed", "Sheet1", "A1", [["UPRN", "Tenant"], ...uprns.map((u, i) => [u, `T${i}`])]);
    await standIn("select", "Sheet1", "A1");
    await page.click("#check");
    await waitText("status", /Done/);
    await waitIdle();
    await waitText("last-run", /^Last run .* \(manual\): [\d,]+ of [\d,]+ rows checked, no changes/);

    // The Run log button opens the sheet.
    await page.click("#open-run-log");
    await page.waitForFunction(() => (window as any).__excelStandIn.state.activeSheet === "Run log");

    // The setting: a bad number is refused in words, a good one saved in the workbook, the add-in set to load with it.
    await page.fill("#recheck-days", "400");
    await page.click("#recheck-on");
    await waitText("watch-status", /"400" is not a number of days/);
    expect(await page.isChecked("#recheck-on")).toBe(false);
    await page.fill("#recheck-days", "3");
    await page.check("#recheck-on");
    await waitText("watch-status", /^Saved\. From the next time this workbook opens/);
    const state = await page.evaluate(() => (window as any).__excelStandIn.state.startupCalls);
    expect(state).toEqual(["Load"]);
    let saved = await dump();
    expect(saved.startupBehavior).toBe("Load");
    expect(saved.settings[DAYS]).toBe(3);
    expect(saved.settings[BLOCKS]).toHaveLength(1);
    expect(saved.settings[BLOCKS][0]).toMatchObject({
      sheet: "Sheet1",
      headerRow: 0,
      blockColumn: 2,
      inputColumns: { uprn: 0 },
    });
    // Nothing of the user's is in the workbook's settings: no key.
    expect(JSON.stringify(saved.settings)).not.toContain(KEY);

    // Opened again the next day: the last check is 1 day old, not older than 3: nothing is sent.
    sb.reset();
    saved.settings[BLOCKS][0].checkedAt = checkedDaysAgo(1);
    await reopen(saved);
    expect(await page.isChecked("#recheck-on")).toBe(true);
    expect(await page.inputValue("#recheck-days")).toBe("3");
    await waitText("last-run", /\(manual\)/);
    // The digest line comes once the pane has decided on the re-check (taskpane.ts wire()): nothing was due, or a
    // request would have gone before it.
    await waitText("digest-status", /^Since the last digest|^No digest yet/);
    expect(sb.stats().total).toBe(0);
    expect(await text("status")).toBe("");

    // Sixty days later (the sandbox's clock moves; the recorded check time is aged as the days would have).
    const ds1 = sb.dataset();
    sb.setToday(DAY2);
    const ds2 = sb.dataset();
    saved = await dump();
    saved.settings[BLOCKS][0].checkedAt = checkedDaysAgo(60);
    // A column was inserted left of the table since (every cell of Sheet1 one column right): found where it is now.
    saved.sheets = saved.sheets.map(([name, cells]: [string, [string, unknown][]]) => [
      name,
      name === "Sheet1" ? cells.map(([k, cell]) => [`${k.split(",")[0]},${Number(k.split(",")[1]) + 1}`, cell]) : cells,
    ]);
    await reopen(saved);
    await waitText("status", /^Re-check on open: 1 of 1 block checked again\./, 60_000);
    await waitIdle();
    expect(sb.stats().bulk_submit).toBeGreaterThanOrEqual(1);

    // Logged on the page's day, DAY1 (the service's answers have moved on to DAY2).
    const expected = expectedChanges(ds1, ds2, uprns, DAY1);
    const changes = (await read("Change log", `A1:H${expected.size + 5}`)).filter((r) => r[0] !== "");
    expect(changes[0]).toEqual([...CHANGE_LOG_HEADERS]);
    expect(expected.size).toBeGreaterThan(10);
    expect(new Set(changes.slice(1).map(loggedKey))).toEqual(expected);
    const runs = await logRows("Run log", RUN_LOG_HEADERS.length);
    expect(runs[0]).toEqual([...RUN_LOG_HEADERS]);
    expect(runs.slice(1).map((r) => r[2])).toEqual(["manual", "on open"]);
    expect(runs[2][6]).toBe(expected.size);
    await waitText("last-run", /\(on open\): /);

    // Written where the block is now (the user's column A, new, stays empty); the record follows it and is renewed.
    expect((await read("Sheet1", "A1:D1"))[0]).toEqual(["", "UPRN", "Tenant", outputHeaders()[0]]);
    saved = await dump();
    expect(saved.settings[BLOCKS]).toHaveLength(1);
    expect(saved.settings[BLOCKS][0]).toMatchObject({ blockColumn: 3, inputColumns: { uprn: 1 } });
    const sinceOpen = Date.parse(saved.settings[BLOCKS][0].checkedAt) - AT.getTime();
    expect(sinceOpen).toBeGreaterThanOrEqual(0);
    expect(sinceOpen).toBeLessThan(5 * 60_000);
  });

  test("a recorded block that is gone is not written anywhere: its Run log row says why, and it is no longer watched", async () => {
    const saved = await dump();
    // The results block's columns deleted (D onwards cleared) while the add-in was not running.
    saved.sheets = saved.sheets.map(([name, cells]: [string, [string, unknown][]]) => [
      name,
      name === "Sheet1" ? cells.filter(([k]) => Number(k.split(",")[1]) < 3) : cells,
    ]);
    saved.settings[BLOCKS][0].checkedAt = checkedDaysAgo(30);
    sb.reset();
    await reopen(saved);
    await waitText("status", /^Re-check on open: 0 of 1 block checked again\./);
    await waitIdle();
    expect(sb.stats().total).toBe(0);
    // Core's words for a block that is gone, as the Sheets sidebar says them.
    expect(await text("status")).toContain(`${sentence(blockNotFound("Sheet1", 3))}`);
    expect(await text("status")).toMatch(
      /results columns \(D:[A-Z]+\) on "Sheet1" were deleted or moved.*no longer watched/,
    );
    const runs = await logRows("Run log", RUN_LOG_HEADERS.length);
    expect(runs.slice(1).map((r) => r[2])).toEqual(["manual", "on open", "on open"]);
    expect(String(runs[3][11])).toContain(sentence(blockNotFound("Sheet1", 3)));
    expect((await dump()).settings[BLOCKS]).toEqual([]);
    // The user's own columns are untouched.
    expect((await read("Sheet1", "B1:C2"))[1]).toEqual([uprns[0], "T0"]);
    expect(pageErrors).toEqual([]);
  });
});
