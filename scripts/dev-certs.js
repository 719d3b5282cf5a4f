/**
 * Development certificates for https://localhost (office-addin-dev-certs, as Microsoft's templates use): made when
 * missing, and made again when the localhost certificate or its CA has expired or expires within 7 days, as the
 * templates' `office-addin-dev-certs install` does. A served certificate that browsers refuse fails silently in Excel.
 */
const { spawnSync } = require("child_process");
const { X509Certificate } = require("crypto");
const fs = require("fs");
const path = require("path");

const RENEW_WITHIN_DAYS = 7;

/** Days until a PEM certificate expires (negative once expired); null when it is missing or unreadable. */
function daysLeft(file) {
  try {
    const cert = new X509Certificate(fs.readFileSync(file));
    return (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
  } catch {
    return null;
  }
}

/** Why the certificates must be made (again), or null when they are fine. */
function problem(defaults) {
  const files = [defaults.caCertificatePath, defaults.localhostCertificatePath, defaults.localhostKeyPath];
  if (!files.every((f) => fs.existsSync(f))) return "missing";
  for (const [name, file] of [["CA certificate", defaults.caCertificatePath], ["localhost certificate", defaults.localhostCertificatePath]]) {
    const left = daysLeft(file);
    if (left === null) return `the ${name} (${file}) cannot be read`;
    if (left < 0) return `the ${name} expired ${Math.ceil(-left)} day(s) ago`;
    if (left < RENEW_WITHIN_DAYS) return `the ${name} expires in ${Math.max(0, Math.floor(left))} day(s)`;
  }
  return null;
}

async function ensureCertificates({ root = path.resolve(__dirname, ".."), log = console.log } = {}) {
  const defaults = require("office-addin-dev-certs/lib/defaults");
  const why = problem(defaults);
  if (!why) return { defaults, renewed: false };
  if (why !== "missing") {
    log(`Development certificate: ${why}; making new ones in ${defaults.certificateDirectory}.`);
    for (const f of [defaults.caCertificatePath, defaults.localhostCertificatePath, defaults.localhostKeyPath]) fs.rmSync(f, { force: true });
  }
  if (process.platform === "win32" || process.platform === "darwin") {
    // Generates and trusts the developer CA (asks for permission), as Office's own templates do.
    spawnSync(process.execPath, [require.resolve("office-addin-dev-certs/cli.js"), "install"], { stdio: "inherit", cwd: root });
  }
  if (problem(defaults)) {
    // On Linux there is nothing to trust it with (no system store Office reads): generate only.
    await require("office-addin-dev-certs").generateCertificates();
    log(`Generated development certificates in ${defaults.certificateDirectory}.`);
    log(`  Your browser must trust ${defaults.caCertificatePath} for Excel on the web to load https://localhost.`);
  }
  const still = problem(defaults);
  if (still) throw new Error(`could not make development certificates: ${still}`);
  return { defaults, renewed: why !== "missing", daysLeft: Math.floor(daysLeft(defaults.localhostCertificatePath)) };
}

module.exports = { ensureCertificates, daysLeft, RENEW_WITHIN_DAYS };
