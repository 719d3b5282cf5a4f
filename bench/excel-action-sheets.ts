/**
 * Excel: what building the "Action list" and "Compliance summary" costs after a check of 1,000 and 10,000 rows,
 * measured on the Excel stand-in (Excel on the web's 5 MB limits enforced): context.sync calls in all (reading the
 * block is chunked by size, as every read of the pane), of which writing the two sheets, and the time.
 * Run: npx tsx bench/excel-action-sheets.ts
 */
import * as path from "path";
import { outputHeaders, outputRow, type CheckResult } from "../core";
import { buildActionSheets } from "../excel/taskpane/action-sheets";
import { writeOutputRows } from "../excel/taskpane/sheet";
import { buildDatasetFor, checkResultFor } from "../sandbox/dataset";
import { summary } from "./summary";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Excel stand-in is plain JavaScript that the built pane's page also loads as a script, so it has no ES exports
const { createStandIn } = require(path.join(__dirname, "../test/excel/standin/excel-standin.js"));

async function bench(rows: number) {
  const ds = buildDatasetFor(new Date());
  const props = ds.properties.slice(0, rows);
  const block = [
    outputHeaders(),
    ...props.map((p) => outputRow({ result: checkResultFor(p) as CheckResult }, new Date().toISOString())),
  ];
  const s = createStandIn();
  s.api.seed("Sheet1", "A1", [["UPRN"], ...props.map((p) => [p.uprn])]);
  await s.Excel.run((ctx: Excel.RequestContext) =>
    writeOutputRows(ctx, { sheet: "Sheet1", rowIndex: 0, columnIndex: 1 }, block, block.keys()),
  );
  const place = { sheet: "Sheet1", headerRow: 0, blockColumn: 1, inputColumns: { uprn: 0 } };
  const run = async () => {
    const before = s.api.state.stats.syncs;
    const t0 = Date.now();
    const r = await buildActionSheets((fn) => s.Excel.run(fn as never), place, { today: ds.today, withinDays: 30 });
    if (!r.ok) throw new Error(r.line);
    return { syncs: s.api.state.stats.syncs - before, writeSyncs: r.writeSyncs, ms: Date.now() - t0, open: r.open };
  };
  const first = await run();
  const again = await run();
  return { rows, first, again, maxRequestMB: s.api.state.stats.maxRequestBytes / 1e6 };
}

(async () => {
  for (const n of [1_000, 10_000]) {
    const r = await bench(n);
    console.log(
      `excel action sheets, ${n.toLocaleString("en-GB")} rows: ${r.again.open} actions listed; first build ${r.first.syncs} syncs (${r.first.writeSyncs} writing), ` +
        `refresh ${r.again.syncs} syncs (${r.again.writeSyncs} writing), ${r.again.ms} ms on the stand-in; largest request ${r.maxRequestMB.toFixed(2)} MB of 5 MB`,
    );
    summary(
      `Excel: writing syncs to refresh the Action list and summary, ${n.toLocaleString("en-GB")} rows`,
      r.again.writeSyncs,
      "",
      1,
      "floor: 1",
      0,
    );
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
