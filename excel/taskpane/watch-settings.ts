/**
 * Re-check on open: what the workbook remembers. Excel cannot run while a
 * workbook is closed, so the add-in is set to load with the workbook (Office.addin.setStartupBehavior, shared runtime)
 * and, when the last check of a results block is older than the chosen number of days, checks it again in the
 * background (excel/taskpane/watch.ts, loaded only then).
 *
 * Both the setting and the list of blocks live in the workbook's settings (Office.context.document.settings): they
 * belong to this workbook, not to a user, and hold no secret (sheet names, column positions, check times and each
 * table's number on its sheet; the API key stays in OfficeRuntime.storage). Positions are hints: a block is found again
 * before anything is written.
 */
import { olderThanDays, tableOrdinals, type ColumnMapping, type TablePlaceFacts } from "../../core";
import type { RunPlace } from "./rows-now";

export const WATCHED_BLOCKS = "compliance.watchedBlocks";
export const RECHECK_DAYS = "compliance.recheckOnOpenDays";
/** The most blocks a workbook keeps for re-check on open; a newer check replaces the oldest past this. */
export const MAX_WATCHED = 20;
export const DEFAULT_RECHECK_DAYS = 7;

export interface WatchedBlock extends RunPlace {
  /** When the block was last checked (ISO), by hand or on open. */
  checkedAt: string;
}

/** The part of Office.Settings used here (and what the test stand-in gives). */
export interface WorkbookSettings {
  get(name: string): unknown;
  set(name: string, value: unknown): void;
  remove(name: string): void;
  saveAsync(callback?: (result: { status: string; error?: { message: string } }) => void): void;
}

type OfficeLike = {
  context?: {
    document?: { settings?: WorkbookSettings };
    requirements?: { isSetSupported(name: string, version?: string): boolean };
  };
  addin?: { setStartupBehavior?(behavior: unknown): Promise<void>; getStartupBehavior?(): Promise<unknown> };
  StartupBehavior?: { load: unknown; none: unknown };
};
const office = () => (globalThis as { Office?: OfficeLike }).Office;

export function workbookSettings(): WorkbookSettings | null {
  return office()?.context?.document?.settings ?? null;
}

/** Writes the settings into the workbook (they are saved with the file the next time it is saved). */
export function saveSettings(s: WorkbookSettings): Promise<void> {
  return new Promise((resolve, reject) =>
    s.saveAsync((r) =>
      r && r.status === "failed"
        ? reject(new Error(r.error?.message || "Excel did not save the workbook settings"))
        : resolve(),
    ),
  );
}

function isMapping(v: unknown): v is ColumnMapping {
  return !!v && typeof v === "object" && Object.values(v as object).every((n) => typeof n === "number" && n >= 0);
}

export function watchedBlocks(s: WorkbookSettings | null): WatchedBlock[] {
  const raw = s?.get(WATCHED_BLOCKS);
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (b): b is WatchedBlock =>
      !!b &&
      typeof b.sheet === "string" &&
      typeof b.blockColumn === "number" &&
      (b.headerRow === null || typeof b.headerRow === "number") &&
      isMapping(b.inputColumns) &&
      typeof b.checkedAt === "string",
  );
}

/** Two records of one block: on one sheet (by its id when both have it: a rename keeps it), at one place. */
export const sameBlock = (a: RunPlace, b: RunPlace) =>
  (a.sheetId && b.sheetId ? a.sheetId === b.sheetId : a.sheet === b.sheet) &&
  a.blockColumn === b.blockColumn &&
  a.headerRow === b.headerRow;

/** Where a record's table starts, in core's terms; a record without the sheet's id is on the run's sheet by its name. */
function recordFacts(b: WatchedBlock, place: RunPlace): TablePlaceFacts {
  const inputs = Object.values(b.inputColumns).filter((v): v is number => typeof v === "number");
  return {
    sheetId: b.sheetId ?? (b.sheet === place.sheet && place.sheetId ? place.sheetId : b.sheet),
    headerRow: b.headerRow,
    firstColumn: inputs.length ? Math.min(...inputs) : b.blockColumn,
    ordinal: b.ordinal,
  };
}

/**
 * Remembers a block a check has just written, newest last, replacing its earlier record; `was`, the record a re-check
 * on open found the block by (it may have moved since). Every record is saved with its number on its sheet (core's
 * tableOrdinals; a record of an earlier version takes the one its order gives it); the block keeps the number of the
 * record it replaces, and a new table takes the next one of its sheet.
 */
