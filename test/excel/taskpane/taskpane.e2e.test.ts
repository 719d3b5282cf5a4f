/**
 * The BUILT task pane (dist/excel) in headless Chromium against the sandbox. office.js is requested from Microsoft's CDN;
 * the test answers that request with the Excel stand-in (test/excel/standin), seeded with a small sheet. Settings are
 * entered through the pane, rows checked with the button, and the cells, colours and messages read back.
 */
import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import type { Browser, Page } from "playwright-core";
import { OUTPUT_COLUMNS, STATUS_COLOURS, outputHeaders } from "../../../core";
import { PAGE_WORDS } from "../../../core/page-words";
import { checkResultFor } from "../../../sandbox/dataset";
import { ensureExcelBuild, ROOT } from "../helpers/build";
import { describeWithChromium, launch } from "../../helpers/chromium";
import { colLetters } from "../../helpers/excel-standin";
import { sandbox, type Sandbox } from "../../helpers/sandbox";
import { standIn } from "../helpers/stand-in-page";
import { servedPane } from "../helpers/pane";
import { serveStatic } from "../helpers/static-server";
import { ACTION_LIST_HEADERS } from "../../helpers/action-list";
import { savePicture } from "../../helpers/pictures";

const run = describeWithChromium();
const col = (header: string) => OUTPUT_COLUMNS.findIndex((c) => c.header === header);
const KEY = "sandbox-professional";

