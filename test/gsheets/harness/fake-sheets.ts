/**
 * A stand-in for SpreadsheetApp: sheets held in memory that behave like Sheets where our code depends on it
 * (value coercion, formulas, bounds, conditional formats) and record every call, so tests can count writes.
 */
import { columnLetter, columnNumber } from "../../helpers/columns";
import { Grid, type CellData } from "./grid";

export interface CallRecord {
  target: "SpreadsheetApp" | "Spreadsheet" | "Sheet" | "Range" | "RangeList";
  method: string;
  a1?: string;
  write: boolean;
  cells?: number;
  /** The sheet a Range / RangeList / Sheet call was made on. */
  sheet?: string;
}

export class CallLog {
  calls: CallRecord[] = [];
  record(
    target: CallRecord["target"],
    method: string,
    write: boolean,
    a1?: string,
    cells?: number,
    sheet?: string,
  ): void {
    this.calls.push({ target, method, write, a1, cells, sheet });
  }
  mark(): number {
    return this.calls.length;
  }
  since(mark: number): CallRecord[] {
    return this.calls.slice(mark);
  }
  writesSince(mark: number): CallRecord[] {
    return this.since(mark).filter((c) => c.write);
  }
}

type MakeDate = (ms: number) => Date;

export { columnLetter };
const colNumber = columnNumber;
/** Sheets holds at most 50,000 characters in a cell. */
const CELL_CHARS_MAX = 50000;

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

function rangeList(ranges: FakeRange[]) {
  return ranges.length ? { getRanges: () => ranges.slice() } : null;
}

/** Wall-clock fields of an instant in a time zone, as Sheets shows them there. */
const zoneFormats = new Map<string, Intl.DateTimeFormat>();
export function zonedParts(
  ms: number,
  timeZone: string,
): Record<"year" | "month" | "day" | "hour" | "minute" | "second", number> {
  if (timeZone === "Etc/UTC" || timeZone === "UTC") {
    const d = new Date(ms);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
    };
  }
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    zoneFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return {
    year: get("year"),
    month: get("month"),
    day: get("day"),
    hour: get("hour"),
    minute: get("minute"),
    second: get("second"),
  };
}

/** "2031-10-27" or "2026-11-22 18:36:06" read as a local time in the zone (what Sheets does with typed dates). */
const zonedTimes = new Map<string, number>();
export function zonedTimeToUtc(text: string, timeZone: string): number {
  // Remembered: a 10,000-row table reads the same few hundred days over and over, and Intl is slow.
  const key = `${timeZone}|${text}`;
  let ms = zonedTimes.get(key);
  if (ms === undefined) zonedTimes.set(key, (ms = zonedTimeToUtcOnce(text, timeZone)));
  return ms;
}

function zonedTimeToUtcOnce(text: string, timeZone: string): number {
  const [d, t = "00:00:00"] = text.split(" ");
  const [y, mo, da] = d.split("-").map(Number);
  const [h, mi, se = 0] = t.split(":").map(Number);
  const wall = Date.UTC(y, mo - 1, da, h, mi, se);
  let guess = wall;
  for (let i = 0; i < 2; i++) {
    const p = zonedParts(guess, timeZone);
    guess += wall - Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  }
  return guess;
}

function isDate(v: unknown): v is Date {
  // Most cells hold text or numbers: only an object can be a Date (of this realm or the vm's).
  return typeof v === "object" && v !== null && Object.prototype.toString.call(v) === "[object Date]";
}

/** A number in a date-formatted cell is read back as a Date (local midnight of that day, as Sheets does). */
let zoneOf: () => string = () => "Etc/UTC";
function dateFormatted(cell: CellData | undefined): Date | undefined {
  if (!cell || typeof cell.value !== "number" || !cell.format || !isDateFormat(cell.format)) return undefined;
  return new Date(serialMidnight(Math.floor(cell.value), zoneOf()));
}

/** A format with a year and a day in it shows a date; the few formats a test uses, each looked at once. */
const dateFormats = new Map<string, boolean>();
let lastFormat = "";
let lastIsDate = false;
function isDateFormat(format: string): boolean {
  // A block's cells share a few formats: the last one asked about is most often asked about again.
  if (format === lastFormat) return lastIsDate;
  let yes = dateFormats.get(format);
  if (yes === undefined) dateFormats.set(format, (yes = /y/i.test(format) && /d/i.test(format)));
  lastFormat = format;
  lastIsDate = yes;
  return yes;
}

