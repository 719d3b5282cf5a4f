/**
 * The BUILT Excel page's own JavaScript at start, measured as `npx tsx bench/bundles.ts` measures it (the scripts
 * taskpane.html names, office.js left out as Microsoft's), stays within its limit. What keeps it there: the service
 * client with the run engine and zod is one lazy chunk (service.js), fetched with the first request, never at start
 * and never copied into another chunk. The source maps say which module went where.
 */
import * as fs from "fs";
import * as path from "path";
import { EXCEL_START_LIMIT_KB, excelPage } from "../../../bench/bundles";
import { ensureExcelBuild } from "../helpers/build";

const dist = ensureExcelBuild();
const page = excelPage(dist);
/** The modules (source files) a built chunk holds, from its source map, as paths from the repository's root. */
const modules = (file: string): string[] =>
  (JSON.parse(fs.readFileSync(path.join(dist, `${file}.map`), "utf8")) as { sources: string[] }).sources.map((s) =>
    s.replace(/^webpack:\/\/[^/]*\/(\.\/)?/, ""),
  );
/** The service client, the run engine's core and the validation library: what the page must start without. */
const LAZY = [
  /^core\/service\/client\.ts$/,
  /^core\/run\/engine\.ts$/,
  /^core\/service\/schemas\.ts$/,
  /node_modules\/zod\//,
];

test(`the page's own JavaScript at start is at most ${EXCEL_START_LIMIT_KB} KB`, () => {
  expect(page.files).toEqual(["taskpane.js"]);
  expect(page.start).toBeGreaterThan(0);
  expect(page.start / 1024).toBeLessThanOrEqual(EXCEL_START_LIMIT_KB);
});

test("the service client, the run engine and zod are not in it, and are in service.js only", () => {
  const start = modules("taskpane.js");
  // The measure is of the right thing: the pane, the functions and the commands are all in it.
  expect(start).toEqual(
    expect.arrayContaining([
      "excel/taskpane/taskpane.ts",
      "excel/functions/functions.ts",
      "excel/commands/commands.ts",
    ]),
  );
  for (const re of LAZY) {
    expect(start.filter((m) => re.test(m))).toEqual([]);
    const holders = page.lazy.filter((l) => modules(l.file).some((m) => re.test(m))).map((l) => l.file);
    expect([re.source, holders]).toEqual([re.source, ["service.js"]]);
  }
});

test("the check's planning (core's table and block decisions, the start-of-check notes) waits for the first check", () => {
  const start = modules("taskpane.js");
  for (const m of ["core/sheet/check-plan.ts", "core/sheet/start-notes.ts", "core/sheet/table.ts"]) {
    expect([m, start.includes(m)]).toEqual([m, false]);
    expect([m, page.lazy.some((l) => modules(l.file).includes(m))]).toEqual([m, true]);
  }
});
