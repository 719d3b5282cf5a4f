/**
 * The "Action list" and "Compliance summary" sheets, and the Action list as an iCalendar file. Core decides every cell
 * (core/reports/actions.ts); this module reads the results block as it is now and writes what core returns, with a constant
 * number of SpreadsheetApp writes whatever the number of rows: clear, formats, values, bold, frozen row, colour rules,
 * and the chart updated in place.
 */
import {
  ACTION_LIST_SHEET,
  SUMMARY_SHEET,
  actionCalendar,
  actionListColourRules,
  actionListFormats,
  portfolioTables,
  legacyTableId,
  findBlockNow,
  inputShiftAtRest,
  shiftMapping,
  tableAnchor,
  actionListLine,
  blockProperties,
  unreadOwnColumns,
  buildPortfolioList,
  buildSummary,
  detectUserColumns,
  findHeaderBlock,
  hostDate,
  isMonthFirstLocale,
  lastCheckedAt,
  tableRowCount,
  type ActionListSheet,
  type BlockProperty,
  type ColumnMapping,
  type PortfolioTable,
  ICS_FILE_NAME,
  actionSheetsFailedLine,
  actionSheetsNotRefreshedLine,
  calendarFailedLine,
  emptyCalendarLine,
  noCalendarLine,
  tablesProblem,
  blockNotFound,
  inspectHeaderBlock,
  sheetNotFound,
} from "../../core";
import type { ActionSheetsResult, CalendarResult } from "../shared/api";
import { errorText } from "../shared/words";
import { dayInFileZone, todayInFileZone } from "./days";
import { loadRun, type SheetRun } from "./runstore";
import { loadSettings } from "./settings";
import { BLOCK_WIDTH, columnLetter, findSheet } from "./sheet";
import { datesAsText } from "./block-rows";
import { listWatches, placeFacts, type Watch } from "./watch";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

const isDate = (v: unknown): v is Date =>
  typeof v === "object" && v !== null && Object.prototype.toString.call(v) === "[object Date]";

/**
 * What the end of a run asks SpreadsheetApp once and then reuses (the spreadsheet, its time zone and locale, the
 * sheets looked up by name): each call is a round trip in Apps Script, and the end of a run is one server call.
 * Held only inside withSheetCache, so a later call never sees a stale time zone or a deleted sheet.
 */
interface SheetCache {
  ss?: GoogleAppsScript.Spreadsheet.Spreadsheet;
  zone?: string;
  locale?: string;
  /** Sheets by name; null: looked up and not there. */
  named: Map<string, Sheet | null>;
  numSheets?: number;
  /** The user's sheet, made active again once at the end when a sheet was inserted (insertSheet activates it). */
  active?: Sheet | null;
  reactivate?: boolean;
}
let cache: SheetCache | null = null;

/** Runs `fn` with one SheetCache: what it looks up of the spreadsheet is asked once. */
export function withSheetCache<T>(fn: () => T): T {
  if (cache) return fn();
  const own: SheetCache = { named: new Map() };
  cache = own;
  try {
    return fn();
  } finally {
    cache = null;
    if (own.reactivate && own.active) {
      try {
        own.active.activate();
      } catch (_e) {
        // Only which sheet is shown; everything was written.
      }
    }
  }
}

function spreadsheet(): GoogleAppsScript.Spreadsheet.Spreadsheet {
  if (!cache) return SpreadsheetApp.getActiveSpreadsheet();
  if (!cache.ss) cache.ss = SpreadsheetApp.getActiveSpreadsheet();
  return cache.ss;
}
const fileZone = (): string => {
  if (!cache) return SpreadsheetApp.getActive().getSpreadsheetTimeZone();
  if (cache.zone === undefined) cache.zone = spreadsheet().getSpreadsheetTimeZone();
  return cache.zone;
};
const fileLocale = (): string => {
  if (!cache) return SpreadsheetApp.getActive().getSpreadsheetLocale();
  if (cache.locale === undefined) cache.locale = spreadsheet().getSpreadsheetLocale();
  return cache.locale;
};
/** The sheet of that name, or null; asked once per name under withSheetCache. */
function sheetByName(name: string): Sheet | null {
  if (!cache) return SpreadsheetApp.getActiveSpreadsheet().getSheetByName(name);
  if (!cache.named.has(name)) cache.named.set(name, spreadsheet().getSheetByName(name));
  return cache.named.get(name) ?? null;
}
/** The file's day now: the Action list counts from it, in the spreadsheet's own time zone. */
const today = () => todayInFileZone(Date.now(), fileZone());

