/**
 * Reminder digests from the sandbox's own data: three tables checked on one day, then the same results 60 days later
 * (and again the next day). Each expectation is read from the two Action lists themselves (their Window and Days left
 * for the same Action ID), not from the digest's own arithmetic.
 */
import {
  DEFAULT_THRESHOLDS,
  DIGEST_MAX_BYTES,
  blockProperties,
  buildDigest,
  buildPortfolioList,
  daysLeftText,
  detectUserColumns,
  digestActions,
  digestEml,
  fitQuota,
  isEmailAddress,
  outputHeaders,
  outputRow,
  parseCheckResult,
  parseThresholds,
  readDigestState,
  digestStateText,
  renderDigest,
  routeDigest,
  sheetsRowLink,
  type ActionListSheet,
  type Cell,
  type PortfolioTable,
} from "../../../core";
import { simpleParser } from "mailparser";
import { buildDatasetFor, checkResultFor } from "../../../sandbox/dataset";

const NOW = new Date("2027-01-31T09:30:00Z");
const DAY1 = "2027-01-31";
const DAY2 = "2027-04-01"; // 60 days on
const DAY3 = "2027-04-02";
const ds = buildDatasetFor(NOW);
const H = outputHeaders();
const PEOPLE = ["ana@example.com", "bo@example.co.uk", "Jo Smith", ""];

/** A table of n properties: UPRN, Address, Assigned to, then our block from column D (as a host writes it). */
function table(id: string, sheet: string, n: number, offset: number): PortfolioTable {
  const rows: Cell[][] = [["UPRN", "Address", "Assigned to", ...H]];
  ds.properties.slice(offset, offset + n).forEach((p, i) => {
    const parsed = parseCheckResult(JSON.parse(JSON.stringify(checkResultFor(p))));
    if (!parsed.ok) throw new Error(parsed.message);
    rows.push([
      p.uprn,
      p.address,
      PEOPLE[i % PEOPLE.length],
      ...outputRow({ result: parsed.value }, NOW.toISOString()),
    ]);
  });
  const user = detectUserColumns(rows[0]);
  const props = blockProperties(rows.slice(1), {
    blockColumn: 3,
    uprn: 0,
    address: 1,
    user,
    firstRow: 2,
    dates: { monthFirst: false, today: NOW.toISOString().slice(0, 10) },
  });
  return { id, sheet, props };
}

const TABLES = [table("t1", "North", 400, 0), table("t2", "South", 400, 400), table("t3", "East", 400, 800)];
const list = (today: string, existing: unknown[][] = []) =>
  buildPortfolioList(TABLES, { today, withinDays: Math.max(...DEFAULT_THRESHOLDS) }, existing);

function byId(l: ActionListSheet): Map<string, { window: string; days: number | null; row: Cell[] }> {
  const at = (h: string) => l.headers.indexOf(h);
  return new Map(
    l.values.slice(1, 1 + l.open).map((r) => [
      String(r[at("Action ID")]),
      {
        window: String(r[at("Window")]),
        days: typeof r[at("Days left")] === "number" ? (r[at("Days left")] as number) : null,
        row: r,
      },
    ]),
  );
}

const RANK = ["Overdue", "Urgent", "Book", "Plan", "OK"];

