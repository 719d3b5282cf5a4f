/**
 * Where a running check lives between the sidebar's short polls: its small state (job states, range,
 * mapping) in user properties, so that closing and reopening the sidebar resumes; the row keys in the cache.
 */
import type { ColumnMapping, JobState, RateLimitInfo, ServiceError } from "../../core";

/** One bulk job of a run: a slice of the plan's properties, submitted (state) or waiting to be. */
export interface RunJob {
  offset: number;
  count: number;
  state?: JobState;
  /** Consecutive transient failures, for back-off. */
  failures: number;
  /** Not submitted yet: when the next attempt may go. */
  retryAtMs?: number;
  /** Ended without a job (submission refused): the error its rows were given. */
  error?: ServiceError;
  /**
   * Properties the service answered for. Core marks every property of an ended job as received (its rows
   * get the job's error), so that count cannot tell a failed job from a finished one; this can.
   */
  answered?: number;
}

export interface RunState {
  v: 1;
  runId: string;
  sheetId: number;
  sheetName: string;
  headerRow: number;
  /** Sheet rows of the data checked, inclusive. */
  firstRow: number;
  lastRow: number;
  inputCols: number;
  mapping: ColumnMapping;
  blockCol: number;
  batchCap: number;
  /** Fingerprint of the plan's property keys: tells whether the input rows changed since the start. */
  fingerprint: string;
  properties: number;
  rows: number;
  invalidRows: number;
  duplicateRows: number;
  rowsWritten: number;
  jobs: RunJob[];
  phase: "running" | "done" | "stopped";
  waitUntilMs: number;
  rateLimit?: RateLimitInfo;
  message: string;
  notes: string[];
  startedAtMs: number;
  /** Requests tried again so far (429s, 5xx, network): shown while the sidebar waits, so a stall is visible. */
  retries?: number;
  inputChanged?: boolean;
}

const PREFIX = "compliance.run";
/** User properties hold 9 KB a value: the state is cut into pieces well under it. */
const PIECE = 8000;
const CACHE_PIECE = 90000;
const CACHE_SECONDS = 6 * 60 * 60;

function props(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getUserProperties();
}

export function loadRun(): RunState | null {
  const all = props().getProperties();
  const n = Number(all[`${PREFIX}.pieces`] || 0);
  if (!n) return null;
  let json = "";
  for (let i = 0; i < n; i++) json += all[`${PREFIX}.${i}`] || "";
  try {
    const run = JSON.parse(json) as RunState;
    return run && run.v === 1 ? run : null;
  } catch (_e) {
    return null;
  }
}

/** One setProperties call; pieces left over from a longer earlier state are removed. */
export function saveRun(run: RunState): void {
  const json = JSON.stringify(run);
  const updates: Record<string, string> = {};
  const pieces = Math.ceil(json.length / PIECE);
  for (let i = 0; i < pieces; i++) updates[`${PREFIX}.${i}`] = json.slice(i * PIECE, (i + 1) * PIECE);
  updates[`${PREFIX}.pieces`] = String(pieces);
  const store = props();
  const old = Number(store.getProperty(`${PREFIX}.pieces`) || 0);
  store.setProperties(updates);
  for (let i = pieces; i < old; i++) store.deleteProperty(`${PREFIX}.${i}`);
}

export function clearRun(): void {
  const store = props();
  const old = Number(store.getProperty(`${PREFIX}.pieces`) || 0);
  for (let i = 0; i < old; i++) store.deleteProperty(`${PREFIX}.${i}`);
  store.deleteProperty(`${PREFIX}.pieces`);
}

/** The plan's property keys, kept so that results still find their rows if the user edits the input mid-run. */
export function cacheKeys(runId: string, keys: string[]): void {
  const json = JSON.stringify(keys);
  const entries: Record<string, string> = {};
  const pieces = Math.ceil(json.length / CACHE_PIECE) || 1;
  for (let i = 0; i < pieces; i++) entries[`${runId}.keys.${i}`] = json.slice(i * CACHE_PIECE, (i + 1) * CACHE_PIECE);
  entries[`${runId}.keys.pieces`] = String(pieces);
  CacheService.getUserCache()!.putAll(entries, CACHE_SECONDS);
}

export function cachedKeys(runId: string): string[] | null {
  const cache = CacheService.getUserCache()!;
  const n = Number(cache.get(`${runId}.keys.pieces`) || 0);
  if (!n) return null;
  const names: string[] = [];
  for (let i = 0; i < n; i++) names.push(`${runId}.keys.${i}`);
  const got = cache.getAll(names);
  let json = "";
  for (const name of names) {
    if (got[name] === undefined || got[name] === null) return null;
    json += got[name];
  }
  try {
    return JSON.parse(json) as string[];
  } catch (_e) {
    return null;
  }
}

/** A short marker the menu leaves for the sidebar it opens ("check" or "settings"). */
export function setIntent(intent: string): void {
  CacheService.getUserCache()!.put("compliance.intent", intent, 60);
}

export function takeIntent(): string {
  const cache = CacheService.getUserCache()!;
  const v = cache.get("compliance.intent") || "";
  if (v) cache.remove("compliance.intent");
  return v;
}