/** Local midnight of a date serial in the zone, remembered: a table reads the same few hundred days over and over. */
const serialMidnights = new Map<string, Map<number, number>>();
function serialMidnight(serial: number, timeZone: string): number {
  let zone = serialMidnights.get(timeZone);
  if (!zone) serialMidnights.set(timeZone, (zone = new Map()));
  let ms = zone.get(serial);
  if (ms === undefined) {
    const day = new Date(Date.UTC(1899, 11, 30) + serial * 86_400_000).toISOString().slice(0, 10);
    zone.set(serial, (ms = zonedTimeToUtc(day, timeZone)));
  }
  return ms;
}

let chartIds = 0;
export class FakeChart {
  constructor(
    readonly id: string,
    readonly type: string,
    readonly ranges: FakeRange[],
    readonly options: Record<string, unknown>,
    readonly numHeaders: number,
    readonly position: unknown[],
  ) {}
  getChartId() {
    return this.id;
  }
  getRanges() {
    return this.ranges.slice();
  }
  getOptions() {
    return { get: (k: string) => this.options[k] };
  }
  modify(): FakeChartBuilder {
    return new FakeChartBuilder(null, this);
  }
}

export class FakeChartBuilder {
  private type = "";
  private ranges: FakeRange[] = [];
  private options: Record<string, unknown> = {};
  private headers = -1;
  private position: unknown[] = [];
  constructor(
    _sheet: FakeSheet | null,
    private readonly from: FakeChart | null,
  ) {
    if (from) {
      this.type = from.type;
      this.ranges = from.getRanges();
      this.options = { ...from.options };
      this.headers = from.numHeaders;
      this.position = from.position;
    }
  }
  setChartType(t: string) {
    this.type = t;
    return this;
  }
  addRange(r: FakeRange) {
    this.ranges.push(r);
    return this;
  }
  clearRanges() {
    this.ranges = [];
    return this;
  }
  setOption(k: string, v: unknown) {
    this.options[k] = v;
    return this;
  }
  setNumHeaders(n: number) {
    this.headers = n;
    return this;
  }
  setPosition(...p: unknown[]) {
    this.position = p;
    return this;
  }
  build(): FakeChart {
    if (!this.type || !this.ranges.length) throw new Error("Exception: A chart needs a type and at least one range.");
    return new FakeChart(
      this.from ? this.from.id : `chart-${++chartIds}`,
      this.type,
      this.ranges,
      this.options,
      this.headers,
      this.position,
    );
  }
}

export const BooleanCriteria = {
  TEXT_EQUAL_TO: "TEXT_EQUAL_TO",
  TEXT_CONTAINS: "TEXT_CONTAINS",
  CELL_EMPTY: "CELL_EMPTY",
  CELL_NOT_EMPTY: "CELL_NOT_EMPTY",
  NUMBER_GREATER_THAN: "NUMBER_GREATER_THAN",
} as const;

export class FakeConditionalFormatRule {
  constructor(
    private readonly ranges: FakeRange[],
    private readonly criteria: { type: string; values: unknown[] },
    private readonly background: string | null,
    private readonly fontColor: string | null,
  ) {}
  getRanges(): FakeRange[] {
    return this.ranges.slice();
  }
  getBooleanCondition() {
    const { criteria, background, fontColor } = this;
    return {
      getCriteriaType: () => criteria.type,
      getCriteriaValues: () => criteria.values.slice(),
      getBackground: () => background,
      getFontColor: () => fontColor,
      getBold: () => null,
      getItalic: () => null,
      getStrikethrough: () => null,
      getUnderline: () => null,
    };
  }
  getGradientCondition() {
    return null;
  }
  copy(): FakeRuleBuilder {
    const b = new FakeRuleBuilder();
    b.state = {
      ranges: this.ranges.slice(),
      criteria: { ...this.criteria },
      background: this.background,
      fontColor: this.fontColor,
    };
    return b;
  }
  /** The fill this rule gives a value, or undefined when it does not apply. */
  fillFor(value: unknown): string | null | undefined {
    if (this.criteria.type === BooleanCriteria.TEXT_EQUAL_TO) {
      return String(value ?? "").toLowerCase() === String(this.criteria.values[0]).toLowerCase()
        ? this.background
        : undefined;
    }
    if (this.criteria.type === BooleanCriteria.TEXT_CONTAINS) {
      return String(value ?? "")
        .toLowerCase()
        .includes(String(this.criteria.values[0]).toLowerCase())
        ? this.background
        : undefined;
    }
    return undefined;
  }
  fontFor(value: unknown): string | null | undefined {
    return this.fillFor(value) === undefined ? undefined : this.fontColor;
  }
}

