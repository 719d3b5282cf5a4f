/**
 * The "Action list" and "Compliance summary" sheets in Excel, and the Action list as an iCalendar file. Core decides
 * every cell (core/reports/actions.ts); this reads the results block as it is now and writes what core returns. Reading the
 * table goes in chunks of about 2 MB like every read of the pane; writing both sheets is one sync (more only when the
 * list's cells pass 2 MB), whatever the number of rows: clear, formats, values, colours by one setCellProperties,
 * bold, frozen header, and the chart updated in place (setData), never added twice.
 */
import {
  ACTION_LIST_SHEET,
  OUTPUT_COLUMNS,
  SUMMARY_SHEET,
  actionCalendar,
  actionListColour,
  actionListFormats,
  portfolioTables,
  legacyTableId,
  inputShiftAtRest,
  shiftMapping,
  tableAnchor,
  actionListLine,
  blockProperties,
  unreadOwnColumns,
  buildPortfolioList,
  buildSummary,
  type PortfolioTable,
  detectUserColumns,
  hostDate,
  lastCheckedAt,
  tableRowCount,
  type ActionListSheet,
  type BlockProperty,
  type WindowDays,
  type CheckName,
  CHANGE_LOG_ARCHIVE_SHEET,
  CHANGE_LOG_HEADERS,
  CHANGE_LOG_SHEET,
  RUN_LOG_HEADERS,
  RUN_LOG_SHEET,
  changeLogOverflow,
  changeLogRow,
  runLogLine,
  runLogRow,
  type Change,
  type RunLogEntry,
  actionSheetsFailedLine,
  actionSheetsNotRefreshedLine,
  calendarFailedLine,
  emptyCalendarLine,
  noCalendarLine,
  tablesProblem,
  NO_FILL,
} from "../../core";
import { fileMonthFirst, relocateBlock, type RunPlace } from "./rows-now";
import { readBlock, usedExtent, SHEET_COLUMNS } from "./sheet";
import { tableAt } from "./tables";

const WIDTH = OUTPUT_COLUMNS.length;
export const CHART_NAME = "Actions due per month";
/** Bytes per write sync (the list's values, formats and colours, estimated): under Excel on the web's 5 MB request limit with a margin. */
const MAX_BYTES = 3_500_000;

export interface ActionSheetOptions {
  /** The workbook's day (the computer's local day: Excel's dates are local days). */
  today: string;
  withinDays: number;
  windows?: Partial<Record<CheckName, Partial<WindowDays>>>;
  /** The workbook's other remembered tables (watch-settings.ts): the list covers them all, with the run's. */
  tables?: readonly RunPlace[];
}

const firstColumn = (inputColumns: RunPlace["inputColumns"], blockColumn: number) => {
  const inputs = Object.values(inputColumns).filter((v): v is number => typeof v === "number");
  return inputs.length ? Math.min(...inputs) : blockColumn;
};

