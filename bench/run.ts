/** `npm run bench`: every benchmark in bench/, each in its own process so one's warm-up does not skew another. */
import { spawnSync } from "child_process";
import { existsSync, readdirSync } from "fs";
import path from "path";

const here = __dirname;
const files = readdirSync(here).filter((f) => f.endsWith(".ts") && f !== "run.ts").sort((a, b) => (a === "core.ts" ? -1 : b === "core.ts" ? 1 : a.localeCompare(b)));
let failed = 0;
console.log(`node ${process.version}, ${require("os").cpus().length} cores; figures vary with machine load: compare ratios within one run`);
console.log(`${files.length} benchmarks (${files.join(", ")}): about 3 to 4 minutes on a 2-core machine. Each says when it starts and how long it took.`);
const benchStart = Date.now();
for (const [i, f] of files.entries()) {
  const started = Date.now();
  console.log(`\n== ${f} (${i + 1} of ${files.length}, ${Math.round((started - benchStart) / 1000)} s in) ==`);
  const tsx = path.join(here, "..", "node_modules", ".bin", "tsx");
  const r = spawnSync(existsSync(tsx) ? tsx : "npx", existsSync(tsx) ? [path.join(here, f)] : ["tsx", path.join(here, f)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
  console.log(`-- ${f}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
console.log(`\nAll benchmarks: ${Math.round((Date.now() - benchStart) / 1000)} s.`);
process.exitCode = failed ? 1 : 0;
