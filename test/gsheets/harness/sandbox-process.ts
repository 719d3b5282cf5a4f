/**
 * Runs the sandbox in its own process for the Apps Script harness: the vm blocks the test's main thread
 * during each synchronous UrlFetchApp call, so the server it calls must not share that thread.
 */
import type { AddressInfo } from "node:net";
import { buildSandbox, type FaultRule } from "../../../sandbox/app";

/** The vm's clock offset, and which vm clock it is, on each request (harness/gas.ts CLOCK_HEADER). */
const CLOCK_HEADER = "x-harness-clock-offset";
const CLOCK_ID_HEADER = "x-harness-clock-id";

type Msg = { id: number; method: string; args: unknown[] };

async function main(): Promise<void> {
  const msPerProperty = Number(process.env.SANDBOX_MS_PER_PROPERTY ?? 2);
  const limits = process.env.SANDBOX_LIMITS ? JSON.parse(process.env.SANDBOX_LIMITS) : undefined;
  // The sandbox's clock, which a test can move on (a day, for a daily quota's reset), and which moves on with each vm
  // clock that calls it, counted from where the sandbox was when it first saw that clock: never going back.
  let offsetMs = Number(process.env.SANDBOX_CLOCK_OFFSET_MS ?? 0);
  const clockBase = new Map<string, number>();
  const today = process.env.SANDBOX_TODAY || undefined;
  const app = await buildSandbox({ msPerProperty, limits, today, now: () => new Date(Date.now() + offsetMs) });
  app.addHook("onRequest", async (req) => {
    const vm = Number(req.headers[CLOCK_HEADER]);
    if (!Number.isFinite(vm)) return;
    const id = String(req.headers[CLOCK_ID_HEADER] ?? "");
    if (!clockBase.has(id)) clockBase.set(id, Math.max(0, offsetMs - vm));
    offsetMs = Math.max(offsetMs, vm + clockBase.get(id)!);
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const c = app.sandbox;
  const sandbox = {
    url,
    baseUrl: `${url}/v1`,
    close: () => app.close(),
    setFaults: (rules: FaultRule[]) => c.setFaults(rules),
    addFaults: (rules: FaultRule[]) => c.addFaults(rules),
    clearFaults: () => c.clearFaults(),
    stats: () => c.stats(),
    reset: () => c.reset(),
    dataset: () => c.dataset(),
  };
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