/** Where a table of the portfolio was last checked (a run's or a remembered table's). */
interface TablePlace {
  sheetId: number;
  sheetName: string;
  headerRow: number;
  firstRow: number;
  blockCol: number;
  mapping: ColumnMapping;
  inputFirstCol?: number;
  /** A remembered table's number on its sheet (watch.ts). */
  ordinal?: number;
}

interface BlockRead {
  sheet: Sheet;
  props: BlockProperty[];
  ownerHeader?: string;
  unreadColumns: ReturnType<typeof unreadOwnColumns>;
  /** 1-based: the header row now (0: none), the block's first column, the first and last data rows. */
  headerRow: number;
  /** The input columns now (a column inserted left of the table moved them). */
  mapping: ColumnMapping;
  blockCol: number;
  top: number;
  lastRow: number;
}

/**
 * The table's rows as they are now, from its header row (or its first row, without one), and where its header and
 * input columns stand now. With a header, the whole sheet is read once (a round trip each is what costs in Apps
 * Script), to find the header again where rows inserted above or columns inserted left moved it, as the check itself
 * does (sheetrun.ts).
 */
function rowsNow(
  sheet: Sheet,
  run: TablePlace,
  lastRow: number,
  lastCol: number,
): { headerRow: number; mapping: ColumnMapping; read: unknown[][] } {
  const whole = run.headerRow && lastRow >= 1 ? sheet.getRange(1, 1, lastRow, lastCol).getValues() : null;
  const was = { headerRow: run.headerRow - 1, blockColumn: Math.max(0, run.blockCol - 1) };
  const now = whole ? findBlockNow(whole, was) : undefined;
  let headerRow = run.headerRow;
  let mapping = run.mapping;
  if (whole && now && now.headerRow !== null) {
    headerRow = now.headerRow + 1;
    const shift = inputShiftAtRest(whole, run.mapping, now.blockColumn - was.blockColumn, now.headerRow) ?? 0;
    mapping = shiftMapping(run.mapping, shift);
  }
  const first = headerRow || run.firstRow;
  const read = whole
    ? whole.slice(first - 1)
    : lastRow >= first
      ? sheet.getRange(first, 1, lastRow - first + 1, lastCol).getValues()
      : [];
  return { headerRow, mapping, read };
}

/** A table's results block as it is now: found again by its header (or where it was, without one). */
function readBlock(run: TablePlace): BlockRead | { problem: string } {
  const sheet = cache
    ? (spreadsheet()
        .getSheets()
        .find((s) => s.getSheetId() === run.sheetId) ?? null)
    : findSheet(run.sheetId);
  if (!sheet) return { problem: sheetNotFound(run.sheetName) };
  const lastRow = sheet.getLastRow();
  const lastCol = Math.max(1, sheet.getLastColumn());
  let blockCol = run.blockCol;
  let header: unknown[] = [];
  const { headerRow, mapping, read } = rowsNow(sheet, run, lastRow, lastCol);
  const top = headerRow ? headerRow + 1 : run.firstRow;
  if (headerRow) {
    if (headerRow > lastRow) return { problem: blockNotFound(sheet.getName(), blockCol - 1) };
    header = read[0];
    // Tables side by side in one header row: this table's block is the one nearest where it was.
    const found = inspectHeaderBlock(header, findHeaderBlock(header, Math.max(0, blockCol - 1)));
    if (!found || found.changes.length) return { problem: blockNotFound(sheet.getName(), blockCol - 1, header) };
    blockCol = found.start + 1;
  }
  const width = Math.max(lastCol, blockCol + BLOCK_WIDTH - 1);
  // Empty columns at the block's end are past the last column in use: read as blank, unless the sheet has no such columns.
  if (width > lastCol && width > sheet.getMaxColumns())
    return { problem: blockNotFound(sheet.getName(), blockCol - 1) };
  const grid = (headerRow ? read.slice(1) : read).map((r) =>
    r.length < width ? r.concat(Array(width - r.length).fill("")) : r,
  );
  const zone = fileZone();
  // Dates Sheets hands back as Date objects become the text core reads, in the spreadsheet's own time zone: the block's
  // by its columns' kinds, the user's own (EICR date...) as the days they show.
  const day = (v: unknown) => (isDate(v) ? (dayInFileZone(v, zone) ?? v) : v);
  const rows = grid.map((r) =>
    r
      .slice(0, blockCol - 1)
      .map(day)
      .concat(
        datesAsText(r.slice(blockCol - 1, blockCol - 1 + BLOCK_WIDTH), () => zone),
        r.slice(blockCol - 1 + BLOCK_WIDTH).map(day),
      ),
  );
  const ours = new Set<number>();
  for (let k = 0; k < BLOCK_WIDTH; k++) ours.add(blockCol - 1 + k);
  const user = detectUserColumns(header, ours);
  const props = blockProperties(rows, {
    blockColumn: blockCol - 1,
    uprn: mapping.uprn,
    address: mapping.address ?? user.address,
    user,
    firstRow: top,
    untilBlank: !!headerRow,
    header,
    postcode: mapping.postcode,
    dates: { monthFirst: isMonthFirstLocale(fileLocale()), today: today() },
  });
  const ownerHeader = user.owner !== undefined ? String(header[user.owner]).trim() : undefined;
  return {
    sheet,
    props,
    ownerHeader,
    unreadColumns: unreadOwnColumns(header, ours),
    headerRow,
    mapping,
    blockCol,
    top,
    lastRow: headerRow ? top + Math.max(0, tableRowCount(rows, blockCol - 1) - 1) : lastRow,
  };
}

