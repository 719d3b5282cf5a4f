/**
 * The Excel manifest, checked offline: Microsoft's published XSDs (with the two mechanical fixes SOURCE.md lists),
 * the shared-runtime <Runtimes> element separately, every resid resolving, and every URL naming a built file.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { validateXML } from "xmllint-wasm";
import { defaultBaseUrl } from "../../excel/settings";
import { ensureExcelBuild, ROOT } from "./helpers/build";

// Microsoft's published schemas: the project's shared/ copy where it stands beside the repo (CI), else the
// byte-for-byte copy kept in test/excel/schemas so that `npm test` works on any fresh clone.
const SHARED_SCHEMAS = path.resolve(ROOT, "../shared/schemas/office-addin-manifest");
const SCHEMA_DIR = fs.existsSync(SHARED_SCHEMAS) ? SHARED_SCHEMAS : path.resolve(__dirname, "schemas");
const manifest = fs.readFileSync(path.join(ROOT, "manifest.xml"), "utf8");

/** The published set as SOURCE.md says to fix it: http:// XSD namespace, and no lazy quantifier in the Version pattern. */
function fixedSchemas(): { fileName: string; contents: string }[] {
  return fs
    .readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith(".xsd"))
    .map((f) => ({
      fileName: f,
      contents: fs
        .readFileSync(path.join(SCHEMA_DIR, f), "utf8")
        .split('xmlns:xs="https://www.w3.org/2001/XMLSchema"')
        .join('xmlns:xs="http://www.w3.org/2001/XMLSchema"')
        .split('{0,3}?"')
        .join('{0,3}"'),
    }));
}

/** The schemas predate the shared runtime, so <Runtimes> is validated by hand and removed for the XSD pass. */
function withoutRuntimes(xml: string): string {
  return xml.replace(/<Runtimes>[\s\S]*?<\/Runtimes>\s*/, "");
}

/** Each document (file name: text) validated against the schemas, in one run of xmllint: the schemas are read once. */
async function validate(docs: Record<string, string>) {
  const schemas = fixedSchemas();
  const main = schemas.find((s) => s.fileName === "OfficeAppManifestV1_1.xsd")!;
  return validateXML({
    xml: Object.entries(docs).map(([fileName, contents]) => ({ fileName, contents })),
    schema: [main],
    preload: schemas.filter((s) => s !== main),
  });
}
/** The files among `docs` that xmllint found an error in. */
const invalidFiles = (result: Awaited<ReturnType<typeof validate>>) =>
  [...new Set(result.errors.map((e) => e.loc?.fileName))].sort();

/**
 * The Excel webpack configuration, run once for the file in a process of its own, as webpack runs it (loading webpack
 * and its plugins into the test's module registry cost more than the build): a production build with an origin and a
 * service URL, built around one small module (settings.ts, which reads the service URL), since functions.json is
 * generated from functions.ts whatever the entry and the manifests are copied as in any build; the development
 * configuration on another port (DEV_SERVER_PORT=3100) applied to the source manifest and to dist/excel's
 * functions.json; and what the configuration says of a service URL that is not https ("" when it takes it).
 */
