/**
 * Rows to bulk jobs and back: send each distinct property once, in jobs no larger than the plan's cap,
 * then fan each result out to every row that asked for it, in the rows' own order.
 */
import { batchCapFor, type PlanName } from "../service/checks";
import { serviceError, type ServiceError } from "../service/errors";
import type { InputRow, PropertyQuery } from "../sheet/input-rows";
import type { CheckResult } from "../service/schemas";

export type Outcome = { result: CheckResult; warnings?: string[] } | { error: ServiceError };

export interface ScreeningPlan {
  /** Distinct valid properties, in the order of their first row. */
  properties: PropertyQuery[];
  keys: string[];
  /** For each property, the indexes (into the rows array) of the rows that asked for it. */
  rowsByProperty: number[][];
  /**
   * Slices [start, end) of properties, one bulk job each. A large run whose plan allows jobs larger than it needs
   * starts with two probe jobs; the rest is held until their progress shows whether the service runs jobs side by
   * side (then the held jobs are cut to `splitSize` and sent together) or one at a time (then they go as they are).
   */
  jobs: { start: number; end: number; probe?: true; held?: true }[];
  batchCap: number;
  /** The job size a service that runs jobs side by side gets; set when the run starts with probe jobs. */
  splitSize?: number;
}

/** A run is spread over about this many jobs when the service runs them side by side. */
export const PARALLEL_JOBS = 10;
/** No job is made smaller than this to spread a run: each job costs a submit and its own polls. */
export const MIN_SPLIT_JOB = 500;

/**
 * The job size for a run of `count` distinct properties on a service that runs jobs side by side: about
 * PARALLEL_JOBS jobs, none smaller than MIN_SPLIT_JOB nor larger than the plan's cap.
 */
export function splitJobSize(count: number, batchCap: number): number {
  return Math.min(batchCap, Math.max(MIN_SPLIT_JOB, Math.ceil(count / PARALLEL_JOBS)));
}

/**
 * `spread: false` keeps the plan's job size: a re-check nobody waits for (scheduled, or on opening the file) spends
 * as few requests as it can rather than finishing sooner.
 */
export function planScreening(
  rows: readonly InputRow[],
  opts: { plan?: PlanName | number; spread?: boolean } = {},
): ScreeningPlan {
  const batchCap = batchCapFor(opts.plan);
  const byKey = new Map<string, number>();
  const plan: ScreeningPlan = { properties: [], keys: [], rowsByProperty: [], jobs: [], batchCap };
  rows.forEach((row, r) => {
    if (!row.property || !row.key || row.error) return;
    let p = byKey.get(row.key);
    if (p === undefined) {
      p = plan.properties.length;
      byKey.set(row.key, p);
      plan.properties.push(row.property);
      plan.keys.push(row.key);
      plan.rowsByProperty.push([]);
    }
    plan.rowsByProperty[p].push(r);
  });
  const n = plan.properties.length;
  const size = splitJobSize(n, batchCap);
  // Worth finding out only where a split would run more than twice the jobs the plan's cap sends side by side: less
  // would not pay for the probe's wait and the extra submits (so a Professional cap of 1,000 is never split further).
  if (opts.spread !== false && 2 * Math.ceil(n / batchCap) < Math.ceil(n / size) && size < batchCap && n > 3 * size) {
    plan.splitSize = size;
    plan.jobs.push({ start: 0, end: size, probe: true }, { start: size, end: 2 * size, probe: true });
    for (let start = 2 * size; start < n; start += batchCap)
      plan.jobs.push({ start, end: Math.min(n, start + batchCap), held: true });
    return plan;
  }
  for (let start = 0; start < n; start += batchCap) {
    plan.jobs.push({ start, end: Math.min(n, start + batchCap) });
  }
  return plan;
}

/** Per-row outcomes: invalid rows get their own error; undefined means not known yet. */
export function fanOut(
  plan: ScreeningPlan,
  rows: readonly InputRow[],
  outcomes: readonly (Outcome | undefined)[],
): (Outcome | undefined)[] {
  const out: (Outcome | undefined)[] = rows.map((row) =>
    row.error ? { error: serviceError("invalid_input", row.error.code, row.error.message) } : undefined,
  );
  plan.rowsByProperty.forEach((rowIdxs, p) => {
    const o = outcomes[p];
    if (o) for (const r of rowIdxs) out[r] = o;
  });
  return out;
}

/** Row indexes (into rows) that a set of property indexes fan out to, for incremental writes. */
export function rowsForProperties(plan: ScreeningPlan, propertyIndexes: Iterable<number>): number[] {
  const out: number[] = [];
  for (const p of propertyIndexes) for (const r of plan.rowsByProperty[p] ?? []) out.push(r);
  return out.sort((a, b) => a - b);
}
