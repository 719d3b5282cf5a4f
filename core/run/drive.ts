/**
 * The run engine's loop for hosts that have fetch and timers (the Excel pane and functions, Node, screen()):
 * ask the engine what is due, send it, hand back the replies, write what arrived, store the state. Apps Script
 * drives the same engine in short polls instead (gsheets/server/bulk.ts).
 */
import type { FetchLike, AbortSignalLike, Sleep } from "../service/transport";
import { serviceError } from "../service/errors";
import type { HttpRequest, ClientConfig } from "../service/requests";
import type { RateLimitInfo } from "../service/ratelimit";
import {
  acceptReply,
  classifyTransportError,
  dueRequests,
  markWritten,
  outcomesToWrite,
  stopRun,
  type OutcomeToWrite,
  type Reply,
  type RunState,
  type WrittenProperty,
} from ".";

export interface DriveOptions {
  cfg: ClientConfig;
  fetch: FetchLike;
  sleep: Sleep;
  now: () => number;
  signal?: AbortSignalLike;
  /** Per request, default 30 s. */
  requestTimeoutMs?: number;
  /**
   * The property keys the rows hold now, read just before a job is sent, so that a row edited mid-run is left out
   * of jobs not yet sent. Optional: without it every queued property is sent.
   */
  presentKeys?: () => Promise<ReadonlySet<string> | undefined>;
  /**
   * Write these outcomes where their property is now; answer which properties were written (present: false when
   * no row holds the property any more). Throw when the sheet refused the write: the outcomes stay pending.
   */
  write(items: OutcomeToWrite[]): Promise<WrittenProperty[]>;
  /** After every step: store the state (the engine's storedState) so a closed pane can resume. */
  save?(state: RunState): Promise<void> | void;
  onStep?(state: RunState): void;
  onRateLimit?(rl: RateLimitInfo | undefined): void;
  /** A write the sheet refused: said once per failure (the host tells the user why results wait). */
  onWriteError?(e: unknown): void;
  /** How long the last writes are retried with back-off before the loop gives up on them; default 30 s. */
  writeRetryMs?: number;
}

function requestController(): { signal: unknown; abort(): void } | undefined {
  const AC = (globalThis as { AbortController?: new () => { signal: unknown; abort(): void } }).AbortController;
  return AC ? new AC() : undefined;
}

/**
 * Send one request and turn what happens into a Reply. GETs follow the caller's Cancel at once; a POST in flight is
 * let finish (up to the timeout), so a job the service made on Cancel is known and collectable, not lost.
 */
export async function sendRequest(
  o: Pick<DriveOptions, "fetch" | "sleep" | "signal" | "requestTimeoutMs">,
  req: HttpRequest,
): Promise<Reply> {
  const timeoutMs = o.requestTimeoutMs ?? 30000;
  const controller = requestController();
  const follow = req.method === "GET" ? o.signal : undefined;
  const onAbort = () => controller?.abort();
  if (follow?.aborted) return { failure: "not_sent" };
  follow?.addEventListener?.("abort", onAbort, { once: true });
  let settled = false;
  const timer = {
    aborted: false,
    listeners: [] as (() => void)[],
    addEventListener(_t: "abort", fn: () => void) {
      this.listeners.push(fn);
    },
    removeEventListener() {},
  };
  try {
    const response = o
      .fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: controller?.signal })
      .then(async (res) => ({ status: res.status, headers: res.headers, text: await res.text() }) as Reply)
      .catch((e) => (follow?.aborted ? ({ failure: "aborted" } as Reply) : classifyTransportError(e)));
    const timeout = o
      .sleep(timeoutMs, timer)
      .then(() =>
        settled
          ? null
          : ({ failure: "timeout", message: `no answer within ${Math.round(timeoutMs / 1000)} s` } as Reply),
      );
    const reply = await Promise.race([response, timeout]);
    settled = true;
    timer.aborted = true;
    timer.listeners.splice(0).forEach((fn) => fn());
    if (!reply) return await response;
    if ("failure" in reply && reply.failure === "timeout") {
      response.catch(() => undefined);
      controller?.abort();
    }
    return reply;
  } finally {
    follow?.removeEventListener?.("abort", onAbort);
  }
}

/**
 * Run the engine to its end (done, paused, stopped or the writes refused). Results are written as they arrive;
 * the state is saved after each step. Returns when nothing more will happen without the user.
 */
export async function driveRun(state: RunState, o: DriveOptions): Promise<{ writesPending: boolean }> {
  const flush = async (): Promise<boolean> => {
    const items = outcomesToWrite(state);
    if (!items.length) return true;
    try {
      const written = await o.write(items);
      const final = new Set(items.filter((i) => i.final).map((i) => i.property));
      markWritten(
        state,
        written.filter((w) => final.has(w.property)),
      );
      return true;
    } catch (e) {
      o.onWriteError?.(e);
      return false;
    }
  };
  const step = async () => {
    o.onStep?.(state);
    await o.save?.(state);
  };
  for (;;) {
    if (o.signal?.aborted && state.phase === "running") stopRun(state);
    const nowMs = o.now();
    const queuedDue =
      state.phase === "running" && state.jobs.some((j) => j.phase === "queued" && j.notBeforeMs <= nowMs);
    const presentKeys = queuedDue && o.presentKeys ? await o.presentKeys() : undefined;
    const due = dueRequests(state, o.cfg, o.now(), { presentKeys });
    await flush();
    if (due.finished && Object.keys(state.inflight).length === 0) break;
    if (!due.requests.length) {
      await step();
      await o.sleep(Math.max(1, due.waitMs), o.signal);
      continue;
    }
    // A submit about to go is stored first: a pane closed while it is in flight resumes knowing the job may exist.
    if (due.requests.some((r) => r.kind === "submit")) await o.save?.(state);
    await Promise.all(
      due.requests.map(async (r) => {
        const reply = await sendRequest(o, r.request);
        acceptReply(state, r.id, reply, o.now());
      }),
    );
    o.onRateLimit?.(state.rate);
    await flush();
    await step();
  }
  // The last writes: Excel refuses every write while a cell is being edited, which ends when the user presses Enter.
  let ok = await flush();
  const budget = o.writeRetryMs ?? 30_000;
  for (let waited = 0, delay = 250; !ok && waited < budget; delay = Math.min(delay * 2, 4000)) {
    const ms = Math.min(delay, budget - waited);
    await o.sleep(ms);
    waited += ms;
    ok = await flush();
  }
  await step();
  return { writesPending: !ok };
}

/** Used by hosts to say a run could not go on for a reason of their own (the sheet was deleted, say). */
export const hostStop = (message: string) => serviceError("cancelled", "host_stopped", message);
