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

export function renderDigest(r: DigestRecipient, o: RenderOptions): RenderedDigest {
  const f = facts(r, o);
  const link = (e: DigestAction) => safeLink(o.link ? o.link(e) : null);

  // Each entry's values made one line, and its link, once for both bodies.
  const lines = r.entries.map((e) => COLUMNS.map(([, v]) => oneLine(v(e))));
  const links = r.entries.map(link);
  const text: string[] = [f.subject, "", ...(f.demo ? [f.demo, ""] : []), f.intro, f.scope, ""];
  r.entries.forEach((e, i) => {
    text.push(`${i + 1}. ${oneLine(`${e.check}: ${e.action}`)}`);
    COLUMNS.forEach(([h], k) => text.push(`   ${h}: ${lines[i][k]}`));
    const l = links[i];
    if (l) text.push(`   Open the row: ${l}`);
    text.push("");
  });
  if (f.noEvidence.length) text.push(...f.noEvidence.map(oneLine), "");
  if (r.problems.length) text.push("For the owner:", ...r.problems.map((p) => `- ${oneLine(p)}`), "");
  text.push(oneLine(o.stop));

  const cell = (s: string) => `<td style="padding:4px 8px;border:1px solid #C8C6C4;vertical-align:top">${s}</td>`;
  const head = COLUMNS.map(
    ([h]) =>
      `<th scope="col" style="padding:4px 8px;border:1px solid #C8C6C4;background:#F3F2F1;color:#201F1E;text-align:left">${escapeHtml(h)}</th>`,
  ).join("");
  const rows = r.entries.map((e, i) => {
    const c = WINDOW_COLOURS[e.window as Window];
    const l = links[i];
    const tds = COLUMNS.map(([h], k) => {
      const value = escapeLine(lines[i][k]);
      if (h === "Window" && c)
        return `<td style="padding:4px 8px;border:1px solid #C8C6C4;vertical-align:top;background:${c.fill};color:${c.font};font-weight:600">${value}</td>`;
      if (h === "Where" && l) return cell(`<a href="${escapeHtml(l)}" style="color:#0F548C">${value}</a>`);
      return cell(value);
    });
    return `<tr>${tds.join("")}</tr>`;
  });
  const p = (s: string, style = "") => `<p${style ? ` style="${style}"` : ""}>${escapeHtml(s)}</p>`;
  const html = [
    "<!DOCTYPE html>",
    '<html lang="en-GB"><head><meta charset="utf-8">',
    `<title>${escapeHtml(f.subject)}</title></head>`,
    '<body style="font-family:Segoe UI,Arial,sans-serif;font-size:14px;color:#201F1E;background:#FFFFFF">',
    "<main>",
    `<h1 style="font-size:18px">${escapeHtml(f.subject)}</h1>`,
    ...(f.demo ? [p(f.demo, "background:#FFF4CE;color:#5C3C00;padding:6px;font-weight:600")] : []),
    p(f.intro),
    p(f.scope),
    ...(r.entries.length
      ? [
          '<table style="border-collapse:collapse">',
          `<caption style="text-align:left;font-weight:600;padding:4px 0">${escapeHtml(n(r.entries.length, "action"))}</caption>`,
          `<thead><tr>${head}</tr></thead>`,
          `<tbody>${rows.join("\n")}</tbody>`,
          "</table>",
        ]
      : []),
    ...(f.noEvidence.length ? ["<ul>", ...f.noEvidence.map((s) => `<li>${escapeHtml(s)}</li>`), "</ul>"] : []),
    ...(r.problems.length
      ? [
          '<h2 style="font-size:16px">For the owner</h2>',
          "<ul>",
          ...r.problems.map((s) => `<li>${escapeHtml(s)}</li>`),
          "</ul>",
        ]
      : []),
    p(o.stop, "color:#484644"),
    "</main></body></html>",
  ].join("\n");
  return { subject: f.subject, text: text.join("\n"), html };
}
