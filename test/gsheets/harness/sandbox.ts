/**
 * Starts the sandbox service in a child process and drives its controls (faults, stats, reset) over IPC.
 * A child process, not a thread of the test: the vm's synchronous UrlFetchApp blocks the test's event loop.
 */
import { fork, type ChildProcess } from "node:child_process";
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

export async function startSandboxProcess(opts: SandboxProcessOptions = {}): Promise<SandboxProcess> {
  // The bundle jest's global set-up made (test/helpers/global-setup.js), started with its code cache, or the
  // TypeScript through tsx without it.
  const bundle = process.env.COMPLIANCE_TEST_SANDBOX_BUNDLE;
  const script = bundle ? path.join(__dirname, "sandbox-launch.js") : path.join(__dirname, "sandbox-process.ts");
  const child: ChildProcess = fork(script, bundle ? [bundle] : [], {
    execArgv: bundle ? [] : ["--import", "tsx"],
    env: {
      ...process.env,
      SANDBOX_MS_PER_PROPERTY: String(opts.msPerProperty ?? 2),
      ...(opts.limits ? { SANDBOX_LIMITS: JSON.stringify(opts.limits) } : {}),
      ...(opts.today ? { SANDBOX_TODAY: opts.today } : {}),
      ...(opts.clockOffsetMs ? { SANDBOX_CLOCK_OFFSET_MS: String(opts.clockOffsetMs) } : {}),
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  const ready = new Promise<{ url: string; baseUrl: string }>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`sandbox process exited early (${code})`)));
    child.on("message", (m: any) => {
      if (m && m.ready) resolve({ url: m.url, baseUrl: m.baseUrl });
      else if (m && pending.has(m.id)) {
        const p = pending.get(m.id)!;
        pending.delete(m.id);
        if (m.error) p.reject(new Error(m.error));
        else p.resolve(m.result);
      }
    });
  });
  const { url, baseUrl } = await ready;
  const rpc = (method: string, ...args: unknown[]) =>
    new Promise<any>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, method, args });
    });
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
    close: async () => {
      running.delete(handle);
      if (child.exitCode !== null) return;
      child.removeAllListeners("exit");
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
  running.add(handle);
  return handle;
}

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
