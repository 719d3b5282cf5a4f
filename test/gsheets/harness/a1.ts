/** Sheets' A1 notation read into a range's first cell and size. */
import { columnNumber as colNumber } from "../../helpers/columns";

/**
 * A1 notation, including Sheets' open-ended forms: whole columns ("A:C", as clicking column letters
 * selects: rows 1 to the sheet's last row) and whole rows ("5:20", columns A to the last column).
 */
export function parseA1(
  a1: string,
  bounds?: { maxRows: number; maxCols: number },
): { row: number; col: number; rows: number; cols: number } {
  const s = a1.includes("!") ? a1.slice(a1.lastIndexOf("!") + 1) : a1;
  const wholeCols = /^\$?([A-Z]+):\$?([A-Z]+)$/i.exec(s.trim());
  if (wholeCols && bounds) {
    const c1 = colNumber(wholeCols[1]);
    const c2 = colNumber(wholeCols[2]);
    return { row: 1, col: Math.min(c1, c2), rows: bounds.maxRows, cols: Math.abs(c2 - c1) + 1 };
  }
  const wholeRows = /^\$?(\d+):\$?(\d+)$/.exec(s.trim());
  if (wholeRows && bounds) {
    const r1 = Number(wholeRows[1]);
    const r2 = Number(wholeRows[2]);
    return { row: Math.min(r1, r2), col: 1, rows: Math.abs(r2 - r1) + 1, cols: bounds.maxCols };
  }
  const m = /^\$?([A-Z]+)\$?(\d+)(?::\$?([A-Z]+)\$?(\d+))?$/i.exec(s.trim());
  if (!m) throw new Error(`Exception: Range not found (${a1})`);
  const c1 = colNumber(m[1]);
  const r1 = Number(m[2]);
  const c2 = m[3] ? colNumber(m[3]) : c1;
  const r2 = m[4] ? Number(m[4]) : r1;
  return { row: Math.min(r1, r2), col: Math.min(c1, c2), rows: Math.abs(r2 - r1) + 1, cols: Math.abs(c2 - c1) + 1 };
}
