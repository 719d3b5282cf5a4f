/**
 * Where a results block stands, as the Compliance summary's formulas and the Action list's tables name it. Its own file
 * because the summary counts the list's tables and the list carries each table's block.
 */
/** Where the results block stands, for the summary's formulas. */
export interface BlockRef {
  sheet: string;
  /** 0-based: the block's first column, and its first and last data rows. */
  column: number;
  firstRow: number;
  lastRow: number;
  /** The Excel Table whose own columns the block is: formulas then name its columns (Properties[EPC status]). */
  table?: string;
}