interface ConfigurationRun {
  out: string;
  files: Record<string, string>;
  refused: Record<string, string>;
}
let configuration: ConfigurationRun | undefined;
function configurationRun(): ConfigurationRun {
  if (configuration) return configuration;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "excel-prod-"));
  const distFunctions = path.join(ensureExcelBuild(), "functions.json");
  const script = `
    const fs = require("fs");
    const webpack = require("webpack");
    const excelConfig = require("./excel/webpack.excel.js");
    // SWC for ts-loader (test/helpers/swc-loader.js): what is checked is what the configuration writes, not how
    // TypeScript is lowered, and ts-loader's emit was most of this build's CPU.
    const { withSwcLoader } = require("./test/helpers/swc-loader.js");
    const cfg = withSwcLoader(excelConfig({ origin: "https://addin.example.org", serviceUrl: "https://compliance.build-test.example/v1/" }, { mode: "production" }));
    cfg.output.path = ${JSON.stringify(out)};
    cfg.entry = { taskpane: require("path").resolve("excel/settings.ts") };
    cfg.devtool = false;
    // What is checked is what the build writes, not how small: minifying (most of a production build's time) is left out.
    cfg.optimization = { ...cfg.optimization, minimize: false };
    const refused = {};
    for (const serviceUrl of ["http://api.example.com/v1", "http://localhost:3001/v1"]) {
      try {
        excelConfig({ serviceUrl }, { mode: "production" });
        refused[serviceUrl] = "";
      } catch (e) {
        refused[serviceUrl] = e.message;
      }
    }
    process.env.DEV_SERVER_PORT = "3100";
    const dev = excelConfig({}, { mode: "development" });
    const rewriter = dev.plugins.find((p) => p.constructor.name === "RewriteOriginPlugin");
    const CopyWebpackPlugin = require("copy-webpack-plugin");
    const copy = dev.plugins.find((p) => p instanceof CopyWebpackPlugin);
    const manifest = fs.readFileSync("manifest.xml");
    const copied = (to) => copy.patterns.find((x) => x.from === "manifest.xml" && x.to === to).transform(manifest);
    const files = {
      "functions.json": rewriter.rewrite(fs.readFileSync(${JSON.stringify(distFunctions)}, "utf8")),
      "manifest.dev.xml": copied("manifest.dev.xml"),
      "manifest.xml": copied("manifest.xml"),
    };
    webpack(cfg, (err, stats) => {
      if (err || stats.hasErrors()) { console.error(err || stats.toString()); process.exit(1); }
      process.stdout.write(JSON.stringify({ files, refused }));
    });`;
  const said = execFileSync(process.execPath, ["-e", script], { cwd: ROOT, stdio: "pipe", encoding: "utf8" });
  const run: ConfigurationRun = { out, ...JSON.parse(said) };
  configuration = run;
  return run;
}
afterAll(() => {
  if (configuration) fs.rmSync(configuration.out, { recursive: true, force: true });
});

