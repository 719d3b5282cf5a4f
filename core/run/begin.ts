/**
 * How a run begins, the same in both add-ins. In order:
 *
 * 1. An unfinished run stored before this one is set aside for Resume (core setAside): never replaced or dropped.
 * 2. The rows are marked: the header row, each input error at its row, and "Checking…" (with the run's id, earlier
 *    values kept) at every row to send, at the rows just read. From here on a row edited, sorted or moved while the
 *    check runs is found by its mark, and told apart from the rows of any other run.
 * 3. The run is stored for Resume, before any submit goes: a job that may exist is never sent again blindly.
 * 4. The first requests due go (the first submit alone: a refused key or plan costs one request), and their replies
 *    are taken. What they hand out (the reason at every row, or the first results) is written by the host where
 *    each property is then, over the marks, as for every later step.
 *
 * A failure of the service at step 4 loses nothing: the marks kept every earlier value. Hosts pass their I/O as
 * callbacks; each may answer at once (Apps Script) or with a promise (the Excel pane), and the order is kept either
 * way.
 */
import type { ClientConfig, HttpRequest } from "../service/requests";
import { dueRequests } from "./due";
import { acceptReply, type Reply } from "./engine";
import type { RunState } from "./state";

type MaybePromise<T> = T | Promise<T>;

function andThen<T, U>(v: MaybePromise<T>, f: (t: T) => MaybePromise<U>): MaybePromise<U> {
  return v && typeof (v as Promise<T>).then === "function" ? (v as Promise<T>).then(f) : f(v as T);
}

/** The steps of a run's beginning, in the order both add-ins keep (the names of BeginIO's callbacks). */
export const BEGIN_ORDER = ["setAside", "writeMarks", "save", "send"] as const;

/** The host's I/O for a run's beginning. */
export interface BeginIO {
  cfg: ClientConfig;
  now(): number;
  /** Sets aside the unfinished run stored before this one (when there is one). */
  setAside?(): MaybePromise<void>;
  /** Writes the header row, the input errors and the "Checking…" marks at the rows as read for this run. */
  writeMarks(): MaybePromise<void>;
  /** Stores the run for Resume. */
  save(state: RunState): MaybePromise<void>;
  /** Sends these requests and answers each, in order (fetch, UrlFetchApp). */
  send(requests: HttpRequest[]): MaybePromise<Reply[]>;
}

/**
 * Begins a run (see the file's comment for the order). Answers how many requests went; 0 when nothing was valid to
 * send (every row has its input error, and nothing was stored).
 */
export function beginRunSession(state: RunState, io: BeginIO): MaybePromise<number> {
  return andThen(io.setAside?.(), () =>
    andThen(io.writeMarks(), () => {
      const due = dueRequests(state, io.cfg, io.now());
      if (!due.requests.length) return 0;
      return andThen(io.save(state), () =>
        andThen(io.send(due.requests.map((r) => r.request)), (replies) => {
          due.requests.forEach((r, i) => acceptReply(state, r.id, replies[i], io.now()));
          return due.requests.length;
        }),
      );
    }),
  );
}
