/**
 * The pane at Office's narrowest task pane, 320 px, and the Sheets sidebar at Google's 300 px: every section (every
 * <details> opened, a run's Details too) and every sidebar tab fits, with no horizontal scrolling and no control or table cut off at the
 * right. The BUILT pages in headless Chromium: the pane with the Excel stand-in, the sidebar over the built Code.js.
 */
import type { Browser, Page } from "playwright-core";
import { ensureExcelBuild } from "../helpers/build";
import { describeWithChromium, launch } from "../../helpers/chromium";
import { openBuiltPane, paneWaits } from "../helpers/pane";
import { serveStatic } from "../helpers/static-server";
import { sandbox } from "../../helpers/sandbox";
import { openSidebar } from "../../gsheets/harness/browser";
import { createGasEnvironment } from "../../gsheets/harness/gas";
import { startSandboxProcess } from "../../gsheets/harness/sandbox";
import { API_KEY, seedTable } from "../../gsheets/harness/table";

const run = describeWithChromium();

/** Whatever sticks out past the page's right edge, or makes it scroll sideways: "tag#id.class (right px)". */
async function overflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width)
      out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} px in ${width}`);
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>("*"))) {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height || getComputedStyle(el).visibility === "hidden") continue;
      // Clipped inside a box that scrolls or hides: only the box itself counts.
      if (r.right > width + 0.5) {
        const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className.split(" ")[0]}` : ""}`;
        out.push(`${name} (right ${Math.round(r.right)} px)`);
      }
    }
    return out;
  });
}

/**
 * Controls that fit the width yet hide part of themselves: a checkbox stretched into a wide box with its words pushed
 * to the next line, and a drop-down narrower than its longest choice (whose text is then cut off).
 */
async function misshapen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const shown = (el: HTMLElement) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
    for (const box of Array.from(document.querySelectorAll<HTMLInputElement>('input[type="checkbox"]'))) {
      if (!shown(box)) continue;
      const r = box.getBoundingClientRect();
      const words = box.labels?.[0];
      const w = words?.getBoundingClientRect();
      // Beside its words: the label's box (or the text after the box, when the label holds it) shares the box's line.
      const text = words && words.contains(box) ? words.lastChild : null;
      const range = document.createRange();
      if (text) range.selectNodeContents(text);
      const t = text ? range.getBoundingClientRect() : w;
      if (r.width > 24 || !t || t.top > r.bottom || t.bottom < r.top)
        out.push(`checkbox #${box.id}: ${Math.round(r.width)} px wide, its words ${t ? "on another line" : "missing"}`);
    }
    for (const select of Array.from(document.querySelectorAll<HTMLSelectElement>("select"))) {
      if (!shown(select)) continue;
      const natural = select.cloneNode(true) as HTMLSelectElement;
      natural.removeAttribute("id");
      Object.assign(natural.style, {
        position: "absolute",
        visibility: "hidden",
        width: "auto",
        minWidth: "0",
        maxWidth: "none",
      });
      select.parentElement!.appendChild(natural);
      const needs = natural.getBoundingClientRect().width;
      natural.remove();
      const has = select.getBoundingClientRect().width;
      if (needs > has + 1)
        out.push(`select #${select.id}: ${Math.round(has)} px for ${Math.round(needs)} px of choices`);
    }
    return out;
  });
}

