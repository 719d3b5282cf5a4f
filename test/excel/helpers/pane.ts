/**
 * The BUILT task pane (dist/excel) in a Chromium page, as the page tests open it: nothing leaves loopback, office.js
 * from Microsoft's CDN is answered with the Excel stand-in, and the test waits until the pane has wired itself.
 *
 *   const pane = servedPane();   // in a describe block: the build served and a Chromium, for its tests
 *   beforeAll(async () => ({ page } = await pane.open({ settings: { baseUrl: sb.baseUrl, key: KEY } })));
 */
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { launch } from "../../helpers/chromium";
import { STANDIN_SCRIPT } from "../../helpers/excel-standin";
import { ensureExcelBuild } from "./build";
import { serveStatic } from "./static-server";

/** Where the pane keeps its runtime (settings, the run) for tests and the Excel functions. */
const RUNTIME = "property-compliance.excel.runtime";

/** What the test waits for before it goes on: the pane's legend drawn, its runtime too, the functions registered. */
export type PaneReady = "legend" | "runtime" | "functions" | false;

export interface BuiltPaneOptions {
  /** The page's context: its viewport (360 × 1100 unless given), forced colours, time zone. */
  context?: BrowserContextOptions;
  /** The script served for office.js: the stand-in unless given; null leaves it unanswered (no Office at all). */
  officeJs?: string | null;
  /** Where the page's errors go (uncaught, and console errors when `consoleErrors`); a new list unless given. */
  errors?: string[];
  consoleErrors?: boolean;
  /** A reload opens the workbook as it was saved, when the test put it in sessionStorage ("standin-restore"). */
  restoreOnReload?: boolean;
  /** The page's clock, from this time; `resume` lets it run on from there. */
  clock?: { time: number | Date; resume?: boolean };
  /** Anything else to arrange before the page loads (listeners, routes, init scripts). */
  before?: (page: Page) => unknown;
  /** legend unless given; false: the test waits itself. */
  ready?: PaneReady;
  /** How long to wait for `ready` (10 s unless given). */
  timeout?: number;
  /** The service's address and key, saved through the pane's own settings once it is ready; `fresh` clears what the
   *  page stored while it started (OfficeRuntime.storage and localStorage) before. */
  settings?: { baseUrl: string; key: string; fresh?: boolean };
}

const READY: Record<Exclude<PaneReady, false>, (runtime: string) => unknown> = {
  legend: () => document.getElementById("legend")?.children.length,
  runtime: (runtime) => (globalThis as any)[Symbol.for(runtime)] && document.getElementById("legend")?.children.length,
  functions: () => (window as any).__excelStandIn?.state.customFunctions.PROPERTY,
};

/** Opens `${url}/taskpane.html` in a new page of `browser`; a failed wait says what the page threw. */
export async function openBuiltPane(
  browser: Browser,
  url: string,
  opts: BuiltPaneOptions = {},
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 360, height: 1100 }, ...opts.context });
  const errors = opts.errors ?? [];
  page.on("pageerror", (e) => errors.push(String(e)));
  if (opts.consoleErrors) page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  // No request leaves loopback, except office.js from the CDN, which is answered with the stand-in (later routes win).
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  const officeJs = opts.officeJs === undefined ? STANDIN_SCRIPT : opts.officeJs;
  if (officeJs !== null)
    await page.route("https://appsforoffice.microsoft.com/**", (route) =>
      route.fulfill({ status: 200, contentType: "text/javascript", body: officeJs }),
    );
  if (opts.restoreOnReload)
    await page.addInitScript(() => {
      const saved = sessionStorage.getItem("standin-restore");
      if (saved) (window as any).__standInOptions = { restore: saved };
    });
  if (opts.clock) {
    await page.clock.install({ time: opts.clock.time });
    if (opts.clock.resume) await page.clock.resume();
  }
  await opts.before?.(page);
  await page.goto(`${url}/taskpane.html`);
  const ready = opts.ready ?? "legend";
  if (ready) await paneReady(page, errors, ready, opts.timeout);
  if (opts.settings) await saveSettings(page, opts.settings);
  return { page, errors };
}

export interface ServedPane {
  /** The served build's address. */
  readonly url: string;
  readonly browser: Browser;
  /** openBuiltPane in this browser, from this build. */
  open(opts?: BuiltPaneOptions): Promise<{ page: Page; errors: string[] }>;
}

/**
 * The built pane's files (dist/excel, built first when older than the sources) served on loopback, and one Chromium,
 * for the describe block that calls this: started before its tests, closed after them. Read it inside tests and hooks.
 */
export function servedPane(): ServedPane {
  let web: { url: string; close: () => Promise<void> } | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    web = await serveStatic(ensureExcelBuild());
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });
  const live = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error("servedPane starts in beforeAll: use it inside tests and hooks.");
    return v;
  };
  return {
    get url() {
      return live(web).url;
    },
    get browser() {
      return live(browser);
    },
    open: (opts) => openBuiltPane(live(browser), live(web).url, opts),
  };
}

/** Waits until the pane is `ready` (after a reload, say); a failed wait says what the page threw. */
export async function paneReady(page: Page, errors: string[] = [], ready: PaneReady = "legend", timeout = 10_000) {
  if (!ready) return;
  await page.waitForFunction(READY[ready], RUNTIME, { timeout }).catch((e) => {
    throw new Error(`${e.message}\npage errors: ${errors.join("\n")}`);
  });
}

/** Saves the service's address and key as Settings would, through the pane's runtime. */
export async function saveSettings(page: Page, settings: { baseUrl: string; key: string; fresh?: boolean }) {
  await page.evaluate(
    async ({ baseUrl, key, fresh, runtime }) => {
      if (fresh) localStorage.clear();
      const rt = (globalThis as any)[Symbol.for(runtime)];
      await rt.settings.setBaseUrl(baseUrl);
      await rt.settings.setApiKey(key);
    },
    { ...settings, fresh: !!settings.fresh, runtime: RUNTIME },
  );
}

/**
 * The pane's text and the waits the page tests share, over the page the suite opens later (`page()` is read at each
 * call): a wait that times out says what the element held and what the page threw.
 */
export function paneWaits(page: () => Page, errors: string[], timeout = 60_000) {
  const text = (id: string) => page().evaluate((i) => document.getElementById(i)!.textContent ?? "", id);
  const waitText = (id: string, re: RegExp, ms = timeout) =>
    page()
      .waitForFunction(
        ([i, src]) => new RegExp(src).test(document.getElementById(i)!.textContent ?? ""),
        [id, re.source] as const,
        { timeout: ms },
      )
      .catch(async (e) => {
        throw new Error(`${e.message}\n#${id}: ${await text(id)}\npage errors: ${errors.join("\n")}`);
      });
  /** Check enabled and Cancel hidden: no run going. */
  const waitIdle = () =>
    page().waitForFunction(
      () =>
        !(document.getElementById("check") as HTMLButtonElement).disabled && document.getElementById("cancel")!.hidden,
      undefined,
      { timeout: 60_000 },
    );
  return { text, waitText, waitIdle };
}
