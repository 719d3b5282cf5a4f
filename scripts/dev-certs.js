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
  for (const [name, file] of [
    ["CA certificate", defaults.caCertificatePath],
    ["localhost certificate", defaults.localhostCertificatePath],
  ]) {
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
  if (!why) return { defaults, made: false, renewed: false };
  if (why !== "missing") {
    log(`Development certificate: ${why}; making new ones in ${defaults.certificateDirectory}.`);
    for (const f of [defaults.caCertificatePath, defaults.localhostCertificatePath, defaults.localhostKeyPath])
      fs.rmSync(f, { force: true });
  }
  if (process.platform === "win32" || process.platform === "darwin") {
    // Generates and trusts the developer CA (asks for permission), as Office's own templates do.
    spawnSync(process.execPath, [require.resolve("office-addin-dev-certs/cli.js"), "install"], {
      stdio: "inherit",
      cwd: root,
    });
  }
  if (problem(defaults)) {
    // On Linux there is nothing to trust it with (no system store Office reads): generate only.
    // Quietly: the package prints its own "generated in…" line, and npm start says where the CA is itself, once.
    const say = console.log;
    console.log = () => {};
    try {
      await require("office-addin-dev-certs").generateCertificates();
    } finally {
      console.log = say;
    }
  }
  const still = problem(defaults);
  if (still) throw new Error(`could not make development certificates: ${still}`);
  return {
    defaults,
    made: true,
    renewed: why !== "missing",
    daysLeft: Math.floor(daysLeft(defaults.localhostCertificatePath)),
  };
}

/**
 * What `npm start` says on every run: where the CA is, when it expires, and how to trust it (docs/excel.md has the
 * steps per system and browser). `made` adds that a new CA was just made and must be trusted (again).
 */
function certificateNotice(defaults, made) {
  const ca = new X509Certificate(fs.readFileSync(defaults.caCertificatePath));
  const until = new Date(Date.parse(ca.validTo)).toISOString().slice(0, 10);
  const trust =
    {
      win32: `certutil -user -addstore Root "${defaults.caCertificatePath}"   (Chrome and Edge use the Windows store)`,
      darwin: `security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db "${defaults.caCertificatePath}"`,
    }[process.platform] ||
    `Chrome/Chromium/Edge: certutil -d sql:$HOME/.pki/nssdb -A -t "C,," -n office-addin-dev-ca -i "${defaults.caCertificatePath}"`;
  return [
    `Certificate: CA ${defaults.caCertificatePath}, valid until ${until}; remade by \`npm start\` 7 days before then.`,
    made
      ? "  A new CA was just made: trust it now (and again each time it is remade), or Excel on the web shows a blank pane."
      : "  Trusted once, it stays trusted until it is remade.",
    `  Trust it: ${trust}`,
    `  Steps for each system and browser: docs/excel.md, "Trusting the development certificate".`,
  ].join("\n");
}

module.exports = { ensureCertificates, certificateNotice, daysLeft, RENEW_WITHIN_DAYS };
