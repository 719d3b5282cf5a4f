/**
 * Where the BUILT task pane (dist/excel) puts its results when its Check button is pressed on a table checked before,
 * in headless Chromium with the Excel stand-in: in place, never a second block, and never over another table's block.
 * table-placement.test.ts holds the same sheets at the level of the pane's code.
 */
import type { Page } from "playwright-core";
import { outputHeaders } from "../../../core";
import { findExamples } from "../../../sandbox/dataset";
import { describeWithChromium } from "../../helpers/chromium";
import { MATCHED, OUTPUT_WIDTH as W, colLetters } from "../../helpers/excel-workbook";
import { knownUprns, sandbox, type Sandbox } from "../../helpers/sandbox";
import { standIn } from "../helpers/stand-in-page";
import { servedPane } from "../helpers/pane";

const run = describeWithChromium();

run("the built task pane checks a table again in place", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let page: Page;

  beforeAll(async () => {
    sb = await sandbox(0);
  });
  afterAll(async () => {
    await sb?.close();
  });
  beforeEach(async () => {
    sb.reset();
    ({ page } = await pane.open({
      context: { viewport: { width: 360, height: 1000 } },
      // A key and base URL already saved on this computer (as Settings saves them).
      before: (p) =>
        p.addInitScript(
          ([base]) => {
            localStorage.setItem("compliance.apiKey", "sandbox-professional");
            localStorage.setItem("compliance.baseUrl", base);
          },
          [sb.baseUrl],
        ),
      timeout: 15_000,
    }));
  });
  afterEach(async () => {
    await page?.close();
  });

  const seed = (sheet: string, at: string, values: unknown[][]) =>
    page.evaluate(([s, a, v]) => (window as any).__excelStandIn.seed(s, a, v), [sheet, at, values] as const);
  const select = (sheet: string, at: string) =>
    page.evaluate(([s, a]) => (window as any).__excelStandIn.select(s, a), [sheet, at] as const);
  const read = (sheet: string, at: string) => standIn(page)("read", sheet, at);
  const status = () => page.evaluate(() => document.getElementById("status")!.textContent ?? "");
  async function check(): Promise<string> {
    await page.click("#check");
    await page.waitForFunction(
      () =>
        /^(Done|Finished|Stopped|Cancelled)|selection|select/i.test(
          document.getElementById("status")!.textContent ?? "",
        ) && !(document.getElementById("check") as HTMLButtonElement).disabled,
      undefined,
      { timeout: 30_000 },
    );
    return status();
  }

  test("a Postcode + Address table checked twice with the button: the second run updates the first block in place", async () => {
    const ex = findExamples(sb.dataset());
    const one = ex.singlePropertyPostcode;
    const shared = ex.sharedPostcode.properties.slice(0, 2);
    await seed("Sheet1", "A1", [
      ["Postcode", "Address"],
      [one.postcode, ""],
      ...shared.map((p) => [p.postcode, p.address_line_1]),
    ]);
    await select("Sheet1", "A2:B4");
    expect(await check()).toMatch(/^Done\. 3 rows checked\./);
    await select("Sheet1", "B1");
    const text = await check();
    expect(text).toMatch(/^Done\. 3 rows checked\./);
    const wide = (await read("Sheet1", `A1:${colLetters(2 + 2 * W)}4`)).values as unknown[][];
    expect(wide[0].slice(2, 2 + W)).toEqual(outputHeaders());
    expect(wide.slice(1).map((r) => r[2 + MATCHED])).toEqual([one.property.uprn, shared[0].uprn, shared[1].uprn]);
    expect(wide.every((r) => r.slice(2 + W).every((v) => v === ""))).toBe(true);
  }, 60_000);

  test("stacked tables, both checked with the button, then whole column A:A: the upper table is checked again, the lower table's results header survives", async () => {
    const u = knownUprns(sb, 6);
    await seed("Sheet1", "A1", [
      ["UPRN", "Notes"],
      [u[0], "a"],
      [u[1], "b"],
      [u[2], "c"],
    ]);
    await seed("Sheet1", "A8", [
      ["UPRN", "Notes"],
      [u[3], "d"],
      [u[4], "e"],
      [u[5], "f"],
    ]);
    await select("Sheet1", "A1");
    expect(await check()).toMatch(/^Done\./);
    await select("Sheet1", "A8");
    expect(await check()).toMatch(/^Done\./);
    await select("Sheet1", "A:A");
    await check();
    expect((await read("Sheet1", `C8:${colLetters(2 + W - 1)}8`)).values[0]).toEqual(outputHeaders());
    expect((await read("Sheet1", `C5:${colLetters(2 + W - 1)}7`)).values.flat().every((v: unknown) => v === "")).toBe(
      true,
    );
  }, 60_000);
});
