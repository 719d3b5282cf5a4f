/**
 * Request builders: pure functions that say what to send ({ method, url, headers, body }). The host
 * decides how (fetch in Excel and Node, UrlFetchApp in Apps Script).
 */
import type { CheckName } from "./checks";
import { encodeQuery, originOf, resolveServiceUrl } from "./url";
import { stripInvisible, type PropertyQuery } from "../sheet/input-rows";

export interface ClientConfig {
  /** Ends in the version segment, e.g. https://api.example.com/v1 (a trailing slash is fine). */
  baseUrl: string;
  apiKey: string;
}

export interface HttpRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/**
 * A base URL whose path does not end in an API version (/v1) is most likely the site, not the API: both add-ins save
 * it (a service may have no version in its path) but add this sentence to what Save says; "" when it looks right.
 */
export function baseUrlVersionWarning(url: string): string {
  // No URL class here: Apps Script has none. The path is what follows the scheme and host, before any ? or #.
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(String(url ?? "").trim());
  if (!m) return "";
  return /\/v\d+(\.\d+)?\/?$/i.test(m[1])
    ? ""
    : " Its path does not end in an API version such as /v1: check that it is the API's address (e.g. https://api.example.com/v1), or checks will fail.";
}

/** https only, except plain http to this machine (the sandbox). */
export function validateBaseUrl(input: string): { ok: true; baseUrl: string } | { ok: false; message: string } {
  const s = stripInvisible(String(input ?? ""))
    .trim()
    .replace(/\/+$/, "");
  if (/^https?:\/\/[^/?#]*@/i.test(s)) {
    return {
      ok: false,
      message:
        "The base URL must not hold a user name or password (the part before @): remove it; the API key goes in its own field.",
    };
  }
  const port = /^https?:\/\/(?:\[[^\]]+\]|[^/:?#\s]+):(\d+)(?:[/?#]|$)/i.exec(s);
  if (port && !(Number(port[1]) >= 1 && Number(port[1]) <= 65535)) {
    return {
      ok: false,
      message: `The base URL has port ${port[1]}, which is not a port (1 to 65535): correct the number after the colon, or remove it (e.g. https://api.example.com/v1).`,
    };
  }
  const m = /^(https?):\/\/(\[[^\]]+\]|[^/:?#\s]+)(:\d{1,5})?(\/[^?#\s]*)?$/i.exec(s);
  if (!m)
    return {
      ok: false,
      message: `"${input}" is not a web address: enter the service's API address, e.g. https://api.example.com/v1 (no ? or # part).`,
    };
  const scheme = m[1].toLowerCase();
  const host = m[2].toLowerCase();
  if (scheme !== "https" && !LOCAL_HOSTS.includes(host)) {
    return { ok: false, message: "The base URL must use https (plain http is allowed for localhost only)." };
  }
  return { ok: true, baseUrl: s };
}

/**
 * Keys go into a header, so only printable ASCII: a masked key pasted back ("sand••••onal"), a non-breaking
 * hyphen or a zero-width space from a web page would otherwise fail every request as "unreachable".
 */
export function validateApiKey(input: string): { ok: true; apiKey: string } | { ok: false; message: string } {
  const key = stripInvisible(String(input ?? ""))
    .trim()
    .replace(/^Bearer\s+/i, "");
  if (!key) return { ok: false, message: "Enter an API key (Settings > API Keys in the service dashboard)." };
  // eslint-disable-next-line no-control-regex -- a pasted key with control characters is refused, so they are matched here.
  if (/[\s\x00-\x1f\x7f]/.test(key))
    return {
      ok: false,
      message:
        "An API key cannot contain spaces or line breaks: copy it again from the service dashboard (Settings > API Keys).",
    };
  if (key.includes("\u2022"))
    return {
      ok: false,
      message: "That is the masked key (with • dots): paste the whole key from the service dashboard.",
    };
  if (/[^\x21-\x7e]/.test(key)) {
    return {
      ok: false,
      message:
        "An API key has only plain letters, digits and punctuation: this one holds other characters (copied from a formatted page?). Paste it again from the service dashboard.",
    };
  }
  if (key.length > 512)
    return {
      ok: false,
      message: "That is too long to be an API key: copy just the key from the service dashboard (Settings > API Keys).",
    };
  return { ok: true, apiKey: key };
}

/** Enough of a key to recognise it, never enough to use it: at most a quarter of it shows. */
export function maskApiKey(key: string): string {
  if (!key) return "";
  const show = Math.min(4, Math.floor(key.length / 8));
  if (show === 0) return "•".repeat(Math.min(12, key.length));
  return `${key.slice(0, show)}${"•".repeat(Math.min(12, key.length - 2 * show))}${key.slice(-show)}`;
}

/** "https://Host:443" and "https://host" are one origin. */
function normalOrigin(url: string): string | null {
  const o = originOf(url);
  return o
    ? o
        .toLowerCase()
        .replace(/^(https:\/\/[^/]+):443$/, "$1")
        .replace(/^(http:\/\/[^/]+):80$/, "$1")
    : null;
}

/** Whether a URL is on the service's own origin, the only place the key may be sent. */
export function isServiceOrigin(cfg: ClientConfig, url: string): boolean {
  const base = normalOrigin(cfg.baseUrl);
  return !!base && base === normalOrigin(url);
}

function headers(cfg: ClientConfig, withBody: boolean): Record<string, string> {
  const h: Record<string, string> = { Authorization: `Bearer ${cfg.apiKey}`, Accept: "application/json" };
  if (withBody) h["Content-Type"] = "application/json";
  return h;
}

function endpoint(cfg: ClientConfig, path: string, query?: Record<string, string | number | undefined>): string {
  const url = resolveServiceUrl(cfg.baseUrl, path);
  const q = query ? encodeQuery(query) : "";
  return q ? `${url}?${q}` : url;
}

/** The wire form of a property: uprn alone, or postcode with an optional address. */
export function wireProperty(q: PropertyQuery): PropertyQuery {
  if (q.uprn) return { uprn: q.uprn };
  const out: PropertyQuery = { postcode: q.postcode };
  if (q.address) out.address = q.address;
  return out;
}

export function buildCheckRequest(cfg: ClientConfig, q: PropertyQuery): HttpRequest {
  const w = wireProperty(q);
  return {
    method: "GET",
    url: endpoint(cfg, "/api/check", { uprn: w.uprn, postcode: w.postcode, address: w.address }),
    headers: headers(cfg, false),
  };
}

export function buildBulkSubmitRequest(
  cfg: ClientConfig,
  properties: PropertyQuery[],
  opts: { checks?: readonly CheckName[]; callbackUrl?: string } = {},
): HttpRequest {
  const body: Record<string, unknown> = { properties: properties.map(wireProperty) };
  if (opts.checks && opts.checks.length) body.checks = [...opts.checks];
  if (opts.callbackUrl) body.callback_url = opts.callbackUrl;
  return {
    method: "POST",
    url: endpoint(cfg, "/api/check/bulk"),
    headers: headers(cfg, true),
    body: JSON.stringify(body),
  };
}

/**
 * GET a job's results_url, or a next-page link the server gave (relative or absolute). A link to another
 * origin (a storage host, or anything a response could name) is fetched WITHOUT the key, as browsers do
 * with a cross-origin redirect: the key is only ever sent to the base URL's origin.
 */
export function buildBulkResultsRequest(cfg: ClientConfig, urlOrPath: string): HttpRequest {
  const url = resolveServiceUrl(cfg.baseUrl, urlOrPath);
  const h = headers(cfg, false);
  if (!isServiceOrigin(cfg, url)) delete h.Authorization;
  return { method: "GET", url, headers: h };
}

/**
 * The cheapest authenticated question, asked when a key is saved to tell the user at once whether the
 * service takes it: one address at a known postcode. Any answer but 401/403 means the key was accepted.
 */
export const KEY_CHECK_QUERY = { postcode: "SW1A 2AA", limit: 1 } as const;

export function buildAddressLookupRequest(
  cfg: ClientConfig,
  q: { postcode?: string; query?: string; limit?: number },
): HttpRequest {
  return {
    method: "GET",
    url: endpoint(cfg, "/api/addresses", { postcode: q.postcode?.trim(), query: q.query?.trim(), limit: q.limit }),
    headers: headers(cfg, false),
  };
}
