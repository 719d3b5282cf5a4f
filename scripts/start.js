/**
 * `npm start`: certificates, the sandbox (PORT 3001), the HTTPS dev server (https://localhost:3000), then a sideload into
 * desktop Excel where office-addin-debugging and Excel exist; elsewhere it prints how to sideload into Excel on the web.
 */
const { spawn, spawnSync } = require("child_process");
const fs = require("fs");
const https = require("https");
const path = require("path");

const ROOT = path.resolve(__dirname, "..");
const STATE = path.join(ROOT, ".start-state.json");
const LOGS = path.join(ROOT, "test-output", "start-logs");
const DEV_PORT = Number(process.env.DEV_SERVER_PORT || 3000);
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT || 3001);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function ensureCertificates() {
  const defaults = require("office-addin-dev-certs/lib/defaults");
  if (fs.existsSync(defaults.localhostCertificatePath) && fs.existsSync(defaults.localhostKeyPath)) return defaults;
  if (process.platform === "win32" || process.platform === "darwin") {
    // Generates and trusts the developer CA (asks for permission), as Office's own templates do.
    spawnSync(process.execPath, [require.resolve("office-addin-dev-certs/cli.js"), "install"], { stdio: "inherit", cwd: ROOT });
  }
  if (!fs.existsSync(defaults.localhostCertificatePath)) {
    // On Linux there is nothing to trust it with (no sudo, no system store Office reads): generate only.
    await require("office-addin-dev-certs").generateCertificates();
    console.log(`Generated development certificates in ${defaults.certificateDirectory}.`);
    console.log(`  Your browser must trust ${defaults.caCertificatePath} for Excel on the web to load https://localhost:${DEV_PORT}.`);
  }
  return defaults;
}

function startDetached(name, args, env) {
  fs.mkdirSync(LOGS, { recursive: true });
  const log = fs.openSync(path.join(LOGS, `${name}.log`), "w");
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, detached: true, stdio: ["ignore", log, log] });
  child.unref();
  return child.pid;
}

function waitFor(url, ms, insecure) {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const mod = url.startsWith("https") ? https : require("http");
      const req = mod.get(url, insecure ? { rejectUnauthorized: false } : {}, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on("error", () => (Date.now() > deadline ? reject(new Error(`${url} did not answer within ${ms / 1000} s`)) : setTimeout(attempt, 500)));
    };
    attempt();
  });
}

function sideloadDesktop() {
  let debugging;
  try {
    debugging = require.resolve("office-addin-debugging/cli.js");
  } catch {
    return false; // optional dependency, absent on Linux
  }
  if (process.platform !== "win32" && process.platform !== "darwin") return false;
  const r = spawnSync(process.execPath, [debugging, "start", "manifest.xml", "desktop", "--app", "excel", "--no-debug", "--dev-server-port", String(DEV_PORT)], {
    cwd: ROOT,
    stdio: "inherit",
  });
  return r.status === 0;
}

async function main() {
  if (fs.existsSync(STATE)) {
    const old = JSON.parse(fs.readFileSync(STATE, "utf8"));
    if (Object.values(old.pids || {}).some(alive)) {
      console.log("Already running (see .start-state.json); `npm stop` first.");
      return;
    }
  }
  await ensureCertificates();
  const tsxCli = require.resolve("tsx/cli");
  const pids = {
    sandbox: startDetached("sandbox", [tsxCli, "sandbox/main.ts"], { PORT: String(SANDBOX_PORT) }),
    devServer: startDetached("dev-server", [path.join(__dirname, "dev-server.js")], { DEV_SERVER_PORT: String(DEV_PORT), SANDBOX_PORT: String(SANDBOX_PORT) }),
  };
  fs.writeFileSync(STATE, JSON.stringify({ pids, startedAt: new Date().toISOString() }, null, 2));
  await waitFor(`http://127.0.0.1:${SANDBOX_PORT}/__sandbox/stats`, 60_000);
  console.log(`Sandbox:    http://127.0.0.1:${SANDBOX_PORT}/v1  (keys: sandbox-professional, sandbox-enterprise, sandbox-no-api)`);
  await waitFor(`https://localhost:${DEV_PORT}/taskpane.html`, 180_000, true);
  console.log(`Add-in:     https://localhost:${DEV_PORT}/taskpane.html  (API proxied at https://localhost:${DEV_PORT}/v1)`);
  console.log(`Logs:       ${path.relative(ROOT, LOGS)}/`);
  const sideloaded = sideloadDesktop();
  if (sideloaded) {
    console.log("Sideloaded into desktop Excel. `npm stop` ends the servers and removes the sideload.");
  } else {
    console.log(
      [
        "",
        "Desktop Excel is not available here (office-addin-debugging is absent or this is not Windows/macOS).",
        "Sideload into Excel on the web:",
        "  1. Open a workbook at https://www.office.com (this browser must trust the certificate's CA, see above).",
        "  2. Home > Add-ins > More Add-ins > My Add-ins > Upload My Add-in (or Insert > Add-ins > Upload My Add-in).",
        `  3. Choose ${path.join(ROOT, "manifest.xml")} and Upload. The Compliance Check button appears on the Home tab.`,
        "  4. In the pane, Settings: paste an API key (sandbox-professional for the sandbox). The base URL is already",
        `     https://localhost:${DEV_PORT}/v1, proxied to the sandbox.`,
        "The servers keep running in the background; `npm stop` ends them.",
      ].join("\n"),
    );
  }
}

main().catch((e) => {
  console.error(`npm start failed: ${e.message}`);
  process.exit(1);
});
