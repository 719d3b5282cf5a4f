/**
 * One setting gives a Sheets deployment its service address: a build with SERVICE_BASE_URL writes it as the add-on's
 * default base URL (in the built Code.js, run in the Apps Script stand-in) and as appsscript.json's urlFetchWhitelist,
 * and a release build refuses the placeholder and other reserved example addresses. The build is the real configuration,
 * into a directory of its own, with SWC in place of ts-loader (test/helpers/swc-loader.js): the address is the build's
 * doing, not the transpiler's, and SWC takes about half the CPU.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import webpack from "webpack";
import { createGasEnvironment } from "../harness/gas";

const ROOT = path.resolve(__dirname, "../../..");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the build's own configuration, plain CommonJS
const gsheetsConfig = require("../../../gsheets/webpack.gsheets.js");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a webpack loader module, CommonJS as webpack loads it
const { withSwcLoader } = require("../../helpers/swc-loader.js");
const SERVICE = "https://compliance.acme-lettings.co.uk/api/v1";
// Read as the build reads it: settings.ts itself needs the Apps Script types, which this tsconfig leaves out.
const PLACEHOLDER_BASE_URL = /PLACEHOLDER_BASE_URL = "([^"]+)"/.exec(
  fs.readFileSync(path.join(ROOT, "gsheets/server/settings.ts"), "utf8"),
)![1];

function build(env: Record<string, unknown>, out: string): Promise<void> {
  const config = withSwcLoader(gsheetsConfig({ typecheck: "false", ...env }, { mode: "production" }));
  config.output = { ...config.output, path: out };
  return new Promise((resolve, reject) =>
    webpack(config, (err, stats) => {
      if (err || stats?.hasErrors()) reject(err ?? new Error(stats!.toString("errors-only")));
      else resolve();
    }),
  );
}

let out: string;
beforeAll(async () => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), "gsheets-service-"));
  await build({ serviceUrl: SERVICE, release: true }, out);
}, 300_000);
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

test("SERVICE_BASE_URL is the built add-on's default base URL and the whole of its urlFetchWhitelist", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(out, "appsscript.json"), "utf8"));
  expect(manifest.urlFetchWhitelist).toEqual([`${SERVICE}/`]);
  // The rest of the manifest is the source's.
  const source = JSON.parse(fs.readFileSync(path.join(ROOT, "gsheets/appsscript.json"), "utf8"));
  expect({ ...manifest, urlFetchWhitelist: null }).toEqual({ ...source, urlFetchWhitelist: null });
  const code = fs.readFileSync(path.join(out, "Code.js"), "utf8");
  expect(code).not.toContain("property-compliance.example");

  // The built Code.js in the stand-in: Settings shows the address as the default, accepts it and refuses others.
  const env = createGasEnvironment({ codePath: path.join(out, "Code.js") });
  expect(env.run("getSidebarState").settings).toMatchObject({ baseUrl: SERVICE, defaultBaseUrl: SERVICE });
  const other = env.run("saveSettings", { baseUrl: PLACEHOLDER_BASE_URL });
  expect(other.ok).toBe(false);
  expect(other.message).toContain(`This add-on may only call ${SERVICE}/, so it cannot use ${PLACEHOLDER_BASE_URL}`);
});

test.each([
  ["no address at all", {}],
  ["the placeholder", { serviceUrl: PLACEHOLDER_BASE_URL }],
  ["another reserved example address", { serviceUrl: "https://api.example.com/v1" }],
])("a release build with %s is refused before it builds, saying what to set", (_name, env) => {
  const saved = process.env.SERVICE_BASE_URL;
  delete process.env.SERVICE_BASE_URL;
  try {
    expect(() => gsheetsConfig({ release: true, ...env }, { mode: "production" })).toThrow(
      /A release build needs the real service's address, not .*: set SERVICE_BASE_URL=https:\/\/<your service>\/v1/,
    );
  } finally {
    if (saved !== undefined) process.env.SERVICE_BASE_URL = saved;
  }
});

test.each([
  ["http", "http://api.acme.co.uk/v1"],
  ["this machine", "https://localhost:3001/v1"],
  ["no path", "https://api.acme.co.uk"],
])("a service address on %s is refused: Apps Script fetches from Google's servers", (_name, serviceUrl) => {
  expect(() => gsheetsConfig({ serviceUrl }, { mode: "production" })).toThrow(
    /Service URL must be https:\/\/host\/path/,
  );
});

test("docs/deploying.md gives the one setting, for POSIX shells and PowerShell, and the script that makes a release build", () => {
  const doc = fs.readFileSync(path.join(ROOT, "docs/deploying.md"), "utf8");
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  expect(pkg.scripts["release:gsheets"]).toMatch(/--env target=gsheets --env release && npm run clasp -- push/);
  expect(doc).toMatch(/^SERVICE_BASE_URL=https:\/\/\S+ npm run release:gsheets /m);
  expect(doc).toMatch(/^\$env:SERVICE_BASE_URL="https:\/\/\S+"; npm run release:gsheets /m);
  expect(doc).toContain(`the placeholder \`${PLACEHOLDER_BASE_URL}\``);
});