/** Every table of the portfolio read as it is now (a sheet or block not found says why), named by core's tableIds. */
async function readPortfolio(
  context: Excel.RequestContext,
  run: RunPlace,
  others: readonly RunPlace[],
  today: string,
): Promise<{ tables: PortfolioTable[]; reads: BlockRead[] }> {
  const read: { p: RunPlace; r: BlockRead | { problem: string }; sheetId: string }[] = [];
  for (const p of [...others, run]) {
    let r: BlockRead | { problem: string };
    let sheetId = p.sheetId ?? p.sheet;
    try {
      // By its id when the record has it (a renamed sheet is found), else by the name it had.
      const ws = context.workbook.worksheets.getItemOrNullObject(p.sheetId ?? p.sheet);
      ws.load("id, name");
      await context.sync();
      if (ws.isNullObject) r = { problem: "the sheet was not found (deleted, or renamed before this version)" };
      else {
        sheetId = ws.id;
        r = await readResults(context, { ...p, sheet: ws.name, sheetId }, today);
      }
    } catch (e) {
      r = { problem: `the sheet could not be read (${e instanceof Error ? e.message : String(e)})` };
    }
    read.push({ p, r, sheetId });
  }
  const named = portfolioTables(read.slice(0, -1), read[read.length - 1], ({ p, r, sheetId }) => {
    const at = "problem" in r ? p : r.at;
    const first = firstColumn(at.inputColumns, at.blockColumn);
    return { sheetId, headerRow: at.headerRow, firstColumn: first, ordinal: p.ordinal };
  });
  const tables: PortfolioTable[] = [];
  const reads: BlockRead[] = [];
  for (const {
    table: { p, r, sheetId },
    id,
  } of named) {
    const formerIds = [
      legacyTableId({
        host: "excel",
        sheet: p.sheet,
        headerRow: p.headerRow,
        blockColumn: p.blockColumn,
        firstInput: firstColumn(p.inputColumns, p.blockColumn),
      }),
    ];
    const where = "problem" in r ? p : r.at;
    const anchor = tableAnchor(firstColumn(where.inputColumns, where.blockColumn), where.headerRow);
    if ("problem" in r)
      tables.push({ id, formerIds, sheetId, sheet: p.sheet, anchor, props: null, problem: r.problem });
    else {
      reads.push(r);
      const b = r.place;
      // A block that is an Excel Table's own columns (its header the Table's): the summary's formulas name them.
      const t =
        p.headerRow !== null
          ? await tableAt(context, b.sheet, { rowIndex: b.firstRow - 1, columnIndex: b.blockColumn })
          : null;
      const table = t && t.block.rowIndex === b.firstRow - 1 ? { table: t.name } : {};
      tables.push({
        id,
        formerIds,
        sheetId,
        sheet: b.sheet,
        anchor,
        props: r.props,
        ownerHeader: r.ownerHeader,
        unreadColumns: r.unreadColumns,
        block: { sheet: b.sheet, column: b.blockColumn, firstRow: b.firstRow, lastRow: b.lastRow, ...table },
      });
    }
  }
  return { tables, reads };
}

export interface ActionSheetsResult {
  /** The line for the pane. */
  line: string;
  ok: boolean;
  open: number;
  closed: number;
  /** context.sync calls spent writing the two sheets (reading the block is chunked by size, as every read). */
  writeSyncs: number;
  list?: ActionListSheet;
}

interface BlockRead {
  /** Where the table stands now: its header row, results block and input columns, found again. */
  at: Pick<RunPlace, "headerRow" | "blockColumn" | "inputColumns">;
  props: BlockProperty[];
  ownerHeader?: string;
  unreadColumns: ReturnType<typeof unreadOwnColumns>;
  place: { sheet: string; blockColumn: number; firstRow: number; lastRow: number };
}

/**
 * The results block as it is now, found again by its header (or, without one, by what its rows hold), its rows' typed
 * dates read as the block's own were (the file's order, `today` the file's day).
 */
async function readResults(
  context: Excel.RequestContext,
  run: RunPlace,
  today: string,
): Promise<BlockRead | { problem: string }> {
  const ext = await usedExtent(context, run.sheet);
  if (ext.lastRow < 0) return { problem: "the sheet is empty" };
  const lastColumn = Math.min(SHEET_COLUMNS - 1, Math.max(ext.lastColumn, run.blockColumn + WIDTH - 1));
  const grid = await readBlock(context, {
    sheet: run.sheet,
    rowIndex: 0,
    columnIndex: 0,
    rowCount: ext.lastRow + 1,
    columnCount: lastColumn + 1,
  });
  const at = relocateBlock(grid, run);
  if (!at) return { problem: "the results block of the check was not found (deleted, or its header changed)" };
  // A column inserted left of the block moved it; the input moved with it, or stayed when the column was between them.
  const shift = inputShiftAtRest(grid, run.inputColumns, at.blockColumn - run.blockColumn, at.headerRow) ?? 0;
  const input = shiftMapping(run.inputColumns, shift);
  const first = at.headerRow === null ? 0 : at.headerRow + 1;
  const header = at.headerRow === null ? [] : grid[at.headerRow];
  const ours = new Set(Array.from({ length: WIDTH }, (_v, k) => at.blockColumn + k));
  const user = detectUserColumns(header, ours);
  const props = blockProperties(grid.slice(first), {
    blockColumn: at.blockColumn,
    uprn: input.uprn,
    address: input.address ?? user.address,
    user,
    firstRow: first + 1,
    untilBlank: at.headerRow !== null,
    header,
    postcode: input.postcode,
    dates: { monthFirst: fileMonthFirst(), today },
  });
  const ownerHeader = user.owner !== undefined ? String(header[user.owner]).trim() : undefined;
  const last = at.headerRow !== null ? first + tableRowCount(grid.slice(first), at.blockColumn) - 1 : ext.lastRow;
  return {
    at: { headerRow: at.headerRow, blockColumn: at.blockColumn, inputColumns: input },
    props,
    ownerHeader,
    unreadColumns: unreadOwnColumns(header, ours),
    place: { sheet: run.sheet, blockColumn: at.blockColumn, firstRow: first, lastRow: Math.max(first, last) },
  };
}

