/**
 * Facts the docs state about the code, computed from the code and compared with the words on the page: the results
 * block's column count, order and the columns that end it, the Action list's columns, the sidebar's size, the demo's
 * properties and built files, the oldest Node, and every file and section a page names. A change to the code that makes a page untrue fails here.
 */
import * as fs from "fs";
import * as path from "path";
import semver from "semver";
import { DIGEST_MAX_BYTES, LEGACY_HEADER_COUNTS, OUTPUT_COLUMNS, formatCount } from "../../core";
import {
  CHANGE_LOG_ARCHIVE_SHEET,
  CHANGE_LOG_HEADERS,
  CHANGE_LOG_MAX_ROWS,
  CHANGE_LOG_SHEET,
  RUN_LOG_HEADERS,
  RUN_LOG_SHEET,
} from "../../core/reports/changes";
import { actionListHeaders } from "../../core/reports/action-list-columns";
import { DEMO_DATA } from "../../core/demo/demo-data";
import { ensureExcelBuild } from "../excel/helpers/build";
import { DIST as GSHEETS_DIST } from "../gsheets/harness/gas";

const ROOT = path.resolve(__dirname, "../..");
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), "utf8");
const DOCS = [
  "README.md",
  ...fs
    .readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  "sandbox/README.md",
];
const HEADERS = OUTPUT_COLUMNS.map((c) => c.header);
const AFTER_MESSAGE = HEADERS.slice(OUTPUT_COLUMNS.findIndex((c) => c.key === "message") + 1);
const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

test("excel.md and gsheets.md count the results block as the code does, today's and the earlier versions'", () => {
  const said: string[] = [];
  for (const rel of ["docs/excel.md", "docs/gsheets.md", "docs/reference.md"]) {
    const text = read(rel);
    for (const m of text.matchAll(/\b(?:all|those) (\d+) (?:headers|columns)\b/g)) said.push(`${rel}: ${m[1]}`);
    for (const m of text.matchAll(/earlier version \((\d+) or (\d+)\s+columns\)/g))
      expect({ rel, legacy: [+m[1], +m[2]] }).toEqual({ rel, legacy: [...LEGACY_HEADER_COUNTS].sort((a, b) => a - b) });
  }
  expect(said.length).toBeGreaterThanOrEqual(2);
  for (const s of said) expect(s).toBe(s.replace(/\d+$/, String(HEADERS.length)));
});

test("excel.md and gsheets.md name the columns that follow Message and end the block, in the block's order", () => {
  for (const rel of ["docs/excel.md", "docs/gsheets.md"]) {
    const text = read(rel);
    const m = /^- \*\*([A-Z][a-z]+) columns\*\* follow Message and end the results block:([\s\S]*?)(?=\n- )/m.exec(
      text,
    );
    expect({ rel, found: !!m }).toEqual({ rel, found: true });
    const named = [...m![2].matchAll(/\*\*([^*]+)\*\*/g)].map((x) => x[1]);
    expect({ rel, count: m![1].toLowerCase(), named }).toEqual({
      rel,
      count: NUMBER_WORDS[AFTER_MESSAGE.length],
      named: AFTER_MESSAGE,
    });
  }
});

test("reference.md's table of output columns is the block's columns, in order", () => {
  const text = read("docs/reference.md");
  const table = text.slice(text.indexOf("| column | kind |"));
  const rows = [...table.slice(0, table.indexOf("\n\n")).matchAll(/^\| ([^|]+?) \|/gm)].map((m) => m[1]).slice(1);
  expect(rows).toEqual(HEADERS);
});

test("reference.md's Action list columns are the list's headers, in order", () => {
  const text = read("docs/reference.md");
  const m = /\*\*`Action list`\*\*:[\s\S]*?Columns: ([\s\S]*?)\. /.exec(text);
  const listed = m![1]
    .replace(/\s+/g, " ")
    .replace(/\s*\([^)]*\)/g, "")
    .split(", ")
    .map((c) => (/Owner or Landlord column/.test(c) ? "Owner" : c));
  expect(listed).toEqual(actionListHeaders("Owner", true));
});

test("reference.md's Change log and Run log: their sheet names, columns in order, and the rows kept before the archive", () => {
  const text = read("docs/reference.md").replace(/\s+/g, " ");
  const cols = (sheet: string) => new RegExp(`\\*\\*${sheet}\\*\\* \\(([^:)]+)[:)]`).exec(text)![1].split(", ");
  expect(cols(CHANGE_LOG_SHEET)).toEqual([...CHANGE_LOG_HEADERS]);
  expect(cols(RUN_LOG_SHEET)).toEqual([...RUN_LOG_HEADERS]);
  expect(text).toContain(
    `past ${formatCount(CHANGE_LOG_MAX_ROWS)} rows its oldest rows move to **${CHANGE_LOG_ARCHIVE_SHEET}**`,
  );
});

test("gsheets.md gives the built sidebar's size to the nearest KB", () => {
  const said = /it is\s+about (\d+) KB minified/.exec(read("docs/gsheets.md"));
  const bytes = fs.statSync(path.join(GSHEETS_DIST, "Sidebar.html")).size;
  expect(Math.abs(Number(said![1]) - bytes / 1000)).toBeLessThanOrEqual(1);
});

