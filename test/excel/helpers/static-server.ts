/**
 * Serves a built folder (dist/excel) on loopback for the page tests: plain files, correct content types, nothing else;
 * closed at once, whatever connections the browser still holds.
 */
import * as fs from "fs";
import * as http from "http";
import type { AddressInfo } from "net";
import * as path from "path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".xml": "application/xml",
  ".map": "application/json",
};

/** `mounts` adds folders under a path, as the dev server does: { "office-js": node_modules/@microsoft/office-js/dist }. */
export async function serveStatic(
  root: string,
  mounts: Record<string, string> = {},
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let rel = decodeURIComponent((req.url ?? "/").split("?")[0]).replace(/^\/+/, "") || "taskpane.html";
    let base = root;
    for (const [prefix, dir] of Object.entries(mounts)) {
      if (rel.startsWith(prefix + "/")) [base, rel] = [dir, rel.slice(prefix.length + 1)];
    }
    const file = path.resolve(base, rel);
    if (!file.startsWith(path.resolve(base)) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    // Chromium keeps its connections open after the last request, and its socket pool may open one more that never
    // carries a request (connected for a request that a freed connection served first). server.close() closes idle
    // connections but waits for that one until Chromium drops it, which a page still open may not do for minutes. The
    // caller is done with the server, so every connection goes with it.
    close: () => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      return closed;
    },
  };
}