const placeOfWatch = (w: Watch): TablePlace => ({
  ...w,
  blockCol: w.blockCol ?? 0,
  firstRow: w.headerRow ? w.headerRow + 1 : w.firstRow,
});

/**
 * Every table of the workbook's portfolio as it is now: the tables checks from the sidebar remembered (watch.ts) and
 * the run just made, each read again (a place once: the run's table is most often a remembered one); one not found
 * says why.
 */
function portfolio(current?: SheetRun | null): PortfolioTable[] {
  const reads = new Map<string, ReturnType<typeof readBlock>>();
  const read = (p: TablePlace) => {
    const at = JSON.stringify([p.sheetId, p.sheetName, p.headerRow, p.firstRow, p.blockCol, p.mapping]);
    if (!reads.has(at)) reads.set(at, readBlock(p));
    return { p, r: reads.get(at)! };
  };
  const named = portfolioTables(
    listWatches().map(placeOfWatch).map(read),
    current ? read(current) : undefined,
    ({ p, r }) => placeFacts("problem" in r ? p : { ...r, sheetId: p.sheetId, ordinal: p.ordinal }),
  );
  return named.map(({ table: { p, r }, id }) => {
    const formerIds = [
      legacyTableId({
        host: "gsheets",
        sheetId: p.sheetId,
        headerRow: p.headerRow,
        blockCol: p.blockCol,
        inputFirstCol: p.inputFirstCol,
      }),
    ];
    const facts = placeFacts("problem" in r ? p : { ...r, sheetId: p.sheetId });
    const anchor = tableAnchor(facts.firstColumn, facts.headerRow);
    const own = { id, formerIds, sheetId: p.sheetId, anchor };
    if ("problem" in r) return { ...own, sheet: p.sheetName, props: null, problem: r.problem };
    const name = r.sheet.getName();
    return {
      ...own,
      sheet: name,
      props: r.props,
      ownerHeader: r.ownerHeader,
      unreadColumns: r.unreadColumns,
      block: { sheet: name, column: r.blockCol - 1, firstRow: r.top - 1, lastRow: Math.max(r.top, r.lastRow) - 1 },
    };
  });
}

/** The rows of a sheet insertSheet makes (Google Sheets' default). */
const NEW_SHEET_ROWS = 1000;

export function sheetNamed(name: string): { sheet: Sheet; created: boolean } {
  const existing = sheetByName(name);
  if (existing) return { sheet: existing, created: false };
  const ss = spreadsheet();
  if (!cache) {
    // insertSheet makes the new sheet active: the user's sheet is made active again.
    const active = ss.getActiveSheet();
    const sheet = ss.insertSheet(name, ss.getNumSheets());
    if (active) active.activate();
    return { sheet, created: true };
  }
  // Under withSheetCache: the user's sheet is made active again once, at the end, however many sheets were added.
  if (cache.active === undefined) cache.active = ss.getActiveSheet();
  if (cache.numSheets === undefined) cache.numSheets = ss.getNumSheets();
  const sheet = ss.insertSheet(name, cache.numSheets);
  cache.numSheets++;
  cache.reactivate = true;
  cache.named.set(name, sheet);
  return { sheet, created: true };
}