function cellBytes(v: unknown): number {
  return typeof v === "string" ? v.length + 4 : 12;
}

/** What is there now: the Action list's cells (Done and Notes typed by the user) and the chart, in one sync. */
async function readActionSheets(context: Excel.RequestContext) {
  const sheets = context.workbook.worksheets;
  const listSheet = sheets.getItemOrNullObject(ACTION_LIST_SHEET);
  const summarySheet = sheets.getItemOrNullObject(SUMMARY_SHEET);
  await context.sync();
  let existing: unknown[][] = [];
  let existingFormats: unknown[][] = [];
  let chart: Excel.Chart | null = null;
  if (!listSheet.isNullObject || !summarySheet.isNullObject) {
    const used = listSheet.isNullObject ? null : listSheet.getUsedRangeOrNullObject(true);
    used?.load("values, numberFormat");
    const found = summarySheet.isNullObject ? null : summarySheet.charts.getItemOrNullObject(CHART_NAME);
    found?.load("name");
    await context.sync();
    if (used && !used.isNullObject) {
      existing = used.values as unknown[][];
      existingFormats = used.numberFormat as unknown[][];
    }
    if (found && !found.isNullObject) chart = found;
  }
  return { sheets, listSheet, summarySheet, existing, existingFormats, chart };
}

/** The Action list: cleared, then formats, values and colours in chunks, header bold and frozen. */
async function writeActionList(
  context: Excel.RequestContext,
  ls: Excel.Worksheet,
  list: ReturnType<typeof buildPortfolioList>,
  existingFormats: unknown[][],
  onSync: () => void,
): Promise<void> {
  ls.getRange().clear();
  const cols = list.headers.length;
  const due = list.dateColumns[0];
  // A user's own column keeps each cell's own format (a date typed there stays a date): core says which.
  const formats = actionListFormats(list, existingFormats);
  for (let start = 0; start < list.values.length;) {
    let end = start;
    let chunk = 0;
    while (end < list.values.length && (end === start || chunk < MAX_BYTES)) {
      for (const v of list.values[end]) chunk += cellBytes(v);
      // Its number formats and its Window cell's colours go in the same request.
      chunk += cols * 8 + 90;
      end++;
    }
    const rows = list.values.slice(start, end);
    const range = ls.getRangeByIndexes(start, 0, rows.length, cols);
    range.numberFormat = formats.slice(start, end);
    range.values = rows.map((r, i) => (start + i === 0 ? r : r.map((v, c) => (c === due ? hostDate(v) : v))));
    ls.getRangeByIndexes(start, list.windowColumn, rows.length, 1).setCellProperties(
      rows.map((r, i) => {
        const w = r[list.windowColumn];
        const colour = start + i === 0 ? null : actionListColour(w);
        return [
          {
            format: colour
              ? { fill: { color: colour.fill }, font: { color: colour.font } }
              : { fill: { color: NO_FILL.fill }, font: { color: NO_FILL.font } },
          },
        ];
      }),
    );
    start = end;
    if (start < list.values.length) {
      await context.sync();
      onSync();
    }
  }
  ls.getRangeByIndexes(0, 0, 1, cols).format.font.bold = true;
  for (const t of list.titleRows) ls.getRangeByIndexes(t, 0, 1, cols).format.font.bold = true;
  ls.freezePanes.freezeRows(1);
}

/** The Compliance summary: live formulas, bold headers, the chart over the due-per-month table updated in place. */
function writeSummarySheet(
  ss: Excel.Worksheet,
  summary: ReturnType<typeof buildSummary>,
  chart: Excel.Chart | null,
): void {
  ss.getRange().clear();
  const width = Math.max(...summary.cells.map((r) => r.length));
  ss.getRangeByIndexes(0, 0, summary.cells.length, width).formulas = summary.cells.map((r) => [
    ...r,
    ...Array(width - r.length).fill(""),
  ]) as never;
  for (const r of [0, ...summary.headerRows]) ss.getRangeByIndexes(r, 0, 1, width).format.font.bold = true;
  const c = summary.chart;
  const source = ss.getRangeByIndexes(c.firstRow, c.firstColumn, c.rowCount, c.columnCount);
  if (chart) chart.setData(source, "Columns");
  else {
    const made = ss.charts.add("ColumnStacked", source, "Columns");
    made.name = CHART_NAME;
    made.title.text = c.title;
    made.setPosition("I4", "R24");
  }
}

