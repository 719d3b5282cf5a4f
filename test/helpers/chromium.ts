/**
 * Headless Chromium for the page tests: Debian's /usr/bin/chromium driven by playwright-core. Missing Chromium skips the
 * page tests with a loud warning on a developer machine, and fails them under CI (where .ci/run installs it).
 */
import * as fs from "fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** true: run the browser tests; false: skip them (warned). Throws under CI, where a skip would hide a gap. */
export function chromiumAvailable(what = "Excel task pane browser tests"): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  if (process.env.CI)
    throw new Error(
      `CI is set but Chromium is missing at ${CHROMIUM}: install it with apt-get install -y chromium (or set CHROMIUM_PATH)`,
    );
  console.warn(
    `\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n` +
      `!! SKIPPING the ${what}: no Chromium at ${CHROMIUM}.\n` +
      `!! Install it (apt-get install -y chromium) or set CHROMIUM_PATH to run them; under CI they fail instead.\n` +
      `!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n`,
  );
  return false;
}

/** A message that says how to install Chromium, rather than Playwright's own about a browser it did not download. */
export function missingChromium(): string {
  return `No Chromium at ${CHROMIUM}. Install it (Debian or Ubuntu: sudo apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium or Chrome.`;
}

export function launch(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) return Promise.reject(new Error(missingChromium()));
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
