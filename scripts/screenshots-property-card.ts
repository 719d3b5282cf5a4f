/**
 * Screenshot of a property card (=COMPLIANCE.PROPERTY) for the README: a stand-in rendering, not Excel. The sandbox is
 * started, one property's answer fetched over HTTP, turned into the card by core's propertyCard and into the entity value
 * Excel would receive by excel/functions/card.ts; that entity's text, sections, fields and formats are drawn as HTML
 * beside a few cells that reference it, and shot by headless Chromium.
 * Run: npx tsx scripts/screenshots-property-card.ts  (writes assets/screenshots/excel-property-card.png)
 */
import * as fs from "fs";
import * as path from "path";
import type { Browser } from "playwright-core";
import { propertyCard, statusColour, windowColour, type CheckResult } from "../core";
import { toEntityValue } from "../excel/functions/card";
import { startSandbox } from "../sandbox/app";
import { findExamples } from "../sandbox/dataset";
import { launch } from "../test/helpers/chromium";

const OUT = path.join(__dirname, "../assets/screenshots");
const KEY = "sandbox-professional";
const esc = (v: unknown) =>
  String(v ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;");

/** A property value as Excel shows it: dates and times by their number format, numbers and text as they are. */
function shown(p: Record<string, unknown>): string {
  if (p.type === "FormattedNumber" && typeof p.basicValue === "number") {
    const iso = new Date(Math.round((p.basicValue - 25_569) * 86_400) * 1000).toISOString();
    return p.numberFormat === "yyyy-mm-dd" ? iso.slice(0, 10) : iso.slice(0, 19).replace("T", " ");
  }
  return String(p.basicValue ?? "");
}

/** Writes the screenshots into `out` (the README's assets/screenshots when run as a script). */
export async function main(out = OUT): Promise<void> {
  // The browser first: without one, the script says so before it has built the sandbox's register for nothing.
  const browser = await launch();
  try {
    await shoot(browser, out);
  } finally {
    await browser.close();
  }
}

async function shoot(browser: Browser, out: string): Promise<void> {
  const sb = await startSandbox({ port: 0 });
  let answer: CheckResult;
  try {
    // A property with something to do and a check that is not required: the card's sections all have something to show.
    const ex = findExamples(sb.dataset());
    const uprn = ex.byCheckStatus.gas_safety.warning.uprn;
    const res = await fetch(`${sb.url}/v1/api/check?uprn=${uprn}`, { headers: { Authorization: `Bearer ${KEY}` } });
    if (res.status !== 200) throw new Error(`sandbox answered ${res.status}`);
    answer = (await res.json()) as CheckResult;
  } finally {
    await sb.close();
  }
  const checkedAt = new Date().toISOString();
  const entity = toEntityValue(propertyCard(answer, checkedAt, { today: checkedAt.slice(0, 10) }));
  const props = entity.properties as unknown as Record<string, Record<string, unknown>>;

  const colour = (name: string, value: string) =>
    /status$/.test(name) ? statusColour(value) : name === "Window" ? windowColour(value) : null;
  const sections = entity.layouts!.card!.sections!.map((s) => {
    const rows = s.properties
      .map((name) => {
        const p = props[name];
        const value = shown(p);
        const c = colour(name, value);
        const sub = (p.propertyMetadata as { sublabel?: string } | undefined)?.sublabel;
        const cell = c
          ? `<span class="pill" style="background:${c.fill};color:${c.font}">${esc(value)}</span>`
          : esc(value);
        return `<div class="row"><div class="label">${esc(name)}${sub ? `<small>${esc(sub)}</small>` : ""}</div><div class="value">${cell}</div></div>`;
      })
      .join("");
    return `<section><h3>${esc(s.title)} <span class="chev">&#8963;</span></h3>${rows}</section>`;
  });

  const uprnText = shown(props.UPRN);
  const grid = [
    ["", "A", "B", "C", "D"],
    ["1", "UPRN", "Property", "Score", "Next action"],
    ["2", uprnText, `&#8962; ${esc(entity.text)}`, shown(props.Score), esc(shown(props["Next action"]))],
    ["", "", "=COMPLIANCE.PROPERTY(A2)", "=B2.Score", "=B2.[Next action]"],
  ];
  const gridHtml = `<table class="grid">${grid
    .map(
      (r, i) =>
        `<tr>${r.map((v, j) => (i === 0 || j === 0 ? `<th>${v}</th>` : i === 3 ? `<td class="f">${esc(v)}</td>` : `<td class="${i === 1 ? "b" : ""}${i === 2 && j === 2 ? " ent" : ""}">${v}</td>`)).join("")}</tr>`,
    )
    .join("")}</table>`;

  const html = `<!doctype html><html><head><meta charset="utf-8"><style>
    body{font:12px "Segoe UI",Arial,sans-serif;margin:0;background:#fff;color:#201f1e}
    .bar{background:#217346;color:#fff;padding:6px 10px;font-size:13px}.bar small{opacity:.85;margin-left:8px}
    .wrap{display:flex;gap:22px;align-items:flex-start;padding:12px}
    table.grid{border-collapse:collapse}.grid th,.grid td{border:1px solid #e1dfdd;padding:3px 8px;white-space:nowrap;max-width:300px;overflow:hidden;text-overflow:ellipsis}
    .grid th{background:#f3f2f1;color:#605e5c;font-weight:400}.grid .b{font-weight:600}.grid .ent{color:#0f6cbd}.grid td.f{color:#605e5c;font-family:Consolas,monospace;font-size:11px;border:none}
    .card{width:400px;border:1px solid #d1d1d1;border-radius:6px;box-shadow:0 4px 14px rgba(0,0,0,.14);background:#fff}
    .card header{padding:14px 16px 6px}.card header .t{font-size:17px;font-weight:600}.card header .s{color:#605e5c;margin-top:2px}
    section{border-top:1px solid #edebe9;padding:6px 16px 8px}h3{font-size:12px;font-weight:600;margin:4px 0 6px;display:flex;justify-content:space-between;color:#323130}
    .chev{color:#8a8886;font-weight:400}.row{display:flex;padding:3px 0}.label{width:150px;color:#605e5c}.label small{display:block;color:#a19f9d;font-size:10px}
    .value{flex:1;color:#201f1e;word-break:break-word}.pill{padding:0 6px;border-radius:2px}
    footer{border-top:1px solid #edebe9;padding:6px 16px;color:#8a8886;font-size:11px}
  </style></head><body>
  <div class="bar">Property card: =COMPLIANCE.PROPERTY(A2), from the sandbox's answer for UPRN ${esc(uprnText)}<small>stand-in rendering of the entity value the function returns (not a capture of Excel)</small></div>
  <div class="wrap">${gridHtml}
    <div class="card"><header><div class="t">${esc(entity.text)}</div><div class="s">Score ${esc(shown(props.Score))} &middot; ${esc(shown(props.Risk))} risk</div></header>
    ${sections.join("")}<footer>Data from ${esc(entity.provider?.description)}</footer></div>
  </div></body></html>`;

  fs.mkdirSync(out, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1180, height: 400 } });
  await page.setContent(html);
  await page.screenshot({ path: path.join(out, "excel-property-card.png"), fullPage: true });
  console.log(`wrote ${path.join(out, "excel-property-card.png")}`);
}

if (require.main === module)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
