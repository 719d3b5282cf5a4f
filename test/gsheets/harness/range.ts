/** Range: an area of a sheet, its values and formats as Sheets reads and writes them, with its own limits. */
import { columnLetter } from "../../helpers/columns";
import type { CallLog } from "./call-log";
import { isDate } from "./date-cells";
import type { CellData } from "./grid";

/** What a range needs of its sheet: the sheet's cells, bounds, selection and call log. */
export interface RangeSheet {
  readonly log: CallLog;
  maxRows: number;
  maxCols: number;
  writeError: string | null;
  activeRange: FakeRange | null;
  activeAreas: FakeRange[];
  nameForLog(): string;
  cell(r: number, c: number): CellData | undefined;
  forEachCell(range: FakeRange, fn: (cell: CellData, r: number, c: number) => void): void;
  readBlock(
    row: number,
    col: number,
    rows: number,
    cols: number,
    pick?: (c: CellData | undefined) => unknown,
  ): unknown[][];
  writeBlock(row: number, col: number, values: unknown[][]): void;
}

/** "#,##0" in a file of the United Kingdom locale: thousands grouped with commas, rounded half away from zero. */
const GROUPED = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 0 });

export class FakeRange {
  constructor(
    readonly sheet: RangeSheet,
    readonly row: number,
    readonly col: number,
    readonly rows: number,
    readonly cols: number,
  ) {}
  private rec(method: string, write: boolean, cells?: number) {
    this.sheet.log.record("Range", method, write, this.getA1Notation(), cells, this.sheet.nameForLog());
  }
  getA1Notation(): string {
    const start = `${columnLetter(this.col)}${this.row}`;
    return this.rows === 1 && this.cols === 1
      ? start
      : `${start}:${columnLetter(this.col + this.cols - 1)}${this.row + this.rows - 1}`;
  }
  getRow() {
    return this.row;
  }
  getColumn() {
    return this.col;
  }
  getLastRow() {
    return this.row + this.rows - 1;
  }
  getLastColumn() {
    return this.col + this.cols - 1;
  }
  getNumRows() {
    return this.rows;
  }
  getNumColumns() {
    return this.cols;
  }
  getSheet() {
    return this.sheet;
  }
  getCell(r: number, c: number): FakeRange {
    if (r < 1 || c < 1 || r > this.rows || c > this.cols)
      throw new Error("Exception: The coordinates of the range are outside the dimensions of the range.");
    return new FakeRange(this.sheet, this.row + r - 1, this.col + c - 1, 1, 1);
  }
  /**
   * Range.getDataRegion: the range grown in the four cardinal directions over every adjacent cell with data (Ctrl+A in
   * the editor). A row or column next to an edge counts only over the range's span: a cell touching it only at a
   * corner (a diagonal) does not grow it, unlike Excel's surrounding region. ROWS grows up and down only, COLUMNS left
   * and right only; a range with no data around it comes back as it is.
   */
  getDataRegion(dimension?: "ROWS" | "COLUMNS"): FakeRange {
    this.rec("getDataRegion", false);
    const sheet = this.sheet;
    const has = (r: number, c: number) => {
      const v = sheet.cell(r, c)?.value;
      return !(v === "" || v === undefined || v === null);
    };
    let [r0, r1, c0, c1] = [this.row, this.row + this.rows - 1, this.col, this.col + this.cols - 1];
    const rowHas = (r: number) => {
      for (let c = c0; c <= c1; c++) if (has(r, c)) return true;
      return false;
    };
    const colHas = (c: number) => {
      for (let r = r0; r <= r1; r++) if (has(r, c)) return true;
      return false;
    };
    for (let grew = true; grew;) {
      grew = false;
      if (dimension !== "COLUMNS") {
        for (; r0 > 1 && rowHas(r0 - 1); grew = true) r0--;
        for (; r1 < sheet.maxRows && rowHas(r1 + 1); grew = true) r1++;
      }
      if (dimension !== "ROWS") {
        let side = false;
        for (; c0 > 1 && colHas(c0 - 1); side = true) c0--;
        for (; c1 < sheet.maxCols && colHas(c1 + 1); side = true) c1++;
        // Rows are looked at again only when the columns grew: a wider span can reach further up or down.
        grew = side && dimension !== "COLUMNS";
      }
    }
    return new FakeRange(sheet, r0, c0, r1 - r0 + 1, c1 - c0 + 1);
  }
  getValues(): unknown[][] {
    this.rec("getValues", false, this.rows * this.cols);
    return this.sheet.readBlock(this.row, this.col, this.rows, this.cols);
  }
  /**
   * The text each cell shows: a date as its day, a number under "#,##0" grouped and rounded as an en-GB file shows it
   * ("2,500"), anything else as its value's text (the General of a whole number).
   */
  getDisplayValues(): string[][] {
    this.rec("getDisplayValues", false, this.rows * this.cols);
    const formats = this.sheet.readBlock(this.row, this.col, this.rows, this.cols, (c) => c?.format ?? "General");
    return this.sheet
      .readBlock(this.row, this.col, this.rows, this.cols)
      .map((r, i) =>
        r.map((v, j) =>
          isDate(v)
            ? v.toISOString().slice(0, 10)
            : typeof v === "number" && formats[i][j] === "#,##0"
              ? GROUPED.format(v)
              : String(v),
        ),
      );
  }
  getFormulas(): string[][] {
    this.rec("getFormulas", false, this.rows * this.cols);
    return this.sheet.readBlock(this.row, this.col, this.rows, this.cols, (c) => c?.formula ?? "") as string[][];
  }
  getValue(): unknown {
    this.rec("getValue", false, 1);
    return this.sheet.readBlock(this.row, this.col, 1, 1)[0][0];
  }
  setValues(values: unknown[][]): this {
    this.rec("setValues", true, this.rows * this.cols);
    if (this.sheet.writeError) throw new Error(this.sheet.writeError);
    if (!Array.isArray(values) || values.length !== this.rows) {
      throw new Error(
        `Exception: The number of rows in the data does not match the number of rows in the range. The data has ${values?.length} but the range has ${this.rows}.`,
      );
    }
    values.forEach((r) => {
      if (!Array.isArray(r) || r.length !== this.cols) {
        throw new Error(
          `Exception: The number of columns in the data does not match the number of columns in the range. The data has ${r?.length} but the range has ${this.cols}.`,
        );
      }
    });
    this.sheet.writeBlock(this.row, this.col, values);
    return this;
  }
  setValue(value: unknown): this {
    this.rec("setValue", true, this.rows * this.cols);
    this.sheet.writeBlock(
      this.row,
      this.col,
      Array.from({ length: this.rows }, () => Array.from({ length: this.cols }, () => value)),
    );
    return this;
  }
  setNumberFormat(format: string): this {
    this.rec("setNumberFormat", true, this.rows * this.cols);
    this.sheet.forEachCell(this, (cell) => (cell.format = format));
    return this;
  }
  setNumberFormats(formats: string[][]): this {
    this.rec("setNumberFormats", true, this.rows * this.cols);
    this.sheet.forEachCell(this, (cell, r, c) => (cell.format = formats[r][c]));
    return this;
  }
  getNumberFormats(): string[][] {
    this.rec("getNumberFormats", false, this.rows * this.cols);
    return this.sheet.readBlock(this.row, this.col, this.rows, this.cols, (c) => c?.format ?? "General") as string[][];
  }
  setFontWeight(weight: string): this {
    this.rec("setFontWeight", true, this.rows * this.cols);
    this.sheet.forEachCell(this, (cell) => (cell.fontWeight = weight));
    return this;
  }
  setBackground(color: string | null): this {
    this.rec("setBackground", true, this.rows * this.cols);
    this.sheet.forEachCell(this, (cell) => (cell.background = color ?? undefined));
    return this;
  }
  setBackgrounds(colors: (string | null)[][]): this {
    this.rec("setBackgrounds", true, this.rows * this.cols);
    this.sheet.forEachCell(this, (cell, r, c) => (cell.background = colors[r][c] ?? undefined));
    return this;
  }
  setFontColors(_colors: (string | null)[][]): this {
    this.rec("setFontColors", true, this.rows * this.cols);
    return this;
  }
  getBackgrounds(): string[][] {
    this.rec("getBackgrounds", false, this.rows * this.cols);
    return this.sheet.readBlock(
      this.row,
      this.col,
      this.rows,
      this.cols,
      (c) => c?.background ?? "#ffffff",
    ) as string[][];
  }
  activate(): this {
    this.rec("activate", false);
    this.sheet.activeRange = this;
    this.sheet.activeAreas = [this];
    return this;
  }
}
