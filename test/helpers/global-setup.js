/**
 * Once per jest run, before any suite: the Apps Script harness's sandbox host process
 * (test/gsheets/harness/sandbox-process.ts) is bundled into one JavaScript file, which each jest worker then starts
 * with plain Node (test/gsheets/harness/sandbox-host.js). Started through tsx instead, a sandbox process took twice the
 * CPU to start (1.7 s against 0.85 s). test/gsheets/harness/sandbox-launch.js starts it with a code cache, and maps stack
 * traces through the source map written beside it. The tests that run the sandbox in their own process
 * (test/helpers/sandbox.ts) load a second bundle, of test/helpers/sandbox-inprocess.ts, through Node's module cache, once
 * per jest worker. Both are made afresh for every run, so they are always the sources as they are; global-teardown.js
 * removes them.
 */
const fs = require("fs");
const os = require("os");
const path = require("path");
const esbuild = require("esbuild");

module.exports = async function globalSetup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "compliance-tests-"));
  await esbuild.build({
    entryPoints: {
      "sandbox-process": path.join(__dirname, "../gsheets/harness/sandbox-process.ts"),
      "sandbox-inprocess": path.join(__dirname, "sandbox-inprocess.ts"),
    },
    outdir: dir,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    sourcemap: true,
    logLevel: "warning",
  });
  // Read by test/gsheets/harness/sandbox.ts and test/helpers/sandbox.ts in every worker (workers inherit the
  // environment set here).
  process.env.COMPLIANCE_TEST_SANDBOX_BUNDLE = path.join(dir, "sandbox-process.js");
  process.env.COMPLIANCE_TEST_SANDBOX_INPROCESS = path.join(dir, "sandbox-inprocess.js");
  process.env.COMPLIANCE_TEST_TMP = dir;
};
