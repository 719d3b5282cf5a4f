/**
 * The Excel pane's "Since the last digest" and "Email digest", in the BUILT task pane in headless Chromium with the
 * Excel stand-in and the real sandbox over loopback. The drafts it saves are read as a mail client reads them, with
 * mailparser: headers, encodings (£, accents, long addresses), line lengths, and the HTML's facts equal to the text's.
 */
import { CHUNK_MISSING } from "../../../excel/chunk-error";
import type { Page } from "playwright-core";
import { simpleParser } from "mailparser";
import { recheckUprns } from "../../helpers/changes";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { reopenWorkbook, standIn as callStandIn } from "../helpers/stand-in-page";
import { describeWithChromium } from "../../helpers/chromium";
import { paneWaits, servedPane } from "../helpers/pane";

const run = describeWithChromium();
const KEY = "sandbox-professional";
const DAY1 = "2027-01-31";
/** 64 characters before the "@", 178 in all: long, and still an address. */
const LONG = `${"a".repeat(60)}.${"b".repeat(3)}@${"lettings-and-property-management.".repeat(3)}example.co.uk`;
const PEOPLE = ["ana@example.com", LONG, "Jo Smith", ""];
const OWNER = "owner@example.com";

run("Excel reminder digest drafts in Chromium", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let page: Page;
  let uprns: string[];
  const pageErrors: string[] = [];

  const { waitText } = paneWaits(() => page, pageErrors);
  const standIn = <T>(fn: string, ...args: unknown[]) => callStandIn(page)<T>(fn, ...args);

  beforeAll(async () => {
    sb = await startTestSandbox({ today: DAY1 });
    uprns = recheckUprns(sb.dataset(), 40);
    ({ page } = await pane.open({
      context: { viewport: { width: 360, height: 1400 } },
      errors: pageErrors,
      consoleErrors: true,
      restoreOnReload: true,
    }));
  });
  afterAll(async () => {
    await sb?.close();
  });

  /** Each saved file: its name and its text, read back from the link the pane made. */
  const files = () =>
    page.evaluate(async () =>
      Promise.all(
        Array.from(document.querySelectorAll<HTMLAnchorElement>("#digest-files a")).map(async (a) => ({
          name: a.download,
          text: await (await fetch(a.href)).text(),
        })),
      ),
    );

  test("one draft per person: RFC 5322, multipart/alternative in UTF-8, X-Unsent, short lines, the same facts in HTML and text; a second time, nothing new", async () => {
    await page.fill("#base-url", sb.baseUrl);
    await page.click("#save-base-url");
    await waitText("settings-status", /^Base URL saved\.$/);
    await page.fill("#api-key", KEY);
    await page.click("#save-key");
    await waitText("settings-status", /^Key saved and accepted/);
    await standIn("seed", "Sheet1", "A1", [
      ["UPRN", "Address", "Assigned to"],
      ...uprns.map((u, i) => [u, `${i} Rue de la Paix, Café £${i}`, PEOPLE[i % PEOPLE.length]]),
    ]);
    await standIn("select", "Sheet1", "A1");
    await page.click("#check");
    await waitText("status", /Done/);
    await page.waitForFunction(() => !(document.getElementById("check") as HTMLButtonElement).disabled);
    // The card opened saying no check had been run; the check just made is what it counts from now.
    await waitText("digest-status", /^No digest yet: every open action is new: [\d,]+ actions? new, more urgent/);

    await page.fill("#digest-owner", OWNER);
    await page.check("#digest-ics");
    await page.click("#email-digest");
    await waitText("digest-status", /files? ready: /);
    const saved = await files();
    const emls = saved.filter((f) => f.name.endsWith(".eml"));
    // The owner, ana and the long address; "Jo Smith" is not an address and is said to the owner, never guessed.
    expect(emls.map((f) => f.name).sort()).toEqual(
      ["digest-owner_example.com.eml", "digest-ana_example.com.eml", `digest-${LONG.replace("@", "_")}.eml`].sort(),
    );
    expect(saved.filter((f) => f.name.endsWith(".ics")).length).toBe(3);

    // One page reads every draft's HTML, as a mail client shows it.
    const reader = await pane.browser.newPage();
    for (const f of emls) {
      // RFC 5322: CRLF line ends, no line over 998 octets.
      expect(f.text).not.toMatch(/[^\r]\n/);
      for (const line of f.text.split("\r\n")) expect(Buffer.byteLength(line, "utf8")).toBeLessThanOrEqual(998);
      // Headers are ASCII (non-ASCII words travel as encoded-words).
      const head = f.text.slice(0, f.text.indexOf("\r\n\r\n"));
      expect(head).toMatch(/^[\x20-\x7e\r\n\t]*$/);
      expect(head).toMatch(/^X-Unsent: 1$/m);
      const mail = await simpleParser(f.text);
      expect(mail.headers.get("content-type")).toMatchObject({ value: "multipart/alternative" });
      expect(mail.from?.value[0].address).toBe(OWNER);
      const to = mail.to && !Array.isArray(mail.to) ? mail.to.value[0].address : "";
      expect(f.name).toBe(`digest-${to!.replace(/[^0-9A-Za-z.-]+/g, "_")}.eml`);
      expect(mail.subject).toMatch(/^Compliance reminders: \d+ actions? (\(\d+ overdue\) )?in the workbook$/);
      expect(mail.text).toMatch(/Café £/);
      expect(mail.html).toBeTruthy();
      // The HTML's facts are the text's: each action's Property, Check, Due and Days left, in the same order.
      const textFacts = [...mail.text!.matchAll(/^ {3}(Property|Check|Due|Days left): (.*)$/gm)].map(
        (m) => `${m[1]}=${m[2]}`,
      );
      const html = mail.html as string;
      await reader.setContent(html);
      const htmlFacts = await reader.evaluate(() => {
        const heads = Array.from(document.querySelectorAll("thead th")).map((th) => th.textContent ?? "");
        return Array.from(document.querySelectorAll("tbody tr")).flatMap((tr) =>
          Array.from(tr.querySelectorAll("td"))
            .map((td, i) => [heads[i], td.textContent ?? ""])
            .filter(([h]) => ["Property", "Check", "Due", "Days left"].includes(h))
            .map(([h, v]) => `${h}=${v}`),
        );
      });
      expect(htmlFacts.length).toBeGreaterThan(0);
      expect(htmlFacts).toEqual(textFacts);
      if (to === OWNER) expect(mail.text).toMatch(/"Jo Smith" \(Assigned to, Sheet1 row \d+/);
      else expect(mail.text).not.toMatch(/Jo Smith/);
    }
    await reader.close();
    // ana's draft holds only ana's rows: every 4th row from the first.
    const ana = await simpleParser(emls.find((f) => f.name === "digest-ana_example.com.eml")!.text);
    const rows = [...ana.text!.matchAll(/Where: Sheet1, row (\d+)/g)].map((m) => Number(m[1]));
    expect(rows.length).toBeGreaterThan(0);
    const assigned = (await standIn<{ values: unknown[][] }>("read", "Sheet1", `C1:C${uprns.length + 5}`)).values;
    for (const r of rows) expect([r, assigned[r - 1][0]]).toEqual([r, "ana@example.com"]);

    // Saved in the workbook: opened again, the pane shows the digest since then (nothing new), and says so again
    // when asked for drafts.
    const saved2 = JSON.parse(await standIn<string>("dump"));
    expect(JSON.stringify(saved2.settings)).not.toContain(KEY);
    await reopenWorkbook(page, saved2);
    await waitText("digest-status", /^Since the last digest \(\d{4}-\d{2}-\d{2}\): 0 actions new, more urgent/);
    expect(await page.inputValue("#digest-owner")).toBe(OWNER);
    await page.click("#email-digest");
    await waitText("digest-status", /^Nothing new since the last digest: no drafts were made\.$/);
    expect(pageErrors).toEqual([]);
  });

  test("a digest chunk that cannot be fetched says so on the card, at start and on Email digest", async () => {
    const { page: p } = await pane.open({
      context: { viewport: { width: 360, height: 1400 } },
      // As a deployment replaced under an open pane, or a connection lost after the page came.
      before: (pg) => pg.route("**/digest.js", (route) => route.abort()),
      ready: false,
    });
    try {
      // The card may sit in a closed section: read its text, not what is shown.
      const said = (re: RegExp) =>
        p
          .waitForFunction(
            (src) => new RegExp(src).test(document.getElementById("digest-status")!.textContent ?? ""),
            re.source,
            { timeout: 30_000 },
          )
          .catch(async (e) => {
            throw new Error(`${e.message}\n#digest-status: ${await p.textContent("#digest-status")}`);
          });
      // The one sentence every part of the pane says of code it could not fetch.
      const missing = new RegExp(`^${CHUNK_MISSING.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
      await said(missing);
      // The rest of the pane came up without it.
      expect(await p.evaluate(() => document.getElementById("legend")!.children.length)).toBeGreaterThan(0);
      await p.evaluate(() => (document.getElementById("digest-status")!.textContent = ""));
      await p.click("#email-digest");
      await said(missing);
    } finally {
      await p.close();
    }
  });
});
