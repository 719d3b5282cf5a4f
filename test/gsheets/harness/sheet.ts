/**
 * Sheet: the Apps Script API over a sheet's cells (ranges, selection, rows and columns inserted or deleted, conditional
 * format rules, charts, frozen and hidden state), each call recorded so tests can count writes.
 */
import { parseA1 } from "./a1";
import type { CallLog } from "./call-log";
import { FakeChart, FakeChartBuilder } from "./charts";
import type { FakeConditionalFormatRule } from "./conditional-formats";
import type { MakeDate } from "./date-cells";
import { FakeRange } from "./range";
import { SheetCells } from "./sheet-cells";

function rangeList(ranges: FakeRange[]) {
  return ranges.length ? { getRanges: () => ranges.slice() } : null;
}

/** What a sheet needs of its spreadsheet: its sheets, and which one is active. */
export interface SheetOwner {
  active: FakeSheet;
  readonly sheets: readonly FakeSheet[];
}

export class FakeSheet extends SheetCells {
  rules: FakeConditionalFormatRule[] = [];
  activeRange: FakeRange | null = null;
  /** Every area of the selection (Ctrl+click selects several); activeRange is the last one, as in Sheets. */
  activeAreas: FakeRange[] = [];
  /** Set by a test: every setValues throws this, as a protected sheet does for a user who may not edit it. */
  writeError: string | null = null;
  /** Set by a test: rows (1-based) a filter hides; the sheet then has a filter. */
  filteredOut: Set<number> | null = null;
  constructor(
    readonly log: CallLog,
    makeDate: MakeDate,
    private name: string,
    readonly id: number,
    public maxRows = 1000,
    public maxCols = 26,
  ) {
    super(makeDate);
  }
  private rec(method: string, write: boolean, a1?: string) {
    this.log.record("Sheet", method, write, a1, undefined, this.name);
  }
  /** The sheet's name, for the call log (not itself recorded). */
  nameForLog(): string {
    return this.name;
  }
  getFilter() {
    this.rec("getFilter", false);
    return this.filteredOut ? { getRange: () => this.getDataRange() } : null;
  }
  isRowHiddenByFilter(row: number): boolean {
    this.rec("isRowHiddenByFilter", false);
    return !!this.filteredOut && this.filteredOut.has(row);
  }
  getName() {
    this.rec("getName", false);
    return this.name;
  }
  getSheetId() {
    this.rec("getSheetId", false);
    return this.id;
  }
  getMaxRows() {
    this.rec("getMaxRows", false);
    return this.maxRows;
  }
  getMaxColumns() {
    this.rec("getMaxColumns", false);
    return this.maxCols;
  }
  getLastRow() {
    this.rec("getLastRow", false);
    return this.extent().rows;
  }
  getLastColumn() {
    this.rec("getLastColumn", false);
    return this.extent().cols;
  }
  getRange(a: number | string, col?: number, rows = 1, cols = 1): FakeRange {
    this.rec("getRange", false);
    const r = typeof a === "string" ? parseA1(a, this) : { row: a, col: col as number, rows, cols };
    if (
      !(r.row >= 1 && r.col >= 1 && r.rows >= 1 && r.cols >= 1) ||
      !Number.isInteger(r.row + r.col + r.rows + r.cols)
    ) {
      throw new Error(
        `Exception: The starting row/column or the number of rows/columns of the range is invalid (${JSON.stringify(r)}).`,
      );
    }
    if (r.row + r.rows - 1 > this.maxRows || r.col + r.cols - 1 > this.maxCols) {
      throw new Error("Exception: The coordinates of the range are outside the dimensions of the sheet.");
    }
    return new FakeRange(this, r.row, r.col, r.rows, r.cols);
  }
  getRangeList(a1s: string[]) {
    this.rec("getRangeList", false);
    const ranges = a1s.map((a) => {
      const r = parseA1(a, this);
      return new FakeRange(this, r.row, r.col, r.rows, r.cols);
    });
    const log = this.log;
    const list = {
      getRanges: () => ranges.slice(),
      setNumberFormat: (f: string) => {
        log.record("RangeList", "setNumberFormat", true, a1s.join(","), undefined, this.name);
        ranges.forEach((r) => this.forEachCell(r, (cell) => (cell.format = f)));
        return list;
      },
      setFontWeight: (w: string) => {
        log.record("RangeList", "setFontWeight", true, a1s.join(","), undefined, this.name);
        ranges.forEach((r) => this.forEachCell(r, (cell) => (cell.fontWeight = w)));
        return list;
      },
    };
    return list;
  }
  getDataRange(): FakeRange {
    this.rec("getDataRange", false);
    const e = this.extent();
    return new FakeRange(this, 1, 1, Math.max(1, e.rows), Math.max(1, e.cols));
  }
  getActiveRange(): FakeRange | null {
    this.rec("getActiveRange", false);
    return this.activeRange;
  }
  getActiveRangeList() {
    this.rec("getActiveRangeList", false);
    return rangeList(this.activeAreas.length ? this.activeAreas : this.activeRange ? [this.activeRange] : []);
  }
  getCurrentCell(): FakeRange | null {
    this.rec("getCurrentCell", false);
    return this.activeRange ? new FakeRange(this, this.activeRange.row, this.activeRange.col, 1, 1) : null;
  }
  setActiveRange(range: FakeRange): FakeRange {
    this.rec("setActiveRange", false);
    this.activeRange = range;
    this.activeAreas = [range];
    return range;
  }
  insertColumnsAfter(after: number, howMany: number): this {
    this.rec("insertColumnsAfter", true);
    this.shiftColumns(after, howMany);
    return this;
  }
  insertColumnBefore(before: number): this {
    this.rec("insertColumnBefore", true);
    this.shiftColumns(before - 1, 1);
    return this;
  }
  /** As Sheets does: cells right of `after` move right, and conditional-format ranges grow or move with them. */
  private shiftColumns(after: number, howMany: number): void {
    this.cells = this.cells.moved((r, c) => [r, c > after ? c + howMany : c]);
    this.rules = this.rules.map((rule) => {
      const ranges = rule
        .getRanges()
        .map((x) => (x.col > after ? new FakeRange(this, x.row, x.col + howMany, x.rows, x.cols) : x));
      return rule.copy().setRanges(ranges).build();
    });
    this.maxCols += howMany;
  }
  /** As Sheets does: the columns' cells go, cells right of them move left, rules lose or shift those ranges. */
  deleteColumns(start: number, howMany: number): this {
    this.rec("deleteColumns", true);
    const end = start + howMany - 1;
    if (start < 1 || end > this.maxCols || howMany >= this.maxCols)
      throw new Error("Exception: Those columns are out of bounds.");
    this.cells = this.cells.moved((r, c) => (c < start ? [r, c] : c > end ? [r, c - howMany] : null));
    this.rules = this.rules
      .map((rule) => {
        const ranges = rule
          .getRanges()
          .filter((x) => x.col + x.cols - 1 < start || x.col > end)
          .map((x) => (x.col > end ? new FakeRange(this, x.row, x.col - howMany, x.rows, x.cols) : x));
        return ranges.length ? rule.copy().setRanges(ranges).build() : null;
      })
      .filter((r): r is FakeConditionalFormatRule => !!r);
    this.maxCols -= howMany;
    if (this.activeRange && this.activeRange.col + this.activeRange.cols - 1 > this.maxCols) this.activeRange = null;
    return this;
  }
  setName(name: string): this {
    this.rec("setName", true);
    this.name = name;
    return this;
  }
  insertRowsAfter(after: number, howMany: number): this {
    this.rec("insertRowsAfter", true);
    this.cells = this.cells.moved((r, c) => [r > after ? r + howMany : r, c]);
    this.maxRows += howMany;
    return this;
  }
  /** As Sheets does: rows from `before` move down, and conditional-format ranges move or grow with them. */
  insertRowsBefore(before: number, howMany: number): this {
    this.rec("insertRowsBefore", true);
    this.cells = this.cells.moved((r, c) => [r >= before ? r + howMany : r, c]);
    this.rules = this.rules.map((rule) => {
      const ranges = rule
        .getRanges()
        .map((x) =>
          x.row >= before
            ? new FakeRange(this, x.row + howMany, x.col, x.rows, x.cols)
            : x.row + x.rows > before
              ? new FakeRange(this, x.row, x.col, x.rows + howMany, x.cols)
              : x,
        );
      return rule.copy().setRanges(ranges).build();
    });
    this.maxRows += howMany;
    return this;
  }
  getConditionalFormatRules(): FakeConditionalFormatRule[] {
    this.rec("getConditionalFormatRules", false);
    return this.rules.slice();
  }
  setConditionalFormatRules(rules: FakeConditionalFormatRule[]): void {
    this.rec("setConditionalFormatRules", true);
    this.rules = rules.slice();
  }

