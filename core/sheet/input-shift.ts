/**
 * Where a run's input columns are now, after the sheet moved under it. Both hosts call this before every write, so a
 * column inserted or deleted during a check is read the same way in Excel and in Google Sheets.
 */
import { normaliseProperty, type ColumnMapping } from "./input-rows";

/**
 * A column inserted (or deleted) left of the results block moved the block by `blockShift`; the input moved with it
 * (the column was left of both) or stayed (it was between them). The reading under which more rows still waiting
 * for this run name one of its properties wins; a tie keeps the input where it was. The input never moves left of
 * the sheet's first column.
 */
export function inputShiftNow(
  rows: readonly (readonly unknown[])[],
  mapping: ColumnMapping,
  blockShift: number,
  waiting: (rowIndex: number) => boolean,
  runKeys: ReadonlySet<string>,
): number {
  const used = [mapping.uprn, mapping.postcode, mapping.address].filter((c): c is number => c !== undefined);
  if (!blockShift || !used.length || Math.min(...used) + blockShift < 0) return 0;
  const score = (shift: number) => {
    let n = 0;
    rows.forEach((row, i) => {
      if (waiting(i) && runKeys.has(keyAt(row, mapping, shift) ?? "")) n++;
    });
    return n;
  };
  return score(blockShift) > score(0) ? blockShift : 0;
}

/**
 * The same question with no run under way (a re-check on open finding a recorded table again, no row waiting): the
 * input moved with the block when its first input column, read moved, is filled (its header cell, or without a
 * header row any cell); else it stayed when that column is filled where it was. Undefined when neither is: the
 * table's input column is not found.
 */
export function inputShiftAtRest(
  rows: readonly (readonly unknown[])[],
  mapping: ColumnMapping,
  blockShift: number,
  headerRow: number | null,
): number | undefined {
  const first = mapping.uprn ?? mapping.postcode ?? mapping.address;
  if (first === undefined) return undefined;
  const blank = (v: unknown) => v === null || v === undefined || (typeof v === "string" && v.trim() === "");
  const filled = (col: number) =>
    headerRow !== null ? !blank(rows[headerRow]?.[col]) : rows.some((r) => !blank(r[col]));
  return [blockShift, 0].find((d) => first + d >= 0 && filled(first + d));
}

/** The property key of a row read with the input columns moved by `shift`. */
function keyAt(row: readonly unknown[], mapping: ColumnMapping, shift: number): string | undefined {
  const cell = (c: number | undefined) => (c === undefined ? undefined : row[c + shift]);
  return normaliseProperty(cell(mapping.uprn), cell(mapping.postcode), cell(mapping.address)).key;
}

/** The input columns moved by `shift`. */
export function shiftMapping(mapping: ColumnMapping, shift: number): ColumnMapping {
  const out: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const) if (mapping[k] !== undefined) out[k] = mapping[k]! + shift;
  return out;
}
