/**
 * Where a running check lives between the sidebar's short polls: its small state (job states, range,
 * mapping) in user properties, so that closing and reopening the sidebar resumes; a large run's property list on
 * the spreadsheet's hidden sheet (runlist.ts), the cache in front of it.
 */
import { adoptStoredPhase, loadRunState, type ColumnMapping, type RunState } from "../../core";
import type { Trigger } from "../../core/reports/changes";
import { dropList, piecesByBytes, readList, RUN_DATA_SHEET, storeList, utf8Bytes } from "./runlist";

/**
 * A sheet's run: where its rows and results block are, what the sidebar shows, and the core run engine's
 * stored state (jobs, cursors, retries, what was written). Plain JSON.
 */
export interface SheetRun {
  v: 2;
  runId: string;
  sheetId: number;
  sheetName: string;
  /** Sheet row of the header, 0 when the table has none. */
  headerRow: number;
  /** Sheet rows of the data checked when the run started, inclusive. */
  firstRow: number;
  lastRow: number;
  inputCols: number;
  /** The table's first column (1-based) when tables stand side by side in its header row; absent: column A. */
  inputFirstCol?: number;
  mapping: ColumnMapping;
  blockCol: number;
  message: string;
  notes: string[];
  startedAtMs: number;
  rowsWritten: number;
  duplicateRows: number;
  /** Changes logged so far (core/reports/changes.ts), and how many of them were for the worse: the Run log's counts. */
  changed?: number;
  worse?: number;
  /** Sheet rows written with a date of the user's own columns that could not be read (the summary counts them). */
  unreadDateRows?: number;
  /** Stored by an earlier version: the statuses of the rows refreshed, now the engine's own (RunState.statuses). */
  statuses?: Record<string, number>;
  /** The lines of the Action list and summary built after the run, and of its Run log row (or why they were not). */
  listLine?: string;
  logLine?: string;
  /** Stop could not write: why nothing was written; or the rows it could not update. Said in the run's end words. */
  notWritten?: string;
  endNote?: string;
  engine: RunState;
  /** Stored by an earlier version: the property list and keys were kept in the user cache alone. */
  propertiesInCache?: boolean;
  /**
   * The engine's property list and keys were too large for user properties: they are on the hidden sheet of the run's
   * spreadsheet, in this many cells (runlist.ts).
   */
  listPieces?: number;
  /** Loaded in another spreadsheet than its own: its list stays on its own spreadsheet's sheet, unread (not stored). */
  listAway?: boolean;
  /**
   * Every row has its result or its reason; the Action list, the Compliance summary and the Run log are still to be
   * built (finishRun): the sidebar asks for them right after its last poll, a scheduled re-check in its next step.
   */
  endDue?: boolean;
  /** Who started it (the Run log's Trigger): the sidebar (absent: manual) or the schedule. */
  trigger?: Trigger;
  /** The columns were chosen by hand (letters), not read from a header row: a scheduled re-check uses them too. */
  manualMapping?: boolean;
  /**
   * What the run has written (written.ts): the Checked at texts it stamped and each property's result print (six
   * characters a property, by its index in the engine).
   */
  written?: { stamps: string[]; prints: string };
  /** The user-properties prefix it is stored under (absent: the sidebar's, MANUAL_SLOT). */
  slot?: string;
  /** When the state was last saved: a "running" manual run not saved for a long while was left by a closed sidebar. */
  savedAtMs?: number;
  /**
   * The spreadsheet it checks: user properties are shared by all of a user's spreadsheets, and sheet ids repeat across
   * them (the first sheet is 0 in each), so a run is never polled, stopped or written from another spreadsheet.
   */
  spreadsheetId?: string;
  spreadsheetName?: string;
}

/** Where the sidebar's run lives; a scheduled re-check keeps its own run under another prefix (schedule.ts). */
export const MANUAL_SLOT = "compliance.run";
/**
 * Where the sidebar keeps a run set aside by a check begun while it was unfinished (core's setAside): still resumable,
 * its jobs collectable by Resume. One is kept; a third check is refused until one of the two is resumed or finished.
 */
export const HELD_SLOT = "compliance.run.held";
/** User properties hold 9 KB a value, its key included, counted in UTF-8 bytes: pieces stay well under it. */
const PIECE_BYTES = 8000;

function props(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getUserProperties();
}

/**
 * User properties hold 500 KB in all (bytes), for every spreadsheet of the user: the sidebar's run, a run set aside
 * and scheduled re-checks may all be stored at once, so a state of more bytes than this keeps its property list on
 * the hidden sheet.
 */
const INLINE_MAX_BYTES = 100000;

