/**
 * Action lists written before both add-ins named tables by core's tableIds: each add-in had its own form of a table's
 * id, made from where the table was recorded. Kept only to read such a list once: its rows go back on their actions.
 */
import { shortHash, tableOfActionId } from "./action-ids";
import type { Existing } from "./action-list-kept";

/** A table as the add-in recorded it, in that add-in's own numbering (the facts its old ids were made from). */
export type LegacyTablePlace =
  | {
      host: "excel";
      /** The sheet's name when recorded. */
      sheet: string;
      /** 0-based; null without a header row. */
      headerRow: number | null;
      blockColumn: number;
      /** The first input column (0-based), when the table has one. */
      firstInput?: number;
    }
  | {
      host: "gsheets";
      sheetId: number;
      /** 1-based; 0 without a header row. */
      headerRow: number;
      /** 1-based. */
      blockCol: number;
      inputFirstCol?: number;
    };

/**
 * The table's id in the form its add-in wrote before: Excel "x" + the sheet name's hash + "h<row>c<column>" (or
 * "b<block column>"), 1-based; Google Sheets "s<sheet id>h<row>" (+ "c<column>" past column A) or "s<sheet id>b<block column>".
 */
export function legacyTableId(p: LegacyTablePlace): string {
  if (p.host === "excel") {
    const first = p.firstInput ?? p.blockColumn;
    return `x${shortHash(p.sheet)}${p.headerRow !== null ? `h${p.headerRow + 1}c${first + 1}` : `b${p.blockColumn + 1}`}`;
  }
  return p.headerRow
    ? `s${p.sheetId}h${p.headerRow}${p.inputFirstCol && p.inputFirstCol > 1 ? `c${p.inputFirstCol}` : ""}`
    : `s${p.sheetId}b${p.blockCol}`;
}

/**
 * The list as read, its Action IDs of an earlier form given their table's id now (in the row's id and in its Action ID
 * cell), so that Done, Notes, Evidence and the user's own columns go back on the same actions. `tables` are the
 * portfolio's ids now and the ids each had in the earlier form; a row of a table not among them is left as it is.
 */
export function withCurrentTableIds(
  ex: Existing | null,
  tables: readonly { id: string; formerIds?: readonly string[] }[],
): Existing | null {
  if (!ex) return ex;
  const now = new Map<string, string>();
  for (const t of tables) for (const f of t.formerIds ?? []) if (f !== t.id && !now.has(f)) now.set(f, t.id);
  if (!now.size) return ex;
  const idColumn = ex.header.findIndex((h) => h.toLowerCase() === "action id");
  return {
    ...ex,
    rows: ex.rows.map((k) => {
      const table = tableOfActionId(k.id);
      const to = now.get(table);
      if (!to) return k;
      const id = to + k.id.slice(table.length);
      const cells = [...k.cells];
      if (idColumn >= 0) cells[idColumn] = id;
      return { ...k, id, cells };
    }),
  };
}
