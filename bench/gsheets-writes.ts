/**
 * SpreadsheetApp calls per poll and in total for a bulk check of 2,500 and 10,000 rows, measured on the BUILT
 * Code.js in a vm against the sandbox (`npx tsx bench/gsheets-writes.ts`; build first with npm run build:gsheets).
 */
import { createGasEnvironment } from "../test/gsheets/harness/gas";
import { startSandboxProcess } from "../test/gsheets/harness/sandbox";
import { summary } from "./summary";

// The sandbox runs in a child process, not in this one: the vm's synchronous UrlFetchApp blocks this
// thread for each request, so a server on the same event loop could never answer.
const CASES: { rows: number; key: string; plan: "professional" | "enterprise" }[] = [
  { rows: 1000, key: "sandbox-professional", plan: "professional" },
  { rows: 2500, key: "sandbox-professional", plan: "professional" },
  { rows: 10000, key: "sandbox-professional", plan: "professional" },
  { rows: 10000, key: "sandbox-enterprise", plan: "enterprise" },
];

async function main(): Promise<void> {
  const msPerProperty = Number(process.env.SANDBOX_MS_PER_PROPERTY ?? 5);
  const sandbox = await startSandboxProcess({ msPerProperty });
  try {
    const props = await sandbox.properties(10000);
    const lines: string[] = [];
    for (const c of CASES) {
      await sandbox.reset();
      const env = createGasEnvironment();
      const saved = env.run("saveSettings", { apiKey: c.key, baseUrl: sandbox.baseUrl, plan: c.plan });
      if (!saved.ok) throw new Error(saved.message);
      env.sheet.maxRows = c.rows + 10;
      env.sheet.seed(1, 1, [
        ["UPRN", "Postcode", "Address"],
        ...props.slice(0, c.rows).map((p) => [p.uprn, p.postcode, p.address]),
      ]);
      env.sheet.select(`A2:C${c.rows + 1}`);

      const t0 = Date.now();
      const mark0 = env.log.mark();
      const start = env.run("startBulkCheck", {});
      if (!start.ok) throw new Error(start.message);
      const startCalls = env.log.since(mark0).length;
      const startWrites = env.log.writesSince(mark0).length;
      const perPoll: { calls: number; writes: number; cells: number }[] = [];
      let p = start.progress;
      while (p && p.phase === "running") {
        await new Promise((r) => setTimeout(r, Math.min(p.waitMs, 5000)));
        const mark = env.log.mark();
        p = env.run("pollBulkCheck");
        const writes = env.log.writesSince(mark);
        perPoll.push({
          calls: env.log.since(mark).length,
          writes: writes.length,
          cells: writes.reduce((n, w) => n + (w.cells ?? 0), 0),
        });
      }
      // The sidebar's call right after the last poll: the Action list, summary and Run log.
      if (p && p.endDue) p = env.run("finishBulkCheck");
      const stats = await sandbox.stats();
      const total = env.log.since(mark0);
      // The Action list and Compliance summary: built by the call after the last poll; then a refresh (the steady cost).
      const onSheets = (x: { sheet?: string; method: string }) =>
        x.sheet === "Action list" || x.sheet === "Compliance summary" || x.method === "insertSheet";
      const built = total.filter((x) => x.write && onSheets(x)).length;
      const markR = env.log.mark();
      const tR = Date.now();
      const refreshed = env.run("refreshActionSheets", {});
      const refreshMs = Date.now() - tR;
      const refreshWrites = env.log.writesSince(markR).length;
      const maxOf = (f: (x: (typeof perPoll)[number]) => number) => Math.max(0, ...perPoll.map(f));
      lines.push(
        [
          `${c.rows.toLocaleString("en-GB")} rows, ${c.plan}: ${start.jobIds.length} jobs, ${p?.phase}, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
          `  HTTP requests: ${stats.total} (${stats.bulk_submit} submits, ${stats.bulk_results} results polls, 429s: ${stats.by_status["429"] ?? 0})`,
          `  start: ${startCalls} SpreadsheetApp calls, ${startWrites} writes`,
          `  polls: ${perPoll.length}; per poll max ${maxOf((x) => x.calls)} calls, max ${maxOf((x) => x.writes)} writes (${maxOf((x) => x.cells)} cells in the largest)`,
          `  total: ${total.length} SpreadsheetApp calls, ${total.filter((x) => x.write).length} writes for ${c.rows} rows`,
          `  longest server call: ${Math.max(...env.durations.map((d) => d.ms))} ms (Apps Script allows 6 min)`,
          `  Action list + Compliance summary: ${built} writes when built at the end of the run; a refresh: ${refreshWrites} writes, ${refreshMs} ms (${refreshed.message})`,
        ].join("\n"),
      );
      console.log(lines[lines.length - 1]);
      // The floor: Save's one key check, one POST per job sent (a large run may be sent as jobs that run side by side),
      // and at least one GET per job and per 1,000-row page of results.
      const floor = 1 + stats.bulk_submit + Math.max(stats.bulk_submit, Math.ceil(c.rows / 1000));
      summary(
        `Sheets: HTTP requests to check ${c.rows.toLocaleString("en-GB")} rows (${c.plan}, with Save's key check)`,
        stats.total,
        "",
        floor,
        `floor: ${floor} (key check, 1 POST per job sent, 1 GET per job and per 1,000 results)`,
        0,
      );
      // Writes per poll while results come in (the last poll writes the last results).
      const during = perPoll.slice(0, -1);
      summary(
        `Sheets: most writes in one poll while results arrive, ${c.rows.toLocaleString("en-GB")} rows (${c.plan})`,
        Math.max(0, ...during.map((x) => x.writes)),
        "",
        1,
        "floor: 1",
        0,
      );
    }
  } finally {
    await sandbox.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
