/** Spreadsheet: the document (its sheets, the active one, time zone, locale, id and address), as Sheets holds it. */
import type { CallLog } from "./call-log";
import { followZone, type MakeDate } from "./date-cells";
import { FakeSheet } from "./sheet";

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
    followZone(() => this.timeZone);
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
