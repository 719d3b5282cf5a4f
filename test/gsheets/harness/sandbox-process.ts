/**
 * Runs the sandbox in its own process for the Apps Script harness: the vm blocks the test's main thread
 * during each synchronous UrlFetchApp call, so the server it calls must not share that thread.
 */
import { startSandbox, type FaultRule } from "../../../sandbox/app";

type Msg = { id: number; method: string; args: unknown[] };

async function main(): Promise<void> {
  const msPerProperty = Number(process.env.SANDBOX_MS_PER_PROPERTY ?? 2);
  const limits = process.env.SANDBOX_LIMITS ? JSON.parse(process.env.SANDBOX_LIMITS) : undefined;
  // The sandbox's clock, which a test can move on (a day, for a daily quota's reset).
  let offsetMs = 0;
  const today = process.env.SANDBOX_TODAY || undefined;
  const sandbox = await startSandbox({
    port: 0,
    msPerProperty,
    limits,
    today,
    now: () => new Date(Date.now() + offsetMs),
  });
  const controls: Record<string, (...a: any[]) => unknown> = {
    setFaults: (rules: FaultRule[]) => sandbox.setFaults(rules),
    addFaults: (rules: FaultRule[]) => sandbox.addFaults(rules),
    clearFaults: () => sandbox.clearFaults(),
    stats: () => sandbox.stats(),
    advanceClock: (ms: number) => {
      offsetMs += ms;
    },
    reset: () => sandbox.reset(),
    properties: (n: number) =>
      sandbox
        .dataset()
        .properties.slice(0, n)
        .map((p: any) => ({
          uprn: p.uprn,
          postcode: p.postcode,
          address: p.address_line_1,
          fullAddress: p.address,
          checks: p.checks,
        })),
    close: async () => {
      await sandbox.close();
      setTimeout(() => process.exit(0), 10);
    },
  };
  process.on("message", async (m: Msg) => {
    try {
      const result = await controls[m.method](...(m.args || []));
      process.send!({ id: m.id, result: result === undefined ? null : result });
    } catch (e) {
      process.send!({ id: m.id, error: e instanceof Error ? e.message : String(e) });
    }
  });
  process.on("disconnect", () => void sandbox.close().finally(() => process.exit(0)));
  process.send!({ ready: true, url: sandbox.url, baseUrl: sandbox.baseUrl });
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
