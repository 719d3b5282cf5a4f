/**
 * Bundle sizes, before and after the lean-bundle work, measured in one run: what the Excel page loads (the scripts
 * taskpane.html names, and the lazy chunks beside them), Code.js and Sidebar.html, and the median time to evaluate
 * Code.js in a fresh vm context (20 runs; Apps Script evaluates the whole project on every google.script.run call).
 *
 * "Before" is the last commit before that work (BASELINE), built from git into node_modules/.cache with this checkout's
 * node_modules, once per commit. "After" is this checkout, built into a temporary directory.
 * Run: npx tsx bench/bundles.ts
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { performance } from "perf_hooks";
import * as vm from "vm";
import { summary } from "./summary";

const ROOT = path.resolve(__dirname, "..");
/** e55fd89: three Excel entries each with core and full zod, Code.js unminified. */
export const BASELINE = "e55fd89";
/** The most of its own JavaScript the Excel page may load at start (test/excel/taskpane/page-size.test.ts holds it too). */
export const EXCEL_START_LIMIT_KB = 150;
const RUNS = 20;

interface Build {
  excel: string;
  gsheets: string;
}

function webpack(cwd: string, target: string, out: string) {
  const script = `
    const webpack = require(${JSON.stringify(path.join(ROOT, "node_modules/webpack"))});
    const cfg = require(require("path").join(process.cwd(), "webpack.config.js"))({ target: ${JSON.stringify(target)} }, { mode: "production" })[0];
    cfg.output.path = ${JSON.stringify(out)};
    // Closed when done, as webpack's Node API asks: the minimizers' worker pools otherwise keep the process alive.
    const compiler = webpack(cfg, (err, stats) => {
      if (err || stats.hasErrors()) { console.error(err || stats.toString("errors-only")); process.exit(1); }
      compiler.close(() => {});
    });`;
  // Run from a file, not `node -e`: the minimizer's worker processes inherit the parent's `-e` and would run the build
  // again, each in turn.
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-build-")), "build.js");
  fs.writeFileSync(file, script);
  try {
    execFileSync(process.execPath, [file], { cwd, stdio: ["ignore", "ignore", "inherit"] });
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

function buildAt(cwd: string, outDir: string): Build {
  const b = { excel: path.join(outDir, "excel"), gsheets: path.join(outDir, "gsheets") };
  webpack(cwd, "excel", b.excel);
  webpack(cwd, "gsheets", b.gsheets);
  return b;
}

function baselineBuild(): Build {
  const cache = path.join(ROOT, "node_modules/.cache/compliance-bench", BASELINE);
  if (fs.existsSync(path.join(cache, "gsheets/Code.js")))
    return { excel: path.join(cache, "excel"), gsheets: path.join(cache, "gsheets") };
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), "bench-baseline-"));
  execFileSync("git", ["worktree", "add", "--detach", tree, BASELINE], { cwd: ROOT, stdio: "ignore" });
  try {
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(tree, "node_modules"), "dir");
    return buildAt(tree, cache);
  } finally {
    execFileSync("git", ["worktree", "remove", "--force", tree], { cwd: ROOT, stdio: "ignore" });
  }
}

/** The JavaScript the Excel page loads at start (the local scripts taskpane.html names) and every other .js beside it. */
export function excelPage(dir: string) {
  const html = fs.readFileSync(path.join(dir, "taskpane.html"), "utf8");
  // The page's own files; office.js (the CDN's, or its office-js/ fallback from the package) is Microsoft's, not ours.
  const named = [...html.matchAll(/<script[^>]*\bsrc="?([^"\s>]+)"?/g)]
    .map((m) => m[1])
    .filter((s) => !/^https?:/.test(s) && !s.startsWith("office-js/"));
  const size = (f: string) => fs.statSync(path.join(dir, f)).size;
  const all = fs.readdirSync(dir).filter((f) => f.endsWith(".js"));
  const lazy = all.filter((f) => !named.includes(f));
  return {
    files: named,
    start: named.reduce((n, f) => n + size(f), 0),
    lazy: lazy.map((f) => ({ file: f, bytes: size(f) })),
    all: all.reduce((n, f) => n + size(f), 0),
  };
}

