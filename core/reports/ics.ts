/**
 * The Action list as an iCalendar file (RFC 5545): one all-day event per listed action on its due date, with a display
 * alarm 7 days before. Pure: hosts build the list (core/reports/action-list.ts) and save the text this returns.
 */
import { DEMO_NOTE } from "../demo/demo-key";
import { addDays } from "../compliance/obligations";
import { cellDay } from "../sheet/user-columns";
import type { ActionListSheet } from "./action-list";

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

/**
 * TEXT as RFC 5545 3.3.11 escapes it: line breaks of any kind (CRLF, a lone CR or LF, U+2028/9) become "\n", and no
 * other control character is carried (3.1: they are not allowed in a content line's value).
 */
export function icsText(s: string): string {
  return (
    s
      .replace(/\\/g, "\\\\")
      .replace(/;/g, "\\;")
      .replace(/,/g, "\\,")
      .replace(/\r\n|[\r\n\u2028\u2029]/g, "\\n")
      // eslint-disable-next-line no-control-regex -- control characters are what this removes: RFC 5545 forbids them in text.
      .replace(/[\u0000-\u001f\u007f]/g, "")
  );
}

/** Lines longer than 75 octets are folded (RFC 5545 3.1), never inside a UTF-8 character. */
function fold(line: string): string {
  const out: string[] = [];
  let cur = "";
  let bytes = 0;
  for (const ch of line) {
    // UTF-8 octets of the character (Apps Script has no TextEncoder).
    const cp = ch.codePointAt(0)!;
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + n > (out.length ? 74 : 75)) {
      out.push(cur);
      cur = "";
      bytes = 0;
    }
    cur += ch;
    bytes += n;
  }
  out.push(cur);
  return out.join("\r\n ");
}

const compact = (iso: string) => iso.replace(/-/g, "");

/**
 * The listed actions as all-day events. Each event's UID is its Action ID (table, source row, check, due date), so
 * two rows for one property are two events, and importing a newer file updates events rather than doubling them.
 */
export function actionCalendar(list: ActionListSheet, o: { nowIso: string; name?: string }): string {
  const h = list.headers;
  const at = (name: string) => h.indexOf(name);
  const stamp = o.nowIso.replace(/[-:]/g, "").replace(/\.\d+/, "").slice(0, 15) + "Z";
  const name = (o.name ?? "Compliance actions") + (list.demo ? ` (${DEMO_NOTE})` : "");
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Property Compliance Check//Action list//EN",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    `X-WR-CALNAME:${icsText(name)}`,
  ];
  const uids = new Set<string>();
  for (const r of list.values.slice(1, 1 + list.open)) {
    const due = cellDay(r[at("Due")]);
    if (!due) continue;
    const cell = (name: string) => (at(name) < 0 ? "" : text(r[at(name)]).replace(/^'/, ""));
    const uprn = cell("UPRN");
    const check = cell("Check");
    const action = cell("Action");
    const address = cell("Address");
    const source = [cell("Table"), cell("Row") ? `row ${cell("Row")}` : ""].filter(Boolean).join(", ");
    let uid = (cell("Action ID") || `${compact(due)}-${uprn}-${check}`).replace(/[^0-9A-Za-z.-]/g, "");
    // Never two events with one UID (RFC 5545 3.8.4.7), even from a list edited by hand.
    for (let n = 2; uids.has(uid); n++) uid = `${uid.replace(/~\d+$/, "")}~${n}`;
    uids.add(uid);
    lines.push(
      "BEGIN:VEVENT",
      `UID:${uid}@compliance-check`,
      `DTSTAMP:${stamp}`,
      `DTSTART;VALUE=DATE:${compact(due)}`,
      `DTEND;VALUE=DATE:${compact(addDays(due, 1))}`,
      `SUMMARY:${icsText(`${check}: ${action}`)}`,
      `DESCRIPTION:${icsText(`${address} (UPRN ${uprn}${source ? `; ${source}` : ""}). ${cell("Rule")}`)}`,
      ...(address ? [`LOCATION:${icsText(address)}`] : []),
      "TRANSP:TRANSPARENT",
      "BEGIN:VALARM",
      "ACTION:DISPLAY",
      `DESCRIPTION:${icsText(`${check} due in 7 days: ${address}`)}`,
      "TRIGGER:-P7D",
      "END:VALARM",
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return lines.map(fold).join("\r\n") + "\r\n";
}