function writeActionList(list: ActionListSheet, existingFormats: readonly (readonly string[])[]): void {
  const { sheet, created } = sheetNamed(ACTION_LIST_SHEET);
  const rows = list.values.length;
  const cols = list.headers.length;
  if (!created) sheet.clear();
  // A new sheet has 1,000 rows: grow it (one call) when the list is longer; Sheets cannot write past its last row.
  let maxRows = created ? NEW_SHEET_ROWS : sheet.getMaxRows();
  if (rows + 1 > maxRows) {
    sheet.insertRowsAfter(maxRows, rows + 1 - maxRows);
    maxRows = rows + 1;
  }
  const formats = actionListFormats(list, existingFormats);
  const range = sheet.getRange(1, 1, rows, cols);
  range.setNumberFormats(formats);
  range.setValues(
    list.values.map((r, i) => (i === 0 ? r : r.map((v, c) => (c === list.dateColumns[0] ? hostDate(v) : v)))),
  );
  const bold = [`A1:${columnLetter(cols)}1`, ...list.titleRows.map((r) => `A${r + 1}:${columnLetter(cols)}${r + 1}`)];
  sheet.getRangeList(bold).setFontWeight("bold");
  sheet.setFrozenRows(1);
  // The Window column coloured by rule, as the results block's: the colours follow the words whoever edits them.
  const win = sheet.getRange(2, list.windowColumn + 1, Math.max(1, maxRows - 1), 1);
  const rules = actionListColourRules().map((c) =>
    SpreadsheetApp.newConditionalFormatRule()
      .whenTextEqualTo(c.word)
      .setBackground(c.fill)
      .setFontColor(c.font)
      .setRanges([win])
      .build(),
  );
  sheet.setConditionalFormatRules(rules);
}

function writeSummary(tables: readonly PortfolioTable[], list: ActionListSheet, days: number): void {
  const found = tables.filter((t) => t.props && t.block);
  const props = found.flatMap((t) => t.props!);
  const summary = buildSummary(
    found.map((t) => t.block!),
    props,
    {
      today: today(),
      windows: loadSettings().windows,
      asOf: lastCheckedAt(props),
      tables: list.tables,
      withinDays: days,
      doneWithoutEvidence: list.headers.includes("Evidence") ? list.doneWithoutEvidence : undefined,
    },
  );
  const { sheet, created } = sheetNamed(SUMMARY_SHEET);
  if (!created) sheet.clear();
  const width = Math.max(...summary.cells.map((r) => r.length));
  const pad = <T>(rows: readonly T[][], fill: T) => rows.map((r) => r.concat(Array(width - r.length).fill(fill)));
  sheet
    .getRange(1, 1, summary.cells.length, width)
    .setNumberFormats(pad(summary.numberFormats, "General"))
    .setValues(pad(summary.cells, ""));
  sheet
    .getRangeList(["A1", ...summary.headerRows.map((r) => `A${r + 1}:${columnLetter(width)}${r + 1}`)])
    .setFontWeight("bold");
  const c = summary.chart;
  const source = sheet.getRange(c.firstRow + 1, c.firstColumn + 1, c.rowCount, c.columnCount);
  const charts = created ? [] : sheet.getCharts();
  // Updated in place: one chart, whatever the number of refreshes (any extra one, e.g. a copy, is removed).
  for (const extra of charts.slice(1)) sheet.removeChart(extra);
  const builder = (charts.length ? charts[0].modify().clearRanges() : sheet.newChart())
    .setChartType(Charts.ChartType.COLUMN)
    .addRange(source)
    .setNumHeaders(1)
    .setOption("isStacked", true)
    .setOption("title", c.title)
    .setPosition(summary.tables.status + 1, 9, 0, 0);
  if (charts.length) sheet.updateChart(builder.build());
  else sheet.insertChart(builder.build());
}

function actionDays(override?: number): number {
  return override && [7, 30, 60, 90].indexOf(override) >= 0 ? override : loadSettings().actionDays;
}

/** The Action list as the sheet has it now (its date cells as the days they show in the file's time zone), and its formats. */
function existingList(withFormats: boolean): { values: unknown[][]; formats: string[][] } {
  const existing = sheetByName(ACTION_LIST_SHEET);
  if (!existing) return { values: [], formats: [] };
  const range = existing.getDataRange();
  const raw = range.getValues();
  // An empty sheet's data range is its first cell, blank.
  if (raw.length <= 1 && (raw[0] || []).every((v) => v === "" || v === null)) return { values: [], formats: [] };
  const zone = fileZone();
  const values = raw.map((r) => r.map((v) => (isDate(v) ? (dayInFileZone(v, zone) ?? "") : v)));
  return { values, formats: withFormats ? range.getNumberFormats() : [] };
}

