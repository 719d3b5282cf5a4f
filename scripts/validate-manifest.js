/**
 * `npm run validate`: the Excel manifest checked offline against Microsoft's published XML Schemas (and its
 * resources, runtimes and URLs: test/excel/manifest.test.ts) and the unified manifest.json against Microsoft's JSON
 * schema (test/excel/unified-manifest.test.ts), then by Microsoft's own validator
 * (`office-addin-manifest validate`), which posts the manifest to a Microsoft service. Offline, that second step is
 * reported as skipped, not failed: the offline check has passed by then.
 */
const { spawnSync } = require("child_process");
const path = require("path");

const ROOT = path.resolve(__dirname, "..");
const run = (args) => spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });

console.log(
  "1/2 Offline schema checks: manifest.xml against Microsoft's XSDs (resources, runtimes, URLs), and the unified manifest.json against Microsoft's JSON schema",
);
const offline = spawnSync(
  process.execPath,
  [require.resolve("jest/bin/jest"), "test/excel/manifest.test.ts", "test/excel/unified-manifest.test.ts"],
  { cwd: ROOT, stdio: "inherit" },
);
if (offline.status !== 0) process.exit(offline.status ?? 1);

console.log("2/2 Microsoft's validator: office-addin-manifest validate manifest.xml");
const online = run([require.resolve("office-addin-manifest/cli.js"), "validate", "manifest.xml"]);
const out = `${online.stdout}${online.stderr}`;
if (/Unable to contact the manifest validation service/.test(out)) {
  console.log(
    "Skipped: Microsoft's validation service cannot be reached from here (it needs the internet). The offline check above passed.",
  );
  process.exit(0);
}
process.stdout.write(out);
process.exit(online.status ?? 1);
