/**
 * A sentence or a colour both add-ins show is made once, in core: no string of 25 characters or more, and no hex
 * colour, stands in both excel/ and gsheets/ (their TypeScript, pages and styles). A copy in each host drifts: one is
 * reworded, the other is not, and the two add-ins say different things of the same fact. Module paths are not
 * sentences; the few strings each host's platform needs alike are listed below, each with its reason.
 */
import fs from "fs";
import path from "path";
import ts from "typescript";
import { PAGE_WORDS, pageWord } from "../../core/page-words";

const ROOT = path.resolve(__dirname, "../..");
const MIN_LENGTH = 25;

/** Strings both hosts may hold, and why each is not a sentence or colour of the product's to make once. */
const ALLOWED: Record<string, string> = {
  '#windows-table input[aria-invalid="true"]':
    "a CSS selector into each page's own windows table (its id is each page's markup), not words the user sees",
};

function files(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, e.name);
    if (e.isDirectory()) files(at, out);
    else if (/\.(ts|html|css)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(at);
  }
  return out;
}

const HEX = /#[0-9A-Fa-f]{6}\b/g;

/** The strings of a TypeScript source (literals and template parts), less module paths. */
function tsStrings(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const isModulePath = (n: ts.Node) =>
    ts.isImportDeclaration(n.parent) ||
    ts.isExportDeclaration(n.parent) ||
    (ts.isCallExpression(n.parent) &&
      (n.parent.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(n.parent.expression) && n.parent.expression.text === "require")));
  const visit = (n: ts.Node): void => {
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && !isModulePath(n)) out.push(n.text);
    else if (ts.isTemplateExpression(n)) out.push(n.head.text, ...n.templateSpans.map((s) => s.literal.text));
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

/** The words of a page or style sheet: text between tags and quoted attribute values, white space folded. */
function pageStrings(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/>([^<]+)</g)) out.push(m[1]);
  for (const m of text.matchAll(/"([^"\n]+)"/g)) out.push(m[1]);
  return out;
}

/** What a file holds that counts: strings of MIN_LENGTH or more (trimmed, white space folded) and hex colours. */
export function sentencesAndColours(file: string, text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(HEX)) found.add(m[0].toUpperCase());
  if (file.endsWith(".css")) return found;
  const strings = file.endsWith(".ts") ? tsStrings(file, text) : pageStrings(text);
  for (const s of strings) {
    const t = s.replace(/\s+/g, " ").trim();
    if (t.length >= MIN_LENGTH) found.add(t);
  }
  return found;
}

/** Each string of a host, with the files that hold it. */
function hostStrings(dir: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files(path.join(ROOT, dir))) {
    for (const s of sentencesAndColours(f, fs.readFileSync(f, "utf8"))) {
      const list = out.get(s) ?? [];
      list.push(path.relative(ROOT, f));
      out.set(s, list);
    }
  }
  return out;
}

/** The strings both hosts hold, less the allowed ones: `"string"  excel/... ~ gsheets/...` lines. */
export function sharedByHosts(a: Map<string, string[]>, b: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [s, where] of a) {
    if (!b.has(s) || s in ALLOWED) continue;
    out.push(`${JSON.stringify(s)}  ${where.join(", ")} ~ ${b.get(s)!.join(", ")}`);
  }
  return out.sort();
}

test("the scan finds a sentence and a colour written in two hosts, and leaves module paths and short words", () => {
  const excel = new Map<string, string[]>();
  const sheets = new Map<string, string[]>();
  const add = (m: Map<string, string[]>, file: string, text: string) =>
    sentencesAndColours(file, text).forEach((s) => m.set(s, [file]));
  add(
    excel,
    "excel/a.ts",
    'import { x } from "../../core/reports/report-words";\nsay(`No actions are due within ${n} days, so none.`, "#A80000", "Short one");',
  );
  add(
    sheets,
    "gsheets/b.ts",
    'import("../../core/reports/report-words"); f(`No actions are due within ${d} days, so none.`);',
  );
  add(
    sheets,
    "gsheets/c.html",
    '<p style="color: #a80000">\n  Short one\n</p><button title="Check the selection anyway">x</button>',
  );
  add(excel, "excel/d.html", "<button>Check   the selection\n anyway</button>");
  expect(sharedByHosts(excel, sheets)).toEqual([
    '"#A80000"  excel/a.ts ~ gsheets/c.html',
    '"Check the selection anyway"  excel/d.html ~ gsheets/c.html',
    '"No actions are due within"  excel/a.ts ~ gsheets/b.ts',
  ]);
});

test("no sentence or colour is written in both excel/ and gsheets/: each is core's, and both hosts call it", () => {
  expect(sharedByHosts(hostStrings("excel"), hostStrings("gsheets"))).toEqual([]);
});

test("every allowed string is still held by both hosts (an entry no longer needed goes)", () => {
  const excel = hostStrings("excel");
  const sheets = hostStrings("gsheets");
  for (const s of Object.keys(ALLOWED)) expect([s, excel.has(s) && sheets.has(s)]).toEqual([s, true]);
});

test("both pages take their shared words from core: every data-words key is core's, and each of core's is on both pages", () => {
  const keysOn = (page: string) =>
    [...fs.readFileSync(path.join(ROOT, page), "utf8").matchAll(/data-words="([^"]+)"/g)].map((m) => m[1]).sort();
  const core = Object.keys(PAGE_WORDS).sort();
  expect(keysOn("excel/taskpane/taskpane.html")).toEqual(core);
  expect(keysOn("gsheets/sidebar/Sidebar.html")).toEqual(core);
  for (const k of core) expect(pageWord(k)).toBe(PAGE_WORDS[k as keyof typeof PAGE_WORDS]);
  expect(pageWord("toString")).toBeUndefined();
});