/** Builds (or refreshes) both sheets from a run's results block; never throws: a failure is said in the line. */
export async function buildActionSheets(
  excelRun: <T>(fn: (context: Excel.RequestContext) => Promise<T>) => Promise<T>,
  run: RunPlace,
  o: ActionSheetOptions,
): Promise<ActionSheetsResult> {
  let writeSyncs = 0;
  try {
    return await excelRun(async (context) => {
      const { tables } = await readPortfolio(context, run, o.tables ?? [], o.today);
      if (!tables.some((t) => t.props)) {
        return {
          ok: false,
          line: actionSheetsNotRefreshedLine(tables),
          open: 0,
          closed: 0,
          writeSyncs,
        };
      }
      const { sheets, listSheet, summarySheet, existing, existingFormats, chart } = await readActionSheets(context);
      const list = buildPortfolioList(
        tables,
        { today: o.today, withinDays: o.withinDays, windows: o.windows },
        existing,
      );
      const found = tables.filter((t) => t.props && t.block);
      const props = found.flatMap((t) => t.props!);
      const summary = buildSummary(
        found.map((t) => t.block!),
        props,
        {
          today: o.today,
          windows: o.windows,
          asOf: lastCheckedAt(props) || "not checked yet",
          tables: list.tables,
          withinDays: o.withinDays,
          doneWithoutEvidence: list.headers.includes("Evidence") ? list.doneWithoutEvidence : undefined,
        },
      );

      const ls = listSheet.isNullObject ? sheets.add(ACTION_LIST_SHEET) : listSheet;
      await writeActionList(context, ls, list, existingFormats, () => writeSyncs++);

      const ss = summarySheet.isNullObject ? sheets.add(SUMMARY_SHEET) : summarySheet;
      writeSummarySheet(ss, summary, chart);
      await context.sync();
      writeSyncs++;
      return {
        ok: true,
        line: actionListLine(list, o.withinDays, ACTION_LIST_SHEET, SUMMARY_SHEET),
        open: list.open,
        closed: list.closed,
        writeSyncs,
        list,
      };
    });
  } catch (e) {
    return {
      ok: false,
      line: actionSheetsFailedLine(e instanceof Error ? e.message : String(e)),
      open: 0,
      closed: 0,
      writeSyncs,
    };
  }
}

/**
 * Every table of the portfolio and their Action list looking `withinDays` ahead, with what the sheet has typed (Done,
 * Evidence, Assigned to), for the reminder digests; nothing is written.
 */
export async function portfolioList(
  excelRun: <T>(fn: (context: Excel.RequestContext) => Promise<T>) => Promise<T>,
  run: RunPlace,
  o: ActionSheetOptions,
): Promise<{ tables: PortfolioTable[]; list: ActionListSheet } | { problem: string }> {
  return excelRun(async (context) => {
    const { tables } = await readPortfolio(context, run, o.tables ?? [], o.today);
    if (!tables.some((t) => t.props)) return { problem: tablesProblem(tables) };
    const listSheet = context.workbook.worksheets.getItemOrNullObject(ACTION_LIST_SHEET);
    await context.sync();
    let existing: unknown[][] = [];
    if (!listSheet.isNullObject) {
      const used = listSheet.getUsedRangeOrNullObject(true);
      used.load("values");
      await context.sync();
      if (!used.isNullObject) existing = used.values as unknown[][];
    }
    const list = buildPortfolioList(tables, { today: o.today, withinDays: o.withinDays, windows: o.windows }, existing);
    return { tables, list };
  });
}

