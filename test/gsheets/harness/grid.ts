/**
 * The cells of a fake sheet (fake-sheets.ts): rows by number, each row an array by column (both 1-based). A 10,000-row
 * table of 60 columns is 600,000 cells, read and written whole many times in a test: rows of arrays are read and
 * written without making or hashing a key per cell, and every cell object has one shape.
 */
export interface CellData {
  value: unknown;
  formula: string | undefined;
  format: string | undefined;
  background: string | undefined;
  fontWeight: string | undefined;
}

/** A cell as Sheets has it before anything is written to it. */
export function blankCell(): CellData {
  return { value: "", formula: undefined, format: undefined, background: undefined, fontWeight: undefined };
}

const blank = (v: unknown) => v === "" || v === undefined || v === null;

/** Counts every change, so that the sheet's extent is worked out once per change, not per call. */
export class Grid {
  private readonly lines = new Map<number, (CellData | undefined)[]>();
  private version = 0;
  private extentSeen: { version: number; rows: number; cols: number } | null = null;

  get(r: number, c: number): CellData | undefined {
    const line = this.lines.get(r);
    return line === undefined ? undefined : line[c];
  }
  /** Row r's cells by column (index 0 unused), or undefined when nothing was ever written there. Read only. */
  line(r: number): readonly (CellData | undefined)[] | undefined {
    return this.lines.get(r);
  }
  /** The cell at (r, c), made blank first if there is none; counted as a change. */
  take(r: number, c: number): CellData {
    let line = this.lines.get(r);
    if (line === undefined) this.lines.set(r, (line = []));
    let cell = line[c];
    if (cell === undefined) line[c] = cell = blankCell();
    this.version++;
    return cell;
  }
  /** Row r's cells to change (made if there are none), blank cells made with blankCell: counted as a change. */
  takeLine(r: number): (CellData | undefined)[] {
    let line = this.lines.get(r);
    if (line === undefined) this.lines.set(r, (line = []));
    this.version++;
    return line;
  }
  set(r: number, c: number, cell: CellData): void {
    let line = this.lines.get(r);
    if (line === undefined) this.lines.set(r, (line = []));
    line[c] = cell;
    this.version++;
  }
  clear(): void {
    this.lines.clear();
    this.version++;
  }
  /** Every cell there is, with its row and column. */
  entries(): [number, number, CellData][] {
    const out: [number, number, CellData][] = [];
    for (const [r, line] of this.lines)
      for (let c = 1; c < line.length; c++) {
        const cell = line[c];
        if (cell !== undefined) out.push([r, c, cell]);
      }
    return out;
  }
  /** A new grid of the same cells, each moved where `to` says (or dropped when it says null). */
  moved(to: (r: number, c: number) => [number, number] | null): Grid {
    const next = new Grid();
    for (const [r, c, cell] of this.entries()) {
      const at = to(r, c);
      if (at) next.set(at[0], at[1], cell);
    }
    return next;
  }
  /** The last row and column holding a value (formats alone do not count, as in Sheets). */
  extent(): { rows: number; cols: number } {
    const seen = this.extentSeen;
    if (seen && seen.version === this.version) return { rows: seen.rows, cols: seen.cols };
    let rows = 0;
    let cols = 0;
    for (const [r, line] of this.lines) {
      for (let c = line.length - 1; c >= 1; c--) {
        const cell = line[c];
        if (cell === undefined || blank(cell.value)) continue;
        if (r > rows) rows = r;
        if (c > cols) cols = c;
        break;
      }
    }
    this.extentSeen = { version: this.version, rows, cols };
    return { rows, cols };
  }
}
