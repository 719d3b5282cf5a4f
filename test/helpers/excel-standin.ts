/**
 * The Excel stand-in (test/excel/standin/excel-standin.js), loaded in one place: in Node as a module (a fresh workbook
 * and its column letters), and as the script the built pane's page is given in place of office.js.
 */
import * as fs from "fs";
import * as path from "path";

const FILE = path.join(__dirname, "../excel/standin/excel-standin.js");

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Excel stand-in is plain JavaScript that the built pane's page also loads as a script, so it has no ES exports
const standIn = require(FILE);

/** A fresh stand-in Excel (its Office globals, CustomFunctions and test API). */
export const createStandIn: () => any = standIn.createStandIn;
/** Column letters of a 0-based column index, as the stand-in counts: 0 = A, 26 = AA. */
export const colLetters: (index: number) => string = standIn.colLetters;
/** The stand-in's source, served to a page for https://appsforoffice.microsoft.com's office.js. */
export const STANDIN_SCRIPT: string = fs.readFileSync(FILE, "utf8");