/** The current Action list as an .ics file's text (built from the block, as the sheet is). */
export async function actionCalendarText(
  excelRun: <T>(fn: (context: Excel.RequestContext) => Promise<T>) => Promise<T>,
  run: RunPlace,
  o: ActionSheetOptions & { nowIso: string },
): Promise<{ ok: true; ics: string; events: number } | { ok: false; message: string }> {
  try {
    return await excelRun(async (context) => {
      const { tables } = await readPortfolio(context, run, o.tables ?? [], o.today);
      if (!tables.some((t) => t.props))
        return {
          ok: false as const,
          message: noCalendarLine(tables),
        };
      const listSheet = context.workbook.worksheets.getItemOrNullObject(ACTION_LIST_SHEET);
      await context.sync();
      let existing: unknown[][] = [];
      if (!listSheet.isNullObject) {
        const used = listSheet.getUsedRangeOrNullObject(true);
        used.load("values");
        await context.sync();
        if (!used.isNullObject) existing = used.values as unknown[][];
      }
      const list = buildPortfolioList(
        tables,
        { today: o.today, withinDays: o.withinDays, windows: o.windows },
        existing,
      );
      if (!list.open)
        return {
          ok: false as const,
          message: emptyCalendarLine(o.withinDays),
        };
      return { ok: true as const, ics: actionCalendar(list, { nowIso: o.nowIso }), events: list.open };
    });
  } catch (e) {
    return {
      ok: false,
      message: calendarFailedLine(e instanceof Error ? e.message : String(e)),
    };
  }
}

/**
 * The Change log (one row per changed field, appended) and the Run log (one row per run), after a run: three syncs
 * whatever the number of changes (find the sheets, find their ends, write), plus two when the Change log passes
 * CHANGE_LOG_MAX_ROWS and its oldest rows move to its archive sheet. Returns the run's line for the pane.
 */
export async function appendRunLogs(
  excelRun: <T>(fn: (context: Excel.RequestContext) => Promise<T>) => Promise<T>,
  changes: readonly (Change & { runAt: string })[],
  entry: RunLogEntry,
): Promise<string> {
  return excelRun(async (context) => {
    const sheets = context.workbook.worksheets;
    const found = [CHANGE_LOG_SHEET, RUN_LOG_SHEET, CHANGE_LOG_ARCHIVE_SHEET].map((n) => sheets.getItemOrNullObject(n));
    await context.sync();
    const [log, runs, archive] = found;
    const sheetOf = (s: Excel.Worksheet, name: string, headers: readonly string[]) => {
      if (!s.isNullObject) return s;
      const made = sheets.add(name);
      const head = made.getRangeByIndexes(0, 0, 1, headers.length);
      head.values = [headers.slice()];
      head.format.font.bold = true;
      made.freezePanes.freezeRows(1);
      return made;
    };
    const used = [log, runs].map((s) => (s.isNullObject ? null : s.getUsedRangeOrNullObject(true)));
    used.forEach((u) => u?.load("rowCount"));
    await context.sync();
    const rowsIn = (u: Excel.Range | null) => (u && !u.isNullObject ? u.rowCount : 1);
    let logRows = rowsIn(used[0]);
    const logSheet = sheetOf(log, CHANGE_LOG_SHEET, CHANGE_LOG_HEADERS);
    const runSheet = sheetOf(runs, RUN_LOG_SHEET, RUN_LOG_HEADERS);
    const width = CHANGE_LOG_HEADERS.length;
    const overflow = changeLogOverflow(logRows - 1, changes.length);
    if (overflow > 0) {
      // The oldest rows go to the archive, in order, before they leave the log: nothing is dropped.
      const oldest = logSheet.getRangeByIndexes(1, 0, overflow, width);
      oldest.load("values");
      const archiveSheet = sheetOf(archive, CHANGE_LOG_ARCHIVE_SHEET, CHANGE_LOG_HEADERS);
      const archiveUsed = archive.isNullObject ? null : archiveSheet.getUsedRangeOrNullObject(true);
      archiveUsed?.load("rowCount");
      await context.sync();
      const at = rowsIn(archiveUsed);
      const target = archiveSheet.getRangeByIndexes(at, 0, overflow, width);
      target.numberFormat = oldest.values.map(() => CHANGE_LOG_HEADERS.map(() => "@"));
      target.values = oldest.values;
      oldest.delete("Up");
      logRows -= overflow;
    }
    if (changes.length) {
      const range = logSheet.getRangeByIndexes(logRows, 0, changes.length, width);
      range.numberFormat = changes.map(() => CHANGE_LOG_HEADERS.map(() => "@"));
      range.values = changes.map((c) => changeLogRow(c.runAt, c));
    }
    const runRow = runLogRow(entry);
    const runRange = runSheet.getRangeByIndexes(rowsIn(used[1]), 0, 1, runRow.length);
    runRange.values = [runRow];
    await context.sync();
    return runLogLine(entry);
  });
}