/** Median ms to evaluate Code.js in a new vm context, RUNS times (each run a fresh context, as Apps Script's is). */
export function evalMedianMs(code: string, runs = RUNS): number {
  const script = new vm.Script(code, { filename: "Code.js" });
  const times: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    // A fresh Script each time too, so V8's compile cache for this source is not reused across runs.
    const fresh = i === 0 ? script : new vm.Script(code + `\n//# run ${i}`, { filename: "Code.js" });
    const context = vm.createContext({});
    const t0 = performance.now();
    fresh.runInContext(context);
    const ms = performance.now() - t0;
    if (i >= 2) times.push(ms); // the first two warm Node itself up
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Compile + run: what one google.script.run call pays before the function it names starts. */
export function compileAndEvalMedianMs(code: string, runs = RUNS): number {
  const times: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const t0 = performance.now();
    new vm.Script(code + `\n//# run ${i}`, { filename: "Code.js" }).runInContext(vm.createContext({}));
    const ms = performance.now() - t0;
    if (i >= 2) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const ratio = (before: number, after: number) => `${(before / after).toFixed(2)}x smaller`;

async function main() {
  const before = baselineBuild();
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-after-"));
  const after = buildAt(ROOT, outDir);
  try {
    const pb = excelPage(before.excel);
    const pa = excelPage(after.excel);
    const codeB = fs.readFileSync(path.join(before.gsheets, "Code.js"), "utf8");
    const codeA = fs.readFileSync(path.join(after.gsheets, "Code.js"), "utf8");
    // The demo's data, beside Code.js since it left it: an HTML file of the project, read only when the demo is used.
    const demoFile = path.join(after.gsheets, "DemoData.html");
    const demoA = fs.existsSync(demoFile) ? fs.statSync(demoFile).size : 0;
    const sideB = fs.statSync(path.join(before.gsheets, "Sidebar.html")).size;
    const sideA = fs.statSync(path.join(after.gsheets, "Sidebar.html")).size;
    // Interleaved so that machine load hits both alike.
    const evalB: number[] = [];
    const evalA: number[] = [];
    const cB: number[] = [];
    const cA: number[] = [];
    for (let round = 0; round < 3; round++) {
      evalB.push(evalMedianMs(codeB));
      evalA.push(evalMedianMs(codeA));
      cB.push(compileAndEvalMedianMs(codeB));
      cA.push(compileAndEvalMedianMs(codeA));
    }
    const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
    console.log(`bundles: before = commit ${BASELINE}, after = this checkout (both built now, production mode)`);
    console.log(`| bundle | before | after | ratio | target |`);
    console.log(`|---|---|---|---|---|`);
    console.log(
      `| Excel page at start (${pa.files.join(" + ")}) | ${kb(pb.start)} (${pb.files.join(" + ")}) | ${kb(pa.start)} | ${ratio(pb.start, pa.start)} | ≤ ${EXCEL_START_LIMIT_KB} KB ${pa.start <= EXCEL_START_LIMIT_KB * 1024 ? "✓" : "✗"} |`,
    );
    console.log(
      `| Excel, every .js incl. lazy chunks (${pa.lazy.map((l) => `${l.file} ${kb(l.bytes)}`).join(", ") || "none"}) | ${kb(pb.all)} | ${kb(pa.all)} | ${ratio(pb.all, pa.all)} | |`,
    );
    console.log(
      `| Code.js (Apps Script) | ${kb(codeB.length)} | ${kb(codeA.length)} | ${ratio(codeB.length, codeA.length)} | ≤ 120 KB ${codeA.length <= 120 * 1024 ? "✓" : "✗"} |`,
    );
    if (demoA)
      console.log(
        `| DemoData.html (the demo's data; read when the demo is used, never evaluated) | in Code.js | ${kb(demoA)} | | |`,
      );
    console.log(
      `| Sidebar.html | ${kb(sideB)} | ${kb(sideA)} | ${ratio(sideB, sideA)} | ≤ before ${sideA <= sideB ? "✓" : "✗"} |`,
    );
    summary(
      "Excel page at start (KB)",
      pa.start / 1024,
      "KB",
      EXCEL_START_LIMIT_KB,
      `target: ${EXCEL_START_LIMIT_KB} KB`,
    );
    summary("Code.js, Apps Script (KB)", codeA.length / 1024, "KB", 120, "target: 120 KB");
    summary(
      "Code.js against its earlier build (KB)",
      codeA.length / 1024,
      "KB",
      codeB.length / 1024,
      `peer: commit ${BASELINE}, ${kb(codeB.length)}`,
    );
    console.log(
      `| evaluate Code.js in a fresh vm (median of ${RUNS}, middle of 3 rounds) | ${mid(evalB).toFixed(2)} ms | ${mid(evalA).toFixed(2)} ms | ${(mid(evalB) / mid(evalA)).toFixed(2)}x faster | |`,
    );
    console.log(
      `| compile + evaluate Code.js (median of ${RUNS}, middle of 3 rounds) | ${mid(cB).toFixed(2)} ms | ${mid(cA).toFixed(2)} ms | ${(mid(cB) / mid(cA)).toFixed(2)}x faster | |`,
    );
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
