/**
 * A person's digest as an email: its subject, an HTML body (a real table with headers, our window colours) and the
 * same facts as plain text. Every value is escaped; nothing of the workbook but the listed actions goes in, never a
 * key or token. Pure: Google Sheets sends these with MailApp, Excel saves them as drafts (digest-eml.ts).
 */
import { DEMO_NOTE } from "../demo/demo-key";
import { WINDOW_COLOURS, type Window } from "../sheet/colours";
import type { DigestAction, DigestEntry } from "./digest";
import type { DigestRecipient } from "./digest-route";
import { countWord, formatCount } from "../numbers";
import { utf8Bytes } from "../sheet/write-chunks";

export interface RenderOptions {
  /** The spreadsheet's or workbook's name. */
  title: string;
  today: string;
  /** The last digest's day, or null for the first. */
  since: string | null;
  summary?: boolean;
  /** Some result is the demo's. */
  demo: boolean;
  /** The link to an action's row, where the host has one. */
  link?: (a: DigestAction) => string | null;
  /** How to stop these emails, in the host's words. */
  stop: string;
}

export interface RenderedDigest {
  subject: string;
  text: string;
  html: string;
  /** How many of the recipient's actions the message lists: all of them, unless they would not fit (DIGEST_MAX_BYTES). */
  listed: number;
}

export const DEMO_SUBJECT = "[DEMO]";

/** Google Sheets' link to a row: the spreadsheet's URL with the sheet's gid and the row's first cell. */
export function sheetsRowLink(spreadsheetUrl: string, gid: number, row: number): string {
  return `${spreadsheetUrl.replace(/#.*$/, "")}#gid=${gid}&range=A${row}`;
}

/** "in 12 days", "today", "3 days overdue": the days left as the digest says them. */
export function daysLeftText(days: number | null): string {
  if (days === null) return "no date";
  if (days === 0) return "due today";
  const n = Math.abs(days);
  const d = countWord(n, "day");
  return days > 0 ? `${d} left` : `${d} overdue`;
}

/** What oneLine would change: a control character, whitespace but a single space, or a space at either end. */
// eslint-disable-next-line no-control-regex -- control characters are what oneLine removes.
const NOT_ONE_LINE = /[\u0000-\u001f\u007f\u2028\u2029]|[^\S ]| {2}|^ | $/;

