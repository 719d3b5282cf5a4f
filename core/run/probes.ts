/**
 * Large runs begin with two probe jobs: how their progress compares says whether the service runs jobs side by side,
 * and so whether the jobs held back are cut into parallel parts or sent as they are. Also how a queued job is cut.
 */
import { compactMembers, members, type RunJob, type RunState } from "./state";

/** How soon a probe job is first looked at. */
export const PROBE_LOOK_MS = 1000;

/**
 * What the probe jobs' progress says of the service: both moved about as far, it runs jobs side by side; one well
 * on (two properties done, or finished) while the other has barely begun, one at a time; else nothing yet. A probe
 * that failed, or was never sent, says nothing to wait for: the held jobs go as they are.
 */
function probeVerdict(state: RunState): "side_by_side" | "one_at_a_time" | null {
  const probes = state.jobs.filter((j) => j.probe);
  if (
    probes.length < 2 ||
    probes.some(
      (p) =>
        (p.phase === "ended" && (!p.poll || p.poll.status === "failed" || p.poll.status === "timed_out")) ||
        (p.phase === "queued" && state.phase !== "running"),
    )
  ) {
    return "one_at_a_time";
  }
  if (!probes.every((p) => p.poll && p.poll.polls > 0)) return null;
  // Share of its properties done: a finished job counts whole.
  const done = (p: RunJob) => (p.poll!.status !== "running" ? 1 : p.poll!.processed / Math.max(1, p.poll!.total));
  const [lo, hi] = probes.map(done).sort((a, b) => a - b);
  const wellOn = probes.some((p) => p.poll!.processed >= 2 || p.poll!.status !== "running");
  // Side by side, the two move together; one at a time, the second has barely begun when the first is well on (a
  // look that falls just as the first ends and the second starts is read right too).
  if (lo > 0 && lo >= hi / 2) return "side_by_side";
  if (wellOn && lo < hi / 10) return "one_at_a_time";
  return null;
}

/**
 * Release the held jobs once the probes have spoken: side by side, each is cut to the run's split size and they all
 * go together (the run finishes in about the time of one of them); one at a time, they go as they are (fewer, larger
 * jobs: the same time, fewer requests).
 */
export function shapeHeldJobs(state: RunState): void {
  if (!state.jobs.some((j) => j.held)) return;
  const verdict = probeVerdict(state);
  if (!verdict) return;
  const held = state.jobs.filter((j) => j.held);
  for (const j of held) delete j.held;
  if (verdict === "side_by_side" && state.splitSize) {
    // Each held job in equal parts of about the split size (8,000 in eight of 1,000; 2,500 in five of 500).
    for (const j of held) {
      const n = members(j).length;
      if (j.phase === "queued") cutJob(state, j, Math.ceil(n / Math.ceil(n / state.splitSize)));
    }
  }
}

/** Cut a queued job to `cap` properties in place; the rest are appended as new queued jobs (indexes in flight stay true). */
export function cutJob(state: RunState, q: RunJob, cap: number): void {
  const list = members(q);
  if (list.length <= cap) return;
  const first = compactMembers({ ...q, members: list.slice(0, cap) });
  delete q.members;
  Object.assign(q, first);
  for (let i = cap; i < list.length; i += cap) {
    state.jobs.push(
      compactMembers({
        start: 0,
        end: 0,
        members: list.slice(i, i + cap),
        phase: "queued",
        submitRetries: 0,
        getFailures: 0,
        notBeforeMs: 0,
        ...(q.held ? { held: true as const } : {}),
      }),
    );
  }
}
