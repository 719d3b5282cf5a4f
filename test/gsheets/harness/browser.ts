/**
 * Headless Chromium for the sidebar: finds the browser (skips loudly without it, fails under CI) and loads
 * the BUILT Sidebar.html with google.script.run bridged to the vm that runs Code.js.
 */
import type { Browser, Page } from "playwright-core";
import { describeWithChromium } from "../../helpers/chromium";
import type { GasEnvironment } from "./gas";

export { CHROMIUM, launch } from "../../helpers/chromium";

/** `describe` for the sidebar's browser tests: skipped (warned) without Chromium, failed under CI. */
export function describeWithSidebar(): jest.Describe {
  return describeWithChromium("Google Sheets sidebar browser tests");
}

/** A google.script.run look-alike: async, chainable handlers, plain data both ways. */
const RUN_SHIM = `
(() => {
  function runner(success, failure) {
    return new Proxy({}, {
      get(_t, name) {
        if (name === "withSuccessHandler") return (f) => runner(f, failure);
        if (name === "withFailureHandler") return (f) => runner(success, f);
        if (name === "withUserObject") return () => runner(success, failure);
        return (...args) => {
          window.__gasRun(String(name), JSON.stringify(args)).then((text) => {
            const r = JSON.parse(text);
            if ("error" in r) { if (failure) failure(new Error(r.error)); }
            else if (success) success(r.value);
          });
        };
      },
    });
  }
  window.google = { script: { run: runner(null, null), host: { close() {}, editor: { focus() {} } } } };
})();
`;

/**
 * Opens the sidebar the way Apps Script does: the server's showSidebar() builds the HtmlOutput from the
 * built Sidebar.html, and that exact HTML is what the page loads.
 */
export async function openSidebar(
  browser: Browser,
  env: GasEnvironment,
  opts: { clock?: boolean } = {},
): Promise<{ page: Page; calls: string[] }> {
  env.run("showSidebar");
  const html = env.sidebars[env.sidebars.length - 1].html;
  const page = await browser.newPage({ viewport: { width: 300, height: 760 } });
  const calls: string[] = [];
  await page.exposeFunction("__gasRun", (name: string, argsJson: string) => {
    calls.push(name);
    try {
      const value = env.run(name, ...JSON.parse(argsJson));
      return JSON.stringify({ value: value === undefined ? null : value });
    } catch (e) {
      return JSON.stringify({ error: e instanceof Error ? e.message : String(e) });
    }
  });
  await page.addInitScript(RUN_SHIM);
  // The page's timers on Playwright's clock: time flows as on the wall, and page.clock.fastForward moves it on at once.
  if (opts.clock) await page.clock.install();
  await page.route("https://sidebar.gsheets.test/", (route) =>
    route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: html }),
  );
  await page.goto("https://sidebar.gsheets.test/");
  return { page, calls };
}