export function loadRun(slot: string = MANUAL_SLOT): SheetRun | null {
  const all = props().getProperties();
  const n = Number(all[`${slot}.pieces`] || 0);
  if (!n) return null;
  let json = "";
  for (let i = 0; i < n; i++) json += all[`${slot}.${i}`] || "";
  try {
    const run = JSON.parse(json) as SheetRun & { phase?: unknown };
    if (!run || run.v !== 2 || !run.engine) return null;
    // Earlier versions stored a phase of their own beside the engine's: read once (core adoptStoredPhase), not kept.
    // The phase shown is the engine's (core shownPhase).
    adoptStoredPhase(run.engine, run.phase);
    delete run.phase;
    if (run.statuses && !run.engine.statuses) run.engine.statuses = run.statuses;
    delete run.statuses;
    if (run.listPieces) {
      // Another spreadsheet's run: its sheet is not this one's to read (and the sidebar here only names it).
      if (run.spreadsheetId && run.spreadsheetId !== SpreadsheetApp.getActiveSpreadsheet().getId())
        return { ...run, listAway: true };
      const list = readList(run.runId, run.listPieces);
      const parsed = list === null ? null : parseList(list);
      if (!parsed)
        return lostList(
          run,
          `This check's list of properties was kept on the hidden sheet "${RUN_DATA_SHEET}", which was deleted or changed, so its results cannot be matched to rows. Nothing more is sent for it: check the rows again.`,
        );
      run.engine.properties = parsed.properties;
      run.engine.keys = parsed.keys;
    } else if (run.propertiesInCache) {
      const cached = cachedKeys<{ properties: RunState["properties"]; keys: string[] }>(run.runId);
      if (!cached)
        return lostList(
          run,
          "The saved list of this check's properties expired (an earlier version kept it 6 hours when a check was this large), so its results cannot be matched to rows. Nothing more is sent for it: check the rows again.",
        );
      run.engine.properties = cached.properties;
      run.engine.keys = cached.keys;
    }
    // The stored form back to the engine's (core loadRunState): error outcomes kept unwritten are pending again.
    run.engine = loadRunState(run.engine) ?? run.engine;
    return run;
  } catch (_e) {
    return null;
  }
}

/**
 * A run whose property list is gone: its results cannot be put on rows, so it ends here, with nothing to resume or
 * send (a job sent again would be paid for again), and its counts stay those of the rows it had.
 */
function lostList(run: SheetRun, message: string): SheetRun {
  const n = run.engine.fates.length;
  return {
    ...run,
    message,
    endDue: undefined,
    engine: {
      ...run.engine,
      phase: "ended",
      stoppedEarly: undefined,
      jobs: [],
      received: {},
      inflight: {},
      properties: new Array<RunState["properties"][number]>(n).fill({} as RunState["properties"][number]),
      keys: new Array<string>(n).fill(""),
    },
  };
}

function parseList(json: string): { properties: RunState["properties"]; keys: string[] } | null {
  try {
    const v = JSON.parse(json) as { properties: RunState["properties"]; keys: string[] };
    return v && Array.isArray(v.properties) && Array.isArray(v.keys) ? v : null;
  } catch (_e) {
    return null;
  }
}

/**
 * One setProperties call; pieces left over from a longer earlier state are removed. A state too large for user
 * properties has its property list written once to the hidden sheet (run.listPieces says where it went); the run it
 * replaces in the slot loses its list unless another slot still holds that run.
 */
export function saveRun(run: SheetRun, slot: string = MANUAL_SLOT): void {
  const { listAway: _away, ...kept } = run;
  let json = JSON.stringify(kept);
  if (run.listPieces || utf8Bytes(json) > INLINE_MAX_BYTES) {
    if (!run.listPieces && !run.listAway)
      run.listPieces = storeList(
        run.runId,
        JSON.stringify({ properties: run.engine.properties, keys: run.engine.keys }),
      );
    delete kept.propertiesInCache;
    json = JSON.stringify({ ...kept, listPieces: run.listPieces, engine: { ...run.engine, properties: [], keys: [] } });
  }
  const updates: Record<string, string> = {};
  const pieces = piecesByBytes(json, PIECE_BYTES);
  pieces.forEach((p, i) => (updates[`${slot}.${i}`] = p));
  updates[`${slot}.pieces`] = String(pieces.length);
  const store = props();
  const old = Number(store.getProperty(`${slot}.pieces`) || 0);
  const replaced = old ? storedRunId(slot) : "";
  store.setProperties(updates);
  for (let i = pieces.length; i < old; i++) store.deleteProperty(`${slot}.${i}`);
  if (replaced && replaced !== run.runId) dropUnheld(replaced);
}

/** The id of the run stored in a slot, read from its first piece (the id is written second, after v). */
function storedRunId(slot: string): string {
  const m = /^\{"v":2,"runId":"([^"]+)"/.exec(props().getProperty(`${slot}.0`) || "");
  return m ? m[1] : "";
}

/** A run's list dropped when no slot of the sidebar's holds that run any more. */
function dropUnheld(runId: string): void {
  if (storedRunId(MANUAL_SLOT) === runId || storedRunId(HELD_SLOT) === runId) return;
  dropList(runId);
}

/** The run in the slot removed; its list too, unless `keepList` (the run is being moved to another slot). */
export function clearRun(slot: string = MANUAL_SLOT, keepList = false): void {
  const store = props();
  const old = Number(store.getProperty(`${slot}.pieces`) || 0);
  const runId = old && !keepList ? storedRunId(slot) : "";
  for (let i = 0; i < old; i++) store.deleteProperty(`${slot}.${i}`);
  store.deleteProperty(`${slot}.pieces`);
  if (runId) dropUnheld(runId);
}

/** A large run's property list as an earlier version kept it (the user cache alone), while the cache still has it. */
export function cachedKeys<T>(runId: string): T | null {
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
    return JSON.parse(json) as T;
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

/** One check per user at a time: `fn` runs under the user lock, `busy` when another call holds it. */
export function withUserLock<T>(fn: () => T, busy: () => T): T {
  const lock = LockService.getUserLock();
  if (!lock.tryLock(2000)) return busy();
  try {
    return fn();
  } finally {
    lock.releaseLock();
  }
}
