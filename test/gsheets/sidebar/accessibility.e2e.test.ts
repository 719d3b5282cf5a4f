/**
 * Accessibility of the BUILT sidebar (its calls bridged to the BUILT Code.js, real HTTP to the sandbox) in headless
 * Chromium: axe-core's WCAG 2.1 A/AA rules with no serious or critical violation on every tab and in each state a
 * user meets (no key, refused key, running, finished, stopped, demo, lookup results, help); a keyboard walk of every
 * tab; progress and results in live regions; and a forced-colours (high contrast) pass.
 */
import type { Browser, Page } from "playwright-core";
import { axeSeriousViolations, tabWalk } from "../../helpers/axe";
import { describeWithSidebar, launch, openSidebar } from "../harness/browser";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import { startSandboxProcess, type SandboxProcess, type SandboxProperty } from "../harness/sandbox";
import { API_KEY, seedTable } from "../harness/table";

const maybe = describeWithSidebar();
const TABS = ["tab-check", "tab-lookup", "tab-settings", "tab-help"];

maybe("Google Sheets sidebar: accessibility", () => {
  let sandbox: SandboxProcess;
  let props: SandboxProperty[];
  let browser: Browser;

  beforeAll(async () => {
    sandbox = await startSandboxProcess({ msPerProperty: 2 });
    props = await sandbox.properties(30);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  const openAllDetails = (page: Page) =>
    page.evaluate(() => document.querySelectorAll("details").forEach((d) => ((d as HTMLDetailsElement).open = true)));
  const waitText = (page: Page, id: string, re: RegExp, timeout = 30_000) =>
    page.waitForFunction(
      ([i, src]) => new RegExp(src).test(document.getElementById(i)!.textContent ?? ""),
      [id, re.source] as const,
      { timeout },
    );

  /**
   * axe on every tab in turn (details opened), then back to the tab that was selected. `tabs`: only the tabs whose
   * content the state changes (axe skips hidden panels, and the message box and tab list show on every tab).
   */
  async function expectAxeCleanOnEveryTab(page: Page, state: string, tabs: readonly string[] = TABS) {
    const selected = await page.$eval('[role="tab"][aria-selected="true"]', (t) => t.id);
    await openAllDetails(page);
    for (const tab of tabs) {
      await page.click(`#${tab}`);
      const { violations, passes } = await axeSeriousViolations(page);
      expect({ state, tab, violations }).toEqual({ state, tab, violations: [] });
      expect(passes).toBeGreaterThan(10);
    }
    await page.click(`#${selected}`);
  }

  function sheetWith(rows: number): GasEnvironment {
    const env = createGasEnvironment();
    const data = props.slice(0, rows).map((p) => [p.uprn]);
    data[1] = ["not-a-uprn"];
    const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN"], data);
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    return env;
  }

  test("axe: no serious or critical WCAG 2.1 AA violation on any tab with no key and with a refused key, and on the tab each later state changes: running, stopped, finished, and with lookup results", async () => {
    const env = sheetWith(30);
    const { page } = await openSidebar(browser, env);
    await page.waitForSelector("#panel-settings:not([hidden])");
    await expectAxeCleanOnEveryTab(page, "no key");

    await page.fill("#api-key", "sandbox-wrong-key-123");
    await page.fill("#base-url", sandbox.baseUrl);
    await page.press("#api-key", "Enter");
    await waitText(page, "message", /^Not saved/);
    expect(await page.getAttribute("#message", "role")).toBe("alert");
    await expectAxeCleanOnEveryTab(page, "refused key");

    await page.fill("#api-key", API_KEY);
    await page.press("#api-key", "Enter");
    await waitText(page, "message", /saved and accepted/);

    // Running: the job never finishes on its own (the sandbox stalls it), so the state holds while axe looks.
    await sandbox.setFaults([{ kind: "job_stall", count: 1 }]);
    await page.click("#tab-check");
    await page.click("#check-btn");
    await page.waitForSelector("#stop-btn:not([hidden])");
    await expectAxeCleanOnEveryTab(page, "running", ["tab-check"]);
    // Progress and the run's words are live regions: heard without moving focus.
    expect(await page.getAttribute("#progress-text", "aria-live")).toBe("polite");
    expect(await page.getAttribute("#run-status", "aria-live")).toBe("polite");
    await page.click("#stop-btn");
    await waitText(page, "run-status", /^Stopped\./);
    await sandbox.clearFaults();
    await expectAxeCleanOnEveryTab(page, "stopped", ["tab-check"]);

    // Checking again while the stopped run is unfinished asks first: Resume it, or check the selection anyway.
    await page.click("#check-btn");
    await page.waitForSelector("#check-anyway-btn:not([hidden])");
    await expectAxeCleanOnEveryTab(page, "asked to resume", ["tab-check"]);
    await page.click("#check-anyway-btn");
    await waitText(page, "run-status", /^Done/, 60_000);
    expect(await page.textContent("#run-status")).toMatch(/^Done\. 30 rows checked, 1 with errors/);
    await expectAxeCleanOnEveryTab(page, "finished", ["tab-check"]);

    await page.click("#tab-lookup");
    await page.fill("#lookup-postcode", "SW1A 2AA");
    await page.press("#lookup-postcode", "Enter");
    await page.waitForSelector("#lookup-results button");
    await expectAxeCleanOnEveryTab(page, "lookup results", ["tab-lookup"]);
    await page.close();
  });

  test("axe: the demo (banner, sample table, a finished check) is clean on every tab", async () => {
    const env = createGasEnvironment();
    const { page } = await openSidebar(browser, env);
    await page.waitForSelector("#panel-settings:not([hidden])");
    await page.click("#try-demo");
    await page.waitForSelector("#demo-banner:not([hidden])");
    await page.click("#insert-sample");
    await waitText(page, "message", /Sample table|sample/i);
    env.sheet.select("A2:A3");
    await page.click("#tab-check");
    await page.click("#check-btn");
    await waitText(page, "run-status", /^(Done|Finished)/, 60_000);
    await expectAxeCleanOnEveryTab(page, "demo");
    await page.close();
  });

  test("keyboard: on every tab, Tab reaches every control in page order, each has a name and shows its focus; arrows move between tabs", async () => {
    const env = createGasEnvironment();
    env.run("saveSettings", { apiKey: API_KEY, baseUrl: sandbox.baseUrl, plan: "professional" });
    const { page } = await openSidebar(browser, env);
    await page.waitForSelector("#panel-check:not([hidden])");
    await openAllDetails(page);
    const mustReach: Record<string, string[]> = {
      "tab-check": ["check-btn", "map-uprn", "schedule-mode", "save-schedule", "action-days", "download-ics"],
      "tab-lookup": ["lookup-postcode", "lookup-query", "lookup-btn"],
      "tab-settings": ["try-demo", "api-key", "base-url", "plan", "reset-windows", "save-settings", "remove-key"],
      "tab-help": ["panel-help"],
    };
    for (const tab of TABS) {
      await page.click(`#${tab}`);
      const { stops, expected } = await tabWalk(page);
      expect(expected).toEqual(expect.arrayContaining(mustReach[tab]));
      expect({ tab, stops: stops.map((s) => s.id) }).toEqual({ tab, stops: expected });
      // Only the selected tab is a Tab stop (the arrows move between tabs); the panel follows it.
      expect(stops.filter((s) => s.id.startsWith("tab-")).map((s) => s.id)).toEqual([tab]);
      expect({ tab, unnamed: stops.filter((s) => !s.name) }).toEqual({ tab, unnamed: [] });
      expect({ tab, noFocus: stops.filter((s) => !s.focusShown) }).toEqual({ tab, noFocus: [] });
      for (let i = 1; i < stops.length; i++)
        expect({ stop: stops[i].id, up: stops[i].top < stops[i - 1].top - 4 }).toEqual({
          stop: stops[i].id,
          up: false,
        });
    }
    await page.focus("#tab-help");
    await page.keyboard.press("ArrowRight");
    expect(await page.evaluate(() => document.activeElement!.id)).toBe("tab-check");
    // Enter on the focused button starts the check: the keyboard alone gets a result.
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(0, 5).map((p) => [p.uprn]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    await page.focus("#check-btn");
    await page.keyboard.press("Enter");
    await waitText(page, "run-status", /^Done\. 5 rows checked/, 60_000);
    await page.close();
  });

  test("forced colours (high contrast): the selected tab, focus and every status stay visible without colour", async () => {
    const env = createGasEnvironment();
    env.run("saveSettings", { apiKey: API_KEY, baseUrl: sandbox.baseUrl, plan: "professional" });
    env.run("showSidebar");
    const html = env.sidebars[env.sidebars.length - 1].html;
    const page = await browser.newPage({ viewport: { width: 300, height: 760 }, forcedColors: "active" });
    await page.route("https://sidebar.gsheets.test/", (route) =>
      route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: html }),
    );
    await page.addInitScript(
      `window.google = { script: { run: new Proxy({}, { get: (_t, n) => n === "withSuccessHandler" || n === "withFailureHandler" ? () => window.google.script.run : () => undefined }) } };`,
    );
    await page.goto("https://sidebar.gsheets.test/");
    expect(await page.evaluate(() => matchMedia("(forced-colors: active)").matches)).toBe(true);
    // The selected tab differs from the others in something the system colours do not replace (border or weight).
    const look = (id: string) =>
      page.$eval(`#${id}`, (el) => {
        const cs = getComputedStyle(el);
        return { border: cs.borderBottomWidth, weight: cs.fontWeight, decoration: cs.textDecorationLine };
      });
    const selected = await look("tab-check");
    const other = await look("tab-lookup");
    expect(selected).not.toEqual(other);
    // Every colour swatch still says its status in words.
    const words = await page.$$eval("#legend span, #window-legend span", (s) =>
      s.map((x) => (x.textContent ?? "").trim()),
    );
    expect(words.length).toBeGreaterThan(5);
    expect(words.filter((w) => !w)).toEqual([]);
    // A focused control draws an outline.
    await page.focus("#tab-check");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Shift+Tab");
    const focus = await page.evaluate(() => {
      const cs = getComputedStyle(document.activeElement!);
      return { id: document.activeElement!.id, style: cs.outlineStyle, width: parseFloat(cs.outlineWidth) };
    });
    expect(focus.id).toBe("tab-check");
    expect(focus.style).not.toBe("none");
    expect(focus.width).toBeGreaterThanOrEqual(2);
    const { violations } = await axeSeriousViolations(page);
    expect(violations).toEqual([]);
    await page.close();
  });
});
