/**
 * The demo in Google Sheets, on the BUILT Code.js in the Apps Script stand-in: "Try with demo data", "Insert sample
 * table", a check of it, the Action list; not one UrlFetchApp request, and every row and the sidebar say "demo".
 */
import fs from "node:fs";
import path from "node:path";
import { TEST_DAY, vmAtNoon } from "../../helpers/clock";
import { createGasEnvironment } from "../harness/gas";
import { cellValue, outputCol, pollToEnd } from "../harness/table";
import { DEMO_NOTE, DEMO_SHEET } from "../../../core/demo/demo-key";
import { demoProperties } from "../../../core/demo/demo";
import { DIST } from "../harness/gas";

test("demo end to end: key, sample table, check, Action list, with zero network requests", async () => {
  // The spreadsheet's clock from noon of TEST_DAY: the demo's dates are counted from that day.
  const env = vmAtNoon(createGasEnvironment());
  const saved = env.run("saveSettings", { apiKey: "demo" });
  expect(saved.ok).toBe(true);
  expect(saved.message).toMatch(/Demo mode/);
  expect(saved.settings).toMatchObject({ hasKey: true, demo: true, maskedKey: "demo" });

  const inserted = env.run("insertSampleTable");
  expect(inserted.ok).toBe(true);
  const sheet = env.spreadsheet.getSheetByName(DEMO_SHEET)!;
  expect(sheet).toBeTruthy();
  const n = demoProperties(TEST_DAY).length;
  expect(inserted.message).toContain(`${n + 4} rows`);
  // The table is selected, so the check takes it as it is.
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.progress.rows).toBe(n + 4);
  const last = (await pollToEnd(env)).pop();
  expect(last.phase).toBe("done");

  expect(env.fetches).toEqual([]);
  const msg = outputCol(sheet, "message");
  const uprn = outputCol(sheet, "matched_uprn");
  const messages = Array.from({ length: n + 4 }, (_v, i) => String(cellValue(sheet, i + 2, msg)));
  // Every row has its result or its own reason; every answer from the demo says it is one.
  expect(messages.every((m) => m.length > 0)).toBe(true);
  const fromDemo = messages.filter((m) => m.includes(DEMO_NOTE));
  expect(fromDemo.length).toBe(n + 2); // the 60 found, the unknown UPRN, the shared postcode
  expect(messages.filter((m) => /not found|No property/i.test(m)).length).toBe(1);
  expect(messages.filter((m) => /matches \d+ properties/.test(m)).length).toBe(1);
  expect(String(cellValue(sheet, 2, uprn))).toMatch(/^\d+$/);
  expect(env.spreadsheet.getSheetByName("Action list")).toBeTruthy();

  // A second sample table never writes over the first.
  expect(env.run("insertSampleTable").message).toContain(`"${DEMO_SHEET} 2"`);
  expect(env.fetches).toEqual([]);
});

test("the sidebar: a Try with demo data button, and a demo banner shown while the key is the demo key", () => {
  const html = fs.readFileSync(path.join(DIST, "Sidebar.html"), "utf8");
  expect(html).toMatch(/<button[^>]*id="try-demo"[^>]*>Try with demo data<\/button>/);
  expect(html).toMatch(/<div id="demo-banner"[^>]*hidden[^>]*>[\s\S]*Demo mode[\s\S]*nothing is sent/);
  expect(html).toMatch(/id="insert-sample"/);
});
