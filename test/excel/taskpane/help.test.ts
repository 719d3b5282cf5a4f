/**
 * Help where the user is: every custom function's help link (functions.json, generated from the built bundle) lands on
 * an anchor of the built help page, and the page's colours are core's, so the help cannot drift from what is written.
 */
import * as fs from "fs";
import * as path from "path";
import { STATUS_COLOURS, WINDOW_COLOURS } from "../../../core";
import { ensureExcelBuild } from "../helpers/build";

const dist = ensureExcelBuild();
const help = fs.readFileSync(path.join(dist, "help.html"), "utf8");
// The built page is minified: attribute quotes may be gone, colours lower-cased.
const ids = new Set([...help.matchAll(/\sid="?([^"\s>]+)"?/g)].map((m) => m[1]));
const functions = JSON.parse(fs.readFileSync(path.join(dist, "functions.json"), "utf8")).functions as {
  id: string;
  name: string;
  helpUrl?: string;
}[];

test("every function has a help link, and each resolves to an anchor of help.html that names the function", () => {
  expect(functions.length).toBeGreaterThanOrEqual(9);
  for (const f of functions) {
    expect({ id: f.id, helpUrl: f.helpUrl }).toEqual({
      id: f.id,
      helpUrl: expect.stringMatching(/\/help\.html#[a-z0-9-]+$/),
    });
    const anchor = f.helpUrl!.split("#")[1];
    expect({ id: f.id, anchor, present: ids.has(anchor) }).toEqual({ id: f.id, anchor, present: true });
    // The anchored section names the function as users type it.
    const at = help.search(new RegExp(`id="?${anchor}[\\s">]`));
    const section = help.slice(at, at + 400);
    expect(section).toContain(`COMPLIANCE.${f.name}(`);
  }
});

test("the help page's colour tables are core's status and window colours", () => {
  const swatch = (fill: string, font: string, word: string) =>
    new RegExp(`background:${fill};color:${font}"?>${word}<`, "i");
  for (const [word, c] of Object.entries(STATUS_COLOURS)) expect(help).toMatch(swatch(c.fill, c.font, word));
  for (const [word, c] of Object.entries(WINDOW_COLOURS)) expect(help).toMatch(swatch(c.fill, c.font, word));
});

test("the manifest's support link is the help page", () => {
  const manifest = fs.readFileSync(path.join(dist, "manifest.xml"), "utf8");
  expect(manifest).toMatch(/<SupportUrl DefaultValue="[^"]+\/help\.html"/);
});
