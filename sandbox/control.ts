/**
 * The sandbox's controls, as tests and demos reach them (the app's `.sandbox`, a started sandbox's handle, the
 * /__sandbox routes), and the request counts they report.
 */
import type { Dataset } from "./dataset";
import type { FaultRule } from "./faults";
import type { CallbackStats } from "./jobs";

/** Requests answered, by route and by status (sandbox controls and preflights are not counted). */
export interface RequestCounts {
  total: number;
  check: number;
  bulk_submit: number;
  bulk_results: number;
  addresses: number;
  /** Requests to unknown paths. */
  other: number;
  by_status: Record<string, number>;
}

export interface SandboxStats extends RequestCounts {
  callbacks: CallbackStats;
}

export interface SandboxControl {
  /** Replaces every fault rule with `rules`. */
  setFaults(rules: FaultRule[]): void;
  /** Adds rules after the current ones (what POST /__sandbox/faults does). */
  addFaults(rules: FaultRule[]): void;
  clearFaults(): void;
  /** The rules still active. */
  faults(): FaultRule[];
  stats(): SandboxStats;
  /** Clears rate-limit counters, jobs, faults and stats (the clock stays where it is). */
  reset(): void;
  dataset(): Dataset;
  /** The sandbox's day, and the day its register was made for (the dates stay those of that day's register). */
  clock(): { today: string; anchor: string };
  /** Moves the sandbox's day (YYYY-MM-DD), or back to the anchor with null: statuses that turn on a date change. */
  setToday(today: string | null): void;
}

export function emptyCounts(): RequestCounts {
  return { total: 0, check: 0, bulk_submit: 0, bulk_results: 0, addresses: 0, other: 0, by_status: {} };
}
