/**
 * What a sheet holds, not part of the Apps Script API: its cells, read as getValues reads them and written through
 * Sheets' coercion and limits, and the views tests assert on (not recorded).
 */
import {
  currentZone,
  dateFormatted,
  isDate,
  isDateFormat,
  midnightIn,
  zoneMidnights,
  type MakeDate,
} from "./date-cells";
import { Grid, blankCell, type CellData } from "./grid";
import { zonedTimeToUtc } from "./zoned-time";

/** Sheets holds at most 50,000 characters in a cell. */
const CELL_CHARS_MAX = 50000;

/** An area of the sheet by its first cell and size (a Range, or any block). */
interface Area {
  readonly row: number;
  readonly col: number;
  readonly rows: number;
  readonly cols: number;
}

/**
 * Whether text may be read as a number or a date (the two patterns coerce tries): only when it starts with a digit, a
 * sign or white space. Most text written (addresses, words, messages) is told apart by its first character.
 */
function mayBeNumberOrDate(v: string): boolean {
  const c = v.charCodeAt(0);
  if ((c >= 48 && c <= 57) || c === 43 || c === 45) return true;
  // Between the space and the no-break space no character is white space: the pattern is asked only outside that.
  return !(c > 32 && c < 160) && /^\s/.test(v);
}

export class SheetCells {
  protected cells = new Grid();
  /** The spreadsheet's time zone: Sheets reads typed dates as local times there. */
  timeZone: () => string = () => "Etc/UTC";
  constructor(protected readonly makeDate: MakeDate) {}
  extent(): { rows: number; cols: number } {
    // Every change of a value goes through the grid (writeBlock, forEachCell), which counts it.
    return this.cells.extent();
  }
  cell(r: number, c: number): CellData | undefined {
    return this.cells.get(r, c);
  }
  forEachCell(range: Area, fn: (cell: CellData, r: number, c: number) => void): void {
    for (let r = 0; r < range.rows; r++) {
      const cells = this.cells.takeLine(range.row + r);
      for (let c = 0; c < range.cols; c++) fn((cells[range.col + c] ??= blankCell()), r, c);
    }
  }
  /**
   * A block's values as getValues gives them, or with `pick` another property of each cell: new arrays, and new Dates
   * of the vm's realm (a number in a date-formatted cell comes back as its day's local midnight).
   */
  readBlock(
    row: number,
    col: number,
    rows: number,
    cols: number,
    pick?: (c: CellData | undefined) => unknown,
  ): unknown[][] {
    if (pick) return this.pickBlock(row, col, rows, cols, pick);
    const zone = currentZone();
    // Looked up once per read: a 10,000-row block has tens of thousands of date cells.
    const midnights = zoneMidnights(zone);
    const out: unknown[][] = new Array(rows);
    for (let r = 0; r < rows; r++) {
      const cells = this.cells.line(row + r);
      const line: unknown[] = new Array(cols);
      if (cells === undefined) {
        out[r] = line.fill("");
        continue;
      }
      for (let c = 0; c < cols; c++) {
        const cell = cells[col + c];
        if (cell === undefined) {
          line[c] = "";
          continue;
        }
        const v = cell.value;
        if (typeof v === "string") line[c] = v;
        else if (typeof v === "number")
          line[c] =
            cell.format !== undefined && isDateFormat(cell.format)
              ? this.makeDate(midnightIn(midnights, Math.floor(v), zone))
              : v;
        else if (isDate(v)) line[c] = this.makeDate(v.getTime());
        else line[c] = v === undefined || v === null ? "" : v;
      }
      out[r] = line;
    }
    return out;
  }
  /** Another property of each cell of a block (its format, its formula), a Date among them made anew in the vm's realm. */
  private pickBlock(
    row: number,
    col: number,
    rows: number,
    cols: number,
    pick: (c: CellData | undefined) => unknown,
  ): unknown[][] {
    const out: unknown[][] = new Array(rows);
    for (let r = 0; r < rows; r++) {
      const cells = this.cells.line(row + r);
      const line: unknown[] = new Array(cols);
      for (let c = 0; c < cols; c++) {
        const v = pick(cells === undefined ? undefined : cells[col + c]);
        line[c] = isDate(v) ? this.makeDate(v.getTime()) : v;
      }
      out[r] = line;
    }
    return out;
  }
  /** Every cell as Sheets would show its source: the formula when there is one, else the value (not recorded). */
  sourceGrid(): unknown[][] {
    const e = this.extent();
    const out: unknown[][] = [];
    for (let r = 1; r <= e.rows; r++) {
      const line: unknown[] = [];
      for (let c = 1; c <= e.cols; c++) {
        const cell = this.cells.get(r, c);
        line.push(cell?.formula ?? dateFormatted(cell) ?? cell?.value ?? "");
      }
      out.push(line);
    }
    return out;
  }
  /** The number format of one cell (not recorded). */
  formatAt(r: number, c: number): string {
    return this.cells.get(r, c)?.format ?? "General";
  }
  /** Sheets' coercion of written values: formulas, apostrophe text, numbers and dates from text (unless "@"). */
  private coerce(v: unknown, cell: CellData): void {
    cell.formula = undefined;
    if (v === null || v === undefined) {
      cell.value = "";
      return;
    }
    if (typeof v === "string") {
      if (v.startsWith("'")) cell.value = v.slice(1);
      else if (cell.format === "@") cell.value = v;
      else if (v.startsWith("=")) {
        cell.formula = v;
        cell.value = "#FORMULA";
      } else if (!mayBeNumberOrDate(v)) cell.value = v;
      else if (/^\s*[-+]?\d+(\.\d+)?\s*$/.test(v)) cell.value = Number(v);
      else if (/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?$/.test(v))
        cell.value = this.makeDate(zonedTimeToUtc(v, this.timeZone()));
      else cell.value = v;
      return;
    }
    if (typeof v === "number" || typeof v === "boolean") {
      cell.value = v;
      return;
    }
    if (isDate(v)) {
      cell.value = this.makeDate(v.getTime());
      return;
    }
    throw new Error(`Exception: Cannot convert ${Object.prototype.toString.call(v)} to a cell value.`);
  }
  writeBlock(row: number, col: number, values: unknown[][]): void {
    // Sheets refuses a cell of more than 50,000 characters (characters, not bytes), and writes nothing of the call.
    for (const line of values)
      for (const v of line)
        if (typeof v === "string" && v.length > CELL_CHARS_MAX)
          throw new Error(
            `Exception: Your input contains more than the maximum of ${CELL_CHARS_MAX} characters in a single cell.`,
          );
    // Each row's cells are looked up once, not once per cell.
    values.forEach((line, r) => {
      const cells = this.cells.takeLine(row + r);
      line.forEach((v, c) => this.coerce(v, (cells[col + c] ??= blankCell())));
    });
  }
  /** Fill a block directly, as a user typing would (not recorded). */
  seed(row: number, col: number, values: unknown[][]): void {
    this.writeBlock(row, col, values);
  }
  formulas(): string[] {
    return this.cells
      .entries()
      .filter(([, , c]) => c.formula)
      .map(([, , c]) => c.formula!);
  }
  /** Plain values of a block, for assertions (not recorded). */
  peek(row: number, col: number, rows: number, cols: number): unknown[][] {
    return this.readBlock(row, col, rows, cols);
  }
}
