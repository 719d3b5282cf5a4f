/**
 * The output block's rows in Google Sheets: read in one call, written in few bands of rows (one getValues + one
 * setValues each), dates as the file's text, formulas the user put in our cells kept; and which rows a filter hides.
 */
import { OUTPUT_COLUMNS, hostRow, remember } from "../../core";
import type { Cell } from "../../core";

import { BLOCK_WIDTH, safeCell } from "./sheet";

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export function readRows(sheet: Sheet, firstRow: number, lastRow: number, cols: number): unknown[][] {
  if (lastRow < firstRow) return [];
  return sheet.getRange(firstRow, 1, lastRow - firstRow + 1, cols).getValues();
}

/**
 * At most this many setValues per write: as many as a poll has requests, since each results page fills one
 * run of rows. Rows further apart than that are written with the rows between them (see writeBlockRows).
 */
export const MAX_WRITE_BANDS = 10;

/** Runs of consecutive rows; past maxBands, the smallest gaps are closed first so that little is rewritten. */
export function rowBands(rows: number[], maxBands = MAX_WRITE_BANDS): [number, number][] {
  const sorted = rows.slice().sort((a, b) => a - b);
  const bands: [number, number][] = [];
  for (const r of sorted) {
    const last = bands[bands.length - 1];
    if (last && r <= last[1] + 1) last[1] = Math.max(last[1], r);
    else bands.push([r, r]);
  }
  if (bands.length <= maxBands) return bands;
  const gaps = bands.slice(1).map((b, i) => ({ i, size: b[0] - bands[i][1] }));
  const close = new Set(
    gaps
      .sort((a, b) => a.size - b.size || a.i - b.i)
      .slice(0, bands.length - Math.max(1, maxBands))
      .map((g) => g.i),
  );
  const merged: [number, number][] = [];
  bands.forEach((b, i) => {
    if (i > 0 && close.has(i - 1)) merged[merged.length - 1][1] = b[1];
    else merged.push([b[0], b[1]]);
  });
  return merged;
}

function isDate(v: unknown): v is Date {
  // Called for every cell of the block: text and numbers are told apart without the slower tag check.
  return typeof v === "object" && v !== null && Object.prototype.toString.call(v) === "[object Date]";
}

/** The spreadsheet's time zone, asked for on first use only. */
export function zoneOnce(): () => string {
  let zone = "";
  return () => zone || (zone = SpreadsheetApp.getActive().getSpreadsheetTimeZone());
}

/**
 * Sheets reads our date and timestamp text back as Date objects; core expects the text it wrote. Turned back
 * in the spreadsheet's time zone (the one Sheets read the text in), so a kept value is rewritten unchanged.
 */
export function datesAsText(row: unknown[], timeZone: () => string): unknown[] {
  let texts: ZoneTexts | undefined;
  return row.map((v, i) => {
    if (!isDate(v)) return v;
    if (!texts) texts = zoneTexts(timeZone());
    const kind = OUTPUT_COLUMNS[i] ? OUTPUT_COLUMNS[i].kind : "datetime";
    return kind === "date"
      ? dateText(v, texts, DAY_PATTERN, texts.days)
      : dateText(v, texts, TIME_PATTERN, texts.times);
  });
}

const DAY_PATTERN = "yyyy-MM-dd";
const TIME_PATTERN = "yyyy-MM-dd HH:mm:ss";

/**
 * Texts already made in one zone, by instant: a block's rows share a few hundred days and the run's few times, and
 * each row is read several times a poll, so one formatDate per distinct instant is enough.
 */
interface ZoneTexts {
  zone: string;
  days: Map<number, string>;
  times: Map<number, string>;
}
const textsByZone = new Map<string, ZoneTexts>();
function zoneTexts(zone: string): ZoneTexts {
  let texts = textsByZone.get(zone);
  if (!texts) textsByZone.set(zone, (texts = { zone, days: new Map(), times: new Map() }));
  return texts;
}
function dateText(d: Date, texts: ZoneTexts, pattern: string, memo: Map<number, string>): string {
  const ms = d.getTime();
  return memo.get(ms) ?? remember(memo, ms, Utilities.formatDate(d, texts.zone, pattern));
}

/**
 * Write some rows of the output block: one getValues + one setValues per band of consecutive rows, so that
 * rows not being updated are left alone (a user's formula or an edit made meanwhile survives). Only when the
 * rows fall into more than MAX_WRITE_BANDS bands are the nearest bands joined; the rows between them are
 * written back as read a moment before, formulas as formulas.
 */
export function writeBlockRows(
  sheet: Sheet,
  blockCol: number,
  rows: Map<number, (previous: unknown[]) => Cell[]>,
): { bands: number } | null {
  if (!rows.size) return null;
  const timeZone = zoneOnce();
  const bands = rowBands([...rows.keys()]);
  for (const [first, last] of bands) {
    const range = sheet.getRange(first, blockCol, last - first + 1, BLOCK_WIDTH);
    const previous = range.getValues();
    let updated = 0;
    for (let r = first; r <= last; r++) if (rows.has(r)) updated++;
    const formulas = updated < previous.length ? range.getFormulas() : null;
    const values = previous.map((prev, i) => {
      const make = rows.get(first + i);
      if (make) return hostRow(make(datesAsText(prev, timeZone))).map(safeCell);
      return prev.map((v, c) => (formulas && formulas[i][c] ? formulas[i][c] : safeCell(v)));
    });
    range.setValues(values);
  }
  return { bands: bands.length };
}

/** Rows of [first, last] hidden by a filter (only asked when the sheet has one: one call per row otherwise). */
export function hiddenByFilter(sheet: Sheet, first: number, last: number): Set<number> {
  const hidden = new Set<number>();
  if (!sheet.getFilter()) return hidden;
  for (let r = first; r <= last; r++) if (sheet.isRowHiddenByFilter(r)) hidden.add(r);
  return hidden;
}
