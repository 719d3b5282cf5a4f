/**
 * No import cycles among the add-ins' own modules (core/, excel/, gsheets/): a module that imports one that imports it
 * back (type-only imports and re-exports included) is read half-built by whichever loads first, and means two files
 * hold one idea. A piece both need goes one level down, into a file of its own.
 */
import fs from "fs";
import path from "path";

const ROOT = path.resolve(__dirname, "../..");
const FOLDERS = ["core", "excel", "gsheets"];

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, e.name);
    if (e.isDirectory()) sources(at, out);
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push(at);
  }
  return out;
}

/** `import … from "./x"`, `import type …`, `export … from "./x"`, `import "./x"`: every relative specifier. */
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s(?:[^;]*?\sfrom\s+)?["'](\.{1,2}\/[^"']+)["']/g;

/** Each module's relative imports that resolve to another module of the set (path relative to the repository). */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const deps = new Set<string>();
    for (const m of fs.readFileSync(f, "utf8").matchAll(SPECIFIER)) {
      const base = path.resolve(path.dirname(f), m[1]);
      const hit = [base, `${base}.ts`, path.join(base, "index.ts")].find((c) => known.has(c));
      if (hit) deps.add(path.relative(ROOT, hit));
    }
    graph.set(path.relative(ROOT, f), [...deps]);
  }
  return graph;
}

/** The strongly connected groups of more than one module (or a module importing itself): each is a cycle. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

test("the cycle finder sees a cycle of three modules, a module importing itself, and no cycle in a chain", () => {
  const found = cycles(
    new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []],
      ["e", ["e"]],
      ["f", ["d"]],
    ]),
  );
  expect(found).toEqual([["a", "b", "c"], ["e"]]);
});

test("no module of core/, excel/ or gsheets/ imports itself back through its imports", () => {
  const graph = importGraph(FOLDERS.flatMap((d) => sources(path.join(ROOT, d))));
  // The graph is read at all: core/index.ts re-exports its modules, and a host imports core.
  expect(graph.get("core/index.ts")).toContain("core/compliance/obligations.ts");
  expect(graph.get("excel/taskpane/sheet.ts")).toContain("excel/taskpane/tables.ts");
  expect([...graph.values()].flat().length).toBeGreaterThan(300);
  expect(cycles(graph)).toEqual([]);
});
