/**
 * OfficeRuntime.storage's 10 MB per domain, in the BUILT pane in headless Chromium against the sandbox over loopback
 * (the Excel stand-in models the limit): a check that cannot be saved for Resume says so and sends no bulk job a Resume
 * could not know of; a check begun beside an unfinished run whose setting aside is refused keeps that run, says so, and
 * sends nothing.
 */
import type { Page } from "playwright-core";
import { acceptReply, createRun, dueRequests, normaliseProperty, stopRun, storedState } from "../../../core";
import { describeWithChromium } from "../../helpers/chromium";
import { knownUprns, sandbox, type Sandbox } from "../../helpers/sandbox";
import { servedPane } from "../helpers/pane";

const KEY = "sandbox-professional";
const UNFINISHED_KEY = "compliance.unfinishedRun";
const run = describeWithChromium();

run("the built pane with OfficeRuntime.storage nearly full", () => {
  let sb: Sandbox;
  const pane = servedPane();
  beforeAll(async () => {
    sb = await sandbox(100);
  });
  afterAll(async () => {
    await sb?.close();
  });

  const openPane = async (): Promise<Page> =>
    (await pane.open({ settings: { baseUrl: sb.baseUrl, key: KEY, fresh: true } })).page;

  /** Fills the domain's storage to `leftBytes` short of 10 MB, counted as the stand-in counts (UTF-16, key and value). */
  const fill = (page: Page, leftBytes: number) =>
    page.evaluate(async (left) => {
      let used = 0;
      for (let i = 0; i < localStorage.length; i++) {
        const k = localStorage.key(i)!;
        used += 2 * (k.length + localStorage.getItem(k)!.length);
      }
      const chars = Math.floor((10 * 1024 * 1024 - used - left) / 2) - "filler".length;
      await (window as any).OfficeRuntime.storage.setItem("filler", "x".repeat(chars));
    }, leftBytes);
  const text = (page: Page, id: string) => page.evaluate((i) => document.getElementById(i)!.textContent ?? "", id);
  const seedTable = (page: Page, uprns: string[]) =>
    page.evaluate((us) => {
      const x = (window as any).__excelStandIn;
      x.seed("Sheet1", "A1", [["UPRN"], ...us.map((u) => [u])]);
      x.select("Sheet1", `A1:A${us.length + 1}`);
    }, uprns);

  test("the stand-in refuses a save past 10 MB, as OfficeRuntime.storage does", async () => {
    const page = await openPane();
    await fill(page, 1000);
    const refused = await page.evaluate(() =>
      (window as any).OfficeRuntime.storage.setItem("more", "y".repeat(600)).then(
        () => "",
        (e: Error) => e.message,
      ),
    );
    expect(refused).toMatch(/10 MB per domain/);
    // Replacing an item counts its new size only: a smaller filler fits.
    const smaller = await page.evaluate(() =>
      (window as any).OfficeRuntime.storage.setItem("filler", "x").then(
        () => "saved",
        (e: Error) => e.message,
      ),
    );
    expect(smaller).toBe("saved");
    await page.close();
  });

  test("a check that cannot be saved for Resume says so, and sends no bulk job", async () => {
    const page = await openPane();
    const uprns = knownUprns(sb, 20);
    await seedTable(page, uprns);
    await fill(page, 2000);
    sb.reset();
    await page.click("#check");
    await page.waitForFunction(() => !document.getElementById("banner")!.hidden, undefined, { timeout: 30_000 });
    const banner = await text(page, "banner");
    expect(banner).toMatch(/could not be saved on this computer for Resume \(Storage limit exceeded/);
    expect(banner).toMatch(/Discard/);
    expect(banner).toMatch(/next bulk job was not sent/);
    expect(sb.stats().bulk_submit).toBe(0);
    await page.close();
  });

  test("checking beside an unfinished run whose setting aside is refused keeps that run, says so, and sends nothing", async () => {
    const page = await openPane();
    const uprns = knownUprns(sb, 30);
    // A run left unfinished as a closed pane leaves it: its bulk job sent (paid for), its results not collected.
    const state = createRun(
      uprns.slice(0, 10).map((u, i) => ({ ...normaliseProperty(u, "", ""), index: i + 1 })),
      { plan: "professional", nowMs: Date.now() },
    );
    for (const r of dueRequests(state, { baseUrl: sb.baseUrl, apiKey: KEY }, Date.now()).requests) {
      const res = await fetch(r.request.url, {
        method: r.request.method,
        headers: r.request.headers,
        body: r.request.body,
      });
      acceptReply(state, r.id, { status: res.status, headers: res.headers, text: await res.text() }, Date.now());
    }
    expect(state.jobs[0].poll?.jobId).toBeTruthy();
    stopRun(state, "The pane was closed.");
    const left = JSON.stringify({
      version: 2,
      startedAt: new Date().toISOString(),
      plan: "professional",
      sheet: "Earlier",
      headerRow: 0,
      blockColumn: 1,
      inputColumns: { uprn: 0 },
      state: storedState(state),
    });
    await page.evaluate(([k, v]) => (window as any).OfficeRuntime.storage.setItem(k, v), [UNFINISHED_KEY, left]);
    await seedTable(page, uprns.slice(10));
    // Room for the new run's own save, not for a second copy of the unfinished one beside it.
    await fill(page, left.length);
    sb.reset();
    await page.click("#check");
    await page.waitForFunction(() => !document.getElementById("check-anyway")!.hidden);
    await page.click("#check-anyway");
    await page.waitForFunction(() => !document.getElementById("banner")!.hidden, undefined, { timeout: 30_000 });
    const banner = await text(page, "banner");
    expect(banner).toMatch(
      /The unfinished check of 10 rows on Earlier could not be set aside on this computer \(Storage limit exceeded.*nothing was sent.*That check is kept: choose Resume/,
    );
    expect(sb.stats().total).toBe(0);
    // Still there, and still offered.
    expect(await page.evaluate((k) => (window as any).OfficeRuntime.storage.getItem(k), UNFINISHED_KEY)).toBe(left);
    await page.waitForFunction(() => !document.getElementById("unfinished")!.hidden);
    expect(await text(page, "unfinished-text")).toMatch(/10 rows on Earlier/);
    await page.close();
  });
});
