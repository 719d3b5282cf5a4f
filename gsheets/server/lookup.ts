/**
 * Address lookup for the sidebar: find addresses by postcode or free text, and put a chosen UPRN into the
 * active cell as text (a UPRN is an identifier: leading zeros and all 12 digits must survive).
 */
import { buildAddressLookupRequest, describeError, interpretAddressResponse, normalisePostcode } from "../../core";
import type { InsertResult, LookupResult } from "../shared/api";
import { count } from "../shared/words";
import { send, sendFor } from "./http";
import { loadSettings } from "./settings";
import { formatCount } from "../../core/numbers";

const LIMIT = 50;
/** UrlFetchApp refuses URLs over 2 KB; the search text goes in the query string. */
const MAX_URL_LENGTH = 2000;

export function lookupAddresses(q: { postcode?: string; query?: string }): LookupResult {
  const settings = loadSettings();
  if (!settings.config) return { ok: false, message: "No API key yet: add your key under Settings." };
  const postcodeText = (q && q.postcode ? String(q.postcode) : "").trim();
  const queryText = (q && q.query ? String(q.query) : "").trim();
  if (!postcodeText && !queryText) return { ok: false, message: "Enter a postcode or some words of the address." };
  let postcode: string | undefined;
  if (postcodeText) {
    const p = normalisePostcode(postcodeText);
    if ("error" in p) return { ok: false, message: p.error.message };
    postcode = p.postcode;
  }
  const req = buildAddressLookupRequest(settings.config, {
    postcode,
    query: postcode ? undefined : queryText,
    limit: LIMIT,
  });
  if (req.url.length > MAX_URL_LENGTH) {
    return {
      ok: false,
      message: `That search is too long to send (Apps Script refuses web addresses over 2 KB). Use a few words of the address, such as the house number and street.`,
    };
  }
  const reply = send(req, sendFor(settings.config));
  if (!reply.ok) return { ok: false, message: describeError(reply.error) };
  const r = interpretAddressResponse(reply.status, reply.headers, reply.text, reply.receivedAtMs);
  if (!r.ok) return { ok: false, message: describeError(r.error) };
  const addresses = r.value.map((a) => ({ uprn: a.uprn, address: a.address, postcode: a.postcode }));
  const what = postcode || `"${queryText}"`;
  const total = r.value.total;
  const message = !addresses.length
    ? `No addresses found for ${what}.`
    : total !== undefined && total > addresses.length
      ? `The first ${addresses.length} of ${formatCount(total)} addresses for ${what}: add words (a house number, a street) to narrow it.`
      : `${count(addresses.length, "address", "addresses")} for ${what}.`;
  return { ok: true, addresses, message };
}

export function insertUprn(uprn: string): InsertResult {
  const value = String(uprn || "").trim();
  if (!/^\d{1,12}$/.test(value)) return { ok: false, message: `"${value}" is not a UPRN (1 to 12 digits).` };
  const sheet = SpreadsheetApp.getActiveSheet();
  const cell = sheet.getCurrentCell() || sheet.getActiveRange();
  if (!cell) return { ok: false, message: "Click the cell that should receive the UPRN first." };
  const target = cell.getCell(1, 1);
  // Plain-text format first, so Sheets keeps the UPRN as typed instead of turning it into a number.
  target.setNumberFormat("@").setValue(value);
  const where = target.getA1Notation();
  return { ok: true, message: `UPRN ${value} put in ${where}.`, cell: where };
}
