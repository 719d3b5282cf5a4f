/**
 * The "Action list" and "Compliance summary" sheets, and the Action list as an iCalendar file. Core decides every cell
 * (core/actions.ts); this module reads the results block as it is now and writes what core returns, with a constant
 * number of SpreadsheetApp writes whatever the number of rows: clear, formats, values, bold, frozen row, colour rules,
 * and the chart updated in place.
 */
import {
  ACTION_LIST_SHEET,
  SUMMARY_SHEET,
  actionCalendar,
  blockProperties,
  buildActionList,
  buildSummary,
  detectUserColumns,
  hostDate,
  lastCheckedAt,
  type ActionListSheet,
  type BlockProperty,
} from "../../core";
import { DATE_FORMAT, WINDOW_COLOURS, type Window } from "../../core/obligations";
import type { ActionSheetsResult, CalendarResult } from "../shared/api";
import { count, errorText } from "../shared/words";
import { loadRun, type SheetRun } from "./runstore";
import { loadSettings } from "./settings";
import { BLOCK_WIDTH, columnLetter, datesAsText, findSheet, inspectBlock } from "./sheet";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

const CHART_TITLE = "Actions due per month (next 18 months; Overdue first)";
const CLOSED_COLOUR = { fill: "#F3F2F1", font: "#605E5C" };

const today = () => new Date(Date.now()).toISOString().slice(0, 10);

interface BlockRead {
  sheet: Sheet;
  props: BlockProperty[];
  ownerHeader?: string;
  /** 1-based: the block's first column, the first and last data rows. */
  blockCol: number;
  top: number;
  lastRow: number;
}

/** The results block of the last check as it is now: found again by its header (or where it was, without one). */
function readBlock(run: SheetRun): BlockRead | { problem: string } {
  const sheet = findSheet(run.sheetId);
  if (!sheet) return { problem: `the sheet "${run.sheetName}" of the last check was deleted` };
  const lastRow = sheet.getLastRow();
  const lastCol = Math.max(1, sheet.getLastColumn());
  let blockCol = run.blockCol;
  let header: unknown[] = [];
  if (run.headerRow) {
    if (run.headerRow > lastRow) return { problem: "the results block of the last check is no longer there" };
    header = sheet.getRange(run.headerRow, 1, 1, lastCol).getValues()[0];
    const found = inspectBlock(header);
    if (!found || found.changed.length) return { problem: "the results columns of the last check were changed or removed" };
    blockCol = found.start + 1;
  }
  const top = run.headerRow ? run.headerRow + 1 : run.firstRow;
  const width = Math.max(lastCol, blockCol + BLOCK_WIDTH - 1);
  const n = Math.max(0, lastRow - top + 1);
  if (width > sheet.getMaxColumns()) return { problem: "the results columns of the last check were deleted" };
  const grid = n ? sheet.getRange(top, 1, n, width).getValues() : [];
  let zone = "";
  const timeZone = () => zone || (zone = SpreadsheetApp.getActive().getSpreadsheetTimeZone());
  // Dates Sheets hands back as Date objects become the text core reads, in the spreadsheet's own time zone.
  const rows = grid.map((r) => r.slice(0, blockCol - 1).concat(datesAsText(r.slice(blockCol - 1, blockCol - 1 + BLOCK_WIDTH), timeZone), r.slice(blockCol - 1 + BLOCK_WIDTH)));
  const ours = new Set<number>();
  for (let k = 0; k < BLOCK_WIDTH; k++) ours.add(blockCol - 1 + k);
  const user = detectUserColumns(header, ours);
  const props = blockProperties(rows, { blockColumn: blockCol - 1, uprn: run.mapping.uprn, address: run.mapping.address ?? user.address, user });
  const ownerHeader = user.owner !== undefined ? String(header[user.owner]).trim() : undefined;
  return { sheet, props, ownerHeader, blockCol, top, lastRow };
}

export function sheetNamed(name: string): { sheet: Sheet; created: boolean } {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const existing = ss.getSheetByName(name);
  if (existing) return { sheet: existing, created: false };
  // insertSheet makes the new sheet active: the user's sheet is made active again.
  const active = ss.getActiveSheet();
  const sheet = ss.insertSheet(name, ss.getNumSheets());
  if (active) active.activate();
  return { sheet, created: true };
}

function writeActionList(list: ActionListSheet): void {
  const { sheet } = sheetNamed(ACTION_LIST_SHEET);
  const rows = list.values.length;
  const cols = list.headers.length;
  sheet.clear();
  // A new sheet has 1,000 rows: grow it (one call) when the list is longer; Sheets cannot write past its last row.
  const maxRows = sheet.getMaxRows();
  if (rows + 1 > maxRows) sheet.insertRowsAfter(maxRows, rows + 1 - maxRows);
  const formats = list.values.map((_r, i) =>
    list.headers.map((h, c) => (i === 0 ? "@" : c === list.dateColumns[0] ? DATE_FORMAT : h === "Days left" ? "0" : h === "Done" ? "General" : "@")),
  );
  const range = sheet.getRange(1, 1, rows, cols);
  range.setNumberFormats(formats);
  range.setValues(list.values.map((r, i) => (i === 0 ? r : r.map((v, c) => (c === list.dateColumns[0] ? hostDate(v) : v)))));
  const bold = [`A1:${columnLetter(cols)}1`];
  if (list.closedTitleRow !== null) bold.push(`A${list.closedTitleRow + 1}:${columnLetter(cols)}${list.closedTitleRow + 1}`);
  sheet.getRangeList(bold).setFontWeight("bold");
  sheet.setFrozenRows(1);
  // The Window column coloured by rule, as the results block's: the colours follow the words whoever edits them.
  const win = sheet.getRange(2, list.windowColumn + 1, Math.max(1, sheet.getMaxRows() - 1), 1);
  const rules = (Object.keys(WINDOW_COLOURS) as Window[]).map((w) =>
    SpreadsheetApp.newConditionalFormatRule().whenTextEqualTo(w).setBackground(WINDOW_COLOURS[w].fill).setFontColor(WINDOW_COLOURS[w].font).setRanges([win]).build(),
  );
  rules.push(SpreadsheetApp.newConditionalFormatRule().whenTextEqualTo("Closed").setBackground(CLOSED_COLOUR.fill).setFontColor(CLOSED_COLOUR.font).setRanges([win]).build());
  sheet.setConditionalFormatRules(rules);
}

