/**
 * The two hosts a parity scenario runs in, started once for the file: the BUILT Excel task pane (dist/excel, in
 * headless Chromium over the Excel stand-in, its Check button clicked) and the Sheets stand-in running the built Code.js
 * (startBulkCheck, polled to the end), each against a sandbox on loopback. Each seeds the same grid, makes the user's
 * changes and selections, checks, and hands back the grid as both can be compared on it (cell()), what it said and
 * what the first submit left on the sheet.
 *
 * Each host has its own sandbox: the Sheets harness moves its sandbox's clock on with the script's sleeps, and a pane
 * reading that clock (from the service's Date header) would wait out the difference in real time.
 */
import type { Browser, Page, Route } from "playwright-core";
import { OUTPUT_COLUMNS } from "../../core";
import { ensureExcelBuild } from "../excel/helpers/build";
import { serveStatic } from "../excel/helpers/static-server";
import { launch } from "../helpers/chromium";
import { standIn } from "../excel/helpers/stand-in-page";
import { columnNumber } from "../helpers/columns";
import { startTestSandbox, type Sandbox } from "../helpers/sandbox";
import { createGasEnvironment } from "../gsheets/harness/gas";
import { startSandboxProcess, type SandboxProcess } from "../gsheets/harness/sandbox";
import { configure, pollToEnd } from "../gsheets/harness/table";
import { colLetters, STANDIN_SCRIPT as STANDIN } from "../helpers/excel-standin";

export { colLetters };
export const W = OUTPUT_COLUMNS.length;
export const MATCHED = OUTPUT_COLUMNS.findIndex((c) => c.header === "Matched UPRN");
export const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");
export const EPC_STATUS = OUTPUT_COLUMNS.findIndex((c) => c.key === "epc_status");
const ROWS = 14;
const COLS = 2 * W + 12;
/**
 * One injected clock for both add-ins and both sandboxes: a fixed mid-day, in one zone for both files (Excel takes
 * its day from the computer's zone, Sheets from the file's), so that no check can fall on another day in one add-in
 * than in the other, whatever the hour or zone the suite runs at. Nothing here reads the wall clock to decide a day.
 * The pane's page clock, both sandboxes and the Sheets harness's clock stand there (and move on as time passes).
 */
export const AT = Date.parse("2026-07-15T11:00:00Z");
const ZONE = "Europe/London";
const SHIFT = AT - Date.now();
const RUNTIME = "property-compliance.excel.runtime";
/**
 * How often the pane's page is asked whether it has settled: Playwright's default asks on every animation frame, for
 * the whole of each check. What is waited for stays true once reached (the status lines are collected as they change),
 * so asking less often misses nothing.
 */
const POLL_MS = 50;

let sandbox: SandboxProcess;
let excelSandbox: Sandbox;
let web: { url: string; close: () => Promise<void> };
let browser: Browser;
/** The one page every scenario's pane loads into (see openPane), and the errors its current document threw. */
let panePage: Page;
let pageErrors: string[] = [];
/** The sandbox's UPRNs, known once the suite has started. */
export let u: string[];
/** The same, for scenarios written in other files. */
export const sandboxUprns = () => u;
export async function start() {
  const dist = ensureExcelBuild();
  [sandbox, excelSandbox, web, browser] = await Promise.all([
    startSandboxProcess({ msPerProperty: 1, clockOffsetMs: SHIFT }),
    startTestSandbox({ msPerProperty: 1, now: () => new Date(Date.now() + SHIFT) }),
    serveStatic(dist),
    launch(),
  ]);
  u = (await sandbox.properties(8)).map((p) => p.uprn);
  panePage = await newPanePage();
}
export async function stop() {
  await panePage?.context().close();
  await browser?.close();
  await web?.close();
  await excelSandbox?.close();
  await sandbox?.close();
}

/**
 * A cell as both hosts can be compared on it: every date and time as its day (YYYY-MM-DD in the files' zone; each
 * host writes them in its own form, and a time's seconds differ between them), numbers and text as text.
 */
function cell(v: unknown): string {
  if (v === null || v === undefined || v === "") return "";
  if (Object.prototype.toString.call(v) === "[object Date]") return dayIn(v as Date);
  // Excel holds a date as its serial (days since 1899-12-30, the wall time in the workbook's zone): 20000 is 1954,
  // 80000 is 2119.
  if (typeof v === "number" && v > 20000 && v < 80000)
    return new Date(Math.floor(v) * 86_400_000 - 25569 * 86_400_000).toISOString().slice(0, 10);
  const s = String(v);
  if (/^\d{4}-\d{2}-\d{2}/.test(s)) return s.slice(0, 10);
  return s;
}
const dayFormat = new Intl.DateTimeFormat("en-CA", {
  timeZone: ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});
