/**
 * The sandbox host process for the Apps Script harness (started by sandbox-host.js): it runs each sandbox a test file
 * asks for, on a port of its own, until the file closes it. The vm blocks the test's main thread during each synchronous
 * UrlFetchApp call, so the servers it calls must not share that thread.
 */
import type { AddressInfo } from "node:net";
import { buildSandbox, type FaultRule } from "../../../sandbox/app";
import type { SandboxProcessOptions } from "./sandbox";

/** The vm's clock offset, and which vm clock it is, on each request (harness/gas.ts CLOCK_HEADER). */
const CLOCK_HEADER = "x-harness-clock-offset";
const CLOCK_ID_HEADER = "x-harness-clock-id";

type Msg = { id: number; sid: number; method: string; args: unknown[] };

type Controls = Record<string, (...a: any[]) => unknown>;

/** One sandbox of the host: its own service on its own port, options, clock, faults and counts. */
async function createSandbox(
  o: SandboxProcessOptions,
  onClose: () => void,
): Promise<{ url: string; controls: Controls }> {
  // The sandbox's clock, which a test can move on (a day, for a daily quota's reset), and which moves on with each vm
  // clock that calls it, counted from where the sandbox was when it first saw that clock: never going back.
  let offsetMs = Number(o.clockOffsetMs ?? 0);
  const clockBase = new Map<string, number>();
  const app = await buildSandbox({
    msPerProperty: o.msPerProperty ?? 2,
    limits: o.limits as NonNullable<Parameters<typeof buildSandbox>[0]>["limits"],
    today: o.today || undefined,
    now: () => new Date(Date.now() + offsetMs),
  });
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
  const controls: Controls = {
    setFaults: (rules: FaultRule[]) => c.setFaults(rules),
    addFaults: (rules: FaultRule[]) => c.addFaults(rules),
    clearFaults: () => c.clearFaults(),
    stats: () => c.stats(),
    advanceClock: (ms: number) => {
      offsetMs += ms;
    },
    reset: () => c.reset(),
    properties: (n: number) =>
      c
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
      onClose();
      await app.close();
    },
  };
  return { url, controls };
}

async function main(): Promise<void> {
  const sandboxes = new Map<number, Controls>();
  let nextSid = 1;
  let created = false;
  const create = async (o: SandboxProcessOptions) => {
    const sid = nextSid++;
    const { url, controls } = await createSandbox(o || {}, () => sandboxes.delete(sid));
    sandboxes.set(sid, controls);
    return { sid, url, baseUrl: `${url}/v1` };
  };
  process.on("message", async (m: Msg) => {
    try {
      let result: unknown;
      if (m.method === "create") result = await create(m.args[0] as SandboxProcessOptions);
      else {
        const controls = sandboxes.get(m.sid);
        if (!controls) throw new Error(`no sandbox ${m.sid} in this host (closed already?)`);
        result = await controls[m.method](...(m.args || []));
      }
      // The first sandbox built: sandbox-launch.js writes its code cache with what that compiled.
      const first = m.method === "create" && !created;
      created = created || m.method === "create";
      process.send!({ id: m.id, result: result === undefined ? null : result, ...(first ? { created: true } : {}) });
    } catch (e) {
      process.send!({ id: m.id, error: e instanceof Error ? e.message : String(e) });
    }
  });
  process.on("disconnect", () => process.exit(0));
  process.send!({ ready: true });
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
