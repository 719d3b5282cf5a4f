/**
 * The page tests' static server (test/excel/helpers/static-server.ts) closes at once while the browser still holds
 * its connections: the ones its requests went over (kept alive), and one it opened but never sent a request on, as
 * Chromium's socket pool does now and then. Waiting for the browser to drop them hung a page test for its timeout.
 */
import * as http from "http";
import * as net from "net";
import * as os from "os";
import * as fs from "fs";
import * as path from "path";
import { serveStatic } from "../excel/helpers/static-server";

/** `p`, or a failure naming what was awaited once `ms` have passed. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

test("close() ends at once with a kept-alive connection and one that never carried a request still open", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "static-server-"));
  fs.writeFileSync(path.join(dir, "taskpane.html"), "<!doctype html><title>pane</title>");
  const web = await serveStatic(dir);
  const { port } = new URL(web.url);
  const agent = new http.Agent({ keepAlive: true });
  const silent = new net.Socket();
  try {
    const body = await within(
      new Promise<string>((resolve, reject) =>
        http
          .get(`${web.url}/taskpane.html`, { agent }, (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (c) => (text += c));
            res.on("end", () => resolve(text));
          })
          .on("error", reject),
      ),
      5000,
      "the served page",
    );
    expect(body).toContain("<title>pane</title>");
    // The request's connection stays open for the next one; a second connection is made and sent nothing.
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    await within(
      new Promise<void>((resolve, reject) => silent.connect(Number(port), "127.0.0.1", resolve).on("error", reject)),
      5000,
      "a connection to the static server",
    );
    const dropped = new Promise<void>((resolve) => silent.on("close", () => resolve()));
    await within(web.close(), 2000, "serveStatic's close() with both connections open");
    await within(dropped, 2000, "the server dropping the connection that never carried a request");
  } finally {
    silent.destroy();
    agent.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
