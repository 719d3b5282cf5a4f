/**
 * The Excel stand-in (test/excel/standin/excel-standin.js and the files it requires), loaded in one place: in Node as a
 * module (a fresh workbook and its column letters), and as the one script the built pane's page is given in place of
 * office.js.
 */
import * as fs from "fs";
import * as path from "path";

const DIR = path.join(__dirname, "../excel/standin");
const FILE = path.join(DIR, "excel-standin.js");

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Excel stand-in is plain CommonJS, so that a page can be given its files as they are (pageScript)
const standIn = require(FILE);

/** A fresh stand-in Excel (its Office globals, CustomFunctions and test API), or a saved workbook opened again ({ restore }). */
export const createStandIn: (options?: { restore?: string | object }) => any = standIn.createStandIn;
/** Column letters of a 0-based column index, as the stand-in counts: 0 = A, 26 = AA. */
export const colLetters: (index: number) => string = standIn.colLetters;
/** The stand-in's limit on one sync's request, and on its response: Excel on the web's 5 MB. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS, as above
export const STANDIN_LIMIT_BYTES: number = require(path.join(DIR, "batch.js")).REQUEST_LIMIT;

/**
 * The stand-in's files as one classic script, as a page loads office.js: each file is wrapped as the CommonJS module
 * it is (its own scope, `require("./x")` of its neighbours), and the entry installs the globals on the page. Read from
 * the files themselves, so what a page runs is what Node requires.
 */
export function pageScript(dir: string = DIR): string {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".js"))
    .sort()
    .map(
      (f) =>
        `${JSON.stringify("./" + f.slice(0, -3))}: function (module, exports, require) {\n${fs.readFileSync(path.join(dir, f), "utf8")}\n}`,
    );
  return `(function (root) {
const files = {
${files.join(",\n")}
};
const loaded = {};
function load(name) {
  const key = name.replace(/\\.js$/, "");
  if (!files[key]) throw new Error("Excel stand-in: no file " + name + " beside excel-standin.js");
  if (!loaded[key]) {
    loaded[key] = { exports: {} };
    files[key](loaded[key], loaded[key].exports, load);
  }
  return loaded[key].exports;
}
load("./excel-standin").install(root);
})(typeof self !== "undefined" ? self : this);
`;
}

/** The stand-in as one script, served to a page for https://appsforoffice.microsoft.com's office.js. */
export const STANDIN_SCRIPT: string = pageScript();