export class FakeRuleBuilder {
  state: {
    ranges: FakeRange[];
    criteria: { type: string; values: unknown[] } | null;
    background: string | null;
    fontColor: string | null;
  } = {
    ranges: [],
    criteria: null,
    background: null,
    fontColor: null,
  };
  whenTextEqualTo(text: string): this {
    this.state.criteria = { type: BooleanCriteria.TEXT_EQUAL_TO, values: [text] };
    return this;
  }
  whenTextContains(text: string): this {
    this.state.criteria = { type: BooleanCriteria.TEXT_CONTAINS, values: [text] };
    return this;
  }
  setBackground(color: string | null): this {
    this.state.background = color;
    return this;
  }
  setFontColor(color: string | null): this {
    this.state.fontColor = color;
    return this;
  }
  setRanges(ranges: FakeRange[]): this {
    this.state.ranges = ranges.slice();
    return this;
  }
  build(): FakeConditionalFormatRule {
    if (!this.state.criteria) throw new Error("Exception: A conditional format rule needs a condition.");
    if (!this.state.ranges.length) throw new Error("Exception: A conditional format rule needs at least one range.");
    return new FakeConditionalFormatRule(
      this.state.ranges,
      this.state.criteria,
      this.state.background,
      this.state.fontColor,
    );
  }
}

