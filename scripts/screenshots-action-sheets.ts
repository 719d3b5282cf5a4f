/**
 * Screenshots of the "Action list" and "Compliance summary" sheets for the README: a stand-in rendering, not Excel.
 * The sandbox's first 400 properties are written as the pane writes a results block (Excel stand-in), the pane's
 * buildActionSheets builds both sheets, the summary's formulas are computed by a real formula engine (HyperFormula),
 * and the cells (values, number formats, fills) plus the chart's table are drawn as HTML and shot by headless Chromium.
 * Run: npx tsx scripts/screenshots-action-sheets.ts  (writes assets/screenshots/excel-action-list.png and
 * excel-compliance-summary.png)
 */
import * as fs from "fs";
import * as path from "path";
import { CHECK_LABELS, CHECK_NAMES, outputHeaders, outputRow, type CheckResult } from "../core";
import { buildActionSheets } from "../excel/taskpane/action-sheets";
import { writeOutputRows } from "../excel/taskpane/sheet";
import { buildDatasetFor, checkResultFor } from "../sandbox/dataset";
import { launch } from "../test/helpers/chromium";
import { computeSheet } from "../test/helpers/formulas";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Excel stand-in is plain JavaScript that the built pane's page also loads as a script, so it has no ES exports
const { createStandIn } = require(path.join(__dirname, "../test/excel/standin/excel-standin.js"));
const OUT = path.join(__dirname, "../assets/screenshots");
const esc = (v: unknown) =>
  String(v ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;");
const iso = (serial: number) => new Date((serial - 25569) * 86400000).toISOString().slice(0, 10);
const PALETTE = ["#4F6BED", "#E3008C", "#00A5AF", "#8764B8", "#CA5010"];

/** Writes the screenshots into `out` (the README's assets/screenshots when run as a script). */
export async function main(out = OUT): Promise<void> {
  const ds = buildDatasetFor(new Date());
  const props = ds.properties.slice(0, 400);
  const landlords = ["Acorn Lettings", "B. Shah", "Castle Homes", "D. Okafor"];
  const block = [
    outputHeaders(),
    ...props.map((p) => outputRow({ result: checkResultFor(p) as CheckResult }, new Date().toISOString())),
  ];
  const s = createStandIn();
  s.api.seed("Sheet1", "A1", [
    ["UPRN", "Address", "Landlord"],
    ...props.map((p, i) => [p.uprn, p.address_line_1, landlords[i % 4]]),
  ]);
  await s.Excel.run((ctx: Excel.RequestContext) =>
    writeOutputRows(ctx, { sheet: "Sheet1", rowIndex: 0, columnIndex: 3 }, block, block.keys()),
  );
  const built = await buildActionSheets(
    (fn) => s.Excel.run(fn as never),
    { sheet: "Sheet1", headerRow: 0, blockColumn: 3, inputColumns: { uprn: 0, address: 1 } },
    { today: ds.today, withinDays: 30 },
  );
  if (!built.ok) throw new Error(built.line);

  const frame = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><style>
    body{font:12px "Segoe UI",Arial,sans-serif;margin:0;background:#fff;color:#201f1e}
    .bar{background:#217346;color:#fff;padding:6px 10px;font-size:13px}.bar small{opacity:.8;margin-left:8px}
    table{border-collapse:collapse;margin:0}td,th{border:1px solid #e1dfdd;padding:2px 6px;white-space:nowrap;max-width:380px;overflow:hidden;text-overflow:ellipsis}
    th.rh{background:#f3f2f1;color:#605e5c;font-weight:400;width:28px}thead th{background:#f3f2f1;color:#605e5c;font-weight:400}
    .b{font-weight:600}.wrap{display:flex;gap:18px;align-items:flex-start;padding:8px}.note{color:#605e5c;padding:4px 10px}
  </style></head><body><div class="bar">${esc(title)}<small>stand-in rendering of the cells the add-in writes (not a capture of Excel)</small></div>${body}</body></html>`;

  // Action list: the first 18 rows, with their fills and formats.
  const list = s.api.read("Action list", "A1:K19");
  const letters = "ABCDEFGHIJK".split("");
  let rows = `<thead><tr><th class="rh"></th>${letters.map((l) => `<th>${l}</th>`).join("")}</tr></thead>`;
  list.values.forEach((r: unknown[], i: number) => {
    rows += `<tr><th class="rh">${i + 1}</th>${r
      .map((v, j) => {
        const fmt = list.numberFormats[i][j];
        const shown = typeof v === "number" && fmt === "yyyy-mm-dd" ? iso(v) : v === true ? "TRUE" : v;
        const style = list.fills[i][j] ? `background:${list.fills[i][j]};color:${list.fonts[i][j] ?? "#000"}` : "";
        return `<td class="${i === 0 ? "b" : ""}" style="${style}">${esc(shown)}</td>`;
      })
      .join("")}</tr>`;
  });
  const listHtml = frame(
    `Action list: ${built.open} actions overdue or due within 30 days (first 18 shown), 400 sandbox properties`,
    `<div class="wrap"><table>${rows}</table></div>`,
  );

  // Compliance summary: computed values, and the chart drawn from its table.
  const values = computeSheet(
    { Sheet1: s.api.sourceGrid("Sheet1"), "Compliance summary": s.api.sourceGrid("Compliance summary") },
    "Compliance summary",
  );
  const bold = new Set(
    values.map((r, i) =>
      ["Compliance summary", "Check", "Risk level", "Window", "Actions due"].includes(String(r[0])) ? i : -1,
    ),
  );
  let table = "";
  values.forEach((r, i) => {
    table += `<tr><th class="rh">${i + 1}</th>${r
      .slice(0, 7)
      .map(
        (v) =>
          `<td class="${bold.has(i) ? "b" : ""}">${esc(typeof v === "number" && !Number.isInteger(v) ? v.toFixed(1) : (v ?? ""))}</td>`,
      )
      .join("")}</tr>`;
  });
  const at = values.findIndex((r) => r[0] === "Actions due");
  const months = values.slice(at + 1, at + 20);
  const max = Math.max(1, ...months.map((r) => CHECK_NAMES.reduce((n, _c, k) => n + Number(r[k + 1] || 0), 0)));
  const W = 560,
    H = 300,
    bw = (W - 40) / months.length;
  let svg = `<svg width="${W}" height="${H + 60}" xmlns="http://www.w3.org/2000/svg"><text x="${W / 2}" y="16" text-anchor="middle" font-size="13">Actions due per month (next 18 months; Overdue first)</text>`;
  months.forEach((r, i) => {
    let y = H;
    CHECK_NAMES.forEach((_c, k) => {
      const h = (Number(r[k + 1] || 0) / max) * (H - 40);
      y -= h;
      svg += `<rect x="${30 + i * bw + 2}" y="${y}" width="${bw - 4}" height="${h}" fill="${PALETTE[k]}"/>`;
    });
    svg += `<text x="${30 + i * bw + bw / 2}" y="${H + 12}" font-size="9" text-anchor="end" transform="rotate(-45 ${30 + i * bw + bw / 2} ${H + 12})">${esc(r[0])}</text>`;
  });
  CHECK_NAMES.forEach(
    (c, k) =>
      (svg += `<rect x="${40 + k * 105}" y="${H + 40}" width="10" height="10" fill="${PALETTE[k]}"/><text x="${54 + k * 105}" y="${H + 49}" font-size="11">${CHECK_LABELS[c]}</text>`),
  );
  svg += "</svg>";
  const summaryHtml = frame(
    "Compliance summary: live COUNTIF formulas over the results block (values computed by HyperFormula), and its chart",
    `<div class="wrap"><table>${table}</table>${svg}</div>`,
  );

  fs.mkdirSync(out, { recursive: true });
  const browser = await launch();
  try {
    for (const [name, html, width] of [
      ["excel-action-list.png", listHtml, 1500],
      ["excel-compliance-summary.png", summaryHtml, 1700],
    ] as const) {
      const page = await browser.newPage({ viewport: { width, height: 400 } });
      await page.setContent(html);
      await page.screenshot({ path: path.join(out, name), fullPage: true });
      await page.close();
      console.log(`wrote ${path.join(out, name)}`);
    }
  } finally {
    await browser.close();
  }
}

if (require.main === module)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
