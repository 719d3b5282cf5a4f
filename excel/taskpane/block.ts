/**
 * The rectangle of a worksheet the task pane reads and writes. Its own file because the sheet I/O (sheet.ts) asks the
 * Excel Tables I/O (tables.ts) where a Table is, and both speak in these rectangles.
 */
/** A rectangle of a worksheet in 0-based indexes. */
export interface Block {
  sheet: string;
  rowIndex: number;
  columnIndex: number;
  rowCount: number;
  columnCount: number;
}
