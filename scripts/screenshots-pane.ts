/**
 * Screenshots of the Excel task pane and the Google Sheets sidebar for the README, from the current build: the BUILT
 * pages (dist/excel/taskpane.html, dist/gsheets/Sidebar.html) in headless Chromium, the pane with the Excel stand-in
 * (test/excel/standin) in place of Excel and the sidebar with the BUILT Code.js in the Apps Script stand-in
 * (test/gsheets/harness), both checking rows against the sandbox. The pages are real; the spreadsheet around them is not.
 * Run: npm run build && npx tsx scripts/screenshots-pane.ts
 * (writes assets/screenshots/excel-taskpane.png, gsheets-sidebar.png, gsheets-sheet.png and gsheets-sidebar-schedule.png)
 */
import * as fs from "fs";
import * as path from "path";
import { launch } from "../test/helpers/chromium";
import { STANDIN_SCRIPT } from "../test/helpers/excel-standin";
import { sandbox } from "../test/helpers/sandbox";
import { serveStatic } from "../test/excel/helpers/static-server";
import { openSidebar } from "../test/gsheets/harness/browser";
import { createGasEnvironment } from "../test/gsheets/harness/gas";
import { startSandboxProcess } from "../test/gsheets/harness/sandbox";
import { cellValue, outputCol, seedTable } from "../test/gsheets/harness/table";
import { OUTPUT_COLUMNS } from "../core";

const ROOT = path.resolve(__dirname, "..");
const OUT = path.join(ROOT, "assets/screenshots");
const KEY = "sandbox-professional";

async function excelPane(out: string): Promise<void> {
  const dist = path.join(ROOT, "dist/excel");
  if (!fs.existsSync(path.join(dist, "taskpane.html")))
    throw new Error("dist/excel is missing: run `npm run build` first");
  const sb = await sandbox(2);
  const web = await serveStatic(dist);
  const browser = await launch();
  try {
    const examples = await (await fetch(`${sb.url}/__sandbox/examples`)).json();
    const st = examples.uprn_by_check_status;
    // 320 px: the width of Excel's task pane.
    const page = await browser.newPage({ viewport: { width: 320, height: 900 } });
    await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
    await page.route("https://appsforoffice.microsoft.com/**", (route) =>
      route.fulfill({ status: 200, contentType: "text/javascript", body: STANDIN_SCRIPT }),
    );
    await page.goto(`${web.url}/taskpane.html`);
    await page.waitForFunction(() => document.getElementById("legend")?.children.length);
    await page.fill("#base-url", sb.baseUrl);
    await page.click("#save-base-url");
    await page.waitForFunction(() =>
      /^Base URL saved/.test(document.getElementById("settings-status")!.textContent ?? ""),
    );
    await page.fill("#api-key", KEY);
    await page.click("#save-key");
    await page.waitForFunction(() => /accepted/.test(document.getElementById("settings-status")!.textContent ?? ""));
    await page.evaluate(
      (values) => {
        const x = (
          window as unknown as {
            __excelStandIn: {
              seed(sheet: string, at: string, v: unknown[][]): void;
              select(sheet: string, a: string): void;
            };
          }
        ).__excelStandIn;
        x.seed("Sheet1", "A1", values);
        x.select("Sheet1", "A2:B7");
      },
      [
        ["UPRN", "Postcode"],
        [st.epc.pass, ""],
        [st.epc.fail, ""],
        ["12ab", ""],
        [st.gas_safety.warning, ""],
        [examples.unknown_uprn, ""],
        ["", examples.single_property_postcode],
      ],
    );
    await page.click("#check");
    await page.waitForFunction(
      () => /^(Done|Finished)/.test(document.getElementById("status")!.textContent ?? ""),
      undefined,
      { timeout: 60_000 },
    );
    // Settings closed and the base URL field emptied: the shot shows the pane, not this machine's sandbox port.
    await page.evaluate(() => {
      (document.getElementById("settings") as HTMLDetailsElement).open = false;
      (document.getElementById("base-url") as HTMLInputElement).value = "";
    });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(out, "excel-taskpane.png"), fullPage: true });
  } finally {
    await browser.close();
    await web.close();
    await sb.close();
  }
}