export const dayIn = (d: Date) => dayFormat.format(d);
const normalise = (grid: unknown[][]) => grid.map((r) => r.map(cell));

/** What the user does to the sheet before a check: sorts whole rows, inserts a row, or types into cells. */
type Change =
  /** Row first + i gets what row first + order[i] held; only the first `columns` columns when given (a sort of part of the sheet). */
  | { sort: { first: number; order: number[]; columns?: number } }
  | { insertRowBefore: number }
  /** A whole column inserted before this column (a letter), as Insert > Column left does. */
  | { insertColumnBefore: string }
  /** A filter hides these rows (1-based). */
  | { filterOut: number[] }
  | { type: { at: string; values: unknown[][] } };

export interface Step {
  /** Done before the selection is made, in order. */
  change?: Change[];
  select: string;
  /** Columns chosen by hand (letters), for a table whose headers name none; with hasHeader false, it has no header row. */
  mapping?: { uprn?: string; postcode?: string };
  hasHeader?: boolean;
}

/** 1-based row and column of an A1 cell address. */
function a1(at: string): { row: number; col: number } {
  const m = /^([A-Z]+)(\d+)$/.exec(at)!;
  return { row: Number(m[2]), col: columnNumber(m[1]) };
}

export interface Outcome {
  grid: string[][];
  /** The refusals the add-in gave, one for each check it would not start. */
  refused: string[];
  /** What the add-in said it would check, one line for each check it started. */
  said: string[];
  /** The grid as the first check's first submit left for the service. */
  atFirstSubmit: string[][];
}

const isSubmit = (method: string, url: string) => method === "POST" && new URL(url).pathname === "/v1/api/check/bulk";

/**
 * The page the scenarios' panes load into, one for the file: a new page costs headless Chromium a renderer process,
 * about as much CPU as the check the scenario then runs. Each scenario loads the pane afresh in it (openPane), so it
 * still starts with a new workbook and, its storage emptied before any of the pane's scripts run, nothing remembered.
 */
async function newPanePage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 360, height: 900 }, timezoneId: ZONE });
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  // Before every document's own scripts: the pane's settings and OfficeRuntime.storage (the stand-in keeps it in
  // localStorage) start empty, as in a new browser context.
  await page.addInitScript(() => {
    try {
      localStorage.clear();
      sessionStorage.clear();
    } catch {
      // about:blank has no storage of its own to clear.
    }
  });
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  await page.route("https://appsforoffice.microsoft.com/**", (route) =>
    route.fulfill({ status: 200, contentType: "text/javascript", body: STANDIN }),
  );
  await page.clock.install({ time: AT });
  await page.clock.resume();
  return page;
}

/** The built pane loaded afresh (a new workbook, empty storage), set up with the sandbox's address and a key. */
async function openPane(): Promise<Page> {
  const page = panePage;
  const errors: string[] = (pageErrors = []);
  // "Checked at" is the page's clock: each scenario's pane starts at AT, and it moves a minute on before each check (below).
  await page.clock.setSystemTime(AT);
  await page.goto(`${web.url}/taskpane.html`);
  await page
    .waitForFunction(
      (key) => (globalThis as any)[Symbol.for(key)] && document.getElementById("legend")?.children.length,
      RUNTIME,
      { timeout: 10_000, polling: POLL_MS },
    )
    .catch((e) => {
      throw new Error(`${e.message}\npage errors: ${errors.join("\n")}`);
    });
  await page.evaluate(
    async ({ baseUrl, key, runtime }) => {
      const rt = (globalThis as any)[Symbol.for(runtime)];
      await rt.settings.setBaseUrl(baseUrl);
      await rt.settings.setApiKey(key);
    },
    { baseUrl: excelSandbox.baseUrl, key: "sandbox-professional", runtime: RUNTIME },
  );
  return page;
}