test("the first digest lists every open action as new; 60 days on, exactly the new, more urgent, overdue and past-a-threshold ones; the next day with nothing changed, nothing", () => {
  const l1 = list(DAY1);
  const d1 = buildDigest(null, digestActions(l1, TABLES), { today: DAY1 });
  expect(d1.entries.length).toBe(l1.open);
  expect(d1.entries.length).toBeGreaterThan(100);
  expect(new Set(d1.entries.map((e) => e.reason))).toEqual(new Set(["new"]));

  // The state survives its text form (hosts keep it as text).
  const kept = readDigestState(digestStateText(d1.next));
  expect(kept).toEqual(d1.next);

  const l2 = list(DAY2);
  const d2 = buildDigest(kept, digestActions(l2, TABLES), { today: DAY2 });
  const before = byId(l1);
  const expected = new Map<string, string>();
  // An overdue action is said once: one overdue last time, same row and check, under another date is the same one.
  const undated = (id: string) => id.replace(/\.\d{8}(-[0-9a-z]+)?$/, "$1");
  const overdueBefore = new Map(
    [...before].filter(([, v]) => v.window === "Overdue").map(([id, v]) => [undated(id), v]),
  );
  for (const [id, now] of byId(l2)) {
    const isOverdue = now.window === "Overdue";
    const was = before.get(id) ?? (isOverdue ? overdueBefore.get(undated(id)) : undefined);
    if (!was) {
      expected.set(id, "threshold-or-new");
      continue;
    }
    if (RANK.indexOf(now.window) < RANK.indexOf(was.window))
      expected.set(id, now.window === "Overdue" ? "overdue" : "more urgent");
    else if (was.days !== null && now.days !== null && DEFAULT_THRESHOLDS.some((t) => was.days! > t && now.days! <= t))
      expected.set(id, "threshold");
  }
  const got = new Map(d2.entries.map((e) => [e.id, e.reason as string]));
  expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [id, why] of expected) {
    if (why === "threshold-or-new") expect(["threshold", "new", "overdue"]).toContain(got.get(id));
    else expect([id, got.get(id)]).toEqual([id, why]);
  }
  // 60 days on, some actions crossed each kind of line.
  expect(new Set(d2.entries.map((e) => e.reason))).toEqual(new Set(["threshold", "more urgent", "overdue"]));
  // Fewer than all: actions that stayed in their window, past no threshold, are not repeated.
  expect(d2.entries.length).toBeLessThan(l2.open);

  const l3 = list(DAY3);
  const d3 = buildDigest(d2.next, digestActions(l3, TABLES), { today: DAY3 });
  // A day on: only what crossed a line that one day (each a threshold or window reached on DAY3 itself).
  const l2ids = byId(l2);
  for (const e of d3.entries) {
    const was = l2ids.get(e.id);
    if (!was) {
      // Not on the list the day before: it has just come within the largest threshold.
      expect([e.id, e.daysLeft, e.reason]).toEqual([e.id, 90, "threshold"]);
      continue;
    }
    expect(was.days! - 1).toBe(e.daysLeft);
    expect(DEFAULT_THRESHOLDS.includes(e.daysLeft!) || e.window !== was.window).toBe(true);
  }
  // The same day again: nothing at all.
  expect(buildDigest(d3.next, digestActions(l3, TABLES), { today: DAY3 }).entries).toEqual([]);
});

test("Done leaves an action out; done without evidence is said once; a weekly summary lists everything open", () => {
  const l1 = list(DAY1);
  const at = (h: string) => l1.headers.indexOf(h);
  // The user ticks Done on two actions not yet due (Done past the due date closes them) and adds an Evidence column
  // with one of them filled.
  const [a, b] = l1.values
    .map((r, i) => ({ r, i }))
    .filter(
      ({ r, i }) =>
        i > 0 && i <= l1.open && typeof r[at("Days left")] === "number" && (r[at("Days left")] as number) > 0,
    );
  const existing = l1.values.map((r, i) => {
    const row: unknown[] = [...r, i === 0 ? "Evidence" : i === a.i ? "Certificate 123" : ""];
    if (i === a.i || i === b.i) row[at("Done")] = true;
    return row as unknown[];
  });
  const l = list(DAY1, existing);
  expect(l.headers).toContain("Evidence");
  const acts = digestActions(l, TABLES);
  const doneIds = [a.r[at("Action ID")], b.r[at("Action ID")]];
  expect(acts.done.map((a) => a.id).sort()).toEqual([...doneIds].sort());
  expect(acts.doneWithoutEvidence.map((a) => a.id)).toEqual([doneIds[1]]);
  const d = buildDigest(null, acts, { today: DAY1 });
  expect(d.entries.some((e) => doneIds.includes(e.id))).toBe(false);
  expect(d.doneWithoutEvidence.map((a) => a.id)).toEqual([doneIds[1]]);
  const again = buildDigest(d.next, acts, { today: DAY3 });
  expect(again.doneWithoutEvidence).toEqual([]);
  // The weekly summary: every open action, changed or not.
  const summary = buildDigest(d.next, acts, { today: DAY1, summary: true });
  expect(summary.entries.length).toBe(acts.open.length);
});