run("Excel task pane in Chromium", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let page: Page;
  let examples: Record<string, any>;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    sb = await sandbox(2);
    examples = await (await fetch(`${sb.url}/__sandbox/examples`)).json();
    ({ page } = await pane.open({ errors: pageErrors, consoleErrors: true }));
  });
  afterAll(async () => {
    await sb?.close();
  });

  const status = (id: string) => page.evaluate((i) => document.getElementById(i)!.textContent ?? "", id);
  const focused = () => page.evaluate(() => document.activeElement?.id ?? "");
  const waitText = (id: string, re: RegExp, timeout = 15_000) =>
    page.waitForFunction(
      ([i, src]) => new RegExp(src).test(document.getElementById(i)!.textContent ?? ""),
      [id, re.source] as const,
      { timeout },
    );
  const waitIdle = () =>
    page.waitForFunction(
      () =>
        !(document.getElementById("check") as HTMLButtonElement).disabled && document.getElementById("cancel")!.hidden,
      undefined,
      { timeout: 30_000 },
    );

  test("a first open says to add the key and opens Settings; Check without a key sends nothing and puts the cursor in the key field", async () => {
    expect(await status("banner")).toMatch(/^Add your API key to start/);
    expect(await page.getAttribute("#settings", "open")).not.toBeNull();
    // Plain words, no live region on a line that changes on every poll, a named progress bar, a visible example.
    expect(await status("quota")).toBe("Requests left: shown after the first check");
    expect(await page.getAttribute("#quota", "aria-live")).toBeNull();
    expect(await page.getAttribute("#progress", "aria-label")).toBeTruthy();
    const label = await page.evaluate(() => {
      const l = document.querySelector<HTMLLabelElement>('label[for="lookup-text"]')!;
      const r = l.getBoundingClientRect();
      return { text: l.textContent, width: r.width, height: r.height };
    });
    expect(label.text).toMatch(/e\.g\. SW1A 2AA/);
    expect(label.width).toBeGreaterThan(100);
    expect(label.height).toBeGreaterThan(5);

    sb.reset();
    await page.click("#check");
    await waitText("banner", /No API key set/);
    expect(await focused()).toBe("api-key");
    expect(sb.stats().total).toBe(0);
  });

  test("settings: a refused base URL stays in the field, a URL without a version is saved with a warning, the key is checked as it is saved", async () => {
    await page.fill("#base-url", "http://example.org/v1");
    await page.click("#save-base-url");
    await waitText("settings-status", /https/);
    // The mistyped URL is still there to correct.
    expect(await page.inputValue("#base-url")).toBe("http://example.org/v1");
    await page.fill("#base-url", sb.url);
    await page.click("#save-base-url");
    await waitText("settings-status", /^Base URL saved\. Its path does not end in an API version such as \/v1/);
    await page.fill("#base-url", sb.baseUrl);
    await page.click("#save-base-url");
    await page.waitForFunction(() => document.getElementById("settings-status")!.textContent === "Base URL saved.");

    // A key the service refuses: saved, but the user is told at once, in words for a person.
    await page.fill("#api-key", "abc-not-a-key");
    await page.click("#save-key");
    await waitText("settings-status", /refused/);
    expect(await status("settings-status")).not.toMatch(/Bearer|Authorization/);
    expect(await status("settings-status")).toMatch(/not accepted/);

    // The service cannot be reached (a port nothing listens on): the key is saved, but could not be checked.
    const closed = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, "127.0.0.1", () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    await page.fill("#base-url", `http://127.0.0.1:${closed}/v1`);
    await page.click("#save-base-url");
    await waitText("settings-status", /^Base URL saved\.$/);
    await page.fill("#api-key", KEY);
    await page.click("#save-key");
    await waitText("settings-status", /could not be checked/);
    await page.fill("#base-url", sb.baseUrl);
    await page.click("#save-base-url");
    await waitText("settings-status", /^Base URL saved\.$/);

    // Remove puts the cursor where the next key goes.
    await page.click("#remove-key");
    await waitText("key-state", /not set/);
    expect(await focused()).toBe("api-key");

    sb.reset();
    await page.fill("#api-key", KEY);
    await page.click("#save-key");
    await waitText("settings-status", /^Key saved and accepted by the service\.$/);
    expect(sb.stats()).toMatchObject({ addresses: 1 });
    const shown = await page.textContent("#key-state");
    expect(shown).toMatch(/^set \(/);
    expect(shown).not.toContain(KEY);
    expect(await page.inputValue("#api-key")).toBe("");
    expect(await status("banner")).toBe("");
    // The refused key and the closed port were meant to fail; later tests expect a clean console.
    pageErrors.length = 0;
  });

  test("Check selected rows writes values, colours and row errors; a second run updates in place", async () => {
    const st = examples.uprn_by_check_status;
    const rows = [
      ["UPRN", "Postcode", "Address", "Notes"],
      [st.epc.pass, "", "", "mine"],
      [st.epc.fail, "", "", ""],
      ["12ab", "", "", ""],
      [st.gas_safety.warning, "", "", ""],
      [examples.unknown_uprn, "", "", ""],
      ["", examples.single_property_postcode, "", ""],
    ];
    await page.evaluate((values) => {
      const x = (window as any).__excelStandIn;
      x.seed("Sheet1", "A1", values);
      x.select("Sheet1", "A2:C7");
    }, rows);
    sb.reset();
    await page.click("#check");
    await page.waitForFunction(
      () => /^(Done|Cancelled)\./.test(document.getElementById("status")!.textContent ?? ""),
      undefined,
      { timeout: 30_000 },
    );
    await waitIdle();
    expect(await page.textContent("#status")).toMatch(/^Done\. 6 rows checked, 2 with errors/);
    expect(await status("progress-text")).toBe("6 of 6 rows checked");
    // The key check's "Key saved…" is gone once the user moves on; focus is back on Check.
    expect(await status("settings-status")).toBe("");
    expect(await focused()).toBe("check");
    expect(await page.textContent("#problems")).toMatch(/Row 4: UPRN "12ab"/);
    expect(await page.textContent("#quota")).toMatch(/Requests left: \d+ of 60/);
    expect(sb.stats().bulk_submit).toBe(1);

    const last = colLetters(4 + OUTPUT_COLUMNS.length - 1);
    const out = await standIn(page)("read", "Sheet1", `E1:${last}7`);
    const ds = sb.dataset();
    expect(out.values[0]).toEqual(outputHeaders());
    expect(out.values[1][col("Compliance score")]).toBe(checkResultFor(ds.byUprn.get(st.epc.pass)!).compliance_score);
    expect(out.values[1][col("EPC status")]).toBe("pass");
    expect(out.fills[1][col("EPC status")]).toBe(STATUS_COLOURS.pass.fill);
    expect(out.values[2][col("EPC status")]).toBe("fail");
    expect(out.fills[2][col("EPC status")]).toBe(STATUS_COLOURS.fail.fill);
    expect(out.values[4][col("Gas safety status")]).toBe("warning");
    expect(out.fills[4][col("Gas safety status")]).toBe(STATUS_COLOURS.warning.fill);
    expect(out.values[3][col("Message")]).toMatch(/UPRN "12ab"/);
    expect(out.fills[3][col("EPC status")]).toBe(STATUS_COLOURS.error.fill);
    expect(out.values[5][col("Message")]).toMatch(/not found|No property/i);
    expect(out.values[6][col("Matched UPRN")]).toBe(ds.byPostcode.get(examples.single_property_postcode)![0].uprn);
    expect(out.formulas.flat().filter(Boolean)).toEqual([]);

    await savePicture(page, "excel-taskpane.png");

    // Second run from a cell of the header row (the whole table): the same block is updated; nothing appears to its right; the user's column is kept.
    await page.evaluate(() => (window as any).__excelStandIn.select("Sheet1", "B1"));
    await page.click("#check");
    await page.waitForFunction(
      () =>
        /updating the results in place/.test(document.getElementById("status")!.textContent ?? "") ||
        /^Done/.test(document.getElementById("status")!.textContent ?? ""),
    );
    await page.waitForFunction(() => /^Done\./.test(document.getElementById("status")!.textContent ?? ""), undefined, {
      timeout: 30_000,
    });
    const wide = await page.evaluate(() => (window as any).__excelStandIn.read("Sheet1", "A1:AZ7"));
    const width = 4 + OUTPUT_COLUMNS.length;
    expect(wide.values.every((r: unknown[]) => r.slice(width).every((v) => v === ""))).toBe(true);
    expect(wide.values.map((r: unknown[]) => r[3])).toEqual(["Notes", "mine", "", "", "", "", ""]);
    expect(wide.values[1][4 + col("Compliance score")]).toBe(out.values[1][col("Compliance score")]);
    expect(pageErrors).toEqual([]);
  });

  test("the built custom functions run in the same page and share the key: values and cell errors", async () => {
    sb.reset();
    const st = examples.uprn_by_check_status;
    const res = await page.evaluate(
      async ({ good, unknown }) => {
        const f = (window as any).__excelStandIn.state.customFunctions;
        const settle = (p: Promise<unknown>) =>
          p.then(
            (v) => ({ v }),
            (e) => ({ code: e.code, message: e.message }),
          );
        const calls = [
          f.SCORE(good),
          f.STATUS(good, "epc"),
          f.EPC(good),
          f.SCORE("12ab"),
          f.SCORE(unknown),
          f.CHECK(good),
          f.STATUS(good, "wifi"),
        ];
        return Promise.all(calls.map(settle));
      },
      { good: st.epc.pass, unknown: examples.unknown_uprn },
    );
    const ds = sb.dataset();
    expect(res[0]).toEqual({ v: checkResultFor(ds.byUprn.get(st.epc.pass)!).compliance_score });
    expect(res[1]).toEqual({ v: "pass" });
    expect(res[2]).toEqual({ v: ds.byUprn.get(st.epc.pass)!.checks.epc.rating });
    expect(res[3]).toEqual({ code: "#VALUE!", message: "invalid UPRN" });
    expect(res[4]).toEqual({ code: "#N/A", message: "property not found" });
    expect((res[5] as { v: unknown[][] }).v[0]).toHaveLength(OUTPUT_COLUMNS.length);
    expect(res[6]).toMatchObject({ code: "#VALUE!" });
    // SCORE, STATUS, EPC and CHECK of one UPRN, plus the unknown one: one window, two GETs, no bulk job.
    expect(sb.stats()).toMatchObject({ check: 2, bulk_submit: 0 });
  });

  test("NEXTACTION, DUE and EXPIRY: the action in words, and dates Excel treats as dates (a formatted number where data types are supported, else a serial)", async () => {
    sb.reset();
    const st = examples.uprn_by_check_status;
    const ds = sb.dataset();
    const gas = ds.byUprn.get(st.gas_safety.warning)!;
    const run = (unsupported: string[]) =>
      page.evaluate(
        async ({ u, unsupported }) => {
          const s = (window as any).__excelStandIn;
          s.state.unsupportedSets = unsupported;
          const f = s.state.customFunctions;
          const settle = (p: Promise<unknown>) =>
            p.then(
              (v) => ({ v }),
              (e) => ({ code: e.code, message: e.message }),
            );
          return Promise.all(
            [f.NEXTACTION(u), f.DUE(u, "gas"), f.EXPIRY(u, "gas_safety"), f.DUE(u), f.DUE(u, "wifi")].map(settle),
          );
        },
        { u: gas.uprn, unsupported },
      );
    const serial = (iso: string) => Math.round(Date.parse(iso + "T00:00:00Z") / 86400000) + 25569;
    const rich = await run([]);
    expect(String((rich[0] as { v: string }).v).length).toBeGreaterThan(5);
    expect(rich[1]).toEqual({
      v: { type: "FormattedNumber", basicValue: serial(gas.checks.gas_safety.expiry!), numberFormat: "yyyy-mm-dd" },
    });
    expect(rich[2]).toEqual(rich[1]);
    expect((rich[3] as { v: { type: string } }).v.type).toBe("FormattedNumber");
    expect(rich[4]).toMatchObject({ code: "#VALUE!" });
    // Where custom functions cannot return data types: the date serial (a number, so DUE(A2)-TODAY() still works).
    const plain = await run(["ExcelApi 1.16"]);
    expect(plain[1]).toEqual({ v: serial(gas.checks.gas_safety.expiry!) });
    expect(plain[2]).toEqual(plain[1]);
  });

  test("address lookup inserts the UPRN and address into the selected cell", async () => {
    await page.evaluate(() => (window as any).__excelStandIn.select("Sheet1", "H20"));
    await page.fill("#lookup-text", "SW1A 2AA");
    await page.click("#lookup");
    await page.waitForSelector("#lookup-results:not([hidden])");
    await page.click("#insert-both");
    await page.waitForFunction(() => /Inserted UPRN/.test(document.getElementById("lookup-status")!.textContent ?? ""));
    const cells = await page.evaluate(() => (window as any).__excelStandIn.read("Sheet1", "H20:I20"));
    expect(cells.values[0]).toEqual(["100023336956", "10 Downing Street, London, SW1A 2AA"]);
    expect(cells.numberFormats[0][0]).toBe("@");
  });

  test("whole columns selected, a column of their own in the way, blank rows; the pane says where results went", async () => {
    const st = examples.uprn_by_check_status;
    const rows = [
      ["UPRN", "Landlord"],
      [st.epc.pass, "A"],
      [st.epc.fail, "B"],
      ["", "C"], // a blank UPRN in the middle
      [st.gas_safety.warning, "D"],
      [" ", ""], // spaces only: blank rows at the end
      [" ", ""],
    ];
    await page.evaluate((values) => {
      const x = (window as any).__excelStandIn;
      x.seed("Sheet2", "A1", values);
      x.seed("Sheet2", "D1", [["My notes"], ["call"], ["", ""]]);
      x.select("Sheet2", "A:B");
    }, rows);
    await page.click("#check");
    await page.waitForFunction(() => /^Done\./.test(document.getElementById("status")!.textContent ?? ""), undefined, {
      timeout: 30_000,
    });
    const status = await page.textContent("#status");
    expect(status).toMatch(/^Done\. 4 rows checked, 1 with errors/);
    expect(status).toContain(
      `Results go in columns F:${colLetters(5 + OUTPUT_COLUMNS.length - 1)}, after the last column in use`,
    );
    expect(status).toMatch(/"Action list": \d+ actions? overdue or due within 30 days/);
    // The built bundle made both sheets, and the summary's chart.
    const made = await page.evaluate(() => {
      const s = (window as any).__excelStandIn;
      return {
        sheets: s.sheetNames(),
        charts: s.charts("Compliance summary").length,
        header: s.read("Action list", "A1:N1").values[0],
      };
    });
    expect(made.sheets).toEqual(expect.arrayContaining(["Action list", "Compliance summary"]));
    expect(made.charts).toBe(1);
    // The sheet's own Landlord column (found by its header) is on the list.
    expect(made.header).toEqual(ACTION_LIST_HEADERS);
    expect(status).toMatch(/Checked rows 2–5: the selected rows below 5 are empty and were left out\./);
    expect(await page.textContent("#problems")).toMatch(/Row 4: No UPRN or postcode/);
    const notes = await page.evaluate(() => (window as any).__excelStandIn.read("Sheet2", "D1:D2"));
    expect(notes.values.flat()).toEqual(["My notes", "call"]);
    await savePicture(page, "excel-taskpane-new-user.png");
  });

  test("the column chooser appears only when a column is missing, with what was found chosen; (none) for both UPRN and Postcode is explained", async () => {
    const st = examples.uprn_by_check_status;
    await page.evaluate(
      (values) => {
        const x = (window as any).__excelStandIn;
        x.seed("Sheet3", "A1", values);
        x.select("Sheet3", "A1:B2");
      },
      [
        [st.epc.pass, "flat 1"],
        [st.epc.fail, "flat 2"],
      ],
    );
    await page.click("#check");
    await waitIdle();
    expect(await page.isVisible("#mapping")).toBe(true);
    expect(await page.inputValue("#map-uprn")).toBe("");
    expect(await page.isChecked("#map-header")).toBe(false); // the first row holds UPRNs, not headers
    expect(await focused()).toBe("map-uprn");
    sb.reset();
    await page.click("#map-apply");
    await waitText("status", /^Choose the UPRN column or the Postcode column/);
    expect(sb.stats().total).toBe(0);
    await page.selectOption("#map-uprn", "0");
    await page.click("#map-apply");
    await waitIdle();
    expect(await status("status")).toMatch(/^Done\. 2 rows checked\./);

    // A selection the chooser cannot help with (a header and no rows): the message alone, no chooser.
    await page.evaluate(() => {
      const x = (window as any).__excelStandIn;
      x.seed("Sheet4", "A1", [["UPRN", "Notes"]]);
      x.select("Sheet4", "A1:B1");
    });
    await page.click("#check");
    await waitIdle();
    await waitText("status", /no data rows/);
    expect(await page.isVisible("#mapping")).toBe(false);
    // Nor the last run's progress above the refusal.
    expect(await page.isVisible("#progress-box")).toBe(false);
  });

  test("a failed or cancelled re-run never passes for done: the earlier values are kept and said to be, the banner says why and focus goes where to fix it", async () => {
    const setBase = async (url: string) => {
      await page.fill("#base-url", url);
      await page.click("#save-base-url");
      await waitText("settings-status", /^Base URL saved/);
    };
    const recheck = async () => {
      await page.evaluate(() => (window as any).__excelStandIn.select("Sheet1", "B1"));
      await page.click("#check");
      await waitIdle();
    };
    // The service fails on every request to start a job: 0 of 5 rows sent are refreshed, the old values stay.
    sb.reset();
    sb.setFaults([{ kind: "error_500", route: "bulk_submit" }]);
    try {
      await recheck();
      const text = await status("status");
      // core's runSummary words: a 500 on the submit means the job may exist, so it is said, not re-sent.
      expect(text).toMatch(/^Finished with problems\. 1 of 6 rows checked/);
      expect(text).toMatch(/5 rows not checked: sending their job failed and the service may have created it/);
      expect(text).toMatch(/The earlier values are kept\./);
      expect(text).not.toMatch(/Done|pass|Statuses/);
      expect(await page.isVisible("#banner")).toBe(true);
      expect(await status("banner")).toMatch(/\S/);
      // The bar is not full and the words agree with it.
      expect(await status("progress-text")).toBe("1 of 6 rows checked, 5 not refreshed");
      expect(await page.evaluate(() => (document.getElementById("progress") as HTMLProgressElement).value)).toBe(1);
      const msg = await page.evaluate(
        (c) => (window as any).__excelStandIn.read("Sheet1", "A2:AA2").values[0][4 + c],
        col("Message"),
      );
      expect(msg).toMatch(/^Not refreshed at/);
      expect(await focused()).toBe("check");
    } finally {
      sb.setFaults([]);
    }

    // A wrong base URL: the pane itself says to check it, and puts the cursor there.
    await setBase(`${sb.url}/nothing-here/v1`);
    await recheck();
    expect(await status("banner")).toMatch(/base URL/);
    expect(await page.getAttribute("#settings", "open")).not.toBeNull();
    expect(await focused()).toBe("base-url");
    await setBase(sb.baseUrl);

    // A key the service refuses: words for a person (not "send Authorization: Bearer"), the cursor in the key field.
    await page.fill("#api-key", "abc-not-a-key");
    await page.click("#save-key");
    await waitText("settings-status", /refused/);
    await recheck();
    expect(await status("banner")).toMatch(/key/i);
    expect(await status("banner")).not.toMatch(/Bearer|Authorization/);
    expect(await focused()).toBe("api-key");
    await page.fill("#api-key", KEY);
    await page.click("#save-key");
    await waitText("settings-status", /accepted/);

    // Cancel while the job is being sent: focus goes to Cancel as the run starts and back to Check as it ends.
    const LATENCY = 1_500;
    sb.setFaults([{ kind: "latency", route: "bulk_submit", latency_ms: LATENCY }]);
    try {
      await page.evaluate(() => (window as any).__excelStandIn.select("Sheet1", "B1"));
      await page.click("#check");
      await page.waitForSelector("#cancel:not([hidden])");
      expect(await focused()).toBe("cancel");
      await page.click("#cancel");
      await waitIdle();
      // The job was already on its way: Cancel stops the run and keeps it collectable (core's Stop), and says so.
      // The headline, then under Details what Resume collects.
      expect(await status("status")).toMatch(
        /^Stopped\. 1 of 6 rows checked\.Details5 rows are in jobs already sent: choose Resume to collect them/,
      );
      expect(await status("status")).toMatch(/The earlier values are kept\./);
      expect(await page.isVisible("#unfinished")).toBe(true);
      expect(await page.isVisible("#banner")).toBe(false);
      expect(await focused()).toBe("check");
    } finally {
      sb.setFaults([]);
      // The sandbox still sleeps on the cancelled request: let it finish, so nothing is left running at the end.
      await page.waitForTimeout(LATENCY);
    }
    pageErrors.length = 0; // the failures above were meant
  });

  test("window settings: a value that is not a whole number of days is refused with the field named and marked; saved ones recalculate the functions", async () => {
    await page.evaluate(() => ((document.getElementById("settings") as HTMLDetailsElement).open = true));
    // The words the pane shares with the Sheets sidebar are core's, written in as the page loads.
    for (const [key, text] of Object.entries(PAGE_WORDS))
      expect([key, (await page.textContent(`[data-words="${key}"]`))?.trim()]).toEqual([key, text]);
    const field = "#win-gas_safety-urgent";
    for (const [typed, said] of [
      ["1e2", /^Gas safety urgent window: "1e2" is not a whole number of days/],
      ["", /^Gas safety urgent window is empty, or what was typed is not a number/],
    ] as const) {
      await page.fill(field, typed);
      await page.click("#save-windows");
      await waitText("settings-status", said);
      expect(await page.getAttribute(field, "aria-invalid")).toBe("true");
      expect(await focused()).toBe("win-gas_safety-urgent");
    }
    await page.evaluate(() => ((window as any).__excelStandIn.state.lastCalculation = null));
    await page.fill(field, "10");
    await page.click("#save-windows");
    await waitText(
      "settings-status",
      /^Windows saved: the next check and the Action list use them; the COMPLIANCE functions are recalculating with them\.$/,
    );
    expect(await page.getAttribute(field, "aria-invalid")).toBeNull();
    expect(await page.evaluate(() => (window as any).__excelStandIn.state.lastCalculation)).toBe("Full");
    await page.click("#reset-windows");
    await waitText("settings-status", /^Windows back to the defaults/);
    expect(await page.inputValue(field)).toBe("7");
  });

  test("Refresh clears the cache and recalculates the workbook", async () => {
    await page.click("#refresh");
    await page.waitForFunction(() =>
      /recalculating/.test(document.getElementById("refresh-status")!.textContent ?? ""),
    );
    const calc = await page.evaluate(() => (window as any).__excelStandIn.state.lastCalculation);
    expect(calc).toBe("Full");
  });
});

