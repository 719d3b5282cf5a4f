/**
 * Starts sandbox services in the sandbox host process (sandbox-host.js) and drives their controls (faults, stats,
 * reset) over IPC. A child process, not a thread of the test: the vm's synchronous UrlFetchApp blocks the test's event
 * loop.
 */
import { nodeLoad } from "../../helpers/node-load";
import path from "node:path";

export interface SandboxProperty {
  uprn: string;
  postcode: string;
  address: string;
  fullAddress: string;
  checks: Record<string, { status: string; [k: string]: unknown }>;
}

export interface SandboxProcess {
  url: string;
  baseUrl: string;
  setFaults(rules: unknown[]): Promise<void>;
  addFaults(rules: unknown[]): Promise<void>;
  clearFaults(): Promise<void>;
  stats(): Promise<{
    total: number;
    check: number;
    bulk_submit: number;
    bulk_results: number;
    addresses: number;
    by_status: Record<string, number>;
  }>;
  reset(): Promise<void>;
  properties(n: number): Promise<SandboxProperty[]>;
  /** Moves the sandbox's clock on (rate-limit windows, job progress, "today"). */
  advanceClock(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** The sandboxes this test file has running, whose clocks move on with the test's (see passTime). */
const running = new Set<SandboxProcess>();

/**
 * Lets `ms` pass for a test without waiting for it: the vm's clock (Date.now() in Code.js) and the clock of every
 * sandbox the file runs move on together, so jobs progress and rate-limit windows turn as they would in real time.
 */
export async function passTime(env: { clock: { offsetMs: number } }, ms: number): Promise<void> {
  const step = Math.max(0, ms);
  env.clock.offsetMs += step;
  await Promise.all([...running].map((s) => s.advanceClock(step)));
}

export interface SandboxProcessOptions {
  msPerProperty?: number;
  limits?: unknown;
  today?: string;
  /** Where the sandbox's clock starts, from real time: the vm clock's offsetMs when a test sets one for its files. */
  clockOffsetMs?: number;
}

/** sandbox-host.js as Node itself loads it (see there), not through jest's module registry. */
function sandboxHost(): {
  create(o: SandboxProcessOptions): Promise<Hosted>;
  call(sid: number, method: string, args?: unknown[]): Promise<any>;
} {
  return nodeLoad<ReturnType<typeof sandboxHost>>(path.join(__dirname, "sandbox-host.js"));
}

interface Hosted {
  sid: number;
  url: string;
  baseUrl: string;
}

/**
 * A sandbox of its own for the caller, in this process's sandbox host (sandbox-host.js): its own port, options,
 * clock, faults and counts, as a process of its own gave. Closed by close(), or at the end of the test file at the latest.
 */
export async function startSandboxProcess(opts: SandboxProcessOptions = {}): Promise<SandboxProcess> {
  const host = sandboxHost();
  const { sid, url, baseUrl } = await host.create(opts);
  const rpc = (method: string, ...args: unknown[]) => host.call(sid, method, args);
  let closed: Promise<void> | undefined;
  const handle: SandboxProcess = {
    url,
    baseUrl,
    setFaults: (rules) => rpc("setFaults", rules),
    addFaults: (rules) => rpc("addFaults", rules),
    clearFaults: () => rpc("clearFaults"),
    stats: () => rpc("stats"),
    advanceClock: (ms) => rpc("advanceClock", ms),
    reset: () => rpc("reset"),
    properties: (n) => rpc("properties", n),
    close: () => {
      running.delete(handle);
      // Closing twice, or after the host has gone, leaves nothing open either way.
      return (closed ??= rpc("close").catch(() => undefined));
    },
  };
  running.add(handle);
  return handle;
}

// Jest loads this module once per test file: a sandbox the file left open closes with the file's tests.
if (typeof afterAll === "function") afterAll(() => Promise.all([...running].map((s) => s.close())));

/**
 * The sandbox process of a test file: started before its tests, reset before each one when `resetEach`, closed after
 * them. The handle stands for the running process (its addresses and calls are the process's), so the file uses it
 * in its tests and hooks as it would the process itself.
 */
export function sandboxForFile(opts: SandboxProcessOptions = {}, { resetEach = false } = {}): SandboxProcess {
  let proc: SandboxProcess | undefined;
  const live = () => {
    if (!proc) throw new Error("The file's sandbox starts in beforeAll: use it inside tests and hooks.");
    return proc;
  };
  beforeAll(async () => {
    proc = await startSandboxProcess(opts);
  });
  afterAll(async () => {
    await proc?.close();
  });
  if (resetEach) beforeEach(() => live().reset());
  return {
    get url() {
      return live().url;
    },
    get baseUrl() {
      return live().baseUrl;
    },
    setFaults: (rules) => live().setFaults(rules),
    addFaults: (rules) => live().addFaults(rules),
    clearFaults: () => live().clearFaults(),
    stats: () => live().stats(),
    advanceClock: (ms) => live().advanceClock(ms),
    reset: () => live().reset(),
    properties: (n) => live().properties(n),
    close: () => live().close(),
  };
}
