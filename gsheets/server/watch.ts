/**
 * What the schedule re-checks, and what the Action list covers: every table a check from the sidebar finished, one
 * record per table in document properties (so the schedule re-checks the same tables whoever set it; two tables on one
 * sheet are two records), and forgotten when its sheet is gone.
 */
import type { ColumnMapping } from "../../core";
import type { SheetRun } from "./runstore";

export interface Watch {
  sheetId: number;
  sheetName: string;
  /** Sheet row of the header (0: none). With a header the whole table under it is re-checked, rows added since too. */
  headerRow: number;
  /** Without a header: the rows the checks from the sidebar covered (the union of them). */
  firstRow: number;
  lastRow: number;
  mapping: ColumnMapping;
  manualMapping: boolean;
  inputCols: number;
  /** The table's first column (1-based) when tables stand side by side in its header row. */
  inputFirstCol?: number;
  /** The results block's first column (1-based), where the table was last checked. */
  blockCol?: number;
  recordedAtMs: number;
  /** The record's key (its property name after the prefix): a sheet id, or sheet id, header row and first column. */
  key?: string;
}

const PREFIX = "compliance.watch.";

function props(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getDocumentProperties();
}

/** After a check from the sidebar ended well: its table is (still) one the schedule re-checks. */
export function watchKey(t: { sheetId: number; headerRow: number; inputFirstCol?: number }): string {
  return t.headerRow ? `${t.sheetId}.${t.headerRow}.${t.inputFirstCol || 1}` : String(t.sheetId);
}

export function recordWatch(run: SheetRun): void {
  const key = watchKey(run);
  // A record of this table from before tables were told apart (keyed by its sheet alone) is replaced by this one.
  const legacy = run.headerRow ? watchOf(run.sheetId) : null;
  if (legacy && legacy.headerRow === run.headerRow) forgetWatch(run.sheetId);
  const before = watchOf(key);
  const sameTable = before && before.headerRow === run.headerRow && !run.headerRow;
  const w: Watch = {
    sheetId: run.sheetId,
    sheetName: run.sheetName,
    headerRow: run.headerRow,
    firstRow: sameTable ? Math.min(before!.firstRow, run.firstRow) : run.firstRow,
    lastRow: sameTable ? Math.max(before!.lastRow, run.lastRow) : run.lastRow,
    mapping: run.mapping,
    manualMapping: !!run.manualMapping,
    inputCols: run.inputCols,
    inputFirstCol: run.inputFirstCol,
    blockCol: run.blockCol,
    recordedAtMs: before ? before.recordedAtMs : Date.now(),
  };
  props().setProperty(PREFIX + key, JSON.stringify(w));
}

export function watchOf(key: string | number): Watch | null {
  const raw = props().getProperty(PREFIX + key);
  if (!raw) return null;
  try {
    return { ...(JSON.parse(raw) as Watch), key: String(key) };
  } catch (_e) {
    return null;
  }
}

/** Every recorded table, oldest record first. */
export function listWatches(): Watch[] {
  const all = props().getProperties();
  const out: Watch[] = [];
  for (const k of Object.keys(all)) {
    if (k.indexOf(PREFIX) !== 0) continue;
    try {
      out.push({ ...(JSON.parse(all[k]) as Watch), key: k.slice(PREFIX.length) });
    } catch (_e) {
      // A damaged record is skipped; the next check from the sidebar writes it again.
    }
  }
  return out.sort((a, b) => a.recordedAtMs - b.recordedAtMs);
}

export function forgetWatch(key: string | number): void {
  props().deleteProperty(PREFIX + key);
}
