/**
 * What the schedule re-checks, and what the Action list covers: every table a check from the sidebar finished, one
 * record per table in document properties (so the schedule re-checks the same tables whoever set it; two tables on one
 * sheet are two records), and forgotten when its sheet is gone.
 */
import { tableOrdinals, type ColumnMapping, type TablePlaceFacts } from "../../core";
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
  /** The table's number on its sheet (core's tableOrdinals), kept for good; absent in a record of an earlier version. */
  ordinal?: number;
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

/** Where a table starts in core's numbering (0-based): its header row (null without one), its first input column. */
export function placeFacts(
  p: Pick<Watch, "sheetId" | "headerRow" | "mapping" | "ordinal"> & { blockCol?: number },
): TablePlaceFacts {
  const inputs = Object.values(p.mapping).filter((v): v is number => typeof v === "number");
  return {
    sheetId: p.sheetId,
    headerRow: p.headerRow ? p.headerRow - 1 : null,
    firstColumn: inputs.length ? Math.min(...inputs) : (p.blockCol ?? 1) - 1,
    ordinal: p.ordinal,
  };
}

/**
 * Records the run's table, keeping the number on its sheet its record had; every record of that sheet is saved with
 * its number (tableOrdinals): a new table takes the next one, records of an earlier version the one their order gave.
 */
export function recordWatch(run: SheetRun): void {
  const key = watchKey(run);
  // A record of this table from before tables were told apart (keyed by its sheet alone) is replaced by this one.
  const legacy = run.headerRow ? watchOf(run.sheetId) : null;
  const replaced = legacy && legacy.headerRow === run.headerRow ? legacy : null;
  if (replaced) forgetWatch(run.sheetId);
  const before = watchOf(key);
  const sameTable = before && before.headerRow === run.headerRow && !run.headerRow;
  const ordinal = before?.ordinal ?? replaced?.ordinal;
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
    ...(ordinal ? { ordinal } : {}),
  };
  const others = listWatches().filter((o) => o.key !== key && o.sheetId === run.sheetId);
  // A table recorded before keeps its number (or, recorded by an earlier version, takes the one its order gives it).
  const facts = [...others, w].map(placeFacts);
  const ordinals =
    before || replaced ? tableOrdinals(facts) : tableOrdinals(facts.slice(0, -1), facts[facts.length - 1]);
  others.forEach((o, i) => {
    if (o.ordinal === ordinals[i]) return;
    const { key: k, ...stored } = o;
    props().setProperty(PREFIX + k, JSON.stringify({ ...stored, ordinal: ordinals[i] }));
  });
  props().setProperty(PREFIX + key, JSON.stringify({ ...w, ordinal: ordinals[others.length] }));
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
