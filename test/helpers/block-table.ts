/**
 * A user's table of sandbox properties as core reads it back: UPRN, Address, then our results block from column C,
 * the block's cells written as a check at `at` writes them.
 */
import {
  blockProperties,
  detectUserColumns,
  outputRow,
  parseCheckResult,
  type BlockProperty,
  type Cell,
} from "../../core";
import { checkResultFor, type Property } from "../../sandbox/dataset";

/** The results block's cells for a sandbox property, from the service's answer for it as the client parses it. */
export function blockCellsFor(p: Property, at: Date): Cell[] {
  const parsed = parseCheckResult(JSON.parse(JSON.stringify(checkResultFor(p))));
  if (!parsed.ok) throw new Error(parsed.message);
  return outputRow({ result: parsed.value }, at.toISOString());
}

/** The table's rows (UPRN, Address, block; the header row left out) read as both add-ins read them on `today`. */
export function readBlockTable(rows: readonly (readonly Cell[])[], today: string): BlockProperty[] {
  return blockProperties(rows as Cell[][], {
    blockColumn: 2,
    uprn: 0,
    address: 1,
    user: detectUserColumns(["UPRN", "Address"]),
    firstRow: 2,
    dates: { monthFirst: false, today },
  });
}
