/**
 * Whether a bulk result is the property a row asked for: the UPRN, postcode and first line a result states, compared
 * with the row's query. A job's results page is placed by these when its items carry no index, and an item that says
 * it is another property is never placed on the row.
 */
import type { PropertyQuery } from "../sheet/input-rows";

/** Letters and digits only, upper case: how a postcode is compared ("sw1a2aa" = "SW1A 2AA"). */
function compact(s: unknown): string {
  return typeof s === "string" ? s.replace(/[^a-z0-9]+/gi, "").toUpperCase() : "";
}

/** The whole words of an address, lower case, accents folded: "2 Jubilee Rd." -> ["2", "jubilee", "rd"]. */
function addressWords(s: unknown): string[] {
  if (typeof s !== "string") return [];
  return (
    s
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? []
  );
}

/** Does the address begin with the first line asked for, word for word? "2 Jubilee Road" is not "42 Jubilee Road". */
function startsWithLine(address: unknown, line: string): boolean {
  const have = addressWords(address);
  const want = addressWords(line);
  return want.length > 0 && want.length <= have.length && want.every((w, i) => have[i] === w);
}

/** Does a check result (its address / postcode) fit a postcode query (and its first line, when given)? */
export function fitsPostcodeQuery(result: unknown, q: PropertyQuery): "address" | "postcode" | null {
  if (!q.postcode || q.uprn || !result || typeof result !== "object") return null;
  const r = result as Record<string, unknown>;
  const where = compact(r.address) + "|" + compact(r.postcode) + "|" + compact(r.full_address);
  if (!where.includes(compact(q.postcode))) return null;
  if (q.address && (startsWithLine(r.address, q.address) || startsWithLine(r.full_address, q.address)))
    return "address";
  return q.address ? null : "postcode";
}

const POSTCODE_IN_TEXT = /\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b/gi;

/** Whether a result says it is another property than the one asked: another UPRN, postcode or first line. */
export function contradicts(result: unknown, q: PropertyQuery | undefined): boolean {
  if (!q || !result || typeof result !== "object") return false;
  const r = result as Record<string, unknown>;
  if (q.uprn)
    return (
      r.uprn !== undefined &&
      r.uprn !== null &&
      String(r.uprn).replace(/^0+(?=\d)/, "") !== q.uprn.replace(/^0+(?=\d)/, "")
    );
  // Only a postcode the result states (its own field, or one written in its address) can contradict the row's.
  const stated = [
    r.postcode,
    ...[r.address, r.full_address].flatMap((a) => (typeof a === "string" ? (a.match(POSTCODE_IN_TEXT) ?? []) : [])),
  ]
    .map(compact)
    .filter(Boolean);
  if (q.postcode && stated.length > 0 && !stated.includes(compact(q.postcode))) return true;
  const lines = [r.address, r.full_address, r.address_line_1, r.line_1].filter(
    (v) => typeof v === "string" && v.trim(),
  );
  return !!q.address && lines.length > 0 && !lines.some((l) => startsWithLine(l, q.address!));
}
