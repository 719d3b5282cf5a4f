/**
 * Screenshot of the "Change log" and "Run log" sheets for the README: a stand-in rendering, not Excel. The sandbox runs
 * on loopback with its clock on 2027-01-31; 120 of its properties are checked with the pane's own code (prepareCheck,
 * runCheck) on the Excel stand-in, the sandbox's clock moves 60 days, they are checked again, and the two log sheets'
 * cells are drawn as HTML and shot by headless Chromium.
 * Run: npx tsx scripts/screenshots-change-log.ts  (writes assets/screenshots/excel-change-log.png)
 */
import * as fs from "fs";
import * as path from "path";
import { CHANGE_LOG_HEADERS, RUN_LOG_HEADERS, createClient } from "../core";
import { prepareCheck, runCheck, type ExcelRun } from "../excel/taskpane/check-run";
import { startSandbox } from "../sandbox/app";
import { findExamples } from "../sandbox/dataset";
import { launch } from "../test/helpers/chromium";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Excel stand-in is plain JavaScript that the built pane's page also loads as a script, so it has no ES exports
const { createStandIn } = require(path.join(__dirname, "../test/excel/standin/excel-standin.js"));
const OUT = path.join(__dirname, "../assets/screenshots");
const esc = (v: unknown) =>
  String(v ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;");
const DIRECTION = { worse: "#F4CCCC", better: "#D9EAD3", changed: "#FFF2CC" } as Record<string, string>;

/** Writes the screenshots into `out` (the README's assets/screenshots when run as a script). */
export async function main(out = OUT): Promise<void> {
  const sb = await startSandbox({ port: 0, today: "2027-01-31", msPerProperty: 0 });
  try {
    const ds = sb.dataset();
    const ex = findExamples(ds);
    const picked = new Set<string>();
    for (const byBucket of Object.values(ex.dueWithin)) for (const p of Object.values(byBucket)) picked.add(p.uprn);
    for (const p of ds.properties.slice(0, 120)) if (picked.size < 120) picked.add(p.uprn);
    const uprns = [...picked];
    const s = createStandIn();
    const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
    s.api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    const client = createClient({
      baseUrl: sb.baseUrl,
      apiKey: "sandbox-professional",
      fetch: (u, i) => fetch(u, i as RequestInit) as never,
    });
    const check = async () => {
      s.api.select("Sheet1", "A1");
      const prep = await prepareCheck(excelRun, { plan: "professional" });
      if (!prep.ok) throw new Error(prep.message);
      return runCheck(prep.check, { excelRun, client, plan: "professional", runBy: "agent@example.co.uk" });
    };
    await check();
    sb.setToday("2027-04-01");
    const second = await check();

    const table = (sheet: string, headers: readonly string[], rows: number, colour?: (r: unknown[]) => string) => {
      const last = String.fromCharCode(64 + headers.length);
      const cells = (s.api.read(sheet, `A1:${last}${rows + 1}`).values as unknown[][]).filter((r) => r[0] !== "");
      return `<table>${cells
        .map(
          (r, i) =>
            `<tr><th class="rh">${i + 1}</th>${r.map((v) => `<td class="${i === 0 ? "b" : ""}" style="${i && colour ? colour(r) : ""}">${esc(v)}</td>`).join("")}</tr>`,
        )
        .join("")}</table>`;
    };
    const html = `<!doctype html><html><head><meta charset="utf-8"><style>
      body{font:12px "Segoe UI",Arial,sans-serif;margin:0;background:#fff;color:#201f1e}
      .bar{background:#217346;color:#fff;padding:6px 10px;font-size:13px}.bar small{opacity:.8;margin-left:8px}
      h3{font-size:12px;margin:10px 8px 4px;color:#605e5c;font-weight:600}
      table{border-collapse:collapse;margin:0 8px}td,th{border:1px solid #e1dfdd;padding:2px 6px;white-space:nowrap;max-width:320px;overflow:hidden;text-overflow:ellipsis}
      th.rh{background:#f3f2f1;color:#605e5c;font-weight:400;width:28px}.b{font-weight:600;background:#f3f2f1}
    </style></head><body>
      <div class="bar">Change log and Run log after checking 120 sandbox properties, moving the sandbox's clock 60 days, and checking again<small>stand-in rendering of the cells the add-in writes (not a capture of Excel)</small></div>
      <h3>Change log (first 22 of ${second.runLog ? esc(/(\d[\d,]*) changes?/.exec(second.runLog)?.[1]) : "?"} rows; the Direction column is coloured here for reading)</h3>
      ${table("Change log", CHANGE_LOG_HEADERS, 22, (r) => `background:${DIRECTION[String(r[7])] ?? "#fff"}`)}
      <h3>Run log</h3>
      ${table("Run log", RUN_LOG_HEADERS, 3)}
    </body></html>`;
    fs.mkdirSync(out, { recursive: true });
    const browser = await launch();
    try {
      const page = await browser.newPage({ viewport: { width: 1300, height: 400 } });
      await page.setContent(html);
      await page.screenshot({ path: path.join(out, "excel-change-log.png"), fullPage: true });
      console.log(`wrote ${path.join(out, "excel-change-log.png")}`);
    } finally {
      await browser.close();
    }
  } finally {
    sb.app.server.closeAllConnections();
    await sb.close();
  }
}

if (require.main === module)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
