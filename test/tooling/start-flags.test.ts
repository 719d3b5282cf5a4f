/**
 * `npm start`'s ports and flags, and the oldest Node: `--port` and `--sandbox-port` reach the port check (and win over
 * the variables), a flag it does not know is refused with the right spelling, npm's swallowing of a flag written
 * without `--` is named, and a Node older than the engines field stops `npm start` and `npm test` with one sentence.
 * The real scripts run in child processes; each case ends at the port check, before anything is started.
 */
import { spawn, spawnSync } from "child_process";
import fs from "fs";
import net from "net";
import os from "os";
import path from "path";

const ROOT = path.resolve(__dirname, "../..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the scripts are plain CommonJS run by node
const { FLAGS, parseStartArgs } = require("../../scripts/start-args");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
const { nodeProblem, oldestNode } = require("../../scripts/check-node");

let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "start-flags-"));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function runStart(args: string[], env: Record<string, string> = {}, preload?: string) {
  const started = Date.now();
  // npm's own variables from the run that started jest are not the reader's: the child sees only what the case gives.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k)));
  return new Promise<{ code: number | null; out: string; ms: number }>((resolve) => {
    const child = spawn(
      process.execPath,
      [...(preload ? ["-r", preload] : []), path.join(ROOT, "scripts/start.js"), ...args],
      { cwd: ROOT, env: { ...base, HOME: home, USERPROFILE: home, ...env } },
    );
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

const running = () => fs.existsSync(path.join(ROOT, ".start-state.json"));

test.each([
  ["--port", "localhost", "DEV_SERVER_PORT"],
  ["--sandbox-port", "127.0.0.1", "SANDBOX_PORT"],
])("%s N is the port npm start uses, over its variable", async (flag, host, variable) => {
  if (running()) return console.warn("skipped: an `npm start` of this checkout is running");
  const busy = await listen(host);
  try {
    // The variable names a free port, as does the other port's; the flag names the busy one, and wins.
    const other = variable === "DEV_SERVER_PORT" ? "SANDBOX_PORT" : "DEV_SERVER_PORT";
    const r = await runStart([flag, String(busy.port)], {
      [variable]: String(await freePort()),
      [other]: String(await freePort()),
    });
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(10_000);
    expect(r.out).toContain(`port ${busy.port} is already in use`);
    // What to do instead, in a form for every shell.
    expect(r.out).toContain("npm start -- --port 3100 --sandbox-port 3101");
    expect(r.out).toContain("DEV_SERVER_PORT=3100 SANDBOX_PORT=3101 npm start");
    expect(r.out).toContain("$env:DEV_SERVER_PORT=3100; $env:SANDBOX_PORT=3101; npm start");
    expect(running()).toBe(false);
  } finally {
    await new Promise((r) => busy.close(r));
  }
});

test.each([
  [["--prot", "4000"], /unknown option "--prot"; did you mean --port\?/],
  [["--sandboxport=4001"], /unknown option "--sandboxport=4001"; did you mean --sandbox-port\?/],
  [["--documnet", "https://x"], /did you mean --document\?/],
  [["--verbose"], /unknown option "--verbose"\n/],
  [["4000"], /unknown argument "4000"/],
  [["--port"], /--port needs a value: --port N/],
  [["--port", "abc"], /--port abc is not a port number/],
])("npm start %j is refused at once, saying what was meant", async (args, said) => {
  const r = await runStart(args);
  expect(r.code).toBe(2);
  expect(r.out).toMatch(said);
  expect(r.out).toContain("Usage: npm start -- [--port N] [--sandbox-port N]");
  expect(r.ms).toBeLessThan(10_000);
});

test("`npm start --port 4000` without the `--`: npm keeps the flag, and npm start says where the `--` goes", async () => {
  // What npm 11 passes on for that command line: npm_config_port=true and the bare "4000".
  const r = await runStart(["4000"], { npm_config_port: "true" });
  expect(r.code).toBe(2);
  expect(r.out).toContain("npm kept --port for itself: put -- before the flags, as in npm start -- --port 4000");
});

test("every flag the usage and docs/excel.md name is one npm start reads, and the ports are documented for POSIX and PowerShell", () => {
  expect(parseStartArgs(["--web", "--document", "https://x", "--port=4000", "--sandbox-port", "4001"])).toEqual({
    web: true,
    document: "https://x",
    port: "4000",
    sandboxPort: "4001",
  });
  const doc = fs.readFileSync(path.join(ROOT, "docs/excel.md"), "utf8");
  const ports = doc.slice(doc.indexOf("### Ports"), doc.indexOf("\n## ", doc.indexOf("### Ports")));
  expect(ports).toMatch(/^npm start -- --port \d+ --sandbox-port \d+ /m);
  expect(ports).toMatch(/^DEV_SERVER_PORT=\d+ SANDBOX_PORT=\d+ npm start /m);
  expect(ports).toMatch(/^\$env:DEV_SERVER_PORT=\d+; \$env:SANDBOX_PORT=\d+; npm start /m);
  // The sandbox on its own: its port in both shells' syntax too.
  const sandboxDoc = fs.readFileSync(path.join(ROOT, "sandbox/README.md"), "utf8");
  expect(sandboxDoc).toMatch(/^SANDBOX_PORT=\d+ .*npm run sandbox +# macOS and Linux shells$/m);
  expect(sandboxDoc).toMatch(/^\$env:SANDBOX_PORT=\d+;.* npm run sandbox +# Windows PowerShell$/m);
  for (const m of doc.matchAll(/npm (?:start|run start:web) -- ((?:--[a-z-]+(?: \S+)? ?)+)/g))
    for (const f of m[1].match(/--[a-z-]+/g)!) expect(Object.keys(FLAGS)).toContain(f);
});

describe("the oldest Node", () => {
  const oldest = oldestNode(pkg.engines.node) as number[];
  const older = oldest[1] > 0 ? `${oldest[0]}.${oldest[1] - 1}.9` : `${oldest[0] - 1}.99.0`;
  let preload: string;
  beforeAll(() => {
    preload = path.join(os.tmpdir(), `older-node-${process.pid}.js`);
    // Node as an older one reports itself: the version the scripts read, nothing else changed.
    fs.writeFileSync(
      preload,
      `Object.defineProperty(process, "versions", { value: { ...process.versions, node: ${JSON.stringify(older)} } });`,
    );
  });
  afterAll(() => fs.rmSync(preload, { force: true }));

  test("the engines field is in the one form the check reads, and the check agrees with it at its edges", () => {
    expect(oldest.join(".")).toBe(pkg.engines.node.replace(/^>=\s*/, ""));
    expect(nodeProblem(oldest.join("."), pkg.engines.node)).toBeNull();
    expect(nodeProblem(`v${oldest[0] + 1}.0.0`, pkg.engines.node)).toBeNull();
    expect(nodeProblem(`${oldest[0]}.${oldest[1]}.${oldest[2] + 1}`, pkg.engines.node)).toBeNull();
    expect(nodeProblem(older, pkg.engines.node)).toMatch(new RegExp(`^This is Node ${older.replace(/\./g, "\\.")};`));
    expect(nodeProblem("18.20.4", pkg.engines.node)).toContain(`needs Node ${oldest.join(".")} or later`);
  });

  test("npm start on an older Node stops first, with one sentence naming both versions", async () => {
    const r = await runStart([], {}, preload);
    expect(r.code).toBe(1);
    expect(r.out.trim()).toBe(
      `npm start failed: This is Node ${older}; this project needs Node ${oldest.join(".")} or later (package.json "engines"). Install a newer Node (https://nodejs.org, or \`nvm install 22\`), then run the command again.`,
    );
  });

  test("npm test runs the same check before anything else (its pretest script), and it fails on an older Node", () => {
    expect(pkg.scripts.pretest).toBe("node scripts/check-node.js");
    const r = spawnSync(process.execPath, ["-r", preload, path.join(ROOT, "scripts/check-node.js")], {
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`This is Node ${older}; this project needs Node ${oldest.join(".")} or later`);
    const ok = spawnSync(process.execPath, [path.join(ROOT, "scripts/check-node.js")], { encoding: "utf8" });
    expect({ status: ok.status, out: ok.stdout + ok.stderr }).toEqual({ status: 0, out: "" });
  });
});
