/**
 * Excel write benchmark: how many context.sync calls it takes to write 50,000 result rows through
 * excel/taskpane/sheet.ts, measured on the Excel stand-in (which refuses a request over Excel on the web's 5 MB limit),
 * against the floor: the bytes the write sends, divided by that limit, rounded up.
 * Run: npx tsx bench/excel-writes.ts [rows]
 */
import * as path from "path";
import { outputRow, type CheckResult } from "../core";
import { writeOutputRows } from "../excel/taskpane/sheet";
import { buildDatasetFor, checkResultFor } from "../sandbox/dataset";
import { summary } from "./summary";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Excel stand-in is plain JavaScript that the built pane's page also loads as a script, so it has no ES exports
const { createStandIn } = require(path.join(__dirname, "../test/excel/standin/excel-standin.js"));

/** The stand-in's limit (test/excel/standin/batch.js): 5 MiB. */
const STANDIN_LIMIT = 5 * 1024 * 1024;

export async function benchExcelWrites(rows = 50_000) {
  const ds = buildDatasetFor(new Date("2026-11-22T00:00:00Z"));
  // The register has about 20,000 properties: a larger block takes them again, in order, so every row is written.
  const results: CheckResult[] = ds.properties.map((p) => checkResultFor(p) as CheckResult);
  const block = Array.from({ length: rows }, (_, i) =>
    outputRow({ result: results[i % results.length] }, "2026-11-22T10:00:00Z"),
  );
  const s = createStandIn();
  const started = Date.now();
  const stats = await s.Excel.run((ctx: Excel.RequestContext) =>
    writeOutputRows(ctx, { sheet: "Sheet1", rowIndex: 1, columnIndex: 4 }, block, block.keys()),
  );
  const ms = Date.now() - started;
  const st = s.api.state.stats;
  // Every row reached the sheet: the last row's first cell is the block's.
  const last = s.api.read("Sheet1", `E${rows + 1}`).values[0][0];
  const written = last === block[rows - 1][0] ? rows : 0;
  return {
    rows,
    written,
    syncs: stats.syncs,
    floor: Math.ceil(st.totalBytes / STANDIN_LIMIT),
    maxRequestMB: st.maxRequestBytes / 1e6,
    totalMB: st.totalBytes / 1e6,
    ms,
  };
}

/** The summary rows: syncs against the floor, and the largest request against the limit. */
export function excelWritesRows(r: Awaited<ReturnType<typeof benchExcelWrites>>): void {
  const n = r.rows.toLocaleString("en-GB");
  summary(
    `Excel, writing ${n} rows: context.sync calls`,
    r.syncs,
    "syncs",
    r.floor,
    `floor: ${r.floor} (${r.totalMB.toFixed(1)} MB sent / 5 MB limit, rounded up)`,
    0,
  );
  summary(
    `Excel, writing ${n} rows: largest sync (MB)`,
    r.maxRequestMB,
    "MB",
    STANDIN_LIMIT / 1e6,
    "limit: 5 MB (Excel on the web's request limit)",
    2,
  );
}

if (require.main === module) {
  const rows = Number(process.argv[2] || 50_000);
  benchExcelWrites(rows).then((r) => {
    console.log(
      `excel: ${r.written.toLocaleString("en-GB")} of ${r.rows.toLocaleString("en-GB")} result rows written with ${r.syncs} context.sync calls ` +
        `(floor ${r.floor}: ${r.totalMB.toFixed(1)} MB total / 5 MB; ratio ${(r.syncs / r.floor).toFixed(2)}x; largest ${r.maxRequestMB.toFixed(2)} MB; ${r.ms} ms on the stand-in)`,
    );
    excelWritesRows(r);
    if (r.written !== r.rows) process.exitCode = 1;
  });
}
