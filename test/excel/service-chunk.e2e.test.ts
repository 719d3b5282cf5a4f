/**
 * The service client (core's createClient, the run engine, zod) is a chunk of the BUILT add-in, service.js, fetched
 * with the first request. In headless Chromium with the demo key (no service needed): the page starts without it;
 * while it cannot be fetched, Check, Find a UPRN and the functions say so in one sentence and nothing is left waiting;
 * once it can be fetched again, the same page checks without a reload; the digest card never needs it.
 */
import type { Page } from "playwright-core";
import { CHUNK_MISSING } from "../../excel/chunk-error";
import { demoProperties } from "../../core/demo/demo";
import { TEST_DAY, noonUtc } from "../helpers/clock";
import { describeWithChromium } from "../helpers/chromium";
import { paneWaits, servedPane } from "./helpers/pane";

const UPRN = "100023336956";

describeWithChromium()("Excel service chunk in Chromium", () => {
  const pane = servedPane();
  let page: Page;
  const requests: string[] = [];
  const pageErrors: string[] = [];
  /** Chunks refused while this holds, as a lost connection or a replaced deployment would. */
  let offline = true;
  const refused = ["service.js"];

  beforeAll(async () => {
    // The page's clock from noon UTC on TEST_DAY: the demo's answers count from that day.
    ({ page } = await pane.open({
      errors: pageErrors,
      restoreOnReload: true,
      clock: { time: noonUtc() },
      before: async (p) => {
        p.on("request", (r) => requests.push(new URL(r.url()).pathname));
        await p.route(
          (u) => refused.some((f) => u.pathname.endsWith(`/${f}`)),
          (route) => (offline ? route.abort() : route.continue()),
        );
      },
    }));
  });

  const { text, waitText } = paneWaits(() => page, pageErrors, 20_000);
  const exactly = (s: string) => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
  /** COMPLIANCE.SCORE of one UPRN, as its cell would show it: the value, or the error's code and message. */
  const score = (uprn: string) =>
    page.evaluate(async (u) => {
      const f = (window as any).__excelStandIn.state.customFunctions;
      return f.SCORE(u).then(
        (v: unknown) => ({ v }),
        (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
      );
    }, uprn);

  test("the page starts without the service client", async () => {
    await page.click("#try-demo");
    await waitText("key-state", /^demo \(built-in demo data/);
    expect(requests).toContain("/taskpane.js");
    expect(requests).not.toContain("/service.js");
  });

  test("while service.js cannot be fetched, Check, Find a UPRN and a function cell say so, and nothing waits", async () => {
    await page.click("#insert-sample");
    await waitText("status", /^Sample table of/);

    await page.click("#check");
    await waitText("banner", exactly(CHUNK_MISSING));
    expect(requests).toContain("/service.js");
    // The pane is ready for another try: Check back, no Cancel, no run said to be under way.
    expect(await page.isDisabled("#check")).toBe(false);
    expect(await page.isVisible("#cancel")).toBe(false);
    expect(await text("status")).not.toMatch(/Checking|Reading/);

    await page.evaluate(() => (document.getElementById("banner")!.textContent = ""));
    await page.fill("#lookup-text", "SW1A 2AA");
    await page.click("#lookup");
    await waitText("banner", exactly(CHUNK_MISSING));
    expect(await text("lookup-status")).not.toMatch(/Searching/);

    expect(await score(UPRN)).toEqual({ code: "#N/A", message: CHUNK_MISSING });
  });

  test("once service.js can be fetched, the same page answers without a reload", async () => {
    offline = false;
    const p = demoProperties(TEST_DAY).find((x) => x.uprn === UPRN)!;
    expect(await score(UPRN)).toEqual({ v: p.result.compliance_score });

    await page.click("#check");
    await waitText("status", /^(Done|Finished)/, 60_000);
    expect(await text("banner")).toBe("");
    expect(pageErrors).toEqual([]);
  });

  test("the digest card reads the last check's block without the service client", async () => {
    // The same workbook opened again, with service.js out of reach: the card needs the sheet, never the service.
    offline = true;
    const saved = await page.evaluate(() => (window as any).__excelStandIn.dump());
    await page.evaluate((d) => sessionStorage.setItem("standin-restore", d), saved);
    requests.length = 0;
    await page.reload();
    await waitText("digest-status", /^(Since the last digest|No digest yet)/);
    expect(requests).not.toContain("/service.js");
    expect(requests).not.toContain("/check.js");
    expect(await text("banner")).not.toContain(CHUNK_MISSING);
    expect(pageErrors).toEqual([]);
  });

  test("while the Action list's code cannot be fetched, the digest and Action list cards say so", async () => {
    refused.push("action-sheets.js");
    const saved = await page.evaluate(() => (window as any).__excelStandIn.dump());
    await page.evaluate((d) => sessionStorage.setItem("standin-restore", d), saved);
    await page.reload();
    await waitText("digest-status", exactly(CHUNK_MISSING));
    await page.click("#refresh-actions");
    await waitText("actions-status", exactly(CHUNK_MISSING));
    await page.evaluate(() => (document.getElementById("actions-status")!.textContent = ""));
    await page.click("#download-ics");
    await waitText("actions-status", exactly(CHUNK_MISSING));
    expect(pageErrors).toEqual([]);
  });
});
