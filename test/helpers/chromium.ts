/**
 * Headless Chromium for the page tests, driven by playwright-core: Debian's chromium-headless-shell when it is installed
 * (the build Playwright itself runs headless tests in: no browser window or address bar around each page, about half
 * the CPU a page costs in the full browser's headless mode), else Debian's /usr/bin/chromium. Missing Chromium skips
 * the page tests with a loud warning on a developer machine, and fails them under CI (where .ci/run installs both), so
 * that CI cannot pass by skipping them.
 */
import * as fs from "fs";
import { nodeLoad } from "./node-load";
import type { Browser, BrowserContext, Page } from "playwright-core";

const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
export const CHROMIUM =
  process.env.CHROMIUM_PATH || (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");

/** CI as .ci/run and hosted runners set it ("true"); "false", "0" or empty is a developer machine. */
function underCi(): boolean {
  const ci = (process.env.CI ?? "").trim().toLowerCase();
  return ci !== "" && ci !== "false" && ci !== "0";
}

/** true: run the browser tests; false: skip them (warned). Throws under CI, where a skip would hide a gap. */
export function chromiumAvailable(what = "Excel task pane browser tests"): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  if (underCi()) throw new Error(`CI is set, so the ${what} fail rather than skip. ${missingChromium()}`);
  console.warn(
    `\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n` +
      `!! SKIPPING the ${what}. ${missingChromium()}\n` +
      `!! Under CI they fail instead.\n` +
      `!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n`,
  );
  return false;
}

/** `describe` for a block of browser tests: skipped (warned) without Chromium, failed under CI. */
export function describeWithChromium(what?: string): jest.Describe {
  return chromiumAvailable(what) ? describe : describe.skip;
}

/** `test` for one browser test: skipped (warned) without Chromium, failed under CI. */
export function testWithChromium(what?: string): jest.It {
  return chromiumAvailable(what) ? test : test.skip;
}

/** A message that says how to install Chromium, rather than Playwright's own about a browser it did not download. */
export function missingChromium(): string {
  return `No Chromium at ${CHROMIUM}. Install it (Debian or Ubuntu: sudo apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium or Chrome.`;
}

/**
 * The features Playwright itself turns off when it starts Chromium (its own --disable-features). Chromium reads only the
 * last --disable-features it is given, so ours repeats these; test/tooling/chromium-flags.test.ts fails when
 * Playwright's list grows beyond this one.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

/**
 * Chromium's headless mode is the whole browser without a screen: each page a test opens comes in a window of its own,
 * and each window loads its address bar's suggestion popups as two web pages of their own (a renderer process each).
 * Nobody sees them; they cost more CPU than the page under test (a pane opened six times: 16 s of CPU with them, 8 s
 * without).
 */
export const NO_BROWSER_UI_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

export const LAUNCH_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...NO_BROWSER_UI_FEATURES].join(",")}`,
];

/**
 * playwright-core as Node itself loads it, not through jest's module registry: jest compiles a package afresh for every
 * suite (playwright-core is 5 MB of bundled JavaScript, most of a second of CPU each time a page suite loads it), Node once
 * for each worker process, which then runs every later page suite with the copy it has. Outside jest (the screenshot
 * scripts) this is Node's own require either way.
 */
function playwright(): typeof import("playwright-core") {
  return nodeLoad<typeof import("playwright-core")>(require.resolve("playwright-core"));
}

/**
 * Where the process's one Chromium is kept: on playwright-core's module, which (loaded by Node, above) outlives each
 * suite, where jest gives every suite fresh globals. global-teardown.js closes it when jest runs the suites in its own
 * process; a jest worker closes it when told to end (see closeWhenWorkerEnds).
 */
export const SHARED_BROWSER = Symbol.for("property-compliance.tests.chromium");

/**
 * Chromium for one suite under jest: the browser this process already runs, else a new one. Starting Chromium for each page suite
 * cost about half a second of CPU (its processes and profile, and the client's setup), the same again for every suite a
 * worker runs. A suite sees a browser of its own all the same: the contexts (and their pages) it opens are the only
 * ones, each fresh as before, and its close() closes them and leaves the browser to the next suite.
 */
export async function launch(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(missingChromium());
  const pw = playwright() as ReturnType<typeof playwright> & { [SHARED_BROWSER]?: Promise<Browser> };
  // Outside jest (the screenshot scripts) a browser of its own, which its close() ends, so that the script can exit.
  if (process.env.JEST_WORKER_ID === undefined)
    return pw.chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  const running = await pw[SHARED_BROWSER]?.catch(() => undefined);
  if (running?.isConnected()) return suiteBrowser(running);
  const started = pw.chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  pw[SHARED_BROWSER] = started;
  const browser = await started;
  closeWhenWorkerEnds(browser);
  return suiteBrowser(browser);
}

/** The message a jest worker (jest-worker's processChild) is sent when it has no more suites to run. */
const JEST_WORKER_END = 2;

/**
 * A jest worker does not exit when told to end: it stops listening to jest and waits for Node to run out of work, which
 * never happens while a browser is open, so jest would kill it (warning of a leak). So the browser closes on that
 * message. The real `process` (jest gives each suite a copy), through Node as above.
 */
function closeWhenWorkerEnds(browser: Browser) {
  const proc = nodeLoad<NodeJS.Process>("process");
  if (!proc.send) return; // no jest worker: global-teardown.js closes it
  const onMessage = (message: unknown) => {
    if (Array.isArray(message) && message[0] === JEST_WORKER_END) void browser.close().catch(() => undefined);
  };
  proc.on("message", onMessage);
  browser.once("disconnected", () => proc.off("message", onMessage));
}

/** `browser` as one suite sees it: the contexts it opens are closed by its close(), which leaves the browser running. */
function suiteBrowser(browser: Browser): Browser {
  const contexts = new Set<BrowserContext>();
  const own = (context: BrowserContext) => {
    contexts.add(context);
    context.once("close", () => contexts.delete(context));
  };
  const overrides: Partial<Browser> = {
    newContext: async (options) => {
      const context = await browser.newContext(options);
      own(context);
      return context;
    },
    newPage: async (options) => {
      const page: Page = await browser.newPage(options);
      own(page.context());
      return page;
    },
    contexts: () => [...contexts],
    close: async () => {
      await Promise.all([...contexts].map((c) => c.close().catch(() => undefined)));
    },
  };
  return new Proxy(browser, {
    get(target, key) {
      if (key in overrides) return overrides[key as keyof Browser];
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
