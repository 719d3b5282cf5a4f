/**
 * Finding properties in the register the way the service does: by UPRN (leading zeros ignored), by
 * postcode (any case, with or without the space) narrowed by a first line, and by free-text words.
 */
import { isValid as isValidPostcode, toNormalised } from "postcode";
import type { Dataset, Property } from "./dataset";
import { ApiError } from "./errors";

/** What the caller asked for; a query string or one element of a bulk request. */
export interface PropertyQuery {
  uprn?: unknown;
  postcode?: unknown;
  address?: unknown;
}

/** A present, non-blank value as text (numbers allowed: a spreadsheet may send a UPRN as a number). */
function text(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") {
    throw new ApiError(
      400,
      "invalid_request",
      `${field} must be a string${Array.isArray(value) ? " (given more than once)" : ""}.`,
    );
  }
  const t = value.trim();
  return t === "" ? undefined : t;
}

/** Canonical UPRN (no leading zeros), or throws 400 invalid_uprn. */
export function canonicalUprn(raw: string): string {
  if (!/^\d{1,12}$/.test(raw)) {
    throw new ApiError(400, "invalid_uprn", `UPRN must be 1 to 12 digits; got "${raw.slice(0, 40)}".`);
  }
  return raw.replace(/^0+(?=\d)/, "");
}

/** Normalised postcode ("LS6 1AB"), or throws 400 invalid_postcode. */
export function normalisePostcode(raw: string): string {
  const compact = raw.replace(/\s+/g, " ").trim();
  const normalised = isValidPostcode(compact) ? toNormalised(compact) : null;
  if (!normalised) {
    throw new ApiError(400, "invalid_postcode", `"${raw.slice(0, 40)}" is not a valid UK postcode.`);
  }
  return normalised;
}

/** Lower-case words of an address, accents folded ("Glyndŵr" = "glyndwr"), punctuation dropped. */
function addressWords(s: string): string[] {
  return (
    s
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? []
  );
}

function startsWithWords(have: string[], want: string[]): boolean {
  return want.length <= have.length && want.every((w, i) => have[i] === w);
}

function containsWords(have: string[], want: string[]): boolean {
  for (let i = 0; i + want.length <= have.length; i++) if (want.every((w, k) => have[i + k] === w)) return true;
  return false;
}

function candidates(list: Property[]): { uprn: string; address: string }[] {
  return list.map((p) => ({ uprn: p.uprn, address: p.address }));
}

function ambiguous(postcode: string, list: Property[], address?: string): ApiError {
  const what = address === undefined ? `Postcode ${postcode}` : `Address "${address}" at ${postcode}`;
  return new ApiError(
    409,
    "ambiguous_property",
    `${what} matches ${list.length} properties; give the first line of the address or the UPRN.`,
    {
      candidates: candidates(list),
    },
  );
}

/** The one property a query names; throws the contract's 400 / 404 / 409 errors. */
export function resolveProperty(ds: Dataset, q: PropertyQuery): Property {
  const uprnText = text(q.uprn, "uprn");
  const postcodeText = text(q.postcode, "postcode");
  const addressText = text(q.address, "address");
  if (uprnText !== undefined) {
    const uprn = canonicalUprn(uprnText);
    const p = ds.byUprn.get(uprn);
    if (!p) throw new ApiError(404, "property_not_found", `No property with UPRN ${uprnText}.`, { uprn: uprnText });
    return p;
  }
  if (postcodeText === undefined) {
    throw new ApiError(400, "invalid_request", "Give uprn, or postcode (with an optional address).");
  }
  const postcode = normalisePostcode(postcodeText);
  const list = ds.byPostcode.get(postcode) ?? [];
  if (list.length === 0) {
    throw new ApiError(404, "property_not_found", `No property at postcode ${postcode}.`, { postcode });
  }
  if (addressText === undefined) {
    if (list.length === 1) return list[0];
    throw ambiguous(postcode, list);
  }
  // Whole words only: "2 Jubilee Road" must never find "42 Jubilee Road", nor "Flat 1, 153" "Flat 11, 53".
  const want = addressWords(addressText);
  if (want.length === 0)
    throw new ApiError(400, "invalid_request", "The address has no letters or digits; give its first line.");
  const same = (a: string[]) => a.length === want.length && startsWithWords(a, want);
  const exact = list.filter((p) => same(addressWords(p.address_line_1)) || same(addressWords(p.address)));
  if (exact.length === 1) return exact[0];
  const prefix = list.filter(
    (p) => startsWithWords(addressWords(p.address_line_1), want) || startsWithWords(addressWords(p.address), want),
  );
  if (prefix.length === 1) return prefix[0];
  const contains = list.filter((p) => containsWords(addressWords(p.address), want));
  if (contains.length === 1) return contains[0];
  const several = exact.length > 1 ? exact : prefix.length > 1 ? prefix : contains;
  if (several.length > 1) throw ambiguous(postcode, several, addressText);
  throw new ApiError(404, "property_not_found", `No property "${addressText}" at postcode ${postcode}.`, {
    postcode,
    address: addressText,
  });
}

export interface AddressRecord {
  uprn: string;
  address: string;
  address_line_1: string;
  address_line_2: string | null;
  town: string;
  postcode: string;
}

export function addressRecord(p: Property): AddressRecord {
  return {
    uprn: p.uprn,
    address: p.address,
    address_line_1: p.address_line_1,
    address_line_2: p.address_line_2,
    town: p.town,
    postcode: p.postcode,
  };
}

/** Lower case with accents folded, so "Glyndwr" finds "Glyndŵr". */
function foldText(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .normalize("NFC")
    .toLowerCase();
}

/** Search words: split on spaces, trimmed of surrounding punctuation ("Road," -> "road"), lower case. */
function words(query: string): string[] {
  return foldText(query)
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((w) => w !== "");
}

let searchIndex: { ds: Dataset; folded: string[] } | undefined;

/** Addresses at a postcode and/or containing every word of `query`; all matches, in register order. */
export function searchAddresses(ds: Dataset, postcode: string | undefined, query: string | undefined): Property[] {
  let pool: Property[];
  if (postcode !== undefined) pool = ds.byPostcode.get(normalisePostcode(postcode)) ?? [];
  else pool = ds.properties;
  if (query === undefined) return pool;
  const ws = words(query);
  if (ws.length === 0) return [];
  if (!searchIndex || searchIndex.ds !== ds) {
    searchIndex = { ds, folded: ds.properties.map((p) => foldText(p.address)) };
  }
  if (pool === ds.properties) {
    const folded = searchIndex.folded;
    const out: Property[] = [];
    for (let i = 0; i < folded.length; i++) if (ws.every((w) => folded[i].includes(w))) out.push(ds.properties[i]);
    return out;
  }
  return pool.filter((p) => {
    const a = foldText(p.address);
    return ws.every((w) => a.includes(w));
  });
}

export { text as optionalText };