/** One line of text: no line breaks or control characters from a cell can reshape the message. */
function oneLine(s: string): string {
  // Most cells are one line already, and a digest of 10,000 actions asks this of every value.
  if (!NOT_ONE_LINE.test(s)) return s;
  return (
    s
      // eslint-disable-next-line no-control-regex -- control characters are what this removes.
      .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
/** Text of one line as HTML: each of & < > " ' as its entity, in one pass. */
const escapeLine = (line: string) => line.replace(/[&<>"']/g, (c) => ENTITIES[c]);

export function escapeHtml(s: string): string {
  return escapeLine(oneLine(s));
}

/** Only a web link is made a link: never javascript:, data: or a relative address. */
const safeLink = (u: string | null | undefined) => (u && /^https:\/\/[^\s"<>]+$/.test(u) ? u : null);

const n = (k: number, one: string, many = `${one}s`) => countWord(k, one, many);

/** The words both bodies share, each made once. */
function facts(r: DigestRecipient, o: RenderOptions) {
  const overdue = r.entries.filter((e) => e.window === "Overdue").length;
  const title = oneLine(o.title) || "Compliance";
  const subject = `${o.demo ? `${DEMO_SUBJECT} ` : ""}${o.summary ? "Weekly compliance summary" : "Compliance reminders"}: ${n(r.entries.length, "action")}${overdue ? ` (${formatCount(overdue)} overdue)` : ""} in ${title}`;
  const intro = o.summary
    ? `Every open action within the reminder window in "${title}" on ${o.today}.`
    : o.since
      ? `What is new or more urgent in "${title}" since the last digest (${o.since}), as of ${o.today}.`
      : `The actions in "${title}" as of ${o.today}: the first digest lists every one.`;
  const scope = r.everything
    ? "You receive every action."
    : "You receive the actions assigned to you (the Assigned to column).";
  const demo = o.demo
    ? `${DEMO_NOTE}: these results come from the demo key, not real checks. Demo results never start real reminders.`
    : "";
  const noEvidence = r.doneWithoutEvidence.map(
    (a) => `Marked done without evidence: ${a.check}, ${a.address} (${where(a)}). Add the certificate or note.`,
  );
  return { subject: oneLine(subject), intro, scope, demo, noEvidence };
}

const where = (a: DigestAction) => oneLine(`${a.table}${a.row ? `, row ${a.row}` : ""}`);

/** The columns of the table and of each text block, in one order. */
const COLUMNS: [string, (e: DigestEntry) => string][] = [
  ["Why", (e) => e.why],
  ["Window", (e) => e.window],
  ["Property", (e) => `${e.address}${e.uprn ? ` (UPRN ${e.uprn})` : ""}`],
  ["Check", (e) => e.check],
  ["Action", (e) => e.action],
  ["Due", (e) => e.due ?? "no date"],
  ["Days left", (e) => daysLeftText(e.daysLeft)],
  ["Where", (e) => where(e)],
];

/**
 * The most a digest's two bodies (plain text and HTML) hold together, in UTF-8 bytes. MailApp refuses a message whose
 * body is over 200 KB on consumer accounts (400 KB on Google Workspace): a digest of a large portfolio's first day, with
 * every action, is megabytes, and would not be sent at all. Both hosts keep to the smaller limit, counting the two
 * bodies together, so that an email is sent whichever account sends it and whichever way Google counts, and Excel's
 * drafts stay a size any mail server takes.
 */
export const DIGEST_MAX_BYTES = 200_000;
/** Room kept for the table's caption and the numbers in the lines that say what was left out. */
const NOTE_ROOM = 1_000;

/** The parts of a message that a large digest may have to cut: each item's text lines and its HTML, in order. */
interface Part {
  text: string[][];
  html: string[];
}

/** Bytes of lines joined by "\n", with the joining newline each adds. */
const linesBytes = (lines: readonly string[]) => lines.reduce((sum, l) => sum + utf8Bytes(l) + 1, 0);

/** How many of `part`'s items fit in `room` bytes, in order; and the bytes they take. */
function fitting(part: Part, room: number): { count: number; bytes: number } {
  let bytes = 0;
  for (let i = 0; i < part.html.length; i++) {
    const b = linesBytes(part.text[i]) + utf8Bytes(part.html[i]) + 1;
    if (bytes + b > room) return { count: i, bytes };
    bytes += b;
  }
  return { count: part.html.length, bytes };
}

type Facts = ReturnType<typeof facts>;

/** A message's three lists: the actions, the ones marked done without evidence, and what the owner must hear. */
interface Parts {
  entries: Part;
  noEvidence: Part;
  problems: Part;
}

/** How many items of each list a message shows. */
type Shown = Record<keyof Parts, number>;

const CELL = "padding:4px 8px;border:1px solid #C8C6C4;vertical-align:top";

/** Each action as the text body's block and the HTML table's row: its values made one line, and its link, once. */
function entryPart(r: DigestRecipient, o: RenderOptions): Part {
  const lines = r.entries.map((e) => COLUMNS.map(([, v]) => oneLine(v(e))));
  const links = r.entries.map((e) => safeLink(o.link ? o.link(e) : null));
  const cell = (s: string) => `<td style="${CELL}">${s}</td>`;
  return {
    text: r.entries.map((e, i) => [
      `${i + 1}. ${oneLine(`${e.check}: ${e.action}`)}`,
      ...COLUMNS.map(([h], k) => `   ${h}: ${lines[i][k]}`),
      ...(links[i] ? [`   Open the row: ${links[i]}`] : []),
      "",
    ]),
    html: r.entries.map((e, i) => {
      const c = WINDOW_COLOURS[e.window as Window];
      const l = links[i];
      const tds = COLUMNS.map(([h], k) => {
        const value = escapeLine(lines[i][k]);
        if (h === "Window" && c)
          return `<td style="${CELL};background:${c.fill};color:${c.font};font-weight:600">${value}</td>`;
        if (h === "Where" && l) return cell(`<a href="${escapeHtml(l)}" style="color:#0F548C">${value}</a>`);
        return cell(value);
      });
      return `<tr>${tds.join("")}</tr>`;
    }),
  };
}

function parts(r: DigestRecipient, o: RenderOptions, f: Facts): Parts {
  const items = (said: readonly string[], bullet = ""): Part => ({
    text: said.map((s) => [`${bullet}${oneLine(s)}`]),
    html: said.map((s) => `<li>${escapeHtml(s)}</li>`),
  });
  return { entries: entryPart(r, o), noEvidence: items(f.noEvidence), problems: items(r.problems, "- ") };
}

/** What a message says of each list it could not hold whole ("" for a list shown whole). */
function cutNotes(p: Parts, shown: Shown): Record<keyof Parts, string> {
  const total = p.entries.html.length;
  const noEvidence = p.noEvidence.html.length - shown.noEvidence;
  const problems = p.problems.html.length - shown.problems;
  return {
    entries:
      shown.entries >= total
        ? ""
        : shown.entries
          ? `Listed here: the ${formatCount(shown.entries)} most urgent of ${n(total, "action")}, as many as an email can hold. The Action list sheet has every one.`
          : `None of the ${n(total, "action")} could be listed: an email can hold no more. The Action list sheet has every one.`,
    noEvidence: noEvidence
      ? `And ${n(noEvidence, "more action")} marked done without evidence: see the Action list's Done and Evidence columns.`
      : "",
    problems: problems ? `And ${n(problems, "more problem")} like these, not listed: an email can hold no more.` : "",
  };
}

function textBody(f: Facts, o: RenderOptions, p: Parts, shown: Shown): string {
  const cut = cutNotes(p, shown);
  const text: string[] = [f.subject, "", ...(f.demo ? [f.demo, ""] : []), f.intro, f.scope, ""];
  for (const item of p.entries.text.slice(0, shown.entries)) text.push(...item);
  if (cut.entries) text.push(cut.entries, "");
  if (p.noEvidence.html.length) {
    for (const item of p.noEvidence.text.slice(0, shown.noEvidence)) text.push(...item);
    if (cut.noEvidence) text.push(cut.noEvidence);
    text.push("");
  }
  if (p.problems.html.length) {
    text.push("For the owner:");
    for (const item of p.problems.text.slice(0, shown.problems)) text.push(...item);
    if (cut.problems) text.push(`- ${cut.problems}`);
    text.push("");
  }
  text.push(oneLine(o.stop));
  return text.join("\n");
}

const TABLE_HEAD = COLUMNS.map(
  ([h]) =>
    `<th scope="col" style="padding:4px 8px;border:1px solid #C8C6C4;background:#F3F2F1;color:#201F1E;text-align:left">${escapeHtml(h)}</th>`,
).join("");

function htmlBody(f: Facts, o: RenderOptions, p: Parts, shown: Shown): string {
  const cut = cutNotes(p, shown);
  const total = p.entries.html.length;
  const para = (s: string, style = "") => `<p${style ? ` style="${style}"` : ""}>${escapeHtml(s)}</p>`;
  const li = (s: string) => (s ? [`<li>${escapeHtml(s)}</li>`] : []);
  const caption = cut.entries
    ? `${formatCount(shown.entries)} of ${n(total, "action")}, most urgent first`
    : n(total, "action");
  return [
    "<!DOCTYPE html>",
    '<html lang="en-GB"><head><meta charset="utf-8">',
    `<title>${escapeHtml(f.subject)}</title></head>`,
    '<body style="font-family:Segoe UI,Arial,sans-serif;font-size:14px;color:#201F1E;background:#FFFFFF">',
    "<main>",
    `<h1 style="font-size:18px">${escapeHtml(f.subject)}</h1>`,
    ...(f.demo ? [para(f.demo, "background:#FFF4CE;color:#5C3C00;padding:6px;font-weight:600")] : []),
    para(f.intro),
    para(f.scope),
    ...(shown.entries
      ? [
          '<table style="border-collapse:collapse">',
          `<caption style="text-align:left;font-weight:600;padding:4px 0">${escapeHtml(caption)}</caption>`,
          `<thead><tr>${TABLE_HEAD}</tr></thead>`,
          `<tbody>${p.entries.html.slice(0, shown.entries).join("\n")}</tbody>`,
          "</table>",
        ]
      : []),
    ...(cut.entries ? [para(cut.entries, "font-weight:600")] : []),
    ...(p.noEvidence.html.length
      ? ["<ul>", ...p.noEvidence.html.slice(0, shown.noEvidence), ...li(cut.noEvidence), "</ul>"]
      : []),
    ...(p.problems.html.length
      ? [
          '<h2 style="font-size:16px">For the owner</h2>',
          "<ul>",
          ...p.problems.html.slice(0, shown.problems),
          ...li(cut.problems),
          "</ul>",
        ]
      : []),
    para(o.stop, "color:#484644"),
    "</main></body></html>",
  ].join("\n");
}

/**
 * A person's digest as an email, within DIGEST_MAX_BYTES. One too large keeps what every message has (its words, the
 * table's frame, the lines saying what was left out), then the owner's problems, the actions (most urgent first) and
 * the ones marked done without evidence, each as far as it fits.
 */
export function renderDigest(r: DigestRecipient, o: RenderOptions): RenderedDigest {
  const f = facts(r, o);
  const p = parts(r, o, f);
  const render = (shown: Shown): RenderedDigest => ({
    subject: f.subject,
    text: textBody(f, o, p, shown),
    html: htmlBody(f, o, p, shown),
    listed: shown.entries,
  });
  const whole = render({
    entries: p.entries.html.length,
    noEvidence: p.noEvidence.html.length,
    problems: p.problems.html.length,
  });
  if (utf8Bytes(whole.text) + utf8Bytes(whole.html) <= DIGEST_MAX_BYTES) return whole;
  const frame = render({ entries: 0, noEvidence: 0, problems: 0 });
  let room = DIGEST_MAX_BYTES - utf8Bytes(frame.text) - utf8Bytes(frame.html) - NOTE_ROOM - utf8Bytes(TABLE_HEAD);
  const take = (part: Part) => {
    const fit = fitting(part, room);
    room -= fit.bytes;
    return fit.count;
  };
  const problems = take(p.problems);
  const entries = take(p.entries);
  return render({ problems, entries, noEvidence: take(p.noEvidence) });
}
