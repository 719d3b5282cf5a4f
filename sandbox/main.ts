/**
 * `npm run sandbox`: runs the sandbox service on PORT (default 3001) until SIGINT / SIGTERM, and
 * prints the base URL and the keys to use.
 */
import { API_KEYS, DEFAULT_WEBHOOK_SECRET, startSandbox } from "./app";

async function main(): Promise<void> {
  // SANDBOX_PORT, as for `npm start`; PORT is still read for older scripts.
  const portVar =
    process.env.SANDBOX_PORT !== undefined ? "SANDBOX_PORT" : process.env.PORT !== undefined ? "PORT" : null;
  const port = Number(portVar ? process.env[portVar] : 3001);
  const host = process.env.HOST ?? "127.0.0.1";
  const msPerProperty = Number(process.env.SANDBOX_MS_PER_PROPERTY ?? 20);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`${portVar} must be a port number 0-65535, got ${portVar && process.env[portVar]}`);
  if (!Number.isFinite(msPerProperty) || msPerProperty < 0) {
    throw new Error(`SANDBOX_MS_PER_PROPERTY must be a number >= 0, got ${process.env.SANDBOX_MS_PER_PROPERTY}`);
  }
  const today = process.env.SANDBOX_TODAY || undefined;
  if (today !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(today))
    throw new Error(`SANDBOX_TODAY must be a YYYY-MM-DD date, got ${today}`);
  const sandbox = await startSandbox({
    today,
    port,
    host,
    msPerProperty,
    serialJobs: process.env.SANDBOX_SERIAL_JOBS === "1",
    webhookSecret: process.env.SANDBOX_WEBHOOK_SECRET || DEFAULT_WEBHOOK_SECRET,
    logger: process.env.SANDBOX_LOG === "1",
  });
  const ds = sandbox.dataset();
  const lines = [
    `Property Compliance Check sandbox on ${sandbox.baseUrl}`,
    `  ${ds.properties.length} properties on ${ds.byPostcode.size} postcodes, dates relative to ${ds.today}; ${msPerProperty} ms per bulk property`,
    ...Object.entries(API_KEYS).map(
      ([key, plan]) => `  key ${key.padEnd(22)} (${plan === "basic" ? "basic: no API access, 403" : plan})`,
    ),
    `  try: curl -H "Authorization: Bearer sandbox-professional" "${sandbox.baseUrl}/api/check?uprn=100023336956"`,
    `  examples: ${sandbox.url}/__sandbox/examples   faults: POST ${sandbox.url}/__sandbox/faults`,
    `  clock: POST ${sandbox.url}/__sandbox/clock {"advance_days": 60} moves the sandbox's day (certificates expire)`,
  ];
  process.stdout.write(lines.join("\n") + "\n");

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`${signal}: closing the sandbox\n`);
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    sandbox.close().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`error while closing: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((err) => {
  if (err && (err as NodeJS.ErrnoException).code === "EADDRINUSE") {
    const port = (err as { port?: number }).port;
    process.stderr.write(
      `sandbox failed to start: port ${port} is already in use.\n` +
        `  If it is an earlier sandbox or \`npm start\`, stop it (Ctrl+C in its terminal, or \`npm stop\`).\n` +
        `  Otherwise choose another port:\n` +
        `  SANDBOX_PORT=3101 npm run sandbox            (macOS and Linux shells)\n` +
        `  $env:SANDBOX_PORT=3101; npm run sandbox      (Windows PowerShell)\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`sandbox failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
