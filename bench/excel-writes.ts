/**
 * Excel write benchmark: how many context.sync calls and request chunks it takes to write 10,000 result rows through
 * excel/taskpane/sheet.ts, measured on the Excel stand-in (which enforces Excel on the web's 5 MB request limit).
 * Run: npx tsx bench/excel-writes.ts [rows]
 */
import * as path from "path";
import { outputRow, type CheckResult } from "../core";
import { writeOutputRows } from "../excel/taskpane/sheet";
import { buildDatasetFor, checkResultFor } from "../sandbox/dataset";
import { summary } from "./summary";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createStandIn } = require(path.join(__dirname, "../test/excel/standin/excel-standin.js"));

export async function benchExcelWrites(rows = 10_000) {
  const ds = buildDatasetFor(new Date("2026-11-22T00:00:00Z"));
  const results: CheckResult[] = ds.properties.slice(0, rows).map((p) => checkResultFor(p) as CheckResult);
  const block = results.map((r) => outputRow({ result: r }, "2026-11-22T10:00:00Z"));
  const s = createStandIn();
  const started = Date.now();
  const stats = await s.Excel.run((ctx: Excel.RequestContext) => writeOutputRows(ctx, { sheet: "Sheet1", rowIndex: 1, columnIndex: 4 }, block, block.keys()));
  const ms = Date.now() - started;
  const st = s.api.state.stats;
  return { rows, syncs: stats.syncs, chunks: stats.chunks, maxRequestMB: st.maxRequestBytes / 1e6, totalMB: st.totalBytes / 1e6, ms };
}

if (require.main === module) {
  const rows = Number(process.argv[2] || 10_000);
  benchExcelWrites(rows).then((r) => {
    console.log(
      `excel: ${r.rows} result rows written with ${r.syncs} context.sync calls in ${r.chunks} request chunks ` +
        `(largest ${r.maxRequestMB.toFixed(2)} MB of 5 MB, ${r.totalMB.toFixed(1)} MB total, ${r.ms} ms on the stand-in)`,
    );
    summary(`Excel: context.sync calls to write ${r.rows.toLocaleString("en-GB")} result rows`, r.syncs, "", r.chunks, `floor: ${r.chunks} (one per request chunk)`, 0);
    summary(`Excel: largest request writing ${r.rows.toLocaleString("en-GB")} rows (MB)`, r.maxRequestMB, "MB", 5, "limit: 5 MB (Office's payload limit)", 2);
  });
}