function listFor(tables: readonly PortfolioTable[], days: number, existing: unknown[][]): ActionListSheet {
  return buildPortfolioList(tables, { today: today(), withinDays: days, windows: loadSettings().windows }, existing);
}

/**
 * Builds both sheets for the whole workbook: every remembered table and `run`'s; the line to show, success or failure
 * (never thrown). Tables not found keep their actions on the list under their heading. With the tables both sheets were
 * built from when they were written: a scheduled pass's digest, which follows at once, lists from them (and from the
 * Action list written, when it looks as far ahead) rather than reading and listing every table again (10,000 rows are
 * seconds of the execution's 6 minutes).
 */
export function refreshLists(run: SheetRun | null, days?: number): { line: string; tables?: PortfolioTable[] } {
  return withSheetCache(() => refreshBoth(run, days));
}

function refreshBoth(run: SheetRun | null, days?: number): { line: string; tables?: PortfolioTable[] } {
  try {
    const tables = portfolio(run);
    if (!tables.some((t) => t.props)) return { line: actionSheetsNotRefreshedLine(tables) };
    const n = actionDays(days);
    const existing = existingList(true);
    const list = listFor(tables, n, existing.values);
    writeActionList(list, existing.formats);
    writeSummary(tables, list, n);
    written.set(tables, { days: n, list });
    return { line: actionListLine(list, n, ACTION_LIST_SHEET, SUMMARY_SHEET), tables };
  } catch (e) {
    return { line: actionSheetsFailedLine(errorText(e)) };
  }
}

/** The Action list refreshLists wrote from these tables, and how many days ahead it looks. */
const written = new WeakMap<readonly PortfolioTable[], { days: number; list: ActionListSheet }>();

/** The sidebar's "Refresh action list": both sheets again from every checked table of the spreadsheet. */
export function refreshActionSheets(opts?: { actionDays?: number }): ActionSheetsResult {
  const run = loadRun();
  if (!run && !listWatches().length)
    return { ok: false, message: "No check has been run in this spreadsheet yet: check some rows first." };
  const { line } = refreshLists(
    run && run.spreadsheetId && run.spreadsheetId !== SpreadsheetApp.getActive().getId() ? null : run,
    opts && opts.actionDays ? Number(opts.actionDays) : undefined,
  );
  return { ok: !/not refreshed|could not be refreshed/.test(line), message: line };
}

/**
 * Every checked table and their Action list looking `days` ahead (the list as the sheet has it gives Done, Evidence
 * and Assigned to), for the reminder digests (digest.ts); the sheet itself is not written. `read`: the tables as
 * refreshLists read them moments ago in this execution, else every table is read now.
 */
export function portfolioList(
  days: number,
  read?: PortfolioTable[],
): { tables: PortfolioTable[]; list: ActionListSheet } | { problem: string } {
  return withSheetCache(() => {
    const tables = read ?? portfolio(null);
    if (!tables.some((t) => t.props)) return { problem: tablesProblem(tables) };
    const made = read && written.get(read);
    return { tables, list: made && made.days === days ? made.list : listFor(tables, days, existingList(false).values) };
  });
}

/** The Action list as an .ics file's text, for every checked table (the same rows the sheet lists). */
export function actionCalendarFile(): CalendarResult {
  const run = loadRun();
  if (!run && !listWatches().length)
    return {
      ok: false,
      message: "No check has been run in this spreadsheet yet: check some rows first, then download the calendar.",
    };
  try {
    const tables = portfolio(
      run && run.spreadsheetId && run.spreadsheetId !== SpreadsheetApp.getActive().getId() ? null : run,
    );
    if (!tables.some((t) => t.props)) return { ok: false, message: noCalendarLine(tables) };
    const list = listFor(tables, actionDays(), existingList(false).values);
    if (!list.open) return { ok: false, message: emptyCalendarLine(actionDays()) };
    return {
      ok: true,
      ics: actionCalendar(list, { nowIso: new Date(Date.now()).toISOString() }),
      events: list.open,
      fileName: ICS_FILE_NAME,
    };
  } catch (e) {
    return { ok: false, message: calendarFailedLine(errorText(e)) };
  }
}