describe("manifest.xml", () => {
  test("is valid against Microsoft's Office Add-in manifest schemas (Runtimes checked separately)", async () => {
    const result = await validate({ "manifest.xml": withoutRuntimes(manifest) });
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test("the schema check does catch a misspelled element and a bad attribute value", async () => {
    const broken = withoutRuntimes(manifest)
      .replace("<Permissions>", "<Permission>")
      .replace("</Permissions>", "</Permission>");
    const badValue = withoutRuntimes(manifest).replace(
      "<Permissions>ReadWriteDocument<",
      "<Permissions>ReadWriteEverything<",
    );
    // Both in one run: each must be refused on its own account.
    const result = await validate({ "broken.xml": broken, "bad-value.xml": badValue });
    expect(result.valid).toBe(false);
    expect(invalidFiles(result)).toEqual(["bad-value.xml", "broken.xml"]);
  });

  test("declares a long-lived shared runtime on the task pane page, directly under the Workbook host", () => {
    const host =
      /<Host xsi:type="Workbook">\s*<Runtimes>\s*<Runtime resid="([^"]+)" lifetime="long"\s*\/>\s*<\/Runtimes>/.exec(
        manifest,
      );
    expect(host).not.toBeNull();
    expect(host![1]).toBe("Taskpane.Url");
    expect(manifest).toMatch(/<Set Name="SharedRuntime" MinVersion="1.1"\s*\/>/);
    // Functions, their page and the ribbon's FunctionFile all use that one runtime.
    expect(manifest).toMatch(/<Page>\s*<SourceLocation resid="Taskpane.Url"\s*\/>\s*<\/Page>/);
    expect(manifest).toMatch(/<FunctionFile resid="Taskpane.Url"\s*\/>/);
  });

  test("custom functions namespace is COMPLIANCE; a ribbon button opens the task pane; GetStarted is set", () => {
    expect(manifest).toMatch(/<bt:String id="Functions.Namespace" DefaultValue="COMPLIANCE"\s*\/>/);
    expect(manifest).toMatch(/<Action xsi:type="ShowTaskpane">[\s\S]*?<SourceLocation resid="Taskpane.Url"\s*\/>/);
    expect(manifest).toMatch(
      /<GetStarted>[\s\S]*<Title resid="GetStarted.Title"[\s\S]*<Description resid="GetStarted.Description"/,
    );
  });

  test("every resid resolves to a resource of the right kind", () => {
    const resources = /<Resources>([\s\S]*)<\/Resources>/.exec(manifest)![1];
    const ids = (tag: string) =>
      new Set([...resources.matchAll(new RegExp(`<bt:${tag} id="([^"]+)"`, "g"))].map((m) => m[1]));
    const images = ids("Image");
    const urls = ids("Url");
    const strings = ids("String");
    const body = manifest.replace(/<Resources>[\s\S]*<\/Resources>/, "");
    const uses = [...body.matchAll(/<(\w+:)?(\w+)[^>]*\sresid="([^"]+)"/g)].map((m) => ({ tag: m[2], resid: m[3] }));
    expect(uses.length).toBeGreaterThan(15);
    const missing = uses.filter(({ tag, resid }) => {
      if (tag === "Image") return !images.has(resid);
      if (["SourceLocation", "Runtime", "FunctionFile", "LearnMoreUrl"].includes(tag)) return !urls.has(resid);
      return !strings.has(resid);
    });
    expect(missing).toEqual([]);
  });

  test("every URL names a file the build produces", () => {
    const dist = ensureExcelBuild();
    const urls = [...new Set([...manifest.matchAll(/"(https:\/\/localhost:3000\/[^"#?]*)/g)].map((m) => m[1]))];
    expect(urls.length).toBeGreaterThan(5);
    const missing = urls.filter((u) => !fs.existsSync(path.join(dist, u.slice("https://localhost:3000/".length))));
    expect(missing).toEqual([]);
    // functions.json is generated from the JSDoc and names every function the issue asks for.
    const fj = JSON.parse(fs.readFileSync(path.join(dist, "functions.json"), "utf8"));
    expect(fj.functions.map((f: { id: string }) => f.id).sort()).toEqual(
      [
        "ADDRESSES",
        "CHECK",
        "DUE",
        "EPC",
        "EXPIRY",
        "HEADERS",
        "NEXTACTION",
        "PROPERTY",
        "RISK",
        "SCORE",
        "STATUS",
        "UPRN",
      ].sort(),
    );
    for (const f of fj.functions) {
      expect(f.description.length).toBeGreaterThan(20);
      for (const p of f.parameters) expect(p.description.length).toBeGreaterThan(10);
    }
    expect(fj.functions.find((f: { id: string }) => f.id === "UPRN").parameters[1].optional).toBe(true);
  });

  test("a production build with an origin rewrites every localhost URL in the manifest and functions.json; a service URL becomes the default base URL", () => {
    const { out } = configurationRun();
    const built = fs.readFileSync(path.join(out, "manifest.xml"), "utf8");
    expect(built).not.toContain("localhost");
    expect(built).toContain('<SourceLocation DefaultValue="https://addin.example.org/taskpane.html" />');
    const functionsJson = fs.readFileSync(path.join(out, "functions.json"), "utf8");
    expect(functionsJson).not.toContain("localhost");
    const helpUrls = (JSON.parse(functionsJson).functions as { helpUrl: string }[]).map((f) => f.helpUrl);
    expect(helpUrls).toHaveLength(12);
    expect(helpUrls.filter((u) => !u.startsWith("https://addin.example.org/help.html#"))).toEqual([]);
    // The add-in on a static host has no /v1 of its own: the built default is the service URL it was given.
    const has = (dir: string, bundle: string) =>
      fs.readFileSync(path.join(dir, bundle), "utf8").includes("https://compliance.build-test.example/v1");
    expect(has(out, "taskpane.js")).toBe(true);
    // Without one (dist/excel, as npm run build:excel makes it) the bundles keep the same-origin default.
    const dist = ensureExcelBuild();
    expect(has(dist, "taskpane.js")).toBe(false);
  });

  test("the dev server on another port (DEV_SERVER_PORT=3100): every URL in both manifests and every function's help link follows it", () => {
    // The development configuration's own rewriting, applied to the source manifest and to the functions.json the
    // build generates (dist/excel's, written for the default port 3000). The port is read as a build reads it.
    const distFunctions = fs.readFileSync(path.join(ensureExcelBuild(), "functions.json"), "utf8");
    expect(distFunctions).toContain("https://localhost:3000/");
    const { files } = configurationRun();
    const helpUrls = (JSON.parse(files["functions.json"]).functions as { helpUrl: string }[]).map((f) => f.helpUrl);
    expect(helpUrls).toHaveLength(12);
    expect(helpUrls.filter((u) => !u.startsWith("https://localhost:3100/help.html#"))).toEqual([]);
    for (const [file, text] of Object.entries(files)) {
      expect({ file, at3000: text.includes("localhost:3000") }).toEqual({ file, at3000: false });
      expect(text).toContain("https://localhost:3100/");
    }
    // Both manifests are the source's, with the version and, for production, its own Id and name.
    expect(files["manifest.xml"]).not.toContain("(dev)");
    expect(files["manifest.dev.xml"]).toContain("(dev)");
  });

  test("the built-in service URL: used as the default base URL when set, same origin when not; a non-https one fails the build", () => {
    expect(defaultBaseUrl("https://api.example.com/v1")).toBe("https://api.example.com/v1");
    const g = globalThis as { location?: unknown };
    const saved = g.location;
    g.location = { origin: "https://addin.example.org" };
    try {
      expect(defaultBaseUrl("")).toBe("https://addin.example.org/v1");
    } finally {
      g.location = saved;
    }
    const { refused } = configurationRun();
    expect(refused["http://api.example.com/v1"]).toMatch(/https/);
    expect(refused["http://localhost:3001/v1"]).toBe("");
  });
});

test("the add-in's version is package.json's, in the source manifest and in the built one", () => {
  const version = `${JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version}.0`;
  expect(manifest).toContain(`<Version>${version}</Version>`);
  const built = fs.readFileSync(path.join(ensureExcelBuild(), "manifest.xml"), "utf8");
  expect(built).toContain(`<Version>${version}</Version>`);
  // Support and "learn more" both lead to the help page.
  expect(built).toMatch(/<SupportUrl DefaultValue="[^"]+\/help\.html"/);
  expect(built).toMatch(/id="GetStarted\.LearnMoreUrl" DefaultValue="[^"]+\/help\.html"/);
});

test("development and production manifests come from the one source: each valid, each its own Id and name, one version", async () => {
  const dist = ensureExcelBuild();
  const prod = fs.readFileSync(path.join(dist, "manifest.xml"), "utf8");
  const dev = fs.readFileSync(path.join(dist, "manifest.dev.xml"), "utf8");
  const both = await validate({ "manifest.xml": withoutRuntimes(prod), "manifest.dev.xml": withoutRuntimes(dev) });
  expect(both.errors).toEqual([]);
  const field = (xml: string, re: RegExp) => re.exec(xml)![1];
  const id = /<Id>([^<]+)<\/Id>/;
  const name = /<DisplayName DefaultValue="([^"]+)"/;
  const version = /<Version>([^<]+)<\/Version>/;
  expect(field(dev, id)).toBe(field(manifest, id));
  expect(field(prod, id)).not.toBe(field(dev, id));
  expect([field(dev, name), field(prod, name)]).toEqual([
    "Property Compliance Check (dev)",
    "Property Compliance Check",
  ]);
  expect(prod).not.toContain("(dev)");
  expect(field(prod, version)).toBe(field(dev, version));
  // Apart from those, the two say the same (the production build here keeps the default origin).
  const neutral = (xml: string) => xml.replace(id, "").replace(/ \(dev\)/g, "");
  expect(neutral(prod)).toBe(neutral(dev));
});
