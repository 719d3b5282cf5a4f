/**
 * A digest as an unsent email file (RFC 5322 with MIME): multipart/alternative, the text and HTML parts in UTF-8,
 * headers with non-ASCII words as RFC 2047 encoded-words, every line within 998 octets, and `X-Unsent: 1` so that
 * Outlook opens it as a draft ready to send. Pure, with no Buffer or TextEncoder, so that it runs in every host.
 */
import type { RenderedDigest } from "./digest-render";

/** UTF-8 octets of a string (lone surrogates become U+FFFD, as TextEncoder does). */
export function utf8(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    let cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return out;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function base64(bytes: readonly number[]): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b, c] = [bytes[i], bytes[i + 1], bytes[i + 2]];
    out += B64[a >> 2] + B64[((a & 3) << 4) | ((b ?? 0) >> 4)];
    out += b === undefined ? "=" : B64[((b & 15) << 2) | ((c ?? 0) >> 6)];
    out += c === undefined ? "=" : B64[c & 63];
  }
  return out;
}

/** A body part's base64 in lines of 76 characters (RFC 2045 6.8). */
function base64Lines(s: string): string {
  return (base64(utf8(s)).match(/.{1,76}/g) ?? [""]).join("\r\n");
}

/**
 * A header's text: ASCII as it is; otherwise encoded-words (RFC 2047, "B", UTF-8), each at most 75 characters and
 * never splitting a character, separated by folding white space.
 */
export function encodeHeaderText(s: string): string {
  // eslint-disable-next-line no-control-regex -- a header's value is one line: control characters are removed.
  const clean = s.replace(/[\u0000-\u001f\u007f]+/g, " ");
  if (/^[\x20-\x7e]*$/.test(clean)) return clean;
  const words: string[] = [];
  let chunk: number[] = [];
  // "=?UTF-8?B?" + "?=" is 12 characters: 39 octets make 52 base64 characters, 64 in all, 73 after "Subject: ".
  for (const ch of clean) {
    const b = utf8(ch);
    if (chunk.length + b.length > 39) {
      words.push(`=?UTF-8?B?${base64(chunk)}?=`);
      chunk = [];
    }
    chunk.push(...b);
  }
  if (chunk.length) words.push(`=?UTF-8?B?${base64(chunk)}?=`);
  return words.join("\r\n ");
}

/** A header line folded at spaces before 78 characters where it can be (RFC 5322 2.2.3); never past 998. */
function header(name: string, value: string): string {
  const line = `${name}: ${value}`;
  if (line.length <= 78 || value.includes("\r\n")) return line;
  // Folded only between words of the value: a single long word (an address) stays whole on the name's line.
  const parts = value.split(" ");
  const lines: string[] = [];
  let cur = `${name}: ${parts.shift()!}`;
  for (const p of parts) {
    if (cur.length + 1 + p.length > 78) {
      lines.push(cur);
      cur = ` ${p}`;
    } else cur += ` ${p}`;
  }
  lines.push(cur);
  return lines.join("\r\n");
}

/** RFC 5322 3.3: "Fri, 27 Nov 2026 20:30:00 +0000". */
export function rfc5322Date(ms: number): string {
  const d = new Date(ms);
  const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const two = (x: number) => String(x).padStart(2, "0");
  return `${days[d.getUTCDay()]}, ${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

export interface EmlOptions {
  to: string;
  /** The sender's address when known; Outlook fills in the account's own otherwise. */
  from?: string;
  /** The clock's time now, in ms. */
  nowMs: number;
  /** Unique per draft (letters, digits, dots, hyphens). */
  id: string;
}

/** The draft's file text, with CRLF line ends. `to` is "" or an address isEmailAddress accepts (plain ASCII). */
export function digestEml(d: RenderedDigest, o: EmlOptions): string {
  const boundary = `=_digest_${o.id.replace(/[^0-9A-Za-z.-]/g, "")}`;
  const lines = [
    // A draft may be addressed to no one yet: the person fills it in before sending.
    ...(o.to ? [header("To", o.to)] : []),
    ...(o.from ? [header("From", o.from)] : []),
    header("Subject", encodeHeaderText(d.subject)),
    `Date: ${rfc5322Date(o.nowMs)}`,
    `Message-ID: <${o.id.replace(/[^0-9A-Za-z.-]/g, "")}@compliance-check.invalid>`,
    "X-Unsent: 1",
    "MIME-Version: 1.0",
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    "",
    "This is a message in MIME format.",
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=UTF-8",
    "Content-Transfer-Encoding: base64",
    "",
    base64Lines(d.text.replace(/\r?\n/g, "\r\n")),
    "",
    `--${boundary}`,
    "Content-Type: text/html; charset=UTF-8",
    "Content-Transfer-Encoding: base64",
    "",
    base64Lines(d.html.replace(/\r?\n/g, "\r\n")),
    "",
    `--${boundary}--`,
    "",
  ];
  return lines.join("\r\n");
}
