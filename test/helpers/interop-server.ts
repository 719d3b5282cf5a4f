/**
 * Servers that are NOT the sandbox, for the core's interop tests: a small node:http server on loopback that answers
 * each request with what a test's handler says (or drops the socket), logging every request; a small world of
 * properties and bulk jobs; and each row's outcome as one word, for comparing whole runs at a glance.
 *
 *   const s = await serve((req) => (req.method === "POST" ? spec202(store.submit(req.body)) : { body: ... }));
 *   afterAll(closeServers);
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Outcome } from "../../core";

export interface Req {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  at: number;
  headers: http.IncomingHttpHeaders;
}
export interface Reply {
  status?: number;
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** Destroy the socket instead of answering. */
  destroy?: boolean;
}
export type Handler = (req: Req) => Reply | Promise<Reply>;

export interface Served {
  baseUrl: string;
  origin: string;
  log: Req[];
  count(method: string, pathPrefix?: string): number;
}

const servers: http.Server[] = [];

/**
 * A server on a free loopback port whose answers are the handler's; its base URL ends in /v1. Each request's `at` is
 * read from `opts.now` (give it the test clock the client runs on, so the log's times are the client's).
 */
export async function serve(handler: Handler, opts: { now?: () => number } = {}): Promise<Served> {
  const now = opts.now ?? (() => Date.now());
  const log: Req[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", async () => {
      const u = new URL(req.url ?? "/", "http://x");
      const r: Req = {
        method: req.method ?? "GET",
        path: u.pathname,
        query: u.searchParams,
        body,
        at: now(),
        headers: req.headers,
      };
      log.push(r);
      let reply: Reply;
      try {
        reply = await handler(r);
      } catch (e) {
        reply = { status: 500, text: `test server fault: ${(e as Error).message}` };
      }
      if (reply.destroy) {
        req.socket.destroy();
        return;
      }
      const headers: Record<string, string> = { ...(reply.headers ?? {}) };
      const text = reply.text ?? (reply.body !== undefined ? JSON.stringify(reply.body) : "");
      if (reply.body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === "content-type"))
        headers["content-type"] = "application/json";
      res.writeHead(reply.status ?? 200, headers);
      res.end(reply.status === 204 ? undefined : text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    log,
    count: (method, prefix = "") => log.filter((r) => r.method === method && r.path.startsWith(prefix)).length,
  };
}

/** Closes every server this file started, without waiting out keep-alive connections (for afterAll). */
export async function closeServers(): Promise<void> {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
}

// ---------------------------------------------------------------- a small world of properties

export interface Prop {
  uprn?: string;
  postcode?: string;
  address?: string;
}
export const U = (i: number) => String(100000000000 + i);
/** A UPRN no server knows. */
export const MISSING = U(99);
export const uprns = (from: number, n: number): Prop[] => Array.from({ length: n }, (_, i) => ({ uprn: U(from + i) }));

/** A check result in the spec's shape. */
export function checkResult(
  uprn: string,
  address = `${Number(uprn) % 1000} High Street, Leeds, LS1 4AP`,
): Record<string, any> {
  return {
    uprn,
    address,
    compliance_score: 72,
    risk_level: "medium",
    checks: {
      epc: { status: "pass", rating: "C", expiry: "2031-04-02" },
      gas_safety: { status: "warning", last_certificate: "2025-12-01", expiry: "2026-12-01" },
      eicr: { status: "fail", detail: "No EICR on record for this property." },
      licensing: { status: "not_required", scheme: null },
      deposit_protection: { status: "pass", scheme: "DPS", protected_date: "2025-03-14" },
    },
    last_updated: "2026-11-20T09:12:44Z",
  };
}

export interface Job {
  id: string;
  props: Prop[];
  polls: number;
}
/** The bulk jobs a server made: each submit's properties, and how often each job was polled. */
export function jobStore() {
  const jobs = new Map<string, Job>();
  let n = 0;
  return {
    submit(body: string): Job {
      const job: Job = {
        id: `bulk_${(++n).toString(36)}x${Math.random().toString(36).slice(2, 8)}`,
        props: JSON.parse(body).properties,
        polls: 0,
      };
      jobs.set(job.id, job);
      return job;
    },
    /** The job a path names (…/bulk/<id>[/results]), its poll counted. */
    poll(path: string): Job | undefined {
      const id = /\/bulk\/([^/]+)/.exec(path)?.[1];
      const job = id ? jobs.get(decodeURIComponent(id)) : undefined;
      if (job) job.polls++;
      return job;
    },
  };
}

// ---------------------------------------------------------------- outcome helpers

/** A row as one word: the result's uprn, or "!" + the error kind. */
export const word = (o: Outcome | undefined) => (!o ? "undefined" : "result" in o ? o.result.uprn : `!${o.error.kind}`);
export const words = (os: (Outcome | undefined)[]) => os.map(word);
export const errorOf = (o: Outcome | undefined) => (o && "error" in o ? o.error : undefined);
/** How long `fn` took on the clock `now` (the wall unless a test clock is given). */
export async function timed<T>(
  fn: () => Promise<T>,
  now: () => number = () => Date.now(),
): Promise<{ value: T; ms: number }> {
  const t0 = now();
  const value = await fn();
  return { value, ms: now() - t0 };
}