async function sheetsSidebar(out: string): Promise<void> {
  const sb = await startSandboxProcess({ msPerProperty: 2 });
  const browser = await launch();
  try {
    const props = await sb.properties(40);
    const env = createGasEnvironment();
    env.run("saveSettings", { apiKey: KEY, baseUrl: sb.baseUrl, plan: "professional" });
    const rows = props.map((p) => [p.uprn, p.postcode, p.address]);
    rows[3] = ["not-a-uprn", "", ""];
    const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN", "Postcode", "Address"], rows);
    env.sheet.select(`A${firstRow}:C${lastRow}`);
    const { page } = await openSidebar(browser, env);
    await page.waitForSelector("#panel-check:not([hidden])");
    await page.click("#check-btn");
    await page.waitForFunction(
      () => /^Done/.test(document.getElementById("run-status")!.textContent || ""),
      undefined,
      { timeout: 60_000 },
    );
    // Google's sidebar is 300 px wide; the whole Check tab, top to bottom.
    await page.screenshot({ path: path.join(out, "gsheets-sidebar.png"), fullPage: true });

    // The sheet as the stand-in holds it after the run: the first rows of the output block with the fills and font
    // colours the add-on's conditional-format rules give them, drawn as an HTML table (not a capture of Google Sheets).
    const headers = ["UPRN", ...OUTPUT_COLUMNS.slice(0, 16).map((c) => c.header)];
    const cols = [1, ...OUTPUT_COLUMNS.slice(0, 16).map((c) => outputCol(env.sheet, c.key))];
    const esc = (v: unknown) => String(v).replace(/&/g, "&amp;").replace(/</g, "&lt;");
    const cells = (r: number) =>
      cols
        .map((c) => {
          const v = cellValue(env.sheet, r, c);
          const text =
            Object.prototype.toString.call(v) === "[object Date]" ? (v as Date).toISOString().slice(0, 10) : String(v);
          return `<td style="background:${env.sheet.effectiveFill(r, c) || "#fff"};color:${env.sheet.effectiveFont(r, c) || "#202124"}">${esc(text)}</td>`;
        })
        .join("");
    const table = `<table><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>${Array.from({ length: 14 }, (_, i) => `<tr>${cells(firstRow + i)}</tr>`).join("")}</table>`;
    const sheetPage = await browser.newPage({ viewport: { width: 1500, height: 400 } });
    await sheetPage.setContent(
      `<style>body{font:12px Arial;margin:8px}table{border-collapse:collapse}td,th{border:1px solid #e0e0e0;padding:2px 6px;white-space:nowrap}th{background:#f8f9fa}</style>${table}`,
    );
    // The page as wide as the table, so that no column is cut off at the right.
    const box = await sheetPage.$eval("table", (t) => ({
      width: Math.ceil(t.scrollWidth) + 16,
      height: Math.ceil(t.scrollHeight) + 16,
    }));
    await sheetPage.setViewportSize(box);
    await sheetPage.screenshot({ path: path.join(out, "gsheets-sheet.png"), fullPage: true });
    await sheetPage.close();

    // The Schedule section after saving a weekly re-check.
    await page.selectOption("#schedule-mode", "weekly");
    await page.selectOption("#schedule-day", "WEDNESDAY");
    await page.selectOption("#schedule-hour", "9");
    await page.click("#save-schedule");
    await page.waitForFunction(() => /^Scheduled/.test(document.getElementById("message")!.textContent || ""));
    await page.screenshot({ path: path.join(out, "gsheets-sidebar-schedule.png"), fullPage: true });
  } finally {
    await browser.close();
    await sb.close();
  }
}

/** Writes the four screenshots into `out` (the README's assets/screenshots when run as a script). */
export async function main(out = OUT): Promise<void> {
  fs.mkdirSync(out, { recursive: true });
  await excelPane(out);
  await sheetsSidebar(out);
  console.log(
    `Wrote excel-taskpane.png, gsheets-sidebar.png, gsheets-sheet.png and gsheets-sidebar-schedule.png in ${path.relative(ROOT, out)}/`,
  );
}

if (require.main === module)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
