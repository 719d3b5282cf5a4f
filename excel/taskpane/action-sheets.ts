/**
 * The "Action list" and "Compliance summary" sheets in Excel, and the Action list as an iCalendar file. Core decides
 * every cell (core/reports/actions.ts); this reads the results block as it is now and writes what core returns. Reading the
 * table goes in chunks of about 2 MB like every read of the pane; writing both sheets is one sync (more only when the
 * list's cells pass 2 MB), whatever the number of rows: clear, formats, values, colours by one setCellProperties,
 * bold, frozen header, and the chart updated in place (setData), never added twice.
 */
import {
  ACTION_LIST_SHEET,
  SUMMARY_SHEET,
  actionCalendar,
  actionListColour,
  actionListFormats,
  actionListLine,
  buildPortfolioList,
  buildSummary,
  type PortfolioTable,
  hostDate,
  lastCheckedAt,
  type ActionListSheet,
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
  runLogNumberFormats,
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
import { RANGE_OVERHEAD_BYTES, jsonBytes, packWriteChunks } from "../../core/sheet/write-chunks";
import { readPortfolio } from "./portfolio-read";
import { readBlock, readGrids } from "./read-block";
import { type RunPlace } from "./rows-now";
import type { Block } from "./block";

export const CHART_NAME = "Actions due per month";

export interface ActionSheetOptions {
  /** The workbook's day (the computer's local day: Excel's dates are local days). */
  today: string;
  withinDays: number;
  windows?: Partial<Record<CheckName, Partial<WindowDays>>>;
  /** The workbook's other remembered tables (watch-settings.ts): the list covers them all, with the run's. */
  tables?: readonly RunPlace[];
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

/** The Action list's used cells as a block (its extent loaded at the caller's next sync), or null if it has none. */
function listExtent(listSheet: Excel.Worksheet): () => Block | null {
  const used = listSheet.getUsedRangeOrNullObject(true);
  used.load("rowIndex, columnIndex, rowCount, columnCount");
  return () =>
    used.isNullObject
      ? null
      : {
          sheet: ACTION_LIST_SHEET,
          rowIndex: used.rowIndex,
          columnIndex: used.columnIndex,
          rowCount: used.rowCount,
          columnCount: used.columnCount,
        };
}

/** The Action list's values as they are now (Done and Notes typed by the user), read in chunks; none without a list. */
async function existingList(context: Excel.RequestContext): Promise<unknown[][]> {
  const listSheet = context.workbook.worksheets.getItemOrNullObject(ACTION_LIST_SHEET);
  await context.sync();
  if (listSheet.isNullObject) return [];
  const box = listExtent(listSheet);
  await context.sync();
  const b = box();
  return b ? readBlock(context, b) : [];
}

/**
 * What is there now: the Action list's cells (Done and Notes typed by the user) with their number formats, and the
 * chart. Excel on the web counts both grids in its 5 MB response, so a long list is read in row chunks (readGrids): three
 * syncs for a usual list (find the sheets, the list's extent and the chart, its cells), one more for each 2 MB.
 */
async function readActionSheets(context: Excel.RequestContext) {
  const sheets = context.workbook.worksheets;
  const listSheet = sheets.getItemOrNullObject(ACTION_LIST_SHEET);
  const summarySheet = sheets.getItemOrNullObject(SUMMARY_SHEET);
  await context.sync();
  let existing: unknown[][] = [];
  let existingFormats: unknown[][] = [];
  let chart: Excel.Chart | null = null;
  if (!listSheet.isNullObject || !summarySheet.isNullObject) {
    const box = listSheet.isNullObject ? null : listExtent(listSheet);
    const found = summarySheet.isNullObject ? null : summarySheet.charts.getItemOrNullObject(CHART_NAME);
    found?.load("name");
    await context.sync();
    const b = box?.();
    if (b) [existing, existingFormats] = await readGrids(context, b, ["values", "numberFormat"]);
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
  const written = (i: number) =>
    i === 0 ? list.values[0] : list.values[i].map((v, c) => (c === due ? hostDate(v) : v));
  // The Window cell's colours, as setCellProperties sends them (the header row has none).
  const colours = list.values.map((r, i) => {
    const colour = i === 0 ? null : actionListColour(r[list.windowColumn]);
    return [
      {
        format: colour
          ? { fill: { color: colour.fill }, font: { color: colour.font } }
          : { fill: { color: NO_FILL.fill }, font: { color: NO_FILL.font } },
      },
    ];
  });
  // Each request within Excel on the web's 5 MB, packed by core as every write of the pane is: a row's values as
  // written, its number formats and its Window cell's colours, in UTF-8 bytes; two ranges a piece.
  const chunks = packWriteChunks(
    [[0, list.values.length - 1]],
    (i) => jsonBytes(written(i)) + jsonBytes(formats[i]) + jsonBytes(colours[i]) + 3,
    { pieceOverheadBytes: 2 * RANGE_OVERHEAD_BYTES },
  );
  for (const [k, chunk] of chunks.entries()) {
    for (const { start, end } of chunk.pieces) {
      const range = ls.getRangeByIndexes(start, 0, end - start + 1, cols);
      range.numberFormat = formats.slice(start, end + 1);
      range.values = list.values.slice(start, end + 1).map((_r, i) => written(start + i));
      ls.getRangeByIndexes(start, list.windowColumn, end - start + 1, 1).setCellProperties(
        colours.slice(start, end + 1),
      );
    }
    if (k < chunks.length - 1) {
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
  const grid = ss.getRangeByIndexes(0, 0, summary.cells.length, width);
  // Every count shown grouped ("2,500"), as core says.
  grid.numberFormat = summary.numberFormats.map((r) => [...r, ...Array(width - r.length).fill("General")]);
  grid.formulas = summary.cells.map((r) => [...r, ...Array(width - r.length).fill("")]) as never;
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
          asOf: lastCheckedAt(props),
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
    const existing = await existingList(context);
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
      const existing = await existingList(context);
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

/** One Change log row's number formats (text, as written: never a guessed date or number), and its size in a request. */
const CHANGE_LOG_FORMATS = CHANGE_LOG_HEADERS.map(() => "@");
const CHANGE_LOG_FORMATS_BYTES = jsonBytes(CHANGE_LOG_FORMATS) + 1;

/**
 * The requests of appendRunLogs, packed by core (core/sheet/write-chunks.ts): one sequence of row offsets in the order
 * the rows must land, the archived rows first (offsets 0 on), then the run's changes, then the Run log row.
 */
function logRequests(oldest: readonly unknown[][], rows: readonly unknown[][], run: readonly unknown[][]) {
  const overflow = oldest.length;
  const size = (i: number) =>
    i < overflow
      ? jsonBytes(oldest[i]) + 1 + CHANGE_LOG_FORMATS_BYTES
      : i < overflow + rows.length
        ? jsonBytes(rows[i - overflow]) + 1 + CHANGE_LOG_FORMATS_BYTES
        : jsonBytes(run);
  const order: [number, number][] = [];
  if (overflow) order.push([0, overflow - 1]);
  if (rows.length) order.push([overflow, overflow + rows.length - 1]);
  order.push([overflow + rows.length, overflow + rows.length]);
  // An archived piece is two ranges (written in the archive, deleted from the log).
  return packWriteChunks(order, size, { pieceOverheadBytes: 2 * RANGE_OVERHEAD_BYTES });
}

/**
 * The Change log (one row per changed field, appended) and the Run log (one row per run), after a run. Excel on the web
 * refuses a request over 5 MB and a response over 5 MB, and a refused request writes nothing, so the rows go in
 * requests packed by core's budget (core/sheet/write-chunks.ts), in order, the Run log row in the last one: three syncs
 * for the usual run (find the sheets, find their ends, write), one more for each 4.5 MB of a large run's rows. When the
 * Change log passes CHANGE_LOG_MAX_ROWS its oldest rows move to its archive sheet: read in chunks of about 2 MB (one
 * sync for a usual run), then each chunk written to the archive and deleted from the log in the same request, so a
 * refused request leaves every row in one place, once. `onLogged` hears how many of `changes` are in the log after each
 * sync, so that a run stopped part-way logs only the rest again. Returns the run's line for the pane.
 */
export async function appendRunLogs(
  excelRun: <T>(fn: (context: Excel.RequestContext) => Promise<T>) => Promise<T>,
  changes: readonly (Change & { runAt: string })[],
  entry: RunLogEntry,
  onLogged?: (changes: number) => void,
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
    const used = found.map((s) => (s.isNullObject ? null : s.getUsedRangeOrNullObject(true)));
    used.forEach((u) => u?.load("rowCount"));
    await context.sync();
    const rowsIn = (u: Excel.Range | null) => (u && !u.isNullObject ? u.rowCount : 1);
    const logRows = rowsIn(used[0]);
    const logSheet = sheetOf(log, CHANGE_LOG_SHEET, CHANGE_LOG_HEADERS);
    const runSheet = sheetOf(runs, RUN_LOG_SHEET, RUN_LOG_HEADERS);
    const width = CHANGE_LOG_HEADERS.length;
    const overflow = changeLogOverflow(logRows - 1, changes.length);
    // The oldest rows, read before anything moves: in chunks, each response well under Excel's 5 MB.
    const oldest = overflow
      ? await readBlock(context, {
          sheet: CHANGE_LOG_SHEET,
          rowIndex: 1,
          columnIndex: 0,
          rowCount: overflow,
          columnCount: width,
        })
      : [];
    const archiveSheet = overflow ? sheetOf(archive, CHANGE_LOG_ARCHIVE_SHEET, CHANGE_LOG_HEADERS) : null;
    const archiveAt = rowsIn(used[2]);
    const rows = changes.map((c) => changeLogRow(c.runAt, c));
    const runRow = runLogRow(entry);
    const runFormats = runLogNumberFormats();
    const chunks = logRequests(oldest, rows, [runRow, runFormats]);
    let logged = 0;
    for (const chunk of chunks) {
      const before = logged;
      for (const { start, end } of chunk.pieces) {
        const n = end - start + 1;
        if (start < overflow) {
          const target = archiveSheet!.getRangeByIndexes(archiveAt + start, 0, n, width);
          target.numberFormat = Array.from({ length: n }, () => CHANGE_LOG_FORMATS);
          target.values = oldest.slice(start, end + 1) as Excel.Range["values"];
          // The rows above in the log have left already: this piece's rows are the log's first ones now.
          logSheet.getRangeByIndexes(1, 0, n, width).delete("Up");
        } else if (start < overflow + rows.length) {
          // Below the log's rows once every oldest row has left it (those pieces come first, in this request or before).
          const range = logSheet.getRangeByIndexes(logRows - overflow + (start - overflow), 0, n, width);
          range.numberFormat = Array.from({ length: n }, () => CHANGE_LOG_FORMATS);
          range.values = rows.slice(start - overflow, end - overflow + 1);
          logged += n;
        } else {
          const runRange = runSheet.getRangeByIndexes(rowsIn(used[1]), 0, 1, runRow.length);
          runRange.numberFormat = [runFormats];
          runRange.values = [runRow];
        }
      }
      await context.sync();
      if (logged > before) onLogged?.(logged);
    }
    return runLogLine(entry);
  });
}