run("the pane and the sidebar at their narrowest", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => browser?.close());

  test("every section of the Excel pane fits at 320 px, all of them open", async () => {
    const web = await serveStatic(ensureExcelBuild());
    try {
      const { page } = await openBuiltPane(browser, web.url, {
        context: { viewport: { width: 320, height: 900 } },
        timeout: 30_000,
      });
      await page.evaluate(() =>
        document.querySelectorAll("details").forEach((d) => ((d as HTMLDetailsElement).open = true)),
      );
      const sections = await page.$$eval("section, details", (els) => els.length);
      expect(sections).toBeGreaterThan(5);
      expect(await overflow(page)).toEqual([]);
      expect(await page.$$eval('input[type="checkbox"]', (els) => els.length)).toBeGreaterThanOrEqual(2);
      expect(await misshapen(page)).toEqual([]);
    } finally {
      await web.close();
    }
  });

  test("after a check at 320 px, the status says what happened in one line, the rest under Details, and still fits", async () => {
    const web = await serveStatic(ensureExcelBuild());
    const sb = await sandbox(0);
    try {
      const examples = await (await fetch(`${sb.url}/__sandbox/examples`)).json();
      const st = examples.uprn_by_check_status;
      const { page, errors } = await openBuiltPane(browser, web.url, {
        context: { viewport: { width: 320, height: 900 } },
        timeout: 30_000,
      });
      const { waitText } = paneWaits(() => page, errors);
      await page.fill("#base-url", sb.baseUrl);
      await page.click("#save-base-url");
      await page.fill("#api-key", "sandbox-professional");
      await page.click("#save-key");
      await waitText("settings-status", /accepted/);
      await page.evaluate(
        (values) => {
          const x = (window as any).__excelStandIn;
          x.seed("Sheet1", "A1", values);
          x.select("Sheet1", "A2:A5");
        },
        [["UPRN"], [st.epc.pass], [st.epc.fail], ["12ab"], [st.gas_safety.warning]],
      );
      await page.click("#check");
      await waitText("status", /^(Done|Finished)/);
      const status = await page.evaluate(() => {
        const el = document.getElementById("status")!;
        const details = el.querySelector("details");
        return {
          shown: el.innerText.trim().split("\n"),
          open: details?.open,
          more: details?.querySelector("div")?.textContent?.split("\n").length ?? 0,
        };
      });
      // One line on what happened, then the Details summary; the rest (placement, statuses, Run log) is there on demand.
      expect(status.shown).toEqual([expect.stringMatching(/^Done\. 4 rows checked, 1 with errors/), "Details"]);
      expect(status.open).toBe(false);
      expect(status.more).toBeGreaterThanOrEqual(2);
      await page.click("#status summary");
      await page.evaluate(() =>
        document.querySelectorAll("details").forEach((d) => ((d as HTMLDetailsElement).open = true)),
      );
      expect(await page.isVisible("#problems-box")).toBe(true);
      expect(await overflow(page)).toEqual([]);
    } finally {
      await sb.close();
      await web.close();
    }
  });

  test("every tab of the Sheets sidebar fits at Google's 300 px", async () => {
    const env = createGasEnvironment();
    const { page } = await openSidebar(browser, env);
    const tabs = await page.$$eval('[role="tab"]', (els) => els.map((e) => e.id));
    expect(tabs.length).toBeGreaterThanOrEqual(3);
    const found: Record<string, string[]> = {};
    for (const id of tabs) {
      await page.click(`#${id}`);
      await page.evaluate(() =>
        document.querySelectorAll("details").forEach((d) => ((d as HTMLDetailsElement).open = true)),
      );
      // A weekly schedule shows all three of its drop-downs (mode, day, hour) side by side, the widest the form gets.
      if (await page.isVisible("#schedule-mode")) await page.selectOption("#schedule-mode", "weekly");
      found[id] = [...(await overflow(page)), ...(await misshapen(page))];
    }
    expect(found).toEqual(Object.fromEntries(tabs.map((id) => [id, []])));
  });

  test("after a check at Google's 300 px, the sidebar's status says what happened in one line, the rest under Details, and still fits", async () => {
    const sb = await startSandboxProcess();
    try {
      const env = createGasEnvironment();
      env.run("saveSettings", { apiKey: API_KEY, baseUrl: sb.baseUrl, plan: "professional" });
      const uprns = (await sb.properties(3)).map((p) => [p.uprn]);
      const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN"], [...uprns, ["12ab"]]);
      env.sheet.select(`A${firstRow}:A${lastRow}`);
      const { page } = await openSidebar(browser, env);
      await page.click("#check-btn");
      await page.waitForFunction(
        () => /Last run/.test(document.getElementById("run-details-text")!.textContent ?? ""),
        undefined,
        { timeout: 60_000 },
      );
      const status = await page.evaluate(() => ({
        shown: document.getElementById("run-status")!.innerText.trim().split("\n"),
        open: (document.getElementById("run-details") as HTMLDetailsElement).open,
        summary: document.querySelector("#run-details summary")!.textContent,
        more: document.getElementById("run-details-text")!.textContent!.split("\n").length,
      }));
      expect(status).toEqual({
        shown: ["Done. 4 rows checked, 1 with errors (see the Message column)."],
        open: false,
        summary: "Details",
        more: expect.any(Number),
      });
      // Statuses, the Action list and summary, the Run log: there on demand.
      expect(status.more).toBeGreaterThanOrEqual(3);
      await page.click("#run-details summary");
      expect(await page.$eval("#run-details", (d) => (d as HTMLDetailsElement).open)).toBe(true);
      await page.evaluate(() =>
        document.querySelectorAll("details").forEach((d) => ((d as HTMLDetailsElement).open = true)),
      );
      expect(await overflow(page)).toEqual([]);
      await page.close();
    } finally {
      await sb.close();
    }
  });
});
