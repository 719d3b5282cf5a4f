/**
 * The sandbox for tests, in the test's own process: started on a free loopback port with instant jobs unless a test
 * asks otherwise, closed without waiting out fetch's keep-alive connections; real HTTP to it with Node's fetch; and
 * the UPRNs it knows. (The Apps Script harness runs it in a child process instead: test/gsheets/harness/sandbox.ts.)
 */
import { nodeLoad } from "./node-load";
import type { SandboxHandle, StartOptions } from "../../sandbox/app";
import type { Dataset } from "../../sandbox/dataset";

export type Sandbox = SandboxHandle;

/**
 * The sandbox as Node itself loads it, once for each jest worker process, from the bundle test/helpers/global-setup.js
 * made: jest's registry compiled fastify and the sandbox afresh for every test file, and each file built the register
 * again (about 20,000 properties, a few tenths of a second); now the worker's later files start their sandboxes on the
 * register the first one built, which is frozen (sandbox/register-day.ts), so none can change what another sees.
 */
function sandboxModule(): typeof import("./sandbox-inprocess") {
  const bundle = process.env.COMPLIANCE_TEST_SANDBOX_INPROCESS;
  // Without the bundle (jest run without its global set-up), the sources through jest's registry, as before.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when first needed, not with this file
  if (!bundle) return require("./sandbox-inprocess");
  return nodeLoad<typeof import("./sandbox-inprocess")>(bundle);
}

/** The register for the UTC day of `now`: the very one the sandboxes this process starts on that day answer from. */
export function sandboxDataset(now?: Date): Dataset {
  return sandboxModule().getDataset(now);
}

/** A sandbox on a free port (msPerProperty 0 unless given): one per test file gives fresh rate windows. */
export async function startTestSandbox(opts: StartOptions = {}): Promise<SandboxHandle> {
  const sb = await sandboxModule().startSandbox({ port: 0, msPerProperty: 0, ...opts });
  const close = sb.close;
  // fetch keeps connections alive; without this, close() waits for the server's 72 s keep-alive timeout.
  sb.close = async () => {
    const done = close();
    sb.app.server.closeAllConnections();
    await done;
  };
  return sb;
}

/** The sandbox with jobs taking msPerProperty each (the Excel tests' name for startTestSandbox). */
export function sandbox(msPerProperty = 0): Promise<SandboxHandle> {
  return startTestSandbox({ msPerProperty });
}

/**
 * A timer that shortens the client's waits (retries, polls, timeouts) by a fixed factor, so fault tests finish in
 * seconds while keeping their order and proportions.
 */
export function scaledSleep(factor: number) {
  return (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const h = setTimeout(resolve, Math.max(0, ms / factor));
      signal?.addEventListener("abort", () => {
        clearTimeout(h);
        resolve();
      });
    });
}

/** Distinct UPRNs that exist in the sandbox's data set. */
export function knownUprns(s: SandboxHandle, n: number): string[] {
  const all = s.dataset().properties;
  if (all.length < n) throw new Error(`sandbox has only ${all.length} properties`);
  return all.slice(0, n).map((p: { uprn: string }) => p.uprn);
}

export const PRO = "sandbox-professional";
export const ENT = "sandbox-enterprise";
export const NO_API = "sandbox-no-api";

export interface Call {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface CallOptions {
  key?: string | null;
  method?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** Calls `path` (relative to baseUrl unless it starts with "http" or "/__"), parses JSON when it can. */
export function client(sb: SandboxHandle) {
  return async function call(path: string, opts: CallOptions = {}): Promise<Call> {
    const url = path.startsWith("http") ? path : path.startsWith("/__") ? sb.url + path : sb.baseUrl + path;
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? ENT : opts.key;
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["Content-Type"] = "application/json";
    }
    const res = await fetch(url, { method: opts.method ?? (body !== undefined ? "POST" : "GET"), headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
}

export async function start(opts: StartOptions = {}): Promise<{ sb: SandboxHandle; call: ReturnType<typeof client> }> {
  const sb = await startTestSandbox(opts);
  return { sb, call: client(sb) };
}

/** Asserts the contract's error body and returns it. */
export function expectError(res: Call, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.status).toBe(status);
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return res.body.error;
}

export function expectRateHeaders(res: Call) {
  for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    expect(res.headers.get(h)).toMatch(/^\d+$/);
  }
}

export const q = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString();
