/** `npm run bench`: every benchmark in bench/, each in its own process so one's warm-up does not skew another. */
import { spawnSync } from "child_process";
import { existsSync, readdirSync } from "fs";
import path from "path";

const here = __dirname;
const files = readdirSync(here).filter((f) => f.endsWith(".ts") && f !== "run.ts").sort((a, b) => (a === "core.ts" ? -1 : b === "core.ts" ? 1 : a.localeCompare(b)));
let failed = 0;
console.log(`node ${process.version}, ${require("os").cpus().length} cores; figures vary with machine load: compare ratios within one run`);
for (const f of files) {
  console.log(`\n== ${f} ==`);
  const tsx = path.join(here, "..", "node_modules", ".bin", "tsx");
  const r = spawnSync(existsSync(tsx) ? tsx : "npx", existsSync(tsx) ? [path.join(here, f)] : ["tsx", path.join(here, f)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
