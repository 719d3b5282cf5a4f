/**
 * Accessibility of the BUILT task pane and help page in headless Chromium: axe-core's WCAG 2.1 A/AA rules with no
 * serious or critical violation in each state a user meets (first open, error, running, finished, column chooser,
 * demo, opened outside Excel), a keyboard walk (every control reached with Tab in page order, named, focus drawn),
 * progress and results in live regions, and a forced-colours (high contrast) pass.
 */
import type { Page } from "playwright-core";
import { axeSeriousViolations, tabWalk } from "../../helpers/axe";
import { STANDIN_SCRIPT } from "../../helpers/excel-standin";
import { describeWithChromium } from "../../helpers/chromium";
import { sandbox, type Sandbox } from "../../helpers/sandbox";
import { paneReady, servedPane } from "../helpers/pane";

const run = describeWithChromium();
const KEY = "sandbox-professional";

run("Excel task pane: accessibility", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let examples: Record<string, any>;

  beforeAll(async () => {
    sb = await sandbox(2);
    examples = await (await fetch(`${sb.url}/__sandbox/examples`)).json();
  });
  afterAll(async () => {
    await sb?.close();
  });

  const openPane = async (context: { forcedColors?: "active" } = {}, officeJs: string | null = STANDIN_SCRIPT) =>
    (await pane.open({ context, officeJs, ready: false })).page;
  const ready = (page: Page) => paneReady(page);
  const waitText = (page: Page, id: string, re: RegExp, timeout = 30_000) =>
    page.waitForFunction(
      ([i, src]) => new RegExp(src).test(document.getElementById(i)!.textContent ?? ""),
      [id, re.source] as const,
      { timeout },
    );
  const openAllDetails = (page: Page) =>
    page.evaluate(() => document.querySelectorAll("details").forEach((d) => ((d as HTMLDetailsElement).open = true)));

  /** axe over the page as it stands, with every collapsible section opened so that nothing escapes the rules. */
  async function expectAxeClean(page: Page, state: string) {
    await openAllDetails(page);
    const { violations, passes } = await axeSeriousViolations(page);
    expect({ state, violations }).toEqual({ state, violations: [] });
    expect(passes).toBeGreaterThan(10); // the rules ran
  }

  async function saveSettings(page: Page) {
    await openAllDetails(page);
    await page.fill("#base-url", sb.baseUrl);
    await page.click("#save-base-url");
    await waitText(page, "settings-status", /^Base URL saved/);
    await page.fill("#api-key", KEY);
    await page.click("#save-key");
    await waitText(page, "settings-status", /accepted/);
  }

  test("axe: no serious or critical WCAG 2.1 AA violation on first open, after an error, while running, when finished, in the column chooser", async () => {
    const page = await openPane();
    await ready(page);
    expect(await page.textContent("#banner")).toMatch(/Add your API key/);
    await expectAxeClean(page, "first open");

    await page.click("#check"); // no key: the banner says so
    await waitText(page, "banner", /No API key set/);
    await expectAxeClean(page, "error: no key");

    await saveSettings(page);
    const st = examples.uprn_by_check_status;
    await page.evaluate(
      (values) => {
        const x = (window as any).__excelStandIn;
        x.seed("Sheet1", "A1", values);
        x.select("Sheet1", "A2:A5");
      },
      [["UPRN"], [st.epc.pass], ["12ab"], [st.epc.fail], [st.gas_safety.warning]],
    );

    // Running: the job's submit is held on its way to the sandbox until axe has looked, so the pane stays in its
    // running state for as long as that takes, and no longer.
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const SUBMIT = "**/v1/api/check/bulk";
    await page.route(SUBMIT, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.click("#check");
      await page.waitForSelector("#cancel:not([hidden])");
      await expectAxeClean(page, "running");
      // Progress words are in a live region, so a screen reader hears them without moving focus.
      expect(await page.getAttribute("#progress-text", "aria-live")).toBe("polite");
      // Still running when axe is done: what it looked at was the running pane.
      expect(await page.isVisible("#cancel")).toBe(true);
    } finally {
      release();
    }
    await page.waitForFunction(
      () => /^(Done|Finished)/.test(document.getElementById("status")!.textContent ?? ""),
      undefined,
      { timeout: 30_000 },
    );
    await page.unroute(SUBMIT);
    // Finished: the result is in the status region (role=status), the rows not sent are listed.
    const status = await page.evaluate(() => {
      const el = document.getElementById("status")!;
      return { role: el.getAttribute("role"), live: el.getAttribute("aria-live"), text: el.textContent };
    });
    expect(status).toEqual({
      role: "status",
      live: "polite",
      text: expect.stringMatching(/^Done\. 4 rows checked, 1 with errors/),
    });
    expect(await page.isVisible("#problems-box")).toBe(true);
    await expectAxeClean(page, "finished");

    // A failure of the service: the banner is an alert, and the pane stays clean.
    sb.setFaults([{ kind: "error_500", route: "bulk_submit" }]);
    try {
      await page.evaluate(() => (window as any).__excelStandIn.select("Sheet1", "A2:A5"));
      await page.click("#check");
      await page.waitForFunction(
        () => /^Finished with problems/.test(document.getElementById("status")!.textContent ?? ""),
        undefined,
        { timeout: 30_000 },
      );
    } finally {
      sb.setFaults([]);
    }
    expect(await page.getAttribute("#banner", "role")).toBe("alert");
    expect(await page.isVisible("#banner")).toBe(true);
    await expectAxeClean(page, "error: service failed");

    // The column chooser (no header row).
    await page.evaluate(
      (values) => {
        const x = (window as any).__excelStandIn;
        x.seed("Sheet3", "A1", values);
        x.select("Sheet3", "A1:B2");
      },
      [
        [st.epc.pass, "flat 1"],
        [st.epc.fail, "flat 2"],
      ],
    );
    await page.click("#check");
    await page.waitForSelector("#mapping:not([hidden])");
    await expectAxeClean(page, "column chooser");

    // Address lookup with its results list.
    await page.fill("#lookup-text", "SW1A 2AA");
    await page.click("#lookup");
    await page.waitForSelector("#lookup-results:not([hidden])");
    await expectAxeClean(page, "lookup results");
    await page.close();
  });

  test("axe: the demo, the pane opened outside Excel, and the help page are clean too", async () => {
    const page = await openPane();
    await ready(page);
    await page.click("#try-demo");
    await waitText(page, "key-state", /^demo/);
    expect(await page.isVisible("#demo-banner")).toBe(true);
    await page.click("#insert-sample");
    await waitText(page, "status", /Sample table/);
    await page.click("#check");
    await page.waitForFunction(
      () => /^(Done|Finished)/.test(document.getElementById("status")!.textContent ?? ""),
      undefined,
      { timeout: 60_000 },
    );
    await expectAxeClean(page, "demo, finished");
    await page.close();

    const outside = await openPane({}, null);
    await outside.waitForFunction(() => !document.getElementById("banner")!.hidden, undefined, { timeout: 10_000 });
    expect(await outside.textContent("#banner")).toMatch(/open it from Excel/);
    await expectAxeClean(outside, "outside Excel");
    await outside.close();

    const help = await pane.browser.newPage({ viewport: { width: 800, height: 900 } });
    await help.goto(`${pane.url}/help.html`);
    await expectAxeClean(help, "help page");
    await help.close();
  });

  test("keyboard: Tab reaches every control in page order, each has a name and shows its focus", async () => {
    const page = await openPane();
    await ready(page);
    await saveSettings(page);
    const { stops, expected } = await tabWalk(page);
    expect(stops.map((s) => s.id)).toEqual(expected);
    expect(expected).toEqual(
      expect.arrayContaining([
        "check",
        "action-days",
        "refresh-actions",
        "lookup-text",
        "lookup",
        "api-key",
        "save-key",
        "base-url",
        "plan",
        "save-windows",
      ]),
    );
    expect(stops.filter((s) => !s.name)).toEqual([]);
    expect(stops.filter((s) => !s.focusShown)).toEqual([]);
    // Page order is reading order: no stop sends focus back up the page.
    for (let i = 1; i < stops.length; i++)
      expect({ stop: stops[i].id, up: stops[i].top < stops[i - 1].top - 4 }).toEqual({ stop: stops[i].id, up: false });

    // Enter on a focused Check runs it: the keyboard alone gets a result.
    await page.evaluate(
      (values) => {
        const x = (window as any).__excelStandIn;
        x.seed("Sheet1", "A1", values);
        x.select("Sheet1", "A2:A2");
      },
      [["UPRN"], [examples.uprn_by_check_status.epc.pass]],
    );
    await page.focus("#check");
    await page.keyboard.press("Enter");
    await waitText(page, "status", /^Done\. 1 row checked/);
    await page.close();
  });

  test("forced colours (high contrast): the pane still draws focus, boxes and every status as words", async () => {
    const page = await openPane({ forcedColors: "active" });
    await ready(page);
    expect(await page.evaluate(() => matchMedia("(forced-colors: active)").matches)).toBe(true);
    await openAllDetails(page);
    // Colours become the system's: every swatch of the legend still says its status in words.
    const legend = await page.$$eval("#legend li, #window-legend li", (li) =>
      li.map((x) => (x.querySelector(".swatch")?.textContent ?? "").trim()),
    );
    expect(legend.length).toBeGreaterThan(5);
    expect(legend.filter((w) => !w)).toEqual([]);
    // The banner and the cards keep a border (a box is still a box), and a focused button an outline.
    const banner = await page.$eval("#banner", (el) => getComputedStyle(el).borderTopStyle);
    expect(banner).not.toBe("none");
    await page.focus("#try-demo");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    const focus = await page.evaluate(() => {
      const cs = getComputedStyle(document.activeElement!);
      return {
        id: document.activeElement!.id,
        style: cs.outlineStyle,
        width: parseFloat(cs.outlineWidth),
        colour: cs.outlineColor,
      };
    });
    expect(focus).toMatchObject({ id: "try-demo", style: expect.not.stringMatching(/^none$/) });
    expect(focus.width).toBeGreaterThanOrEqual(2);
    // A disabled button is told apart by more than a colour the system replaces.
    await page.evaluate(() => ((document.getElementById("save-windows") as HTMLButtonElement).disabled = true));
    const disabled = await page.$eval("#save-windows", (el) => ({
      aria: (el as HTMLButtonElement).disabled,
      colour: getComputedStyle(el).color,
    }));
    const enabled = await page.$eval("#reset-windows", (el) => getComputedStyle(el).color);
    expect(disabled.aria).toBe(true);
    expect(disabled.colour).not.toBe(enabled);
    await expectAxeClean(page, "forced colours");
    await page.close();
  });
});
