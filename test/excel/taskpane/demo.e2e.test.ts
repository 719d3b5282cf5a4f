/**
 * The demo in the BUILT Excel add-in, in headless Chromium with no service running at all: "Try with demo data",
 * "Insert sample table", "Check selected rows", the functions; every request the page makes is recorded, and none
 * goes anywhere but the page's own files. Every answer says it is demo data.
 */
import type { Page } from "playwright-core";
import { OUTPUT_COLUMNS } from "../../../core";
import { DEMO_NOTE, DEMO_SHEET } from "../../../core/demo/demo-key";
import { demoProperties } from "../../../core/demo/demo";
import { TEST_DAY, noonUtc } from "../../helpers/clock";
import { describeWithChromium } from "../../helpers/chromium";
import { standIn } from "../helpers/stand-in-page";
import { servedPane } from "../helpers/pane";

const run = describeWithChromium();

run("Excel demo in Chromium, no service", () => {
  const pane = servedPane();
  let page: Page;
  const requests: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // The page's clock from noon UTC on TEST_DAY: the demo's answers count from that day.
    ({ page } = await pane.open({
      errors: pageErrors,
      clock: { time: noonUtc() },
      before: (p) => {
        p.on("request", (r) => requests.push(r.url()));
      },
    }));
  });

  const text = (id: string) => page.evaluate((i) => document.getElementById(i)!.textContent ?? "", id);
  const waitText = (id: string, re: RegExp, timeout = 20_000) =>
    page.waitForFunction(
      ([i, src]) => new RegExp(src).test(document.getElementById(i)!.textContent ?? ""),
      [id, re.source] as const,
      { timeout },
    );

  test("try, insert, check: every row answered or given its reason, all marked demo, nothing sent", async () => {
    expect(await text("banner")).toMatch(/Try with demo data/);
    expect(await page.isVisible("#demo-banner")).toBe(false);
    await page.click("#try-demo");
    await waitText("key-state", /^demo \(built-in demo data/);
    expect(await page.isVisible("#demo-banner")).toBe(true);
    expect(await text("settings-status")).toMatch(/^Demo mode/);

    await page.click("#insert-sample");
    const n = demoProperties(TEST_DAY).length;
    await waitText("status", /Sample table|could not/);
    expect(await text("status")).toMatch(
      new RegExp(`^Sample table of ${n + 4} rows written to the sheet "${DEMO_SHEET}"`),
    );
    expect(await page.evaluate(() => (window as any).__excelStandIn.sheetNames())).toContain(DEMO_SHEET);

    await page.click("#check");
    await page.waitForFunction(
      () => /^(Done|Finished)/.test(document.getElementById("status")!.textContent ?? ""),
      undefined,
      { timeout: 60_000 },
    );
    expect(await text("status")).toMatch(new RegExp(`${n + 4} rows`));

    const width = 7 + OUTPUT_COLUMNS.length;
    const letters = (await page.evaluate((w) => (window as any).__excelStandIn.colLetters(w), width)) as string;
    const out = await standIn(page)("read", DEMO_SHEET, `A1:${letters}${n + 5}`);
    const header = out.values[0] as string[];
    const msg = header.indexOf("Message");
    const uprnCol = header.indexOf("Matched UPRN");
    expect(msg).toBeGreaterThan(6);
    const rows = out.values.slice(1) as unknown[][];
    expect(rows.length).toBe(n + 4);
    expect(rows.every((r) => String(r[msg]).length > 0)).toBe(true);
    expect(rows.filter((r) => String(r[msg]).includes(DEMO_NOTE)).length).toBe(n + 2);
    expect(rows.filter((r) => /^\d+$/.test(String(r[uprnCol]))).length).toBe(n);
    expect(await page.evaluate(() => (window as any).__excelStandIn.sheetNames())).toEqual(
      expect.arrayContaining(["Action list", "Compliance summary"]),
    );
  });

  test("the functions answer from the demo too", async () => {
    const res = await page.evaluate(async () => {
      const f = (window as any).__excelStandIn.state.customFunctions;
      const settle = (p: Promise<unknown>) =>
        p.then(
          (v) => ({ v }),
          (e) => ({ code: e.code, message: e.message }),
        );
      return Promise.all(
        [f.SCORE("100023336956"), f.STATUS("100023336956", "eicr"), f.SCORE("999999999999")].map(settle),
      );
    });
    const p = demoProperties(TEST_DAY).find((x) => x.uprn === "100023336956")!;
    expect(res[0]).toEqual({ v: p.result.compliance_score });
    expect(res[1]).toEqual({ v: p.result.checks.eicr.status });
    expect(res[2]).toMatchObject({ code: "#N/A" });
  });

  test("no request left the page's own files; the demo came as its own chunk, loaded when first used", () => {
    const own = requests.filter((u) => u.startsWith(pane.url));
    const other = requests.filter(
      (u) => !u.startsWith(pane.url) && !u.startsWith("https://appsforoffice.microsoft.com/"),
    );
    expect(other).toEqual([]);
    const paths = own.map((u) => new URL(u).pathname);
    expect(paths.filter((p) => /\/v1\/|\/api\//.test(p))).toEqual([]);
    expect(paths).toContain("/demo.js");
    expect(pageErrors).toEqual([]);
  });
});