test('Done is read one way: "no" or "booked for May" keeps an overdue action open in the Action list, its digest and its summary count; a tick closes it in all three', () => {
  const l1 = list(DAY1);
  const at = (h: string) => l1.headers.indexOf(h);
  const overdue = l1.values
    .map((r, i) => ({ r, i }))
    .filter(
      ({ r, i }) =>
        i > 0 && i <= l1.open && typeof r[at("Days left")] === "number" && (r[at("Days left")] as number) < 0,
    );
  expect(overdue.length).toBeGreaterThanOrEqual(3);
  const [no, booked, ticked] = overdue;
  const typed = new Map<number, unknown>([
    [no.i, "no"],
    [booked.i, "booked for May"],
    [ticked.i, "✓"],
  ]);
  const existing = l1.values.map((r, i) => {
    const row: unknown[] = [...r, i === 0 ? "Evidence" : ""];
    if (typed.has(i)) row[at("Done")] = typed.get(i);
    return row;
  });
  const l = list(DAY1, existing);
  const id = (x: { r: unknown[] }) => x.r[at("Action ID")];
  const openIds = l.values.slice(1, l.open + 1).map((r) => r[l.headers.indexOf("Action ID")]);
  const closedIds =
    l.closedTitleRow === null ? [] : l.values.slice(l.closedTitleRow + 1).map((r) => r[l.headers.indexOf("Action ID")]);
  expect(openIds).toEqual(expect.arrayContaining([id(no), id(booked)]));
  expect(closedIds).toContain(id(ticked));
  expect(closedIds).not.toContain(id(no));
  expect(l.doneWithoutEvidence).toBe(1);
  const acts = digestActions(l, TABLES);
  // The ticked one is in Closed, so the digest leaves it out; the other two are open actions it reminds of.
  const openActs = acts.open.map((a) => a.id);
  expect(openActs).toEqual(expect.arrayContaining([id(no), id(booked)]));
  expect(openActs).not.toContain(id(ticked));
  expect([...acts.done, ...acts.doneWithoutEvidence].map((a) => a.id)).not.toEqual(expect.arrayContaining([id(no)]));
  const d = buildDigest(null, acts, { today: DAY1 });
  expect(d.entries.map((e) => e.id)).toEqual(expect.arrayContaining([id(no), id(booked)]));
});

