/**
 * The switches the page tests start Chromium with (test/helpers/chromium.ts), read back from the browser itself: what
 * Playwright turns off stays off under our own --disable-features, and a page's window brings no hidden browser pages.
 * The browser is started once in a process and shared by its suites, each seeing only the contexts it opened.
 */
import * as path from "path";
import { CHROMIUM, launch, NO_BROWSER_UI_FEATURES, testWithChromium } from "../helpers/chromium";

/** Chromium's headless shell (CHROMIUM_PATH may name it) has no browser UI to turn off, and no chrome:// pages. */
const HEADLESS_SHELL = /headless[-_]shell/.test(path.basename(CHROMIUM));

const chromium = testWithChromium("Chromium switch test");

chromium(
  "our --disable-features (the one Chromium reads) keeps every feature Playwright turns off, and no window loads a browser page beside the test's",
  async () => {
    const browser = await launch();
    try {
      const page = await browser.newPage();
      if (!HEADLESS_SHELL) {
        await page.goto("chrome://version");
        const switches = ((await page.textContent("#command_line")) ?? "").split(/\s+/);
        const disabled = switches
          .filter((s) => s.startsWith("--disable-features="))
          .map((s) => s.slice("--disable-features=".length).split(","));
        // Playwright's comes first, ours last; Chromium goes by the last.
        expect(disabled.length).toBeGreaterThanOrEqual(2);
        const [playwrights, ours] = [disabled[0], disabled[disabled.length - 1]];
        expect(playwrights.length).toBeGreaterThan(5);
        expect(playwrights.filter((f) => !ours.includes(f))).toEqual([]);
        expect(ours).toEqual(expect.arrayContaining(NO_BROWSER_UI_FEATURES));
      }

      // Two pages, each in its own context and window, as the tests open them: only they (and their tabs) are there.
      const second = await browser.newPage();
      await second.setContent("<p>second</p>");
      const cdp = await browser.newBrowserCDPSession();
      const { targetInfos } = await cdp.send("Target.getTargets", { filter: [{}] });
      expect(targetInfos.filter((t) => t.type === "page")).toHaveLength(2);
      expect(targetInfos.filter((t) => t.type !== "page" && t.type !== "tab")).toEqual([]);
      await cdp.detach();
    } finally {
      await browser.close();
    }
  },
);

chromium("suites share one Chromium, each with only the contexts it opened, which its close() closes", async () => {
  const first = await launch();
  const second = await launch();
  try {
    const page = await first.newPage();
    await page.setContent("<p>first</p>");
    const context = await second.newContext();
    const other = await context.newPage();
    await other.setContent("<p>second</p>");
    // The same browser underneath, and each suite sees its own contexts only.
    expect(page.context().browser()).toBe(other.context().browser());
    expect(first.contexts()).toEqual([page.context()]);
    expect(second.contexts()).toEqual([context]);

    await first.close();
    expect(page.isClosed()).toBe(true);
    expect(first.contexts()).toEqual([]);
    expect(other.isClosed()).toBe(false);
    expect(await other.textContent("p")).toBe("second");
    expect(second.isConnected()).toBe(true);

    // The next suite gets the same running browser, with nothing of the earlier suites' in it.
    const third = await launch();
    expect(third.contexts()).toEqual([]);
    const next = await third.newPage();
    expect(next.context().browser()).toBe(other.context().browser());
    await third.close();
  } finally {
    await second.close();
  }
  expect(second.contexts()).toEqual([]);
});
