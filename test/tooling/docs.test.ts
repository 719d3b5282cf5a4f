/**
 * The README and docs hold to their sources: the functions table names every function of the generated
 * functions.json, docs/deploying.md's scopes are appsscript.json's, the Sheets menu has one name, every relative
 * link resolves inside the repository, and no page speaks of how the project was made.
 */
import * as fs from "fs";
import * as path from "path";
import { ensureExcelBuild } from "../excel/helpers/build";

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

test("the README's functions table lists exactly the functions of the generated functions.json, with their parameters", () => {
  const fj = JSON.parse(fs.readFileSync(path.join(ensureExcelBuild(), "functions.json"), "utf8")) as {
    functions: { id: string; parameters: { name: string; optional?: boolean }[] }[];
  };
  const rows = [...read("README.md").matchAll(/^\| `COMPLIANCE\.([A-Z]+)\(([^)]*)\)` \|/gm)].map((m) => ({
    id: m[1],
    params: m[2],
  }));
  expect(rows.map((r) => r.id).sort()).toEqual(fj.functions.map((f) => f.id).sort());
  for (const f of fj.functions) {
    const shown = f.parameters.map((p) => (p.optional ? `[${p.name}]` : p.name)).join(", ");
    expect({ id: f.id, params: rows.find((r) => r.id === f.id)!.params }).toEqual({ id: f.id, params: shown });
  }
});

test("docs/deploying.md's consent-screen scopes and docs/gsheets.md's scope table are exactly appsscript.json's", () => {
  const scopes: string[] = JSON.parse(read("gsheets/appsscript.json")).oauthScopes;
  const deploying = read("docs/deploying.md");
  const listed = deploying.slice(
    deploying.indexOf("exactly"),
    deploying.indexOf("- [ ] Google Workspace Marketplace SDK"),
  );
  expect([...new Set(listed.match(/https:\/\/www\.googleapis\.com\/auth\/[a-z._]+/g))].sort()).toEqual(
    [...scopes].sort(),
  );
  const table = [
    ...read("docs/gsheets.md").matchAll(/^\| `(https:\/\/www\.googleapis\.com\/auth\/[a-z._]+)` \|/gm),
  ].map((m) => m[1]);
  expect(table.sort()).toEqual([...scopes].sort());
});

test("the Sheets menu has one name everywhere: Extensions › Property compliance", () => {
  const places = [...DOCS, "excel/taskpane/help.html", "gsheets/server/menu.ts", "gsheets/server/schedule.ts"];
  const names = new Set<string>();
  for (const rel of places)
    for (const m of read(rel).matchAll(/Extensions\s*(?:›|&gt;|>)\s*([A-Z][A-Za-z ]+?)\s*(?:›|&gt;|>|\)|:|\*\*|$)/gm))
      if (m[1] !== "Apps Script") names.add(m[1].trim());
  expect([...names]).toEqual(["Property compliance"]);
});

test("every relative link in the README and docs points at a file in the repository", () => {
  const broken: string[] = [];
  for (const rel of DOCS) {
    for (const m of read(rel).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(m[1])) continue;
      const target = path.resolve(ROOT, path.dirname(rel), m[1]);
      if (!target.startsWith(ROOT + path.sep) || !fs.existsSync(target)) broken.push(`${rel}: ${m[1]}`);
    }
    if (/\.\.\/shared\//.test(read(rel))) broken.push(`${rel}: names ../shared, outside the repository`);
  }
  expect(broken).toEqual([]);
});

test("no page of the README or docs speaks of how the project was made", () => {
  const words = /\b(briefs?|sessions?|QA pass|later work|issue \d+|the run-engine session)\b/i;
  const found: string[] = [];
  for (const rel of DOCS)
    read(rel)
      .split("\n")
      .forEach((line, i) => words.test(line) && found.push(`${rel}:${i + 1}: ${line.trim()}`));
  expect(found).toEqual([]);
});

test("the README stays short: what it does, a screenshot, the quick start, the demo, the functions, one line per topic", () => {
  const readme = read("README.md");
  expect(readme.split("\n").length).toBeLessThanOrEqual(80);
  expect(readme).toMatch(/!\[[^\]]+\]\(assets\/screenshots\/[a-z-]+\.png\)/);
  expect(readme).toMatch(/npm install && npm start/);
  expect(readme).toMatch(/^npm test/m);
});
