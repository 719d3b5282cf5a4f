/**
 * The workbook's Action list in the BUILT Excel add-in, in headless Chromium with the demo key (no service): two tables
 * on two sheets (the same properties on both) checked in turn; the second check keeps the first table's actions and
 * the notes typed on them, each row names its table and row, and everything built from demo answers says so.
 */
import type { Page } from "playwright-core";
import { DEMO_NOTE } from "../../../core/demo/demo-key";
import { demoSampleSheet } from "../../../core/demo/demo";
import { describeWithChromium } from "../../helpers/chromium";
import { TEST_DAY, noonUtc } from "../../helpers/clock";
import { standIn } from "../helpers/stand-in-page";
import { servedPane } from "../helpers/pane";

const run = describeWithChromium();

run("the workbook's Action list in the built pane", () => {
  const pane = servedPane();
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // The page's clock from noon UTC on TEST_DAY: the demo's answers and the sample table count from that day.
    ({ page } = await pane.open({
      errors: pageErrors,
      clock: { time: noonUtc() },
    }));
  });

  const grid = (sheet: string) => standIn(page)<unknown[][]>("sourceGrid", sheet);
  async function checkSheet(sheet: string, rows: number) {
    await page.evaluate(
      ([s, n]) => {
        (window as any).__excelStandIn.select(s, `A1:A${n}`);
        document.getElementById("status")!.textContent = "";
      },
      [sheet, rows] as const,
    );
    await page.click("#check");
    await page.waitForFunction(
      () => /^(Done|Finished)/.test(document.getElementById("status")!.textContent ?? ""),
      undefined,
      { timeout: 60_000 },
    );
  }

  test("checking a second table keeps the first table's actions and notes; every row names its table; demo answers say so", async () => {
    await page.click("#try-demo");
    await page.waitForFunction(() => /^demo/.test(document.getElementById("key-state")!.textContent ?? ""));
    const { values } = demoSampleSheet(TEST_DAY);
    await page.evaluate((v) => {
      const x = (window as any).__excelStandIn;
      x.seed("North", "A1", v);
      x.seed("South", "A1", v);
    }, values);
    await checkSheet("North", values.length);
    const first = await grid("Action list");
    const h = first[0].map(String);
    const [notes, id, table, row, action] = ["Notes", "Action ID", "Table", "Row", "Action"].map((k) => h.indexOf(k));
    const blank = first.findIndex((r, i) => i > 0 && r.every((v) => v === "" || v === null));
    const open = first.slice(1, blank < 0 ? first.length : blank);
    expect(open.length).toBeGreaterThan(5);
    for (const r of open) {
      expect(r[table]).toBe("North");
      expect(String(r[action])).toContain(DEMO_NOTE);
    }
    // Notes on every North action, then South is checked.
    const letter = String.fromCharCode(65 + notes);
    await page.evaluate(([a, col]) => (window as any).__excelStandIn.seed("Action list", `${col}2`, a), [
      open.map((r) => [`note for ${r[id]}`]),
      letter,
    ] as const);
    await checkSheet("South", values.length);
    const after = await grid("Action list");
    const north = after.filter((r) => r[table] === "North");
    const south = after.filter((r) => r[table] === "South");
    expect(north).toHaveLength(open.length);
    expect(south).toHaveLength(open.length);
    for (const r of north) expect(r[notes]).toBe(`note for ${r[id]}`);
    for (const r of south) expect(r[notes]).toBe("");
    // Each row's Row is the row of its sheet that holds its UPRN.
    const sheet = await grid("South");
    const u = h.indexOf("UPRN");
    for (const r of south) expect(String(sheet[Number(r[row]) - 1][0])).toBe(String(r[u]));
    const summary = (await grid("Compliance summary")).flat().map(String);
    expect(summary.some((v) => v.startsWith(`${DEMO_NOTE}:`))).toBe(true);
    expect(summary).toEqual(expect.arrayContaining(["North", "South", "Total"]));
    const runs = await grid("Run log");
    expect(runs.slice(1).filter((r) => String(r[11]).includes(DEMO_NOTE))).toHaveLength(2);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