  /** Charts of this sheet (EmbeddedChart stand-ins), in insertion order. */
  charts: FakeChart[] = [];
  frozenRows = 0;
  owner: SheetOwner | null = null;
  clear(): this {
    this.rec("clear", true);
    this.cells.clear();
    return this;
  }
  /** Deletes whole rows, shifting the rows below up, as Sheet.deleteRows does. */
  deleteRows(rowPosition: number, howMany: number): void {
    this.rec("deleteRows", true);
    this.cells = this.cells.moved((r, c) =>
      r >= rowPosition && r < rowPosition + howMany ? null : [r >= rowPosition + howMany ? r - howMany : r, c],
    );
    this.maxRows = Math.max(1, this.maxRows - howMany);
  }
  autoResizeColumns(_start: number, _n: number): this {
    this.rec("autoResizeColumns", true);
    return this;
  }
  setFrozenRows(n: number): void {
    this.rec("setFrozenRows", true);
    this.frozenRows = n;
  }
  getFrozenRows(): number {
    this.rec("getFrozenRows", false);
    return this.frozenRows;
  }
  activate(): this {
    this.rec("activate", false);
    if (this.owner) this.owner.active = this;
    return this;
  }
  /** Hidden from the tabs (View › Hidden sheets); still read and written as any sheet. */
  hidden = false;
  hideSheet(): this {
    this.rec("hideSheet", true);
    // Sheets refuses to hide the only visible sheet.
    if (this.owner && this.owner.sheets.filter((s) => !s.hidden && s !== this).length === 0)
      throw new Error("Exception: You can't hide all the sheets in a document.");
    this.hidden = true;
    if (this.owner && this.owner.active === this) this.owner.active = this.owner.sheets.find((s) => !s.hidden)!;
    return this;
  }
  showSheet(): this {
    this.rec("showSheet", true);
    this.hidden = false;
    return this;
  }
  isSheetHidden(): boolean {
    this.rec("isSheetHidden", false);
    return this.hidden;
  }
  newChart(): FakeChartBuilder {
    this.rec("newChart", false);
    return new FakeChartBuilder(this, null);
  }
  insertChart(chart: FakeChart): void {
    this.rec("insertChart", true);
    this.charts.push(chart);
  }
  updateChart(chart: FakeChart): void {
    this.rec("updateChart", true);
    const i = this.charts.findIndex((c) => c.id === chart.id);
    if (i < 0) throw new Error("Exception: The chart is not on this sheet.");
    this.charts[i] = chart;
  }
  removeChart(chart: FakeChart): void {
    this.rec("removeChart", true);
    this.charts = this.charts.filter((c) => c.id !== chart.id);
  }
  getCharts(): FakeChart[] {
    this.rec("getCharts", false);
    return this.charts.slice();
  }
  /** Select a range as the user would (not recorded). */
  select(a1: string): void {
    // "A2:A5,A8:A10" selects two areas, as Ctrl+click does.
    this.activeAreas = a1.split(",").map((part) => {
      const r = parseA1(part.trim(), this);
      return new FakeRange(this, r.row, r.col, r.rows, r.cols);
    });
    this.activeRange = this.activeAreas[this.activeAreas.length - 1];
  }
  /** What the user sees: the conditional-format fill of a cell, else its own background. */
  effectiveFill(r: number, c: number): string | null {
    const value = this.cell(r, c)?.value;
    for (const rule of this.rules) {
      if (!rule.getRanges().some((x) => r >= x.row && r < x.row + x.rows && c >= x.col && c < x.col + x.cols)) continue;
      const fill = rule.fillFor(value);
      if (fill !== undefined) return fill;
    }
    return this.cell(r, c)?.background ?? null;
  }
  effectiveFont(r: number, c: number): string | null {
    const value = this.cell(r, c)?.value;
    for (const rule of this.rules) {
      if (!rule.getRanges().some((x) => r >= x.row && r < x.row + x.rows && c >= x.col && c < x.col + x.cols)) continue;
      const font = rule.fontFor(value);
      if (font !== undefined) return font;
    }
    return null;
  }
}
