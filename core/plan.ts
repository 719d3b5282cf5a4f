/**
 * Rows to bulk jobs and back: send each distinct property once, in jobs no larger than the plan's cap,
 * then fan each result out to every row that asked for it, in the rows' own order.
 */
import { batchCapFor, type PlanName } from "./checks";
import { serviceError, type ServiceError } from "./errors";
import type { InputRow, PropertyQuery } from "./rows";
import type { CheckResult } from "./schemas";

export type Outcome = { result: CheckResult; warnings?: string[] } | { error: ServiceError };

export interface ScreeningPlan {
  /** Distinct valid properties, in the order of their first row. */
  properties: PropertyQuery[];
  keys: string[];
  /** For each property, the indexes (into the rows array) of the rows that asked for it. */
  rowsByProperty: number[][];
  /** Slices [start, end) of properties, one bulk job each. */
  jobs: { start: number; end: number }[];
  batchCap: number;
}

export function planScreening(rows: readonly InputRow[], opts: { plan?: PlanName | number } = {}): ScreeningPlan {
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
  for (let start = 0; start < plan.properties.length; start += batchCap) {
    plan.jobs.push({ start, end: Math.min(plan.properties.length, start + batchCap) });
  }
  return plan;
}

/** Per-row outcomes: invalid rows get their own error; undefined means not known yet. */
export function fanOut(plan: ScreeningPlan, rows: readonly InputRow[], outcomes: readonly (Outcome | undefined)[]): (Outcome | undefined)[] {
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
