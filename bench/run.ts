/** `npm run bench`: every benchmark in bench/, each in its own process so one's warm-up does not skew another. */
import { spawnSync } from "child_process";
import { cpus } from "node:os";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "fs";
import { tmpdir } from "os";
import path from "path";

const here = __dirname;
const files = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && f !== "summary.ts")
  .sort((a, b) => (a === "core.ts" ? -1 : b === "core.ts" ? 1 : a.localeCompare(b)));
let failed = 0;
console.log(
  `node ${process.version}, ${cpus().length} cores; figures vary with machine load: compare ratios within one run`,
);
console.log(
  `${files.length} benchmarks (${files.join(", ")}): about 4 to 8 minutes on a 2-core machine, depending on its load. Each says when it starts and how long it took; one table of measure, this project, floor or peer and ratio ends the run.`,
);
const benchStart = Date.now();
const summaryFile = path.join(mkdtempSync(path.join(tmpdir(), "bench-")), "summary.jsonl");
for (const [i, f] of files.entries()) {
  const started = Date.now();
  console.log(`\n== ${f} (${i + 1} of ${files.length}, ${Math.round((started - benchStart) / 1000)} s in) ==`);
  const tsx = path.join(here, "..", "node_modules", ".bin", "tsx");
  const r = spawnSync(
    existsSync(tsx) ? tsx : "npx",
    existsSync(tsx) ? [path.join(here, f)] : ["tsx", path.join(here, f)],
    { stdio: "inherit", env: { ...process.env, BENCH_SUMMARY: summaryFile } },
  );
  if (r.status !== 0) failed++;
  console.log(`-- ${f}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
console.log(`\nAll benchmarks: ${Math.round((Date.now() - benchStart) / 1000)} s.`);
// The one table: each measure, this project's figure, the floor (the least possible) or a peer or limit, and the ratio.
const rows = existsSync(summaryFile)
  ? readFileSync(summaryFile, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
console.log(`\n| measure | this project | floor or peer | ratio |\n|---|---|---|---|`);
for (const r of rows) console.log(`| ${r.measure} | ${r.ours} | ${r.reference} | ${r.ratio} |`);
process.exitCode = failed ? 1 : 0;
