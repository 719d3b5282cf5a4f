/**
 * No function in the add-ins' own code (core/, excel/, gsheets/, their webpack configs included) is over LIMIT lines:
 * a longer one is read as a list of named steps, each a function of its own. A change that adds one, or makes one grow
 * past the limit, fails here with the list.
 */
import fs from "fs";
import path from "path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "../..");
const FOLDERS = ["core", "excel", "gsheets"];
const LIMIT = 80;

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, e.name);
    if (e.isDirectory()) sources(at, out);
    else if (/\.(ts|js)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(at);
  }
  return out;
}

/** Every function of a source text (declarations, expressions, arrows, methods) with its length in lines, the braces included. */
export function functionLengths(file: string, text: string): { name: string; line: number; lines: number }[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: { name: string; line: number; lines: number }[] = [];
  const nameOf = (n: ts.Node): string => {
    const own = (n as ts.FunctionLikeDeclaration).name;
    if (own) return own.getText(src);
    const p = n.parent;
    if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p))) return p.name.getText(src);
    return "(anonymous)";
  };
  const visit = (n: ts.Node) => {
    if (ts.isFunctionLike(n) && (n as ts.FunctionLikeDeclaration).body) {
      const first = src.getLineAndCharacterOfPosition(n.getStart(src)).line;
      const last = src.getLineAndCharacterOfPosition(n.getEnd()).line;
      out.push({ name: nameOf(n), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

test("the counter counts a function's lines from its first to its last, and names arrows by their binding", () => {
  const text = ["function a() {", "  const b = () => {", "    return 1;", "  };", "  return b();", "}", ""].join("\n");
  expect(functionLengths("x.ts", text)).toEqual([
    { name: "a", line: 1, lines: 6 },
    { name: "b", line: 2, lines: 3 },
  ]);
});

test(`no function of core/, excel/ and gsheets/ is over ${LIMIT} lines`, () => {
  const all = FOLDERS.flatMap((d) => sources(path.join(ROOT, d))).flatMap((f) =>
    functionLengths(f, fs.readFileSync(f, "utf8")).map((fn) => ({ ...fn, at: path.relative(ROOT, f) })),
  );
  // The files are read at all: both add-ins and core hold well over a thousand functions.
  expect(all.length).toBeGreaterThan(1000);
  const long = all.filter((fn) => fn.lines > LIMIT).map((fn) => `${fn.at}:${fn.line} ${fn.name} (${fn.lines} lines)`);
  expect(long).toEqual([]);
});
