/**
 * Worker thread behind the UrlFetchApp stand-in: performs real HTTP requests (in parallel for fetchAll)
 * while the vm that runs Code.js blocks, as Apps Script's synchronous UrlFetchApp does.
 *
 * Protocol (test/gsheets/harness/sync-http.ts): a request { id, requests } arrives on parentPort; the replies go back
 * as { id, replies } on the port given in workerData, and then the shared flag is set and notified, which wakes the
 * blocked caller.
 */
import http from "node:http";
import https from "node:https";
import { parentPort, workerData } from "node:worker_threads";

function one(req) {
  return new Promise((resolve) => {
    let url;
    try {
      url = new URL(req.url);
    } catch (e) {
      resolve({ error: `Invalid argument: ${req.url}` });
      return;
    }
    const lib = url.protocol === "https:" ? https : http;
    const headers = { ...(req.headers || {}) };
    if (req.payload !== undefined) {
      headers["Content-Type"] = req.contentType || "application/x-www-form-urlencoded";
      headers["Content-Length"] = Buffer.byteLength(req.payload);
    }
    const r = lib.request(
      url,
      { method: (req.method || "GET").toUpperCase(), headers, timeout: req.timeoutMs || 60000 },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", (e) => resolve({ error: e.message }));
      },
    );
    r.on("timeout", () => r.destroy(new Error("Timeout")));
    r.on("error", (e) => resolve({ error: e.message }));
    if (req.payload !== undefined) r.write(req.payload);
    r.end();
  });
}

const { port, flag } = workerData;
parentPort.on("message", async ({ id, requests }) => {
  let replies;
  try {
    replies = await Promise.all(requests.map(one));
  } catch (e) {
    replies = requests.map(() => ({ error: String(e && e.message ? e.message : e) }));
  }
  port.postMessage({ id, replies });
  Atomics.store(flag, 0, id);
  Atomics.notify(flag, 0);
});
