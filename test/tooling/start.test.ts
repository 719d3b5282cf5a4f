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
import * as mkcert from "mkcert";

const ROOT = path.resolve(__dirname, "../..");
let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "start-home-"));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function listen(host: string): Promise<net.Server & { port: number }> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen({ port: 0, host }, () =>
      resolve(Object.assign(server, { port: (server.address() as net.AddressInfo).port })),
    );
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
    const child = spawn(process.execPath, [path.join(ROOT, "scripts/start.js")], {
      cwd: ROOT,
      env: { ...process.env, HOME: home, USERPROFILE: home, ...env },
    });
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
])(
  "%s taken: npm start fails within 10 s, naming the port and the variables to change",
  async (_name, variable, host) => {
    if (fs.existsSync(path.join(ROOT, ".start-state.json")))
      return console.warn("skipped: an `npm start` of this checkout is running");
    const busy = await listen(host);
    try {
      const other = await freePort();
      const env =
        variable === "DEV_SERVER_PORT"
          ? { DEV_SERVER_PORT: String(busy.port), SANDBOX_PORT: String(other) }
          : { DEV_SERVER_PORT: String(other), SANDBOX_PORT: String(busy.port) };
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
  },
);

async function writeCerts(validityDays: number): Promise<string> {
  const dir = path.join(home, ".office-addin-dev-certs");
  fs.mkdirSync(dir, { recursive: true });
  const ca = await mkcert.createCA({
    organization: "Old CA",
    countryCode: "GB",
    state: "London",
    locality: "London",
    validity: validityDays + 1,
  });
  const cert = await mkcert.createCert({ domains: ["localhost"], validity: validityDays, ca });
  fs.writeFileSync(path.join(dir, "ca.crt"), ca.cert);
  fs.writeFileSync(path.join(dir, "localhost.crt"), cert.cert);
  fs.writeFileSync(path.join(dir, "localhost.key"), cert.key);
  return dir;
}

function ensure(): { out: string; result: { renewed: boolean; daysLeft?: number } } {
  const r = spawnSync(
    process.execPath,
    [
      "-e",
      "require('./scripts/dev-certs').ensureCertificates().then((r) => console.log('RESULT ' + JSON.stringify({ renewed: r.renewed, daysLeft: r.daysLeft })))",
    ],
    {
      cwd: ROOT,
      env: { ...process.env, HOME: home, USERPROFILE: home },
      encoding: "utf8",
    },
  );
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

test("npm start's certificate lines: one message on a first run, where the CA is, its end date and how to trust it; every run says it again", () => {
  const script = `require('./scripts/dev-certs').ensureCertificates().then((r) => console.log(require('./scripts/dev-certs').certificateNotice(r.defaults, r.made)))`;
  const once = () =>
    spawnSync(process.execPath, ["-e", script], {
      cwd: ROOT,
      env: { ...process.env, HOME: home, USERPROFILE: home },
      encoding: "utf8",
    }).stdout;
  const first = once();
  const ca = path.join(home, ".office-addin-dev-certs", "ca.crt");
  const until = new Date(validTo(ca)).toISOString().slice(0, 10);
  // The CA's path is named once (one message, not two), with its end date, the renewal rule and a trust command.
  expect(first.split(ca).length - 1).toBeGreaterThanOrEqual(1);
  expect(first.match(/^Certificate:/gm)).toHaveLength(1);
  expect(first).toContain(`valid until ${until}`);
  expect(first).toMatch(/7 days before/);
  expect(first).toMatch(/A new CA was just made: trust it now/);
  expect(first).toMatch(/Trust it: .*(certutil|security add-trusted-cert)/);
  expect(first).toContain('docs/excel.md, "Trusting the development certificate"');
  expect(first).not.toMatch(/see above|Generated development certificates|have been generated/);
  const second = once();
  expect(second).toContain(`valid until ${until}`);
  expect(second).toMatch(/stays trusted until it is remade/);
  // The section the message names exists.
  expect(fs.readFileSync(path.join(ROOT, "docs/excel.md"), "utf8")).toMatch(
    /^## Trusting the development certificate$/m,
  );
});

test("a program listening only on IPv6 [::1] at the dev server's port is found too", async () => {
  if (fs.existsSync(path.join(ROOT, ".start-state.json")))
    return console.warn("skipped: an `npm start` of this checkout is running");
  const busy = await listen("::1").catch(() => null);
  if (!busy) return console.warn("skipped: this machine has no IPv6 loopback");
  try {
    const r = await runStart({ DEV_SERVER_PORT: String(busy.port), SANDBOX_PORT: String(await freePort()) });
    expect(r.code).toBe(1);
    expect(r.out).toContain(`port ${busy.port} is already in use`);
  } finally {
    await new Promise((r) => busy.close(r));
  }
});

test("the sandbox alone: SANDBOX_PORT (npm start's name) sets its port; a taken port says what to do; / and /v1 say what they are", async () => {
  const busy = await listen("127.0.0.1");
  try {
    const r = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "sandbox/main.ts")], {
      cwd: ROOT,
      env: { ...process.env, SANDBOX_PORT: String(busy.port) },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`port ${busy.port} is already in use`);
    expect(r.stderr).toMatch(/^ {2}SANDBOX_PORT=3101 npm run sandbox +\(macOS and Linux shells\)$/m);
    expect(r.stderr).toMatch(/^ {2}\$env:SANDBOX_PORT=3101; npm run sandbox +\(Windows PowerShell\)$/m);
    expect(r.stderr).not.toMatch(/EADDRINUSE/);
  } finally {
    await new Promise((r) => busy.close(r));
  }
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "sandbox/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, SANDBOX_PORT: String(port) },
  });
  try {
    let out = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (d) => {
        out += d;
        if (out.includes("sandbox on")) resolve();
      });
      child.on("exit", () => reject(new Error(`sandbox exited: ${out}`)));
    });
    expect(out).toContain(`http://127.0.0.1:${port}/v1`);
    const base = await fetch(`http://127.0.0.1:${port}/v1`);
    expect(base.status).toBe(200);
    expect(await base.json()).toMatchObject({
      service: expect.stringMatching(/sandbox/),
      base_url: "/v1",
      sandbox_keys: expect.arrayContaining(["sandbox-professional"]),
    });
    const home = await fetch(`http://127.0.0.1:${port}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toMatch(/text\/html/);
    expect(await home.text()).toMatch(/local sandbox[\s\S]*href="\/v1"/);
  } finally {
    // Waited for: a sandbox still shutting down when the file ends would keep jest's worker from exiting.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
  }
});
