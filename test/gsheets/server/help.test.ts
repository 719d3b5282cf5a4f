/**
 * Help where the user is, in Google Sheets: the built sidebar has a Help tab carrying the same help page as the Excel
 * add-in (less its Excel-only Functions section), with core's colours, and the sidebar stays no larger than it was.
 */
import * as fs from "fs";
import * as path from "path";
import { STATUS_COLOURS, WINDOW_COLOURS } from "../../../core";
import { DIST } from "../harness/gas";

const html = fs.readFileSync(path.join(DIST, "Sidebar.html"), "utf8");
const help = html.slice(html.indexOf('id="panel-help"'));

test("the Help tab holds the shared help: checking rows, colours, the Action list, keys and plans, errors", () => {
  expect(html).toMatch(/role="tab"\s+id="tab-help"[^>]*aria-controls="panel-help"/);
  for (const id of ["checking-rows", "colours", "actions", "watching", "keys", "errors"])
    expect(help).toContain(`id="${id}"`);
  // Excel's functions are not offered in Sheets.
  expect(help).not.toContain('id="functions"');
  expect(help).not.toContain("COMPLIANCE.SCORE(uprn)");
  for (const [word, c] of Object.entries({ ...STATUS_COLOURS, ...WINDOW_COLOURS }))
    expect(help).toMatch(new RegExp(`background:\\s*${c.fill};\\s*color:\\s*${c.font}">${word}<`, "i"));
});

test("the sidebar is no larger than before the help and the action list were added (41,823 bytes)", () => {
  expect(Buffer.byteLength(html)).toBeLessThanOrEqual(41_823);
});