test("routing: each person gets exactly their actions; the owner gets everything and hears of a malformed address", () => {
  const l = list(DAY1);
  const d = buildDigest(null, digestActions(l, TABLES), { today: DAY1 });
  const out = routeDigest(d, { owner: "owner@example.com", extra: ["Bo@Example.co.uk", "not an address"] });
  const to = (a: string) => out.find((r) => r.to.toLowerCase() === a.toLowerCase());
  expect(out[0].to).toBe("owner@example.com");
  expect(out[0].entries.length).toBe(d.entries.length);
  // bo is an extra recipient: everything, once, not a second digest of their own.
  expect(out.filter((r) => r.to.toLowerCase() === "bo@example.co.uk")).toHaveLength(1);
  expect(to("bo@example.co.uk")!.entries.length).toBe(d.entries.length);
  const ana = to("ana@example.com")!;
  expect(ana.everything).toBe(false);
  expect(ana.entries.map((e) => e.id).sort()).toEqual(
    d.entries
      .filter((e) => e.assignee === "ana@example.com")
      .map((e) => e.id)
      .sort(),
  );
  expect(ana.problems).toEqual([]);
  expect(out.map((r) => r.to)).not.toContain("Jo Smith");
  const problems = out[0].problems.join("\n");
  expect(problems).toMatch(
    /"Jo Smith" \(Assigned to, (North|South|East) row \d+, .* and \d+ more\) is not an email address/,
  );
  expect(problems).toMatch(/"not an address" is not an email address/);

  // The quota short: the owner alone, with every action, told who was not sent theirs.
  const fit = fitQuota(out, 2);
  expect(fit.send).toHaveLength(1);
  expect(fit.send[0].to).toBe("owner@example.com");
  expect(fit.send[0].entries.length).toBe(d.entries.length);
  expect(fit.notSent.sort()).toEqual(
    out
      .slice(1)
      .map((r) => r.to)
      .sort(),
  );
  expect(fit.send[0].problems.pop()).toMatch(/quota had 2 left.*not sent theirs: .*ana@example\.com/);
  expect(fitQuota(out, 0)).toEqual({ send: [], notSent: out.map((r) => r.to) });
});

test("addresses: usable ones are taken as typed; malformed ones are refused, not guessed", () => {
  for (const ok of ["a@b.co", "first.last+tag@sub.example.org", `${"x".repeat(64)}@${"d".repeat(60)}.example.com`])
    expect([ok, isEmailAddress(ok)]).toEqual([ok, true]);
  for (const bad of [
    "Jo Smith",
    "jo@example",
    "jo@@example.com",
    "jo@exa mple.com",
    "<jo@example.com>",
    "jó@example.com",
    "jo@-x.com",
    `${"x".repeat(65)}@example.com`,
    "jo@example.com; bo@example.com",
  ])
    expect([bad, isEmailAddress(bad)]).toEqual([bad, false]);
});

test("thresholds as typed: defaults when empty, whole days, largest first", () => {
  expect(parseThresholds("")).toEqual({ ok: true, value: [90, 60, 30, 7] });
  expect(parseThresholds("7, 30;14 30")).toEqual({ ok: true, value: [30, 14, 7] });
  expect(parseThresholds("30, 1e2")).toMatchObject({
    ok: false,
    message: expect.stringMatching(/"1e2" is not a whole number/),
  });
  expect(parseThresholds("-5")).toMatchObject({ ok: false });
});