/** Microsoft's office.js from the @microsoft/office-js package: the file the CDN serves, for a page opened outside Office. */
const OFFICE_JS_DIR = path.join(ROOT, "node_modules/@microsoft/office-js/dist");

run("Excel task pane opened outside Excel", () => {
  let web: { url: string; close: () => Promise<void> };
  let devLike: { url: string; close: () => Promise<void> };
  let browser: Browser;
  beforeAll(async () => {
    web = await serveStatic(ensureExcelBuild());
    // As the dev server serves it: the build, plus the package's office.js at office-js/ for the page's CDN fallback.
    devLike = await serveStatic(ensureExcelBuild(), { "office-js": OFFICE_JS_DIR });
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await devLike?.close();
  });

  // Office.js unreachable (no CDN), and Microsoft's real office.js in a plain browser tab: the CDN's address is answered
  // with the @microsoft/office-js package's files (office.js and the o15apptofilemappingtable.js it loads next).
  const cases: [string, "none" | "cdn" | "fallback", RegExp][] = [
    ["office.js cannot be loaded", "none", /Office\.js could not be loaded/],
    ["Microsoft's office.js outside Office", "cdn", /not running inside Excel/],
    ["the CDN unreachable, the dev server's office.js (from the package)", "fallback", /not running inside Excel/],
  ];
  test.each(cases)(
    "%s: the pane says to open it from Excel, and its buttons are off",
    async (_name, officeJs, reason) => {
      const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
      const served: string[] = [];
      await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
      if (officeJs === "cdn") {
        await page.route("https://appsforoffice.microsoft.com/lib/1/hosted/**", (route) => {
          const file = path.join(OFFICE_JS_DIR, new URL(route.request().url()).pathname.replace("/lib/1/hosted/", ""));
          served.push(path.basename(file));
          return fs.existsSync(file)
            ? route.fulfill({ status: 200, contentType: "text/javascript", body: fs.readFileSync(file, "utf8") })
            : route.fulfill({ status: 404, body: "" });
        });
      }
      const requested: string[] = [];
      page.on("request", (r) => requested.push(r.url()));
      const site = officeJs === "fallback" ? devLike : web;
      await page.goto(`${site.url}/taskpane.html`);
      await page.waitForFunction(() => !document.getElementById("banner")!.hidden, undefined, { timeout: 10_000 });
      // The fallback loads office.js and everything it needs from the dev server, nothing from the unreachable CDN after the first try.
      if (officeJs === "fallback") {
        expect(requested).toEqual(
          expect.arrayContaining([
            `${site.url}/office-js/office.js`,
            `${site.url}/office-js/o15apptofilemappingtable.js`,
          ]),
        );
        expect(requested.filter((u) => u.startsWith("https://appsforoffice.microsoft.com/"))).toEqual([
          "https://appsforoffice.microsoft.com/lib/1/hosted/office.js",
        ]);
      }
      const text = await page.textContent("#banner");
      expect(text).toMatch(reason);
      expect(text).toMatch(/open it from Excel/);
      expect(await page.isDisabled("#check")).toBe(true);
      if (officeJs === "cdn")
        expect(served).toEqual(expect.arrayContaining(["office.js", "o15apptofilemappingtable.js"]));
      await page.close();
    },
  );
});