export class FakeRange {
  constructor(
    readonly sheet: FakeSheet,
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
  getDisplayValues(): string[][] {
    this.rec("getDisplayValues", false, this.rows * this.cols);
    return this.sheet
      .readBlock(this.row, this.col, this.rows, this.cols)
      .map((r) => r.map((v) => (isDate(v) ? v.toISOString().slice(0, 10) : String(v))));
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

export class FakeSheet {
  private cells = new Grid();
  rules: FakeConditionalFormatRule[] = [];
  activeRange: FakeRange | null = null;
  /** Every area of the selection (Ctrl+click selects several); activeRange is the last one, as in Sheets. */
  activeAreas: FakeRange[] = [];
  /** Set by a test: every setValues throws this, as a protected sheet does for a user who may not edit it. */
  writeError: string | null = null;
  /** The spreadsheet's time zone: Sheets reads typed dates as local times there. */
  timeZone: () => string = () => "Etc/UTC";
  /** Set by a test: rows (1-based) a filter hides; the sheet then has a filter. */
  filteredOut: Set<number> | null = null;
  constructor(
    readonly log: CallLog,
    private readonly makeDate: MakeDate,
    private name: string,
    readonly id: number,
    public maxRows = 1000,
    public maxCols = 26,
  ) {}
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

  // ---- storage, not part of the Apps Script API ----

  extent(): { rows: number; cols: number } {
    // Every change of a value goes through the grid (writeBlock, forEachCell), which counts it.
    return this.cells.extent();
  }
  cell(r: number, c: number): CellData | undefined {
    return this.cells.get(r, c);
  }
  forEachCell(range: FakeRange, fn: (cell: CellData, r: number, c: number) => void): void {
    for (let r = 0; r < range.rows; r++)
      for (let c = 0; c < range.cols; c++) fn(this.cells.take(range.row + r, range.col + c), r, c);
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
    const zone = zoneOf();
    const out: unknown[][] = new Array(rows);
    for (let r = 0; r < rows; r++) {
      const cells = this.cells.line(row + r);
      const line: unknown[] = new Array(cols);
      for (let c = 0; c < cols; c++) {
        const cell = cells === undefined ? undefined : cells[col + c];
        let v = pick ? pick(cell) : cell === undefined ? "" : cell.value;
        if (typeof v === "number") {
          if (!pick && cell!.format !== undefined && isDateFormat(cell!.format))
            v = this.makeDate(serialMidnight(Math.floor(v), zone));
        } else if (isDate(v)) v = this.makeDate(v.getTime());
        else if (v === undefined || v === null) v = pick ? v : "";
        line[c] = v;
      }
      out[r] = line;
    }
    return out;
  }
  /** Charts of this sheet (EmbeddedChart stand-ins), in insertion order. */
  charts: FakeChart[] = [];
  frozenRows = 0;
  owner: FakeSpreadsheet | null = null;
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
      } else if (/^\s*[-+]?\d+(\.\d+)?\s*$/.test(v)) cell.value = Number(v);
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
    values.forEach((line, r) => line.forEach((v, c) => this.coerce(v, this.cells.take(row + r, col + c))));
  }
  /** Fill a block directly, as a user typing would (not recorded). */
  seed(row: number, col: number, values: unknown[][]): void {
    this.writeBlock(row, col, values);
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

let spreadsheetsMade = 0;

export class FakeSpreadsheet {
  sheets: FakeSheet[] = [];
  active: FakeSheet;
  /** Set per test: File › Settings › Time zone. */
  timeZone = "Etc/UTC";
  private nextId = 0;
  constructor(
    readonly log: CallLog,
    private readonly makeDate: MakeDate,
  ) {
    this.active = this.addSheet("Sheet1");
  }
  addSheet(name: string, maxRows = 1000, maxCols = 26): FakeSheet {
    const s = new FakeSheet(
      this.log,
      this.makeDate,
      name,
      this.nextId === 0 ? 0 : 1000 + this.nextId,
      maxRows,
      maxCols,
    );
    s.timeZone = () => this.timeZone;
    s.owner = this;
    zoneOf = () => this.timeZone;
    this.nextId++;
    this.sheets.push(s);
    return s;
  }
  /** Sheets makes a new sheet the active one, as here. Names are unique. */
  insertSheet(name: string, _index?: number): FakeSheet {
    this.log.record("Spreadsheet", "insertSheet", true);
    if (this.sheets.some((s) => (s as any).name === name))
      throw new Error(`Exception: A sheet with the name "${name}" already exists. Please enter another name.`);
    const s = this.addSheet(name, 1000, 26);
    this.active = s;
    return s;
  }
  getNumSheets() {
    this.log.record("Spreadsheet", "getNumSheets", false);
    return this.sheets.length;
  }
  getSheets() {
    this.log.record("Spreadsheet", "getSheets", false);
    return this.sheets.slice();
  }
  getActiveSheet() {
    this.log.record("Spreadsheet", "getActiveSheet", false);
    return this.active;
  }
  setActiveSheet(sheet: FakeSheet) {
    this.log.record("Spreadsheet", "setActiveSheet", false);
    this.active = sheet;
    return sheet;
  }
  getSheetByName(name: string) {
    this.log.record("Spreadsheet", "getSheetByName", false);
    return this.sheets.find((s) => (s as any).name === name) ?? null;
  }
  getSheetById(id: number) {
    this.log.record("Spreadsheet", "getSheetById", false);
    return this.sheets.find((s) => s.id === id) ?? null;
  }
  /** Each fake spreadsheet is a document of its own (the first one made keeps the old id). */
  readonly id = `fake-spreadsheet-id${spreadsheetsMade++ === 0 ? "" : `-${spreadsheetsMade}`}`;
  getId() {
    return this.id;
  }
  /** The document's address, as Sheets gives it (the editor's URL, no fragment). */
  getUrl() {
    return `https://docs.google.com/spreadsheets/d/${this.id}/edit`;
  }
  /** The document's title (File > Rename). */
  name = "Properties";
  getName() {
    return this.name;
  }
  getSpreadsheetTimeZone() {
    this.log.record("Spreadsheet", "getSpreadsheetTimeZone", false);
    return this.timeZone;
  }
  /** File > Settings > Locale, as Sheets names it ("en_GB", "en_US"). */
  locale = "en_GB";
  getSpreadsheetLocale() {
    this.log.record("Spreadsheet", "getSpreadsheetLocale", false);
    return this.locale;
  }
  getActiveRangeList() {
    this.log.record("Spreadsheet", "getActiveRangeList", false);
    return this.active.getActiveRangeList();
  }
  getActiveRange() {
    this.log.record("Spreadsheet", "getActiveRange", false);
    return this.active.activeRange;
  }
  deleteSheet(sheet: FakeSheet) {
    this.log.record("Spreadsheet", "deleteSheet", true);
    this.sheets = this.sheets.filter((s) => s !== sheet);
  }
}
