/**
 * `npm start [-- --port N] [--sandbox-port N]`: free ports first, on IPv4 and IPv6 loopback (a busy one fails at once, naming it), certificates (renewed when expired or expiring
 * within 7 days), the sandbox (SANDBOX_PORT, 3001), the HTTPS dev server (DEV_SERVER_PORT, 3000), then a sideload into
 * desktop Excel where office-addin-debugging and Excel exist; elsewhere it prints how to sideload into Excel on the web.
 * `npm run start:web` sideloads into Excel on the web with office-addin-debugging when a document URL is given
 * (OFFICE_DOCUMENT_URL or --document <url>), else prints the manual steps. The flags win over the variables; any
 * other flag is refused, naming the one it was probably meant to be, rather than ignored.
 */
// First, before anything an older Node could fail on with a message that does not name Node.
const { nodeProblem } = require("./check-node");
const tooOld = nodeProblem(process.versions.node, require("../package.json").engines.node);
if (tooOld) {
  console.error(`npm start failed: ${tooOld}`);
  process.exit(1);
}
const { spawn, spawnSync } = require("child_process");
const fs = require("fs");
const https = require("https");
const net = require("net");
const path = require("path");
const { ensureCertificates, certificateNotice } = require("./dev-certs");
const { parseStartArgs } = require("./start-args");

const ROOT = path.resolve(__dirname, "..");
const STATE = path.join(ROOT, ".start-state.json");
const LOGS = path.join(ROOT, "test-output", "start-logs");
let ARGS;
try {
  ARGS = parseStartArgs(process.argv.slice(2), process.env);
} catch (e) {
  console.error(`npm start failed: ${e.message}`);
  process.exit(2);
}
const DEV_PORT = Number(ARGS.port || process.env.DEV_SERVER_PORT || 3000);
const SANDBOX_PORT = Number(ARGS.sandboxPort || process.env.SANDBOX_PORT || 3001);
const WEB = ARGS.web;
const DOCUMENT_URL = ARGS.document || process.env.OFFICE_DOCUMENT_URL;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether a port can be listened on, as the server will (same host): null when free, else the error code. */
function portProblem(port, host) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", (e) => resolve(e.code || String(e)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

async function checkPorts() {
  for (const [name, port, host, variable, flag] of [
    ["the Excel add-in's dev server", DEV_PORT, "localhost", "DEV_SERVER_PORT", "--port"],
    ["the sandbox", SANDBOX_PORT, "127.0.0.1", "SANDBOX_PORT", "--sandbox-port"],
  ]) {
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new Error(`${flag} (or ${variable}) ${port} is not a port number (1-65535).`);
    // Both loopbacks: "localhost" may reach a program listening on [::1] only, or on 127.0.0.1 only.
    let code = null;
    for (const h of [host, "127.0.0.1", "::1"]) {
      const c = await portProblem(port, h);
      if (c && !(h === "::1" && (c === "EADDRNOTAVAIL" || c === "EAFNOSUPPORT"))) {
        code = c;
        break;
      }
    }
    if (!code) continue;
    const why =
      code === "EADDRINUSE"
        ? `port ${port} is already in use`
        : code === "EACCES"
          ? `port ${port} is not allowed for this user`
          : `port ${port} cannot be used (${code})`;
    throw new Error(
      [
        `${why}, so ${name} cannot start.`,
        `  If it is an earlier \`npm start\`, run \`npm stop\`. Otherwise close the program using it, or choose other ports:`,
        `  npm start -- --port 3100 --sandbox-port 3101        (any shell; --port is the add-in's https port)`,
        `  DEV_SERVER_PORT=3100 SANDBOX_PORT=3101 npm start    (macOS and Linux shells)`,
        `  $env:DEV_SERVER_PORT=3100; $env:SANDBOX_PORT=3101; npm start    (Windows PowerShell)`,
      ].join("\n"),
    );
  }
}

/** The manifest to sideload: manifest.xml itself on port 3000, else a copy pointing at the port in use. */
function manifestForPort() {
  const source = path.join(ROOT, "manifest.xml");
  if (DEV_PORT === 3000) return source;
  const out = path.join(ROOT, "test-output", `manifest.localhost-${DEV_PORT}.xml`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(
    out,
    fs.readFileSync(source, "utf8").split("https://localhost:3000").join(`https://localhost:${DEV_PORT}`),
  );
  return out;
}

function startDetached(name, args, env) {
  fs.mkdirSync(LOGS, { recursive: true });
  const log = fs.openSync(path.join(LOGS, `${name}.log`), "w");
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", log, log],
  });
  child.unref();
  return child.pid;
}

function logTail(name) {
  try {
    return fs
      .readFileSync(path.join(LOGS, `${name}.log`), "utf8")
      .trim()
      .split("\n")
      .slice(-8)
      .join("\n");
  } catch {
    return "";
  }
}

/** Waits for a server to answer; fails at once, with the end of its log, when its process has ended. */
function waitFor(url, ms, insecure, watch) {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (watch && !alive(watch.pid)) {
        reject(
          new Error(
            `${watch.name} stopped before answering at ${url}. The end of its log (${path.relative(ROOT, path.join(LOGS, watch.name + ".log"))}):\n${logTail(watch.name)}`,
          ),
        );
        return;
      }
      const mod = url.startsWith("https") ? https : require("http");
      const req = mod.get(url, insecure ? { rejectUnauthorized: false } : {}, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on("error", () =>
        Date.now() > deadline
          ? reject(new Error(`${url} did not answer within ${ms / 1000} s`))
          : setTimeout(attempt, 500),
      );
    };
    attempt();
  });
}

