/**
 * The only place that sends HTTP: core's request objects go out through UrlFetchApp (muteHttpExceptions,
 * so every status comes back as data) and come back as status + headers + text for core to interpret.
 */
import { serviceError, type ServiceError } from "../../core/service/errors";
import type { HttpRequest } from "../../core/service/requests";
import { classifyTransportError, type Reply as RunReply } from "../../core/run";
import { demoReply, isDemoKey, type DemoJobStore } from "../../core/demo/demo";

export type Reply =
  | { ok: true; status: number; headers: Record<string, string | string[]>; text: string; receivedAtMs: number }
  | { ok: false; error: ServiceError; receivedAtMs: number };

function params(req: HttpRequest): GoogleAppsScript.URL_Fetch.URLFetchRequest {
  const headers: Record<string, string> = {};
  let contentType: string | undefined;
  for (const name of Object.keys(req.headers)) {
    // UrlFetchApp takes the content type as its own option and ignores a Content-Type header.
    if (name.toLowerCase() === "content-type") contentType = req.headers[name];
    else headers[name] = req.headers[name];
  }
  const p: GoogleAppsScript.URL_Fetch.URLFetchRequest = {
    url: req.url,
    method: req.method === "POST" ? "post" : "get",
    headers,
    muteHttpExceptions: true,
    followRedirects: true,
    validateHttpsCertificates: true,
  };
  if (req.body !== undefined) {
    p.payload = req.body;
    p.contentType = contentType || "application/json";
  }
  return p;
}

/** fetch(url, params) takes the URL apart from its options; fetchAll takes it inside each one. */
function withoutUrl(p: GoogleAppsScript.URL_Fetch.URLFetchRequest): GoogleAppsScript.URL_Fetch.URLFetchRequestOptions {
  const { url: _url, ...options } = p;
  return options;
}

function toReply(res: GoogleAppsScript.URL_Fetch.HTTPResponse): Reply {
  return {
    ok: true,
    status: res.getResponseCode(),
    headers: res.getAllHeaders() as Record<string, string | string[]>,
    text: res.getContentText(),
    receivedAtMs: Date.now(),
  };
}

/** Apps Script's exception text names the URL, not the headers, so it is safe to show (no key in it). */
function networkReply(e: unknown): Reply {
  const text = e instanceof Error ? e.message : String(e);
  if (/whitelist|allowlist/i.test(text)) {
    return {
      ok: false,
      error: serviceError(
        "network",
        "url_not_whitelisted",
        `Apps Script refused the request: the service URL is not in the add-on's urlFetchWhitelist (appsscript.json). ${text}`,
      ),
      receivedAtMs: Date.now(),
    };
  }
  return {
    ok: false,
    error: serviceError("network", "network_error", `Could not reach the compliance service: ${text}`),
    receivedAtMs: Date.now(),
  };
}

/**
 * Who the requests are sent for: with the demo key (core isDemoKey of the key in Settings) they are answered here from
 * core's demo data and never sent. The caller says so from its settings; the key is never read back out of a header.
 */
export interface SendFor {
  demo: boolean;
}

/** The SendFor of a service configuration. */
export function sendFor(config: { apiKey: string }): SendFor {
  return { demo: isDemoKey(config.apiKey) };
}

/** Demo jobs live between executions (one per poll) in this user's cache, for its 6 hours at most. */
const demoJobs: DemoJobStore = {
  get: (id) => CacheService.getUserCache()?.get(`demo-job:${id}`) ?? null,
  put: (id, value) => CacheService.getUserCache()?.put(`demo-job:${id}`, value, 21600),
};

function demoAnswer(req: HttpRequest) {
  return demoReply(req, { jobs: demoJobs });
}

/**
 * Sends the requests in parallel with fetchAll. fetchAll throws as a whole when any one request cannot
 * connect; then each is sent alone so that one bad connection fails only its own request. Each of those can
 * hang until UrlFetchApp gives up on it, so none is started after `deadlineMs` (Apps Script ends a call at 6
 * minutes, before the run's state is saved): those come back null, not sent, for the next poll to send.
 */
export function sendAll(reqs: HttpRequest[], who: SendFor, deadlineMs = Infinity): (Reply | null)[] {
  if (!reqs.length) return [];
  if (who.demo) return reqs.map((r) => ({ ok: true as const, ...demoAnswer(r), receivedAtMs: Date.now() }));
  const all = reqs.map(params);
  try {
    const res = reqs.length === 1 ? [UrlFetchApp.fetch(all[0].url, withoutUrl(all[0]))] : UrlFetchApp.fetchAll(all);
    return res.map(toReply);
  } catch (e) {
    if (reqs.length === 1) return [networkReply(e)];
    return all.map((p) => {
      if (Date.now() >= deadlineMs) return null;
      try {
        return toReply(UrlFetchApp.fetch(p.url, withoutUrl(p)));
      } catch (err) {
        return networkReply(err);
      }
    });
  }
}

export function send(req: HttpRequest, who: SendFor): Reply {
  return sendAll([req], who)[0]!;
}

/**
 * The run engine's requests, sent with one fetchAll. What came back is given to the engine as it is; what did
 * not is classified truthfully, because the engine decides from it whether a submit may be sent again:
 * fetchAll throws as a whole when any one request fails, after the others may have reached the service. Then
 * GETs are sent again one by one (harmless), but a POST is never sent again here: it is "dropped" (may have
 * made its job) unless the exception proves nothing left (a DNS failure, a refused connection). Requests not
 * started because the call is out of time are "not_sent".
 */
export function sendRunRequests(reqs: HttpRequest[], who: SendFor, deadlineMs = Infinity): RunReply[] {
  if (!reqs.length) return [];
  if (who.demo) return reqs.map(demoAnswer);
  const all = reqs.map(params);
  const asReply = (res: GoogleAppsScript.URL_Fetch.HTTPResponse): RunReply => ({
    status: res.getResponseCode(),
    headers: res.getAllHeaders() as Record<string, string | string[]>,
    text: res.getContentText(),
  });
  try {
    const res = reqs.length === 1 ? [UrlFetchApp.fetch(all[0].url, withoutUrl(all[0]))] : UrlFetchApp.fetchAll(all);
    return res.map(asReply);
  } catch (e) {
    const failure = classifyTransportError(e);
    return reqs.map((req, i) => {
      if (req.method !== "GET") return failure;
      if (Date.now() >= deadlineMs) return { failure: "not_sent" as const };
      try {
        return asReply(UrlFetchApp.fetch(all[i].url, withoutUrl(all[i])));
      } catch (err) {
        return classifyTransportError(err);
      }
    });
  }
}
