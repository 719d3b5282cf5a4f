/**
 * End to end: the BUILT sidebar in headless Chromium, its google.script.run calls bridged to the BUILT
 * Code.js in a vm, real HTTP to the sandbox. Settings, the bulk-check button, lookup; pictures saved when asked for
 * (test/helpers/pictures.ts).
 */
import type { Browser, Page } from "playwright-core";
import { OUTPUT_COLUMNS, STATUS_COLOURS } from "../../../core";
import { PAGE_WORDS } from "../../../core/page-words";
import { picturesWanted, savePicture } from "../../helpers/pictures";
import { describeWithSidebar, launch, openSidebar } from "../harness/browser";
import { createGasEnvironment } from "../harness/gas";
import { startSandboxProcess, type SandboxProcess, type SandboxProperty } from "../harness/sandbox";
import { API_KEY, STATUS_KEYS, cellValue, expectedFill, outputCol, pollToEnd, seedTable } from "../harness/table";

/**
 * Moves a page opened with { clock: true } on a second at a time until `done`, each step given a moment of the wall
 * for the calls it starts, rather than waiting out the sidebar's poll and retry intervals.
 */
async function advanceUntil(page: Page, done: () => Promise<boolean> | boolean, steps = 60): Promise<void> {
  for (let i = 0; i < steps && !(await done()); i++) {
    await page.clock.fastForward(1000);
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(await done()).toBe(true);
}
const maybe = describeWithSidebar();

maybe("Google Sheets sidebar in Chromium", () => {
  let sandbox: SandboxProcess;
  let props: SandboxProperty[];
  let browser: Browser;

  beforeAll(async () => {
    sandbox = await startSandboxProcess({ msPerProperty: 1 });
    props = await sandbox.properties(1200);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  test("save a key, click the bulk-check button, and the sheet ends with every row's values and colours", async () => {
    const env = createGasEnvironment();
    const rows: unknown[][] = props.slice(0, 1100).map((p) => [p.uprn, p.postcode, p.address]);
    rows[3] = ["not-a-uprn", "", ""];
    rows[7] = [props[0].uprn, "", ""]; // duplicate of the first row
    const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN", "Postcode", "Address"], rows);
    env.sheet.select(`A${firstRow}:C${lastRow}`);

    const { page, calls } = await openSidebar(browser, env);
    // No key yet: the sidebar opens on Settings and says, in visible words, where a key comes from.
    await page.waitForSelector("#panel-settings:not([hidden])");
    await page.waitForFunction(() => /API key/.test(document.getElementById("message")!.textContent || ""));
    expect(await page.textContent("#message")).toMatch(/your account's API page/);
    expect(await page.textContent("#message")).not.toMatch(/under Settings/);
    expect(await page.isVisible("#api-key-help")).toBe(true);
    expect(await page.textContent("#api-key-help")).toMatch(/your account's API page/);

    // The tabs follow the ARIA pattern: only the selected tab is in the Tab order, arrows move between them.
    expect(
      await page.$$eval('[role="tab"]', (t) =>
        t.map((x) => [
          x.id,
          x.getAttribute("aria-selected"),
          (x as HTMLElement).tabIndex,
          x.getAttribute("aria-controls"),
        ]),
      ),
    ).toEqual([
      ["tab-check", "false", -1, "panel-check"],
      ["tab-lookup", "false", -1, "panel-lookup"],
      ["tab-settings", "true", 0, "panel-settings"],
      ["tab-help", "false", -1, "panel-help"],
    ]);
    expect(await page.getAttribute("#panel-lookup", "aria-labelledby")).toBe("tab-lookup");
    await page.focus("#tab-settings");
    await page.keyboard.press("ArrowRight"); // to Help
    expect(await page.evaluate(() => document.activeElement!.id)).toBe("tab-help");
    expect(await page.isVisible("#panel-help")).toBe(true);
    expect(await page.textContent("#panel-help")).toMatch(/Errors and what to do/);
    await page.keyboard.press("ArrowRight"); // wraps to the first tab
    expect(await page.evaluate(() => document.activeElement!.id)).toBe("tab-check");
    expect(await page.getAttribute("#tab-check", "aria-selected")).toBe("true");
    expect(await page.isVisible("#panel-check")).toBe(true);
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    expect(await page.evaluate(() => document.activeElement!.id)).toBe("tab-settings");
    expect(await page.isHidden("#panel-check")).toBe(true);
    expect(await page.$$eval('[role="tab"][tabindex="0"]', (t) => t.map((x) => x.id))).toEqual(["tab-settings"]);

    // A key the service refuses: Enter in the field saves (tries) it; it is refused, as an alert, and not kept.
    await page.fill("#api-key", "sandbox-wrong-key-123");
    await page.fill("#base-url", sandbox.baseUrl);
    await page.press("#api-key", "Enter");
    await page.waitForFunction(() => /^Not saved/.test(document.getElementById("message")!.textContent || ""));
    expect(await page.textContent("#message")).toMatch(/^Not saved: The API key was not accepted by the service/);
    expect(await page.getAttribute("#message", "class")).toBe("msg error");
    expect(await page.getAttribute("#message", "role")).toBe("alert");
    expect(await page.textContent("#key-masked")).toBe("none");
    expect(env.userProperties.data.has("compliance.apiKey")).toBe(false);
    expect(await page.inputValue("#base-url")).toBe(sandbox.baseUrl); // what was typed stays, to be corrected

    await page.fill("#api-key", API_KEY);
    await page.selectOption("#plan", "professional");
    await page.press("#base-url", "Enter");
    await page.waitForFunction(() => document.getElementById("key-masked")!.textContent !== "none");
    expect(await page.textContent("#message")).toBe("API key saved and accepted by the service.");
    expect(await page.getAttribute("#message", "role")).toBe("status");
    const masked = await page.textContent("#key-masked");
    expect(masked).not.toContain(API_KEY);
    expect(await page.inputValue("#api-key")).toBe("");
    expect(await page.content()).not.toContain(API_KEY);
    expect(env.userProperties.data.get("compliance.apiKey")).toBe(API_KEY);

    await page.click("#tab-check");
    await page.click("#check-btn");
    await page.waitForFunction(
      () => /^Done/.test(document.getElementById("run-status")!.textContent || ""),
      undefined,
      { timeout: 90000 },
    );
    const progress = await page.$eval("#progress", (el) => [
      (el as HTMLProgressElement).value,
      (el as HTMLProgressElement).max,
    ]);
    expect(progress[0]).toBe(progress[1]);
    // Beside the bar, core's words as the Excel pane shows them (runCaption), after the rows' place.
    expect(await page.textContent("#progress-text")).toMatch(/^Sheet1!A2:C1101: 1,100 of 1,100 rows checked$/);
    // The headline alone; the rest (statuses, the sheets built, the Run log) waits under a closed Details.
    expect(await page.textContent("#run-status")).toBe(
      "Done. 1,100 rows checked, 1 with errors (see the Message column).",
    );
    expect(await page.isVisible("#run-details")).toBe(true);
    expect(await page.$eval("#run-details", (d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.textContent("#run-details summary")).toBe("Details");
    expect(await page.getAttribute("#run-status", "class")).not.toMatch(/error/);
    expect(
      await page.$$eval("#jobs li", (li) => li.map((x) => (x.textContent || "").replace(/\(bulk_[^)]*\)/, "(id)"))),
    ).toEqual(["Job 1 (id): completed, 1,000 of 1,000 checked", "Job 2 (id): completed, 98 of 98 checked"]);
    expect(await page.$$eval("#notes li", (li) => li.map((x) => x.textContent || ""))).toEqual(
      expect.arrayContaining([
        "1 row with input errors; see its Message.",
        "1 duplicate row shares a check with an earlier row.",
      ]),
    );
    expect(calls.filter((c) => c === "startBulkCheck")).toHaveLength(1);
    expect(calls.filter((c) => c === "pollBulkCheck").length).toBeGreaterThanOrEqual(1);
    // Right after the last poll, the sidebar asks for the end of the run once: the Action list, summary and Run log.
    await page.waitForFunction(() =>
      /Action list[\s\S]*Last run/.test(document.getElementById("run-details-text")!.textContent || ""),
    );
    expect(calls.filter((c) => c === "finishBulkCheck")).toHaveLength(1);
    expect(calls.lastIndexOf("finishBulkCheck")).toBeGreaterThan(calls.lastIndexOf("pollBulkCheck"));
    expect(env.spreadsheet.getSheetByName("Action list")).toBeTruthy();
    expect(env.spreadsheet.getSheetByName("Run log")!.getLastRow()).toBe(2);

    // The sheet: every data row has a result or its own error, coloured by status.
    const uprnCol = outputCol(env.sheet, "matched_uprn");
    const msgCol = outputCol(env.sheet, "message");
    for (let r = firstRow; r <= lastRow; r++) {
      const i = r - firstRow;
      if (i === 3) {
        expect(String(cellValue(env.sheet, r, msgCol))).toMatch(/UPRN/);
        continue;
      }
      const p = i === 7 ? props[0] : props[i];
      expect(String(cellValue(env.sheet, r, uprnCol))).toBe(p.uprn);
      for (const [key, check] of STATUS_KEYS) {
        const col = outputCol(env.sheet, key);
        expect(cellValue(env.sheet, r, col)).toBe(p.checks[check].status);
        expect(env.sheet.effectiveFill(r, col)).toBe(expectedFill(p.checks[check].status));
      }
    }
    const epc = outputCol(env.sheet, "epc_status");
    expect(env.sheet.effectiveFill(firstRow + 3, epc)).toBe(STATUS_COLOURS.error.fill);
    expect(env.sheet.formulas()).toEqual([]);
    await savePicture(page, "gsheets-sidebar.png");

    // A picture of the sheet as the user sees it: the first rows of the output block with their fills.
    if (picturesWanted()) {
      const shown = 14;
      const headers = ["UPRN", ...OUTPUT_COLUMNS.slice(0, 16).map((c) => c.header)];
      const cols = [1, ...OUTPUT_COLUMNS.slice(0, 16).map((c) => outputCol(env.sheet, c.key))];
      const cells = (r: number) =>
        cols
          .map((c) => {
            const v = cellValue(env.sheet, r, c);
            const text =
              v instanceof Date || Object.prototype.toString.call(v) === "[object Date]"
                ? (v as Date).toISOString().slice(0, 10)
                : String(v);
            const fill = env.sheet.effectiveFill(r, c) || "#fff";
            const font = env.sheet.effectiveFont(r, c) || "#202124";
            return `<td style="background:${fill};color:${font}">${text.replace(/</g, "&lt;")}</td>`;
          })
          .join("");
      const table = `<table><tr>${headers.map((h) => `<th>${h}</th>`).join("")}</tr>${Array.from({ length: shown }, (_, i) => `<tr>${cells(firstRow + i)}</tr>`).join("")}</table>`;
      const sheetPage = await browser.newPage({ viewport: { width: 1500, height: 480 } });
      await sheetPage.setContent(
        `<style>body{font:12px Arial;margin:8px}table{border-collapse:collapse}td,th{border:1px solid #e0e0e0;padding:2px 6px;white-space:nowrap}th{background:#f8f9fa}</style>${table}`,
      );
      await savePicture(sheetPage, "gsheets-sheet.png", false);
      await sheetPage.close();
    }
    await page.close();
  });

  test("window settings: a value that is not a whole number of days is refused with the field named, marked and focused; nothing is saved", async () => {
    const env = createGasEnvironment();
    const { page } = await openSidebar(browser, env);
    await page.waitForSelector("#panel-settings:not([hidden])");
    await page.evaluate(() => ((document.getElementById("windows-settings") as HTMLDetailsElement).open = true));
    // The words the sidebar shares with the Excel pane are core's, written in as the page loads.
    for (const [key, text] of Object.entries(PAGE_WORDS))
      expect([key, (await page.textContent(`[data-words="${key}"]`))?.trim()]).toEqual([key, text]);
    const field = "#win-eicr-urgent";
    for (const [typed, said] of [
      ["1e2", /^Not saved: EICR urgent window: "1e2" is not a whole number of days/],
      ["", /^Not saved: EICR urgent window is empty, or what was typed is not a number/],
    ] as const) {
      await page.fill(field, typed);
      await page.click("#save-settings");
      await page.waitForFunction(
        (src) => new RegExp(src).test(document.getElementById("message")!.textContent || ""),
        said.source,
      );
      expect(await page.getAttribute(field, "aria-invalid")).toBe("true");
      expect(await page.evaluate(() => document.activeElement!.id)).toBe("win-eicr-urgent");
      // What was typed stays in the field to be corrected.
      expect(await page.inputValue(field)).toBe(typed);
    }
    expect(Object.keys(env.userProperties.getProperties()).filter((k) => /window/i.test(k))).toEqual([]);
    await page.close();
  });

  test("reopening the sidebar resumes a running check; lookup inserts a UPRN into the active cell", async () => {
    const env = createGasEnvironment();
    env.run("saveSettings", { apiKey: API_KEY, baseUrl: sandbox.baseUrl, plan: "professional" });
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(0, 400).map((p) => [p.uprn]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);

    // The user had closed the sidebar; opening it again (a fresh execution) picks the run up.
    const reopened = createGasEnvironment({ from: env });
    const { page } = await openSidebar(browser, reopened, { clock: true });
    await page.waitForFunction(
      () => /^Done/.test(document.getElementById("run-status")!.textContent || ""),
      undefined,
      { timeout: 90000 },
    );
    expect(String(cellValue(env.sheet, lastRow, outputCol(env.sheet, "matched_uprn")))).toBe(props[399].uprn);

    // The Selection line follows the sheet: at once when the sidebar gets focus, and every few seconds anyway.
    env.sheet.select("H20");
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await page.waitForFunction(() => document.getElementById("selection")!.textContent === "Sheet1!H20", undefined, {
      timeout: 3000,
    });
    env.sheet.select("B3:C4");
    // No focus this time: the next tick of the page's clock (every 5 s) asks.
    await page.clock.fastForward(5000);
    await page.waitForFunction(() => document.getElementById("selection")!.textContent === "Sheet1!B3:C4", undefined, {
      timeout: 3000,
    });
    env.sheet.select("H20");

    await page.click("#tab-lookup");
    await page.fill("#lookup-postcode", props[5].postcode.toLowerCase().replace(" ", ""));
    await page.press("#lookup-postcode", "Enter"); // Enter searches, as the button does
    await page.waitForSelector(".addr button");
    expect(await page.getAttribute("#message", "role")).toBe("status");
    const texts = await page.$$eval(".addr span", (s) => s.map((x) => x.textContent || ""));
    const idx = texts.findIndex((t) => t.includes(props[5].uprn));
    expect(idx).toBeGreaterThanOrEqual(0);
    // Every button says "Insert"; its accessible name says which property.
    const label = await page.locator(".addr button").nth(idx).getAttribute("aria-label");
    expect(label).toBe(`Insert UPRN ${props[5].uprn} (${texts[idx].replace(/ \(UPRN \d+\)$/, "")})`);
    await page.locator(".addr button").nth(idx).click();
    await page.waitForFunction(() => /put in H20/.test(document.getElementById("message")!.textContent || ""));
    expect(cellValue(env.sheet, 20, 8)).toBe(props[5].uprn);
    await savePicture(page, "gsheets-sidebar-lookup.png");
    await page.close();
  });

  test("whole columns selected beside their Notes column, then a results column they edited", async () => {
    const env = createGasEnvironment();
    env.run("saveSettings", { apiKey: API_KEY, baseUrl: sandbox.baseUrl, plan: "professional" });
    const rows: unknown[][] = props.slice(0, 50).map((p, i) => [p.uprn, i % 7 === 0 ? "call agent" : ""]);
    rows[9] = ["#N/A", ""];
    rows[19] = ["", ""];
    env.sheet.seed(1, 1, [["UPRN", "Notes"], ...rows]);
    env.sheet.select("A:B");
    const { page } = await openSidebar(browser, env);
    await page.click("#check-btn");
    await page.waitForFunction(
      () => /^Done/.test(document.getElementById("run-status")!.textContent || ""),
      undefined,
      { timeout: 60000 },
    );
    const notes = await page.$$eval("#notes li", (li) => li.map((x) => x.textContent || ""));
    expect(notes.join(" ")).toMatch(/Results go in columns C:/);
    // Whole columns are their cells in use (rows 1–51), as Excel reads them: no blank rows below to leave out or count.
    expect(notes.join(" ")).not.toMatch(/left out/);
    expect(await page.textContent("#run-details-text")).toMatch(/48 of 50 rows checked/);
    await savePicture(page, "gsheets-sidebar-new-user.png");

    // The user renames one of our headers, then checks again: their column is left alone and the notes say why.
    env.sheet.seed(1, outputCol(env.sheet, "message"), [["My comments"]]);
    await page.click("#check-btn");
    await page.waitForFunction(
      () => /were changed/.test(document.getElementById("notes")!.textContent || ""),
      undefined,
      { timeout: 60000 },
    );
    await page.waitForFunction(
      () => /^Done/.test(document.getElementById("run-status")!.textContent || ""),
      undefined,
      { timeout: 60000 },
    );
    expect(await page.isEnabled("#check-btn")).toBe(true);
    await savePicture(page, "gsheets-sidebar-block-changed.png");
    await page.close();
  });

  test("Stop pressed while a poll holds the lock: the progress stays, polling goes on, and the stop is retried until it ends the run", async () => {
    // Its own sandbox at 5 ms a property: the stalled job's estimate keeps the sidebar polling every few seconds.
    const slow = await startSandboxProcess({ msPerProperty: 5 });
    try {
      const env = createGasEnvironment();
      env.run("saveSettings", { apiKey: API_KEY, baseUrl: slow.baseUrl, plan: "professional" });
      const { firstRow, lastRow } = seedTable(
        env.sheet,
        ["UPRN"],
        props.slice(0, 600).map((p) => [p.uprn]),
      );
      env.sheet.select(`A${firstRow}:A${lastRow}`);
      await slow.setFaults([{ kind: "job_stall", count: 1 }]); // the job never finishes on its own: only Stop ends the run
      const { page, calls } = await openSidebar(browser, env, { clock: true });
      await page.click("#check-btn");
      await page.waitForSelector("#stop-btn:not([hidden])");

      env.userLock.busy = true; // a poll in flight holds the user lock
      await page.click("#stop-btn");
      await page.waitForFunction(() =>
        /stopping as soon as/.test(document.getElementById("message")!.textContent || ""),
      );
      expect(await page.isHidden("#run")).toBe(false);
      expect(await page.isDisabled("#check-btn")).toBe(true);
      expect(await page.isDisabled("#stop-btn")).toBe(true);
      // Still polling (the server answers "busy" too), and Stop asked again.
      const count = (name: string) => calls.filter((c) => c === name).length;
      const polled = count("pollBulkCheck");
      await advanceUntil(page, () => count("pollBulkCheck") > polled && count("cancelBulkCheck") >= 2);
      expect(count("pollBulkCheck")).toBeGreaterThan(polled);
      expect(count("cancelBulkCheck")).toBeGreaterThanOrEqual(2);
      expect(env.run("getSidebarState").run.phase).toBe("running");

      env.userLock.busy = false;
      await advanceUntil(page, () =>
        page.evaluate(() => /^Stopped\./.test(document.getElementById("run-status")!.textContent || "")),
      );
      expect(env.run("getSidebarState").run.phase).toBe("stopped");
      // Stopped, not finished: only the results received count (the stalled job sent half), the job "stopped",
      // the status styled as such.
      const stoppedAt = env.run("getSidebarState").run.propertiesDone;
      expect(stoppedAt).toBeLessThan(600);
      expect(await page.textContent("#run-status")).toBe(`Stopped. ${stoppedAt} of 600 rows checked.`);
      expect((await page.textContent("#run-details-text"))!.split("\n")[0]).toBe(
        `${600 - stoppedAt} rows are in jobs already sent: choose Resume to collect them (no new job is sent).`,
      );
      // The job was sent and paid for: Resume is offered, and collects it without a new job.
      expect(await page.isVisible("#resume-btn")).toBe(true);
      expect(await page.$eval("#progress", (el) => (el as HTMLProgressElement).value)).toBe(stoppedAt);
      expect(await page.$$eval("#jobs li", (li) => li.map((x) => x.textContent || ""))).toEqual([
        expect.stringMatching(new RegExp(`^Job 1 \\(bulk_[^)]+\\): stopped, ${stoppedAt} of 600 checked$`)),
      ]);
      expect(await page.getAttribute("#run-status", "class")).toBe("msg error");
      expect(await page.isEnabled("#check-btn")).toBe(true);
      expect(await page.isHidden("#stop-btn")).toBe(true);
      await page.close();
    } finally {
      await slow.close();
    }
  });
  test("every submit fails (500s on 1,100 rows): 'Sending…', no job sent twice, then not Done, nothing counted as checked, and why", async () => {
    const env = createGasEnvironment();
    env.run("saveSettings", { apiKey: API_KEY, baseUrl: sandbox.baseUrl, plan: "professional" });
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(0, 1100).map((p) => [p.uprn]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    await sandbox.setFaults([{ kind: "error_500", count: 100 }]);
    const postsBefore = (await sandbox.stats()).bulk_submit;
    const { page } = await openSidebar(browser, env);
    // What a screen reader needs: the status is a polite live region, the bar has a name, and only errors are alerts.
    expect(await page.getAttribute("#run-status", "aria-live")).toBe("polite");
    expect(await page.getAttribute("#progress", "aria-label")).toBe("Rows checked");
    expect(await page.getAttribute("#message", "role")).not.toBe("alert");

    await page.click("#check-btn");
    // Both submits fail within the start (one at a time: the second goes only once the first has an answer).
    await page.waitForFunction(
      () => /^(Done|Finished)/.test(document.getElementById("run-status")!.textContent || ""),
      undefined,
      { timeout: 60000 },
    );
    // A 500 on a submit may come after the job was made: never sent again on its own (one POST per job).
    expect((await sandbox.stats()).bulk_submit - postsBefore).toBe(2);
    expect(await page.textContent("#run-status")).toBe("Finished with problems. 0 of 1,100 rows checked.");
    expect(await page.textContent("#run-details-text")).toMatch(
      /^1,100 rows not checked: sending their job failed and the service may have created it; run the check again for them\./,
    );
    expect(await page.getAttribute("#run-status", "class")).toBe("msg error");
    expect(
      await page.$eval("#progress", (el) => [(el as HTMLProgressElement).value, (el as HTMLProgressElement).max]),
    ).toEqual([0, 1100]);
    expect(await page.textContent("#progress-text")).toMatch(/: 0 of 1,100 rows checked, 1,100 not refreshed$/);
    expect(await page.$$eval("#jobs li", (li) => li.map((x) => x.textContent || ""))).toEqual([
      "Job 1 (not created): failed, 0 of 1,000 checked",
      "Job 2 (not created): failed, 0 of 100 checked",
    ]);
    // Why, in the error box, as an alert.
    expect(await page.textContent("#message")).toMatch(
      /^Not checked: sending this row's bulk job failed \(HTTP 500: Internal server error \(sandbox fault\)\), and the service may have created the job anyway/,
    );
    expect(await page.getAttribute("#message", "class")).toBe("msg error");
    expect(await page.getAttribute("#message", "role")).toBe("alert");
    expect(await page.isEnabled("#check-btn")).toBe(true);
    await savePicture(page, "gsheets-sidebar-failed.png");
    await page.close();
    await sandbox.clearFaults();
  });
  test("the Schedule section saves a schedule (one trigger, who it runs as), the log links open their sheets, and the stale banner shows after 26 hours without a successful scheduled run", async () => {
    const env = createGasEnvironment();
    env.run("saveSettings", { apiKey: API_KEY, baseUrl: sandbox.baseUrl, plan: "professional" });
    env.spreadsheet.timeZone = "Europe/London";
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(0, 20).map((p) => [p.uprn]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    expect((await pollToEnd(env)).pop().phase).toBe("done");

    const { page } = await openSidebar(browser, env);
    // The last run's line, and links to the two log sheets.
    await page.waitForFunction(() =>
      /^Last run .* \(manual\): 20 of 20 rows checked/.test(document.getElementById("last-run")!.textContent || ""),
    );
    expect(await page.isVisible("#open-change-log")).toBe(true);
    await page.click("#open-run-log");
    await page.waitForFunction(() =>
      /"Run log" sheet is open/.test(document.getElementById("message")!.textContent || ""),
    );
    expect(env.spreadsheet.active.getName()).toBe("Run log");
    await page.click("#open-change-log");
    await page.waitForFunction(() =>
      /No "Change log" sheet yet/.test(document.getElementById("message")!.textContent || ""),
    );

    // Off at first: no day or hour asked for. Weekly asks for both.
    expect(await page.inputValue("#schedule-mode")).toBe("off");
    expect(await page.isHidden("#schedule-hour-box")).toBe(true);
    expect(await page.isHidden("#stale-banner")).toBe(true);
    await page.selectOption("#schedule-mode", "weekly");
    expect(await page.isVisible("#schedule-day-box")).toBe(true);
    await page.selectOption("#schedule-day", "WEDNESDAY");
    await page.selectOption("#schedule-hour", "9");
    await page.click("#save-schedule");
    await page.waitForFunction(() =>
      /^Scheduled: Every Wednesday between 09:00 and 10:00 \(Europe\/London\), as owner@example\.com\./.test(
        document.getElementById("message")!.textContent || "",
      ),
    );
    expect(await page.textContent("#schedule-summary")).toBe(
      "Every Wednesday between 09:00 and 10:00 (Europe/London), as owner@example.com.",
    );
    expect(await page.$$eval("#schedule-tables li", (li) => li.map((x) => x.textContent))).toEqual([
      "Sheet1: the table under header row 1",
    ]);
    // Google's limits, said before they are reached.
    expect(await page.textContent("#schedule-limits")).toMatch(
      /^Google allows each person 20 schedules in all their spreadsheets \(you have 1\), and 90 minutes of scheduled run time a day on a personal account \(0 used today\)/,
    );
    expect(env.script.triggers).toHaveLength(1);
    expect(env.script.triggers[0]).toMatchObject({
      handler: "scheduledRecheck",
      every: { weeks: 1, weekday: "WEDNESDAY", hour: 9 },
    });

    // Changed to daily: the trigger is replaced, not added to.
    await page.selectOption("#schedule-mode", "daily");
    expect(await page.isHidden("#schedule-day-box")).toBe(true);
    await page.selectOption("#schedule-hour", "7");
    await page.click("#save-schedule");
    await page.waitForFunction(() =>
      /^Scheduled: Daily between 07:00/.test(document.getElementById("message")!.textContent || ""),
    );
    expect(env.script.triggers).toHaveLength(1);
    expect(env.script.triggers[0].every).toMatchObject({ days: 1, hour: 7 });
    await page.close();

    // 27 hours on, and the one scheduled run since needed re-authorisation: the banner says so, above every tab.
    env.clock.offsetMs += 27 * 60 * 60 * 1000;
    env.script.authStatus = "REQUIRED";
    createGasEnvironment({ from: env }).run("scheduledRecheck", {
      authMode: "FULL",
      triggerUid: env.script.triggers[0].id,
    });
    const reopened = await openSidebar(browser, createGasEnvironment({ from: env }));
    const stale = reopened.page;
    await stale.waitForSelector("#stale-banner:not([hidden])");
    expect(await stale.textContent("#stale-banner")).toMatch(
      /^Results may be out of date: no scheduled re-check has succeeded for more than 26 hours .*Last problem in the Run log: Re-authorisation needed/,
    );
    expect(await stale.getAttribute("#stale-banner", "role")).toBe("alert");
    expect(await stale.textContent("#last-run")).toMatch(/\(scheduled\).*Re-authorisation needed/);
    await savePicture(stale, "gsheets-sidebar-schedule.png");

    // Removed: no trigger, no banner.
    await stale.click("#remove-schedule");
    await stale.waitForFunction(() => /^Schedule off/.test(document.getElementById("message")!.textContent || ""));
    expect(env.script.triggers).toHaveLength(0);
    expect(await stale.isHidden("#stale-banner")).toBe(true);
    expect(await stale.inputValue("#schedule-mode")).toBe("off");
    await stale.close();
  });
});