function writeSummary(block: BlockRead): void {
  const summary = buildSummary(
    { sheet: block.sheet.getName(), column: block.blockCol - 1, firstRow: block.top - 1, lastRow: Math.max(block.top, block.lastRow) - 1 },
    block.props,
    { today: today(), windows: loadSettings().windows, asOf: lastCheckedAt(block.props) || "not checked yet" },
  );
  const { sheet } = sheetNamed(SUMMARY_SHEET);
  sheet.clear();
  const width = Math.max(...summary.cells.map((r) => r.length));
  sheet.getRange(1, 1, summary.cells.length, width).setValues(summary.cells.map((r) => r.concat(Array(width - r.length).fill(""))));
  sheet.getRangeList(["A1", ...summary.headerRows.map((r) => `A${r + 1}:${columnLetter(width)}${r + 1}`)]).setFontWeight("bold");
  const c = summary.chart;
  const source = sheet.getRange(c.firstRow + 1, c.firstColumn + 1, c.rowCount, c.columnCount);
  const charts = sheet.getCharts();
  // Updated in place: one chart, whatever the number of refreshes (any extra one, e.g. a copy, is removed).
  for (const extra of charts.slice(1)) sheet.removeChart(extra);
  const builder = (charts.length ? charts[0].modify().clearRanges() : sheet.newChart())
    .setChartType(Charts.ChartType.COLUMN)
    .addRange(source)
    .setNumHeaders(1)
    .setOption("isStacked", true)
    .setOption("title", CHART_TITLE)
    .setPosition(summary.tables.status + 1, 9, 0, 0);
  if (charts.length) sheet.updateChart(builder.build());
  else sheet.insertChart(builder.build());
}

function actionDays(override?: number): number {
  return override && [7, 30, 60, 90].indexOf(override) >= 0 ? override : loadSettings().actionDays;
}

function listFor(block: BlockRead, days: number): ActionListSheet {
  const existing = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(ACTION_LIST_SHEET);
  const values = existing && existing.getLastRow() > 0 ? existing.getDataRange().getValues() : [];
  return buildActionList(block.props, { today: today(), withinDays: days, windows: loadSettings().windows, ownerHeader: block.ownerHeader }, values);
}

/** Builds both sheets from a run's block; the line to show, success or failure (never thrown). */
export function refreshAfterRun(run: SheetRun, days?: number): string {
  try {
    const block = readBlock(run);
    if ("problem" in block) return `The Action list and Compliance summary were not refreshed: ${block.problem}. Check again to rebuild them.`;
    const n = actionDays(days);
    const list = listFor(block, n);
    writeActionList(list);
    writeSummary(block);
    const closed = list.closed ? `; ${count(list.closed, "closed row")} kept for ${list.closed === 1 ? "its" : "their"} notes` : "";
    return `"${ACTION_LIST_SHEET}": ${count(list.open, "action")} overdue or due within ${n} days${closed}. "${SUMMARY_SHEET}" refreshed.`;
  } catch (e) {
    return `The Action list and Compliance summary could not be refreshed (${errorText(e)}); the results are written. Press "Refresh action list" to try again.`;
  }
}

/** The sidebar's "Refresh action list": both sheets again from the last check's block. */
export function refreshActionSheets(opts?: { actionDays?: number }): ActionSheetsResult {
  const run = loadRun();
  if (!run) return { ok: false, message: "No check has been run in this spreadsheet yet: check some rows first." };
  const line = refreshAfterRun(run, opts && opts.actionDays ? Number(opts.actionDays) : undefined);
  return { ok: !/not refreshed|could not be refreshed/.test(line), message: line };
}

/** The Action list as an .ics file's text, from the last check's block (the same rows the sheet lists). */
export function actionCalendarFile(): CalendarResult {
  const run = loadRun();
  if (!run) return { ok: false, message: "No check has been run in this spreadsheet yet: check some rows first, then download the calendar." };
  try {
    const block = readBlock(run);
    if ("problem" in block) return { ok: false, message: `No calendar: ${block.problem}. Check again, then download it.` };
    const list = listFor(block, actionDays());
    if (!list.open) return { ok: false, message: `No actions are overdue or due within ${actionDays()} days, so the calendar would be empty.` };
    return { ok: true, ics: actionCalendar(list, { nowIso: new Date(Date.now()).toISOString() }), events: list.open, fileName: "compliance-actions.ics" };
  } catch (e) {
    return { ok: false, message: `The calendar could not be made (${errorText(e)}). Try again in a moment.` };
  }
}
