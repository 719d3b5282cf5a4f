/**
 * What the schedule re-checks: every table a check from the sidebar finished, one record per sheet in document
 * properties (so the schedule re-checks the same tables whoever set it), and forgotten when its sheet is gone.
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
  recordedAtMs: number;
}

const PREFIX = "compliance.watch.";

function props(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getDocumentProperties();
}

/** After a check from the sidebar ended well: its table is (still) one the schedule re-checks. */
export function recordWatch(run: SheetRun): void {
  const before = watchOf(run.sheetId);
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
    recordedAtMs: Date.now(),
  };
  props().setProperty(PREFIX + run.sheetId, JSON.stringify(w));
}

export function watchOf(sheetId: number): Watch | null {
  const raw = props().getProperty(PREFIX + sheetId);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Watch;
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
      out.push(JSON.parse(all[k]) as Watch);
    } catch (_e) {
      // A damaged record is skipped; the next check from the sidebar writes it again.
    }
  }
  return out.sort((a, b) => a.recordedAtMs - b.recordedAtMs);
}

export function forgetWatch(sheetId: number): void {
  props().deleteProperty(PREFIX + sheetId);
}