test("excel.md and gsheets.md give the demo's number of properties and the sizes of its built files to the nearest KB", () => {
  const count = (JSON.parse(DEMO_DATA) as unknown[]).length;
  const excel = read("docs/excel.md");
  const gsheets = read("docs/gsheets.md");
  expect(Number(/from about (\d+) properties generated from the sandbox's register/.exec(excel)![1])).toBe(count);
  expect(Number(/The demo's (\d+) properties/.exec(gsheets)![1])).toBe(count);
  const kb = (dir: string, file: string) => fs.statSync(path.join(dir, file)).size / 1000;
  const demoJs = Number(/\(`demo\.js`, (\d+) KB\)/.exec(excel)![1]);
  expect(Math.abs(demoJs - kb(ensureExcelBuild(), "demo.js"))).toBeLessThanOrEqual(1);
  const demoHtml = Number(/`DemoData\.html` \((\d+) KB\)/.exec(gsheets)![1]);
  expect(Math.abs(demoHtml - kb(GSHEETS_DIST, "DemoData.html"))).toBeLessThanOrEqual(1);
});

test("reminders.md gives the most a digest email holds, in bytes, as core keeps it", () => {
  const m = /One email holds\s+([\d,]+) bytes of text and HTML together \(`DIGEST_MAX_BYTES`/.exec(
    read("docs/reminders.md"),
  );
  expect(m?.[1]).toBe(formatCount(DIGEST_MAX_BYTES));
});

test("the README's Node version is the oldest the engines field accepts", () => {
  const engines = JSON.parse(read("package.json")).engines.node;
  const min = semver.minVersion(engines)!;
  expect(read("README.md")).toContain(`Needs Node ${min.major}.${min.minor} or later`);
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]+/g, "")
    .replace(/ /g, "-");

test("every link to a section of a page names a heading (or an id) on that page", () => {
  const broken: string[] = [];
  for (const rel of DOCS)
    for (const m of read(rel).matchAll(/\]\(([^)#\s]*)#([^)\s]+)\)/g)) {
      const target = m[1] ? path.join(path.dirname(rel), m[1]) : rel;
      if (!target.endsWith(".md")) continue;
      const page = read(target);
      const anchors = [
        ...[...page.matchAll(/^#+ (.*)$/gm)].map((h) => slug(h[1])),
        ...[...page.matchAll(/ id="([^"]+)"/g)].map((a) => a[1]),
      ];
      if (!anchors.includes(m[2])) broken.push(`${rel}: ${m[0]}`);
    }
  expect(broken).toEqual([]);
});

test("every file or folder of the repository a page names in code quotes exists", () => {
  const missing: string[] = [];
  for (const rel of DOCS)
    for (const m of read(rel).matchAll(/`((?:core|excel|gsheets|sandbox|scripts|bench|test|docs|assets)\/[\w./-]+)`/g))
      if (!fs.existsSync(path.join(ROOT, m[1]))) missing.push(`${rel}: ${m[1]}`);
  expect(missing).toEqual([]);
});

test("reference.md's layout names every folder and module at the root of core/, and only those", () => {
  const block = /## Layout\n\n```\n([\s\S]*?)```/.exec(read("docs/reference.md"))![1];
  const said = [...block.matchAll(/^ {2}([a-z-]+)\/ /gm)].map((m) => m[1]).sort();
  const tree = fs
    .readdirSync(path.join(ROOT, "core"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  expect(said).toEqual(tree);
  // The modules at core's root, beside the folders, are named in its entry too.
  const entry = /^core\/ {6}([\s\S]*?)\n {2}[a-z]/m.exec(block)![1];
  const named = [...entry.matchAll(/\b([a-z-]+\.ts)\b/g)].map((m) => m[1]).sort();
  const files = fs
    .readdirSync(path.join(ROOT, "core"))
    .filter((f) => f.endsWith(".ts"))
    .sort();
  expect(named).toEqual(files);
});

test("reference.md's layout names every folder of test/ and of its host folders, and each it names exists", () => {
  const block = /## Layout\n\n```\n([\s\S]*?)```/.exec(read("docs/reference.md"))![1];
  const entry = /^test\/ {6}([\s\S]*?)\n\S/m.exec(block)![1];
  const said = new Set([...entry.matchAll(/([a-z-]+(?:\/[a-z-]+)?)\/(?=[\s,;:)])/g)].map((m) => m[1]));
  const dirs = (rel: string) =>
    fs
      .readdirSync(path.join(ROOT, "test", rel), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  const tree = [...dirs(""), ...dirs("excel"), ...dirs("gsheets")];
  expect(tree.filter((d) => ![...said].some((s) => s === d || s.endsWith(`/${d}`)))).toEqual([]);
  const exists = (s: string) => ["", "excel", "gsheets"].some((p) => fs.existsSync(path.join(ROOT, "test", p, s)));
  expect([...said].filter((s) => !exists(s))).toEqual([]);
});
