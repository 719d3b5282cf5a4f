/**
 * URL building without the URL or URLSearchParams globals, which Apps Script lacks.
 * encodeURIComponent is ECMAScript itself, so it is everywhere.
 */

export function encodeQuery(params: Record<string, string | number | undefined | null>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === "") continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.join("&");
}

/** Scheme and authority of an absolute URL ("https://host:port"), or null. */
export function originOf(url: string): string | null {
  const m = /^(https?:\/\/[^/?#]+)/i.exec(url);
  return m ? m[1] : null;
}

/**
 * Resolve a path the service returned (results_url, next page) against the base URL, which already
 * ends in /v1. Absolute URLs are kept; a path that repeats the base's own path (/v1/api/...) is not doubled.
 */
export function resolveServiceUrl(baseUrl: string, pathOrUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  if (/^https?:\/\//i.test(pathOrUrl)) return pathOrUrl;
  const path = pathOrUrl.startsWith("/") ? pathOrUrl : `/${pathOrUrl}`;
  const origin = originOf(base);
  const basePath = origin ? base.slice(origin.length) : "";
  if (origin && basePath && (path === basePath || path.startsWith(basePath + "/"))) return origin + path;
  return base + path;
}

/** Append query parameters to a URL that may already carry some. */
export function withQuery(url: string, params: Record<string, string | number | undefined | null>): string {
  const q = encodeQuery(params);
  if (!q) return url;
  return url + (url.includes("?") ? "&" : "?") + q;
}
