/**
 * A run left mid-run, in the BUILT pane in headless Chromium against a slow sandbox over loopback: the pane is
 * reloaded while its bulk job runs (the stored run's phase is still "running", its job paid for). The pane opened
 * again offers it for Resume; a check begun beside it asks to resume it first, and checking anyway keeps it; Resume
 * then collects its job with GETs only (POSTs counted at the sandbox).
 */
import type { Page } from "playwright-core";
import { OUTPUT_COLUMNS, type RunState } from "../../../core";
import { colLetters } from "../../helpers/excel-standin";
import { reopenWorkbook, standIn as callStandIn } from "../helpers/stand-in-page";
import { describeWithChromium } from "../../helpers/chromium";
import { knownUprns, sandbox, type Sandbox } from "../../helpers/sandbox";
import { paneReady, servedPane } from "../helpers/pane";

const KEY = "sandbox-professional";
const UNFINISHED_KEY = "compliance.unfinishedRun";
const HELD_KEY = "compliance.unfinishedRun.heldAside";
const MATCHED = OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn");
const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");
const run = describeWithChromium();

run("the built pane reloaded mid-run", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let page: Page;
  const pageErrors: string[] = [];

  const text = (id: string) => page.evaluate((i) => document.getElementById(i)!.textContent ?? "", id);
  const waitText = (id: string, re: RegExp, timeout = 30_000) =>
    page
      .waitForFunction(
        ([i, src]) => new RegExp(src).test(document.getElementById(i)!.textContent ?? ""),
        [id, re.source] as const,
        { timeout },
      )
      .catch(async (e) => {
        throw new Error(`${e.message}\n#${id}: ${await text(id)}\npage errors: ${pageErrors.join("\n")}`);
      });
  const standIn = <T>(fn: string, ...args: unknown[]) => callStandIn(page)<T>(fn, ...args);
  const stored = (k: string) =>
    page.evaluate((key) => (window as any).OfficeRuntime.storage.getItem(key) as Promise<string | null>, k);
  const block = async (first: number, last: number) =>
    (await standIn<{ values: unknown[][] }>("read", "Sheet1", `B${first}:${colLetters(OUTPUT_COLUMNS.length)}${last}`))
      .values;
  const waitIdle = () =>
    page.waitForFunction(
      () =>
        !(document.getElementById("check") as HTMLButtonElement).disabled && document.getElementById("cancel")!.hidden,
      undefined,
      { timeout: 60_000 },
    );
  const wired = () => paneReady(page, pageErrors);

  beforeAll(async () => {
    // 150 ms a property: a job of 20 rows runs 3 s, long enough to reload the pane while it runs.
    sb = await sandbox(150);
    ({ page } = await pane.open({
      errors: pageErrors,
      restoreOnReload: true,
      settings: { baseUrl: sb.baseUrl, key: KEY, fresh: true },
    }));
  });
  afterAll(async () => {
    await sb?.close();
  });

  test("reloaded mid-run, then a check beside it: the run is offered, kept, and its Resume collects its job with no second POST", async () => {
    const uprns = knownUprns(sb, 30);
    await standIn("seed", "Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    await standIn("select", "Sheet1", "A2:A21");
    sb.reset();
    await page.click("#check");
    // The job is sent (paid for) and the run stored with it, still running.
    let left: { state: RunState } | null = null;
    for (let i = 0; i < 200 && !left?.state.jobs.some((j) => j.poll?.jobId); i++) {
      await new Promise((r) => setTimeout(r, 20));
      const raw = await stored(UNFINISHED_KEY);
      left = raw ? JSON.parse(raw) : null;
    }
    expect(left?.state.phase).toBe("running");
    expect(left?.state.jobs.some((j) => j.poll?.jobId)).toBe(true);
    expect(sb.stats().bulk_submit).toBe(1);

    // The pane is reloaded mid-run: the workbook opens again as it was, the run's rows still marked Checking….
    const saved = await standIn<string>("dump");
    await reopenWorkbook(page, saved);
    await wired();
    expect(JSON.parse((await stored(UNFINISHED_KEY))!).state.phase).toBe("running");
    // Opened again, the pane offers it for Resume, as a stopped run: its job is paid for.
    await page.waitForFunction(() => !document.getElementById("unfinished")!.hidden);
    expect(await text("unfinished-text")).toMatch(
      /^A check of 20 rows on Sheet1, started .* UTC, is unfinished\. \d+ of 20 rows checked\. \d+ rows? (is|are) in jobs already sent: choose Resume to collect them \(no new job is sent\)\.$/,
    );

    // A check of other rows beside it asks to resume it first (core's question).
    await standIn("select", "Sheet1", "A25:A27");
    await page.click("#check");
    await page.waitForFunction(() => !document.getElementById("check-anyway")!.hidden);
    expect(await text("unfinished-text")).toMatch(
      /^A check of 20 rows on Sheet1 \(started .* UTC, run \w+\) is unfinished: \d+ rows wait for results already paid for\. Resume it first\?/,
    );
    expect(sb.stats().bulk_submit).toBe(1);
    // Checking anyway: the new check runs, the earlier run is kept aside and offered again when it ends.
    await page.click("#check-anyway");
    await waitText("status", /Done/);
    await waitIdle();
    expect(sb.stats().bulk_submit).toBe(2);
    expect((await block(25, 27)).map((r) => r[MATCHED])).toEqual(uprns.slice(23, 26));
    expect(await stored(UNFINISHED_KEY)).toBeNull();
    expect(JSON.parse((await stored(HELD_KEY))!)).toHaveLength(1);
    await page.waitForFunction(() => !document.getElementById("unfinished")!.hidden);
    expect(await text("unfinished-text")).toMatch(/^A check of 20 rows on Sheet1, .* is unfinished\./);
    // The earlier run's rows were left as they were: still waiting for its results.
    expect((await block(2, 21)).every((r) => /^Checking…/.test(String(r[MESSAGE])))).toBe(true);

    // Resume collects the job already paid for: GETs only, every row written.
    const beforeResume = sb.stats();
    await page.click("#resume");
    await waitText("status", /Done/);
    await waitIdle();
    const after = sb.stats();
    expect(after.bulk_submit).toBe(2);
    expect(after.bulk_results).toBeGreaterThan(beforeResume.bulk_results);
    const rows = await block(2, 21);
    expect(rows.map((r) => r[MATCHED])).toEqual(uprns.slice(0, 20));
    expect(rows.filter((r) => /^Checking…|not sent|changed/.test(String(r[MESSAGE])))).toEqual([]);
    expect(await stored(UNFINISHED_KEY)).toBeNull();
    expect(await stored(HELD_KEY)).toBeNull();
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
