/**
 * Headless Chromium for the page tests: Debian's /usr/bin/chromium driven by playwright-core. Missing Chromium skips the
 * page tests with a loud warning on a developer machine, and fails them under CI (where .ci/run installs it).
 */
import * as fs from "fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

export function chromiumAvailable(): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`CI is set but Chromium is missing at ${CHROMIUM}: install it with apt-get install -y chromium`);
  console.warn(
    `\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n` +
      `!! SKIPPING the Excel task pane browser tests: no Chromium at ${CHROMIUM}.\n` +
      `!! Install it (apt-get install -y chromium) to run them; under CI they fail instead.\n` +
      `!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n`,
  );
  return false;
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}