export async function inExcel(grid: unknown[][], steps: Step[]): Promise<Outcome> {
  const page = await openPane();
  const api = standIn(page);
  let atFirstSubmit: string[][] = [];
  const toSandbox = `${excelSandbox.baseUrl}/**`;
  const seeSubmit = async (route: Route) => {
    const r = route.request();
    if (!atFirstSubmit.length && isSubmit(r.method(), r.url())) {
      const seen = (await api("read", "Sheet1", `A1:${colLetters(COLS - 1)}${ROWS}`)) as { values: unknown[][] };
      atFirstSubmit = normalise(seen.values);
    }
    await route.continue();
  };
  await page.route(toSandbox, seeSubmit);
  try {
    await api("seed", "Sheet1", "A1", grid);
    const refused: string[] = [];
    const said: string[] = [];
    for (const [i, step] of steps.entries()) {
      for (const c of step.change ?? []) {
        if ("sort" in c)
          await api(
            "reorderRows",
            "Sheet1",
            c.sort.first - 1,
            c.sort.order,
            ...(c.sort.columns ? [0, c.sort.columns] : []),
          );
        else if ("insertRowBefore" in c) await api("insertRows", "Sheet1", c.insertRowBefore - 1, 1);
        else if ("insertColumnBefore" in c)
          await api("insertColumns", "Sheet1", columnNumber(c.insertColumnBefore) - 1, 1);
        else if ("filterOut" in c) for (const r of c.filterOut) await api("hideRows", "Sheet1", r - 1, 1, true);
        else await api("type", "Sheet1", c.type.at, c.type.values);
      }
      await api("select", "Sheet1", step.select);
      // Each check a minute after the one before, as a user's are: this run's rows are known by their Checked at time.
      await page.clock.setSystemTime(AT + (i + 1) * 60_000);
      // Every status line the pane shows during the check, to tell a refusal from a check begun.
      await page.evaluate(() => {
        const w = window as any;
        w.__statuses = [];
        const el = document.getElementById("status")!;
        w.__observer?.disconnect();
        w.__observer = new MutationObserver(() => w.__statuses.push(el.textContent ?? ""));
        w.__observer.observe(el, { childList: true, characterData: true, subtree: true });
      });
      const settled = () =>
        page.waitForFunction(
          () =>
            !(document.getElementById("check") as HTMLButtonElement).disabled &&
            document.getElementById("cancel")!.hidden &&
            (window as any).__statuses.some((t: string) => t && t !== "Reading the selection…"),
          undefined,
          { timeout: 20_000, polling: POLL_MS },
        );
      await page.click("#check");
      await settled();
      if (step.mapping) {
        // Columns chosen by hand, as the user does in the chooser the pane shows: options count from the table's column A.
        for (const [k, letter] of Object.entries(step.mapping))
          await page.selectOption(`#map-${k}`, String(columnNumber(letter!) - 1));
        await page.setChecked("#map-header", step.hasHeader !== false);
        await page.evaluate(() => ((window as any).__statuses = []));
        await page.click("#map-apply");
        await settled();
      }
      const lines = (await page.evaluate(() => (window as any).__statuses)) as string[];
      const first = lines.find((t) => t && t !== "Reading the selection…") ?? "";
      if (first.startsWith("Checking ") || first.startsWith("Nothing was sent: ")) said.push(first);
      else refused.push(first);
    }
    const values = (await api("read", "Sheet1", `A1:${colLetters(COLS - 1)}${ROWS}`)) as { values: unknown[][] };
    return { grid: normalise(values.values), refused, said, atFirstSubmit };
  } finally {
    await page.unroute(toSandbox, seeSubmit);
  }
}

export async function inSheets(grid: unknown[][], steps: Step[]): Promise<Outcome> {
  const env = createGasEnvironment();
  env.clock.offsetMs = SHIFT;
  env.spreadsheet.timeZone = ZONE;
  configure(env, sandbox);
  env.sheet.maxCols = Math.max(env.sheet.maxCols, COLS + W);
  env.sheet.seed(1, 1, grid);
  let atFirstSubmit: string[][] = [];
  env.network.beforeSend = (requests) => {
    if (!atFirstSubmit.length && requests.some((r) => isSubmit(r.method, r.url)))
      atFirstSubmit = normalise(env.sheet.peek(1, 1, ROWS, COLS));
  };
  const refused: string[] = [];
  const said: string[] = [];
  for (const step of steps) {
    for (const c of step.change ?? []) {
      if ("sort" in c) {
        const { first, order } = c.sort;
        const rows = env.sheet.peek(first, 1, order.length, c.sort.columns ?? env.sheet.maxCols);
        env.sheet.seed(
          first,
          1,
          order.map((o) => rows[o]),
        );
      } else if ("insertRowBefore" in c) env.sheet.insertRowsAfter(c.insertRowBefore - 1, 1);
      else if ("insertColumnBefore" in c) env.sheet.insertColumnBefore(columnNumber(c.insertColumnBefore));
      else if ("filterOut" in c) env.sheet.filteredOut = new Set(c.filterOut);
      else {
        const at = a1(c.type.at);
        env.sheet.seed(at.row, at.col, c.type.values);
      }
    }
    env.sheet.select(step.select);
    const r = env.run("startBulkCheck", step.mapping ? { mapping: step.mapping } : {});
    if (!r.ok) {
      refused.push(r.message);
      continue;
    }
    said.push((r.progress?.notes ?? []).join("\n"));
    await pollToEnd(env);
  }
  return { grid: normalise(env.sheet.peek(1, 1, ROWS, COLS)), refused, said, atFirstSubmit };
}

/** Fresh rate windows for both sandboxes: a suite's checks together pass a plan's requests per minute. */
export async function resetSandboxes(): Promise<void> {
  excelSandbox.reset();
  await sandbox.reset();
}