test("rendering: every value escaped, the link only to the row, the same facts in text and HTML, demo said; the draft parses", async () => {
  const l = list(DAY1);
  const acts = digestActions(l, TABLES);
  const evil = { ...acts.open[0], address: `<script>alert(1)</script> & "Flat 2" =HYPERLINK("x")\r\nBcc: x@y.z` };
  const d = buildDigest(null, { ...acts, open: [evil, ...acts.open.slice(1, 5)] }, { today: DAY1 });
  const [owner] = routeDigest(d, { owner: "owner@example.com" });
  const r = renderDigest(owner, {
    title: "Lettings £ portfolio – Café",
    today: DAY1,
    since: null,
    demo: true,
    link: (a) =>
      a.id === evil.id
        ? "javascript:alert(1)"
        : sheetsRowLink("https://docs.google.com/spreadsheets/d/abc/edit#gid=0", 7, a.row!),
    stop: "To stop these emails, turn reminders off in the sidebar's Schedule section.",
  });
  expect(r.subject).toMatch(/^\[DEMO\] Compliance reminders: 5 actions/);
  expect(r.text).toMatch(/Demo data, not a real check/);
  expect(r.html).toMatch(/Demo data, not a real check/);
  expect(r.html).not.toMatch(/<script|javascript:/);
  expect(r.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Flat 2&quot;");
  // A cell's line break cannot add a line (a header, in a draft) to the message.
  expect(r.text).not.toMatch(/^\s*Bcc:/m);
  expect(r.html).toContain(
    `href="https://docs.google.com/spreadsheets/d/abc/edit#gid=7&amp;range=A${owner.entries[1].row}"`,
  );
  expect(r.html).toMatch(/<th scope="col"[^>]*>Property<\/th>/);
  // Every action's check, due date and days left are in both.
  for (const e of owner.entries) {
    for (const s of [e.due!, daysLeftText(e.daysLeft), e.check]) {
      expect(r.text).toContain(s);
      expect(r.html).toContain(s);
    }
  }
  expect(r.text).toMatch(/To stop these emails/);
  // The draft, read as a mail client reads it: the subject's £, dash and accents as encoded-words, a long address.
  const long = `${"a".repeat(64)}@${"lettings-and-property-management.".repeat(5)}example.co.uk`;
  const eml = digestEml(r, { to: long, from: "owner@example.com", nowMs: NOW.getTime(), id: "t1" });
  expect(eml).toMatch(/^X-Unsent: 1\r$/m);
  const head = eml.slice(0, eml.indexOf("\r\n\r\n"));
  expect(head).toMatch(/^[\x20-\x7e\r\n]*$/);
  for (const line of eml.split("\r\n")) expect(Buffer.byteLength(line, "utf8")).toBeLessThanOrEqual(998);
  // Folded before 78 characters, except the one line that holds the 200-character address whole.
  for (const line of head.split("\r\n")) if (!line.includes(long)) expect(line.length).toBeLessThanOrEqual(78);
  expect(head.split("\r\n")).toContain(`To: ${long}`);
  const mail = await simpleParser(eml);
  expect(mail.subject).toBe(r.subject);
  expect(mail.subject).toContain("Lettings £ portfolio – Café");
  expect(mail.to && !Array.isArray(mail.to) ? mail.to.value[0].address : "").toBe(long);
  expect(mail.date?.toISOString()).toBe(
    NOW.toISOString()
      .replace(/\.\d+Z$/, ".000Z")
      .replace(":30:00", ":30:00"),
  );
  expect(mail.headers.get("x-unsent")).toBe("1");
  expect(mail.text?.trim()).toBe(r.text.trim());
  expect(mail.html).toBe(r.html.replace(/\r?\n/g, "\n"));
});

test("counts of a thousand or more are grouped as everywhere else: the subject's overdue count and a malformed address's other rows", () => {
  const acts = digestActions(list(DAY1), TABLES);
  const base = acts.open[0];
  // 1,200 overdue actions, all assigned to a name that is not an address, each on its own row.
  const many = Array.from({ length: 1_200 }, (_, i) => ({
    ...base,
    id: `${base.id}-${i}`,
    window: "Overdue",
    assignee: "Jo Smith",
    row: i + 2,
  }));
  const d = buildDigest(null, { open: many, doneWithoutEvidence: [], done: [] }, { today: DAY1 });
  expect(d.entries).toHaveLength(1_200);
  const [owner] = routeDigest(d, { owner: "owner@example.com" });
  expect(owner.problems.join("\n")).toMatch(/"Jo Smith" \(Assigned to, .* and 1,195 more\) is not an email address/);
  const r = renderDigest(owner, { title: "Lettings", today: DAY1, since: null, demo: false, link: () => "", stop: "" });
  expect(r.subject).toBe("Compliance reminders: 1,200 actions (1,200 overdue) in Lettings");
});

test("a digest larger than an email holds (MailApp's 200 KB) lists the most urgent actions, as many as fit, and says how many there are; the owner's problems and the stop line stay", () => {
  const acts = digestActions(list(DAY1), TABLES);
  // 3,000 actions of every window (the day's own, each on a row of its own), some assigned to a name, not an address.
  const many = Array.from({ length: 3_000 }, (_, i) => ({
    ...acts.open[i % acts.open.length],
    id: `${acts.open[i % acts.open.length].id}-${i}`,
    row: i + 2,
  }));
  const noEvidence = many.slice(0, 2_000).map((a) => ({ ...a, id: `${a.id}-done` }));
  const d = buildDigest(null, { open: many, doneWithoutEvidence: noEvidence, done: noEvidence }, { today: DAY1 });
  expect(d.entries).toHaveLength(3_000);
  expect(new Set(d.entries.map((e) => e.window)).size).toBeGreaterThan(2);
  const [owner] = routeDigest(d, { owner: "owner@example.com" });
  const stop = "To stop these emails, turn reminders off in the sidebar's Schedule section.";
  const r = renderDigest(owner, { title: "Lettings", today: DAY1, since: null, demo: false, link: () => null, stop });
  expect(DIGEST_MAX_BYTES).toBe(200_000);
  expect(Buffer.byteLength(r.text) + Buffer.byteLength(r.html)).toBeLessThanOrEqual(DIGEST_MAX_BYTES);
  expect(r.subject).toBe(
    `Compliance reminders: 3,000 actions (${d.entries.filter((e) => e.window === "Overdue").length.toLocaleString("en-GB")} overdue) in Lettings`,
  );
  // As many as fit, in the digest's order (most urgent first), each whole in both bodies.
  expect(r.listed).toBeGreaterThan(50);
  expect(r.listed).toBeLessThan(3_000);
  const numbered = r.text.split("\n").filter((l) => /^\d+\. /.test(l));
  expect(numbered).toEqual(owner.entries.slice(0, r.listed).map((e, i) => `${i + 1}. ${e.check}: ${e.action}`));
  expect(r.html.match(/<tr><td/g)).toHaveLength(r.listed);
  const order = ["Overdue", "Urgent", "Book", "Plan", "OK"];
  const urgency = (e: { window: string; due: string | null }) => `${order.indexOf(e.window)}|${e.due ?? "9999"}`;
  const lastListed = urgency(owner.entries[r.listed - 1]);
  expect(owner.entries.slice(r.listed).filter((e) => urgency(e) < lastListed)).toEqual([]);
  const said = `Listed here: the ${r.listed.toLocaleString("en-GB")} most urgent of 3,000 actions, as many as an email can hold. The Action list sheet has every one.`;
  expect(r.text).toContain(said);
  expect(r.html).toContain(said);
  expect(r.html).toContain(`>${r.listed.toLocaleString("en-GB")} of 3,000 actions, most urgent first</caption>`);
  // What did not fit of the ones marked done without evidence is counted, not dropped.
  const doneLines = r.text.split("\n").filter((l) => l.startsWith("Marked done without evidence:")).length;
  expect(doneLines).toBeLessThan(2_000);
  expect(r.text).toContain(
    `And ${(2_000 - doneLines).toLocaleString("en-GB")} more actions marked done without evidence: see the Action list's Done and Evidence columns.`,
  );
  // The owner still hears of the name that is not an address, and every message says how to stop them.
  expect(r.text).toMatch(/"Jo Smith" \(Assigned to, .* more\) is not an email address/);
  expect(r.html).toMatch(/&quot;Jo Smith&quot; \(Assigned to/);
  expect(r.text.endsWith(stop)).toBe(true);
  expect(r.html).toContain(stop.replace(/'/g, "&#39;"));

  // A digest that fits lists every action and says nothing of a limit.
  const small = buildDigest(null, { ...acts, open: acts.open.slice(0, 40) }, { today: DAY1 });
  const [smallOwner] = routeDigest(small, { owner: "owner@example.com" });
  const s = renderDigest(smallOwner, { title: "Lettings", today: DAY1, since: null, demo: false, stop });
  expect(s.listed).toBe(smallOwner.entries.length);
  expect(s.text.split("\n").filter((l) => /^\d+\. /.test(l))).toHaveLength(smallOwner.entries.length);
  expect(s.text).not.toMatch(/Listed here|as many as an email can hold/);
});