function debuggingCli() {
  try {
    return require.resolve("office-addin-debugging/cli.js");
  } catch {
    return null; // optional dependency, absent on Linux
  }
}

function sideloadDesktop(manifest) {
  const debugging = debuggingCli();
  if (!debugging) return false;
  if (process.platform !== "win32" && process.platform !== "darwin") return false;
  const r = spawnSync(
    process.execPath,
    [debugging, "start", manifest, "desktop", "--app", "excel", "--no-debug", "--dev-server-port", String(DEV_PORT)],
    {
      cwd: ROOT,
      stdio: "inherit",
    },
  );
  return r.status === 0;
}

/** Excel on the web, the way Microsoft's templates do it: office-addin-debugging opens the document with the add-in. */
function sideloadWeb(manifest) {
  const debugging = debuggingCli();
  if (!debugging || !DOCUMENT_URL) return false;
  const r = spawnSync(
    process.execPath,
    [
      debugging,
      "start",
      manifest,
      "web",
      "--document",
      DOCUMENT_URL,
      "--no-debug",
      "--dev-server-port",
      String(DEV_PORT),
    ],
    { cwd: ROOT, stdio: "inherit" },
  );
  return r.status === 0;
}

/** Why office-addin-debugging is absent, in words that say what to do instead. */
function debuggingMissing() {
  return process.platform === "linux"
    ? "office-addin-debugging could not be installed on this Linux machine (npm skips this optional package when its keytar part fails to build against libsecret), so the add-in cannot be sideloaded automatically. Upload the manifest by hand instead: it works the same."
    : "office-addin-debugging is not installed here (an optional dependency: `npm install office-addin-debugging`), so the add-in cannot be sideloaded automatically.";
}

function webSteps(manifest, why) {
  return [
    "",
    why,
    "Sideload into Excel on the web:",
    "  1. Open a workbook at https://www.office.com (this browser must trust the CA named under 'Certificate:' above).",
    "  2. Home > Add-ins > More Settings > Upload My Add-in.",
    `  3. Choose ${manifest} and Upload. The Compliance Check button appears on the Home tab.`,
    "  4. In the pane, Settings: paste an API key (sandbox-professional for the sandbox). The base URL is already",
    `     https://localhost:${DEV_PORT}/v1, proxied to the sandbox.`,
    "The servers keep running in the background; `npm stop` ends them.",
  ].join("\n");
}

async function main() {
  if (fs.existsSync(STATE)) {
    const old = JSON.parse(fs.readFileSync(STATE, "utf8"));
    if (Object.values(old.pids || {}).some(alive)) {
      console.log("Already running (see .start-state.json); `npm stop` first.");
      return;
    }
  }
  await checkPorts();
  const certs = await ensureCertificates({ root: ROOT });
  console.log(certificateNotice(certs.defaults, certs.made));
  const manifest = manifestForPort();
  const tsxCli = require.resolve("tsx/cli");
  const pids = {
    sandbox: startDetached("sandbox", [tsxCli, "sandbox/main.ts"], { SANDBOX_PORT: String(SANDBOX_PORT) }),
    devServer: startDetached("dev-server", [path.join(__dirname, "dev-server.js")], {
      DEV_SERVER_PORT: String(DEV_PORT),
      SANDBOX_PORT: String(SANDBOX_PORT),
    }),
  };
  fs.writeFileSync(STATE, JSON.stringify({ pids, startedAt: new Date().toISOString() }, null, 2));
  await waitFor(`http://127.0.0.1:${SANDBOX_PORT}/__sandbox/stats`, 60_000, false, {
    name: "sandbox",
    pid: pids.sandbox,
  });
  console.log(
    `Sandbox:    http://127.0.0.1:${SANDBOX_PORT}/v1  (keys: sandbox-professional, sandbox-enterprise, sandbox-no-api)`,
  );
  await waitFor(`https://localhost:${DEV_PORT}/taskpane.html`, 180_000, true, {
    name: "dev-server",
    pid: pids.devServer,
  });
  console.log(
    `Add-in:     https://localhost:${DEV_PORT}/taskpane.html  (API proxied at https://localhost:${DEV_PORT}/v1)`,
  );
  console.log(`Logs:       ${path.relative(ROOT, LOGS)}/`);
  if (manifest !== path.join(ROOT, "manifest.xml"))
    console.log(`Manifest:   ${path.relative(ROOT, manifest)} (manifest.xml with port ${DEV_PORT})`);
  if (WEB) {
    if (sideloadWeb(manifest)) console.log("Sideloaded into Excel on the web. `npm stop` ends the servers.");
    else
      console.log(
        webSteps(
          manifest,
          debuggingCli()
            ? "No document URL: give one to sideload automatically (npm run start:web -- --document <url of a workbook on OneDrive/SharePoint>, or OFFICE_DOCUMENT_URL)."
            : debuggingMissing(),
        ),
      );
    return;
  }
  if (sideloadDesktop(manifest)) {
    console.log("Sideloaded into desktop Excel. `npm stop` ends the servers and removes the sideload.");
  } else {
    console.log(
      webSteps(
        manifest,
        "Desktop Excel is not available here (office-addin-debugging is absent or this is not Windows/macOS).",
      ),
    );
  }
}

main().catch((e) => {
  console.error(`npm start failed: ${e.message}`);
  // Whatever was started is stopped again, so a second try does not find its own ports busy.
  if (fs.existsSync(STATE))
    require("child_process").spawnSync(process.execPath, [path.join(__dirname, "stop.js")], {
      cwd: ROOT,
      stdio: "ignore",
    });
  process.exit(1);
});
