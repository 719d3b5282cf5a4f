/**
 * Synchronous HTTP for the UrlFetchApp stand-in: a worker thread (http-worker.mjs) makes the requests while this
 * thread blocks on a shared flag (Atomics.wait), as Apps Script's UrlFetchApp blocks the script.
 *
 * One worker per test file, started on first use and ended when the file's tests are done, so no thread or port
 * outlives the file and jest's workers exit cleanly.
 */
import path from "node:path";
import { MessageChannel, MessagePort, Worker, receiveMessageOnPort } from "node:worker_threads";

export type WireRequest = {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  payload?: string;
  contentType?: string;
};
export type RawReply = { status: number; rawHeaders: string[]; body: string } | { error: string };

/** Longer than any request's own timeout (60 s), so a stuck worker is reported rather than waited on for ever. */
const REPLY_TIMEOUT_MS = 120_000;

class SyncHttp {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  /** Holds the id of the last request the worker answered. */
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private lastId = 0;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(path.join(__dirname, "http-worker.mjs"), {
      workerData: { port: port2, flag: this.flag },
      transferList: [port2],
    });
    this.worker.unref();
  }

  fetch(requests: WireRequest[]): RawReply[] {
    const id = ++this.lastId;
    this.worker.postMessage({ id, requests });
    const deadline = Date.now() + REPLY_TIMEOUT_MS;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`The HTTP worker did not answer within ${REPLY_TIMEOUT_MS} ms`);
      // Wakes when the worker stores this id (or at once if it already has); a short slice keeps a missed wake cheap.
      Atomics.wait(this.flag, 0, id - 1, Math.min(remaining, 50));
      const received = receiveMessageOnPort(this.port);
      if (received && (received.message as { id: number }).id === id)
        return (received.message as { replies: RawReply[] }).replies;
    }
  }

  async close(): Promise<void> {
    this.port.close();
    await this.worker.terminate();
  }
}

let current: SyncHttp | null = null;

/** Makes the requests in parallel and returns their replies in order; blocks until all have answered. */
export function syncFetch(requests: WireRequest[]): RawReply[] {
  if (!current) current = new SyncHttp();
  return current.fetch(requests);
}

/** Ends the worker thread, if one was started. */
export async function closeSyncFetch(): Promise<void> {
  const open = current;
  current = null;
  if (open) await open.close();
}

// Jest loads this module once per test file: end the file's worker with its tests.
if (typeof afterAll === "function") afterAll(closeSyncFetch);
