/**
 * `npm run typecheck`: tsgo (TypeScript 7, typescript-native) checks the three projects in turn, the root one and the
 * Sheets server's and sidebar's, each single-threaded (its parallel checkers each re-derive the shared types).
 *
 * Go's collector is off unless GOGC is set: a check holds nearly all it allocates until it ends (about 400 MB at most
 * with the collector, 450 MB without), so collecting frees little, and took about a quarter of the root project's CPU
 * (6.4 s with it, 4.6 s without, means of three pairs). GOMEMLIMIT still makes Go collect should a project ever come
 * near 2 GB. Exits with the first failing check's code.
 */
const path = require("path");
const { spawnSync } = require("child_process");

const ROOT = path.resolve(__dirname, "..");
const TSC = path.join(ROOT, "node_modules/typescript-native/bin/tsc");
const PROJECTS = ["tsconfig.json", "gsheets/tsconfig.json", "gsheets/sidebar/tsconfig.json"];
const env = { GOGC: "off", GOMEMLIMIT: "2GiB", ...process.env };

for (const project of PROJECTS) {
  const { status, signal } = spawnSync(process.execPath, [TSC, "--noEmit", "--singleThreaded", "-p", project], {
    cwd: ROOT,
    env,
    stdio: "inherit",
  });
  if (status !== 0) process.exit(signal ? 1 : (status ?? 1));
}
