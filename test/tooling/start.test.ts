/**
 * `npm start` says what is wrong at once: a busy port is named within seconds (not after a 180 s wait), and a dev
 * certificate that has expired, or expires within 7 days, is replaced. Runs the real scripts in child processes with
 * HOME in a temporary directory, so the developer's own certificates are never touched.
 */
import { spawn, spawnSync } from "child_process";
import { X509Certificate } from "crypto";
import fs from "fs";
import net from "net";
import os from "os";
import path from "path";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mkcert = require("mkcert");

const ROOT = path.resolve(__dirname, "../..");
let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "start-home-"));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function listen(host: string): Promise<net.Server & { port: number }> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen({ port: 0, host }, () => resolve(Object.assign(server, { port: (server.address() as net.AddressInfo).port })));
  });
}
const freePort = async () => {
  const s = await listen("127.0.0.1");
  await new Promise((r) => s.close(r));
  return s.port;
};

function runStart(env: Record<string, string>): Promise<{ code: number | null; out: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "scripts/start.js")], { cwd: ROOT, env: { ...process.env, HOME: home, USERPROFILE: home, ...env } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

test.each([
  ["the dev server's port", "DEV_SERVER_PORT", "localhost"],
  ["the sandbox's port", "SANDBOX_PORT", "127.0.0.1"],
])("%s taken: npm start fails within 10 s, naming the port and the variables to change", async (_name, variable, host) => {
  if (fs.existsSync(path.join(ROOT, ".start-state.json"))) return console.warn("skipped: an `npm start` of this checkout is running");
  const busy = await listen(host);
  try {
    const other = await freePort();
    const env = variable === "DEV_SERVER_PORT" ? { DEV_SERVER_PORT: String(busy.port), SANDBOX_PORT: String(other) } : { DEV_SERVER_PORT: String(other), SANDBOX_PORT: String(busy.port) };
    const r = await runStart(env);
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(10_000);
    expect(r.out).toContain(`port ${busy.port} is already in use`);
    expect(r.out).toContain("npm stop");
    expect(r.out).toMatch(/DEV_SERVER_PORT=\d+ SANDBOX_PORT=\d+ npm start/);
    // Nothing was started or left behind.
    expect(fs.existsSync(path.join(ROOT, ".start-state.json"))).toBe(false);
  } finally {
    await new Promise((r) => busy.close(r));
  }
});

async function writeCerts(validityDays: number): Promise<string> {
  const dir = path.join(home, ".office-addin-dev-certs");
  fs.mkdirSync(dir, { recursive: true });
  const ca = await mkcert.createCA({ organization: "Old CA", countryCode: "GB", state: "London", locality: "London", validity: validityDays + 1 });
  const cert = await mkcert.createCert({ domains: ["localhost"], validity: validityDays, ca });
  fs.writeFileSync(path.join(dir, "ca.crt"), ca.cert);
  fs.writeFileSync(path.join(dir, "localhost.crt"), cert.cert);
  fs.writeFileSync(path.join(dir, "localhost.key"), cert.key);
  return dir;
}

function ensure(): { out: string; result: { renewed: boolean; daysLeft?: number } } {
  const r = spawnSync(process.execPath, ["-e", "require('./scripts/dev-certs').ensureCertificates().then((r) => console.log('RESULT ' + JSON.stringify({ renewed: r.renewed, daysLeft: r.daysLeft })))"], {
    cwd: ROOT,
    env: { ...process.env, HOME: home, USERPROFILE: home },
    encoding: "utf8",
  });
  const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`no result: ${r.stdout} ${r.stderr}`);
  return { out: r.stdout, result: JSON.parse(line.slice(7)) };
}

const validTo = (file: string) => Date.parse(new X509Certificate(fs.readFileSync(file)).validTo);

test.each([
  ["expired two days ago", -2, /expired 2 day\(s\) ago/],
  ["expiring in 3 days", 3, /expires in [23] day\(s\)/],
])("a development certificate %s is replaced", async (_name, days, said) => {
  const dir = await writeCerts(days);
  const before = validTo(path.join(dir, "localhost.crt"));
  const { out, result } = ensure();
  expect(out).toMatch(said);
  expect(result.renewed).toBe(true);
  expect(result.daysLeft).toBeGreaterThan(7);
  expect(validTo(path.join(dir, "localhost.crt"))).toBeGreaterThan(before + 7 * 86_400_000);
});

test("a certificate valid for 30 days is kept as it is", async () => {
  const dir = await writeCerts(30);
  const pem = fs.readFileSync(path.join(dir, "localhost.crt"), "utf8");
  expect(ensure().result.renewed).toBe(false);
  expect(fs.readFileSync(path.join(dir, "localhost.crt"), "utf8")).toBe(pem);
});
