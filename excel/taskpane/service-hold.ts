/**
 * The wait the service last asked of this pane's runs (a 503's or a 429's Retry-After), kept while the pane is open so
 * that a new check or a Resume sends nothing before it either, as the Google Sheets add-on does with its stored runs.
 * The run that was answered so may have ended (a refused submit is never sent again), so the wait outlives it here.
 */
import { runHold, type RetryHold, type RunState } from "../../core";

const held: RetryHold = {};

/** The wait still to run at `nowMs`, for core's createRun; undefined once it has passed. */
export function serviceHoldAt(nowMs: number): RetryHold | undefined {
  return held.untilMs !== undefined && held.untilMs > nowMs ? { ...held } : undefined;
}

/** Keeps the wait a run ends (or stops) under, when it runs past any kept already. */
export function keepServiceHold(state: RunState, nowMs: number): void {
  const h = runHold(state, nowMs);
  if (h?.untilMs !== undefined && h.untilMs > (held.untilMs ?? 0)) Object.assign(held, h);
}
