/**
 * The Microsoft 365 unified app manifest the build writes beside manifest.xml: valid against Microsoft's own JSON
 * schema (from the @microsoft/app-manifest package, checked offline with ajv), and the same add-in as the XML: id,
 * version, URLs, requirement sets, the shared runtime, the functions of functions.json, and icons of the sizes named.
 */
import * as fs from "fs";
import * as path from "path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { ensureExcelBuild } from "./helpers/build";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the build's own module, plain CommonJS
const { MANIFEST_VERSION } = require("../../excel/unified-manifest");

const DIST = ensureExcelBuild();
const SCHEMAS = path.dirname(require.resolve("@microsoft/app-manifest/package.json"));
const schemaFile = path.join(SCHEMAS, `build/json-schemas/teams/v${MANIFEST_VERSION}/MicrosoftTeams.schema.json`);
const json = JSON.parse(fs.readFileSync(path.join(DIST, "manifest.json"), "utf8"));
const xml = fs.readFileSync(path.join(DIST, "manifest.xml"), "utf8");
const functions = JSON.parse(fs.readFileSync(path.join(DIST, "functions.json"), "utf8"));
const png = (file: string) => {
  const b = fs.readFileSync(path.join(DIST, file));
  return { signature: b.subarray(1, 4).toString("latin1"), width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
};

test("manifest.json is valid against Microsoft's unified manifest schema, offline", () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaFile, "utf8")));
  expect(validate(json) ? [] : validate.errors).toEqual([]);
  expect(json.manifestVersion).toBe(MANIFEST_VERSION);
  expect(json.$schema).toContain(`/v${MANIFEST_VERSION}/MicrosoftTeams.schema.json`);
  // The validator is not lenient: a manifest without its add-in part's required fields fails.
  const broken = JSON.parse(JSON.stringify(json));
  delete broken.extensions[0].runtimes[0].code.page;
  expect(validate(broken)).toBe(false);
});

test("it is the same add-in as manifest.xml: id, version, names, URLs, requirement sets and runtime", () => {
  const tag = (re: RegExp) => re.exec(xml)![1];
  expect(json.id).toBe(tag(/<Id>([^<]+)<\/Id>/));
  expect(`${json.version}.0`).toBe(tag(/<Version>([^<]+)<\/Version>/));
  expect(json.name.full).toBe(tag(/<DisplayName DefaultValue="([^"]*)"/));
  const sets = [...xml.matchAll(/<Set Name="([^"]+)" MinVersion="([^"]+)"/g)].map((m) => ({
    name: m[1],
    minVersion: m[2],
  }));
  expect(sets.map((s) => s.name)).toEqual(expect.arrayContaining(["ExcelApi", "SharedRuntime"]));
  expect(json.extensions[0].requirements).toEqual({ scopes: ["workbook"], capabilities: sets });
  const runtime = json.extensions[0].runtimes[0];
  expect(runtime.lifetime).toBe("long");
  expect(runtime.code.page).toBe(tag(/<bt:Url id="Taskpane\.Url" DefaultValue="([^"]+)"/));
  // Every URL in the JSON is a page the XML names (a function's help is a section of its help page), on its one domain.
  const xmlUrls = new Set([...xml.matchAll(/DefaultValue="(https:[^"]+)"/g)].map((m) => m[1]));
  const jsonUrls = [...JSON.stringify(json).matchAll(/"(https:\/\/[^"]+)"/g)]
    .map((m) => m[1])
    .filter((u) => !u.startsWith("https://developer.microsoft.com/json-schemas/"));
  expect(jsonUrls.length).toBeGreaterThan(5);
  expect(jsonUrls.filter((u) => !xmlUrls.has(u.split("#")[0]))).toEqual([]);
  expect(json.validDomains).toEqual([new URL(tag(/<AppDomain>([^<]+)<\/AppDomain>/)).host]);
});

test("its functions are functions.json's, under the XML's namespace", () => {
  const cf = json.extensions[0].runtimes[0].customFunctions;
  expect(cf.functions).toEqual(functions.functions);
  expect(cf.functions.length).toBeGreaterThanOrEqual(5);
  expect(cf.namespace.id).toBe(/<bt:String id="Functions\.Namespace" DefaultValue="([^"]+)"/.exec(xml)![1]);
});

test("its icons are in the package at the sizes the schema asks (colour 192, outline 32), the ribbon's at 16, 32, 80", () => {
  expect(png(json.icons.color)).toEqual({ signature: "PNG", width: 192, height: 192 });
  expect(png(json.icons.outline)).toEqual({ signature: "PNG", width: 32, height: 32 });
  const group = json.extensions[0].ribbons[0].tabs[0].groups[0];
  expect(group.icons.map((i: { size: number }) => i.size)).toEqual([16, 32, 80]);
  for (const i of group.icons) expect(png(`assets/${path.basename(new URL(i.url).pathname)}`).width).toBe(i.size);
});