export async function recordBlock(
  s: WorkbookSettings | null,
  place: RunPlace,
  checkedAt: string,
  was?: RunPlace,
): Promise<void> {
  if (!s) return;
  const all = watchedBlocks(s);
  const numbers = tableOrdinals(all.map((b) => recordFacts(b, place)));
  const kept = all.map((b, i) => ({ ...b, ordinal: numbers[i] }));
  const earlier = kept.filter((b) => sameBlock(b, place) || (was && sameBlock(b, was))).map((b) => b.ordinal);
  const list = kept.filter((b) => !sameBlock(b, place));
  const added: WatchedBlock = {
    sheet: place.sheet,
    ...(place.sheetId ? { sheetId: place.sheetId } : {}),
    headerRow: place.headerRow,
    blockColumn: place.blockColumn,
    inputColumns: { ...place.inputColumns },
    checkedAt,
  };
  added.ordinal = earlier.length
    ? Math.min(...earlier)
    : tableOrdinals(
        list.map((b) => recordFacts(b, place)),
        recordFacts(added, place),
      )[list.length];
  s.set(WATCHED_BLOCKS, [...list, added].slice(-MAX_WATCHED));
  await saveSettings(s);
}

/** Forgets blocks (found gone or changed on open), so that they are not tried on every open. */
export async function forgetBlocks(s: WorkbookSettings | null, gone: readonly RunPlace[]): Promise<void> {
  if (!s || gone.length === 0) return;
  s.set(
    WATCHED_BLOCKS,
    watchedBlocks(s).filter((b) => !gone.some((g) => sameBlock(b, g))),
  );
  await saveSettings(s);
}

/**
 * Keeps on each record its sheet's id and name as a read of the table found them: a record of an earlier version, found
 * by its sheet's name, gets the sheet's id, so that a later rename does not lose it; a renamed sheet's record its name.
 */
export async function keepSheetIds(
  s: WorkbookSettings | null,
  found: readonly { was: RunPlace; sheet: string; sheetId: string }[],
): Promise<void> {
  if (!s || found.length === 0) return;
  let changed = false;
  const list = watchedBlocks(s).map((b) => {
    const f = found.find((x) => sameBlock(b, x.was));
    if (!f || (b.sheetId === f.sheetId && b.sheet === f.sheet)) return b;
    changed = true;
    return { ...b, sheet: f.sheet, sheetId: f.sheetId };
  });
  if (!changed) return;
  s.set(WATCHED_BLOCKS, list);
  await saveSettings(s);
}

/** The number of days set for re-check on open in this workbook, or null when it is off. */
export function recheckDays(s: WorkbookSettings | null): number | null {
  const raw = s?.get(RECHECK_DAYS);
  const v = typeof raw === "number" || typeof raw === "string" ? Number(raw) : NaN;
  return raw !== "" && Number.isInteger(v) && v >= 0 ? v : null;
}

/** The blocks whose last check is older than the chosen days (none when re-check on open is off). */
export function dueBlocks(s: WorkbookSettings | null, nowMs: number): WatchedBlock[] {
  const days = recheckDays(s);
  return days === null ? [] : watchedBlocks(s).filter((b) => olderThanDays(b.checkedAt, days, nowMs));
}

/** Why re-check on open cannot be set in this Excel, or "" when it can (SharedRuntime 1.1 and Office.addin). */
export function recheckUnsupported(): string {
  const o = office();
  const shared = !!o?.context?.requirements?.isSetSupported("SharedRuntime", "1.1");
  if (!shared || typeof o?.addin?.setStartupBehavior !== "function" || !o.StartupBehavior) {
    return "This Excel cannot load add-ins when a workbook opens (it needs the shared runtime, SharedRuntime 1.1: Microsoft 365 on Windows, Mac or the web). Re-check by hand with Check selected rows.";
  }
  if (!workbookSettings())
    return "This Excel gives add-ins no workbook settings, so the blocks to re-check cannot be remembered.";
  return "";
}

/**
 * Turns re-check on open on (days) or off (null): the workbook remembers the days, and the add-in is set to load with
 * this workbook (or no longer). It takes effect from the next time the workbook is opened.
 */
export async function setRecheckOnOpen(days: number | null): Promise<void> {
  const why = recheckUnsupported();
  if (why) throw new Error(why);
  const o = office()!;
  const s = workbookSettings()!;
  if (days === null) s.remove(RECHECK_DAYS);
  else s.set(RECHECK_DAYS, days);
  await saveSettings(s);
  await o.addin!.setStartupBehavior!(days === null ? o.StartupBehavior!.none : o.StartupBehavior!.load);
}
