/** A run kept between sessions of the pane or sidebar: what is stored for a Resume, and reading it back. */
import type { ServiceError } from "../service/errors";
import type { JobState } from "../service/jobs";
import { members, type RunState } from "./state";

/**
 * The state to store: outcomes received but not yet written are not kept (they can be large, and they are the
 * service's to give again): their jobs are rewound to their first results page, so a Resume fetches them again
 * with GETs only. Jobs whose every result is written are left as they are.
 */
export function storedState(state: RunState): RunState {
  // Copied without them: a large run's received outcomes are most of its state, and would be copied to be dropped.
  const out: RunState = JSON.parse(JSON.stringify({ ...state, received: {}, inflight: {} }));
  // Errors waiting to be written are small and often the same: kept once each, with the properties they go to.
  const errors = new Map<string, { error: ServiceError; ranges: [number, number][] }>();
  const results = new Set<number>();
  for (const k of Object.keys(state.received)
    .map(Number)
    .sort((a, b) => a - b)) {
    const o = state.received[k];
    if ("result" in o) {
      results.add(k);
      continue;
    }
    const id = JSON.stringify(o.error);
    const group = errors.get(id) ?? { error: o.error, ranges: [] };
    errors.set(id, group);
    const last = group.ranges[group.ranges.length - 1];
    if (last && last[1] === k) last[1] = k + 1;
    else group.ranges.push([k, k + 1]);
  }
  if (errors.size) out.pendingErrors = [...errors.values()];
  else delete out.pendingErrors;
  out.jobs.forEach((job) => {
    const list = members(job);
    const unwritten = list.some((p) => results.has(p));
    // A submit in flight stays "sending": resumeRun says its job may have been created. Nothing else to rewind.
    if (job.phase === "sending" || !job.poll || !unwritten) return;
    const received: [number, number][] = [];
    list.forEach((p, i) => {
      if (state.fates[p] === "." && !(String(p) in state.received && !results.has(p))) return;
      const last = received[received.length - 1];
      if (last && last[1] === i) last[1] = i + 1;
      else received.push([i, i + 1]);
    });
    const poll: JobState = { ...job.poll, cursor: job.poll.resultsUrl, status: "running", received, nextPollAtMs: 0 };
    delete poll.pageStart;
    delete poll.error;
    delete (poll as { seen?: unknown }).seen;
    job.poll = poll;
    job.phase = "polling";
    delete job.error;
  });
  return out;
}

/** A stored state back (JSON text or object); null when it is not one of ours. */
export function loadRunState(raw: unknown): RunState | null {
  try {
    const s = (typeof raw === "string" ? JSON.parse(raw) : JSON.parse(JSON.stringify(raw))) as RunState;
    if (!(s && s.v === 2 && Array.isArray(s.jobs) && typeof s.fates === "string")) return null;
    s.received ??= {};
    s.inflight ??= {};
    for (const g of s.pendingErrors ?? [])
      for (const [a, b] of g.ranges)
        for (let p = a; p < b; p++) if (s.fates[p] === ".") s.received[p] = { error: g.error };
    delete s.pendingErrors;
    return s;
  } catch {
    return null;
  }
}
