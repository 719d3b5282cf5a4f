/**
 * The HTML digest as a mail client shows it: rendered in headless Chromium, with axe-core's WCAG 2.1 A/AA rules. Its
 * actions are every window's, a link to a row, a demo banner and the owner's notes, so every part of the page is seen.
 */
import type { Browser } from "playwright-core";
import { buildDigest, renderDigest, routeDigest, sheetsRowLink, type DigestAction } from "../../../core";
import { axeSeriousViolations } from "../../helpers/axe";
import { launch, testWithChromium } from "../../helpers/chromium";

const run = testWithChromium("digest accessibility test");
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

const action = (i: number, window: string, daysLeft: number | null, assignee = ""): DigestAction => ({
  id: `s7h1.10002333695${i}-abc.gas.2027020${i}`,
  tableId: "s7h1",
  window,
  due: daysLeft === null ? null : `2027-02-0${i}`,
  daysLeft,
  uprn: `10002333695${i}`,
  address: `${i} Café Row, London £ <b>`,
  check: "Gas safety",
  action: "Book the gas safety check",
  table: "Lettings",
  row: 10 + i,
  assignee,
  demo: true,
});

run("the HTML digest has no serious or critical axe violation", async () => {
  const acts = [
    action(1, "Overdue", -3),
    action(2, "Urgent", 5, "Jo Smith"),
    action(3, "Book", 25, "ana@example.com"),
    action(4, "Plan", 80),
    action(5, "Plan", null),
  ];
  const done = action(6, "Plan", 40);
  const d = buildDigest(null, { open: acts, done: [done], doneWithoutEvidence: [done] }, { today: "2027-02-01" });
  const [owner] = routeDigest(d, { owner: "owner@example.com" });
  const r = renderDigest(owner, {
    title: "Lettings",
    today: "2027-02-01",
    since: null,
    demo: d.demo,
    link: (a) => sheetsRowLink("https://docs.google.com/spreadsheets/d/abc/edit", 7, a.row!),
    stop: "To stop these emails, turn reminders off in the sidebar's Schedule section.",
  });
  browser = await launch();
  const page = await browser.newPage();
  await page.setContent(r.html);
  expect(await page.locator("table th[scope=col]").count()).toBe(8);
  expect(await page.locator("tbody tr").count()).toBe(owner.entries.length);
  const { violations, passes } = await axeSeriousViolations(page);
  expect(passes).toBeGreaterThan(5);
  expect(violations).toEqual([]);
});
