/**
 * Where a large run's property list is kept for Resume: a hidden sheet of the spreadsheet it checks, with the user
 * cache in front of it as a speed-up only.
 *
 * Why a hidden sheet: the list of a 10,000-row check is about 400 KB of JSON, and more with long addresses. User
 * properties hold 500 KB for all of a user's spreadsheets (the sidebar's run, a run set aside and every scheduled
 * re-check share it), document properties 500 KB with the schedule's records, developer metadata 30,000 characters a
 * spreadsheet; CacheService may drop an entry at any time before its 6 hours. A sheet holds millions of cells, stays
 * until it is deleted, and belongs to the spreadsheet whose rows the list was read from.
 */
import { utf8Bytes } from "../../core/sheet/write-chunks";

/** The hidden sheet's name. Each row: a run id, a piece number, a piece of the list's JSON. */
export const RUN_DATA_SHEET = "Compliance run data";
/** Sheets holds 50,000 characters a cell: pieces stay under it. */
const CELL_PIECE = 45000;
/** The cache holds 100 KB a value (UTF-8 bytes): pieces stay under it. */
const CACHE_PIECE_BYTES = 90000;
const CACHE_SECONDS = 6 * 60 * 60;

/**
 * Text cut into pieces of at most maxBytes UTF-8 bytes each, never inside a character (a surrogate pair stays whole):
 * the property and cache limits count bytes, and an address in Welsh or with an accent takes more than one a letter.
 */
export function piecesByBytes(text: string, maxBytes: number): string[] {
  const out: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
    const b = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + b > maxBytes && i > start) {
      out.push(text.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += b;
    if (pair) i++;
  }
  if (start < text.length || !out.length) out.push(text.slice(start));
  return out;
}

export { utf8Bytes };

function dataSheet(create: boolean): GoogleAppsScript.Spreadsheet.Sheet | null {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const found = ss.getSheetByName(RUN_DATA_SHEET);
  if (found || !create) return found;
  // insertSheet makes the new sheet the active one: the person's own sheet is made active again.
  const active = ss.getActiveSheet();
  const sheet = ss.insertSheet(RUN_DATA_SHEET);
  sheet.hideSheet();
  if (active) ss.setActiveSheet(active);
  return sheet;
}

/** The list written to the hidden sheet (and the cache); returns how many cells it took. */
export function storeList(runId: string, json: string): number {
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += CELL_PIECE) pieces.push(json.slice(i, i + CELL_PIECE));
  if (!pieces.length) pieces.push("");
  const sheet = dataSheet(true)!;
  removeListRows(sheet, runId);
  const row = sheet.getLastRow() + 1;
  // Text as written: a piece that looks like a number or a date is not read as one.
  sheet.getRange(row, 1, pieces.length, 3).setNumberFormat("@");
  // Each piece after a "~", so that none begins with "=", "+" or "-" and is taken for a formula.
  sheet.getRange(row, 1, pieces.length, 3).setValues(pieces.map((p, i) => [runId, i, `~${p}`]));
  cachePut(runId, json);
  return pieces.length;
}

/** The list back: from the cache when it still has it, else from the hidden sheet (and cached again). */
export function readList(runId: string, pieces: number): string | null {
  const cached = cacheGet(runId);
  if (cached !== null) return cached;
  const sheet = dataSheet(false);
  if (!sheet || sheet.getLastRow() < 1) return null;
  const rows = sheet.getRange(1, 1, sheet.getLastRow(), 3).getValues();
  const parts: string[] = [];
  for (const r of rows) if (String(r[0]) === runId) parts[Number(r[1])] = String(r[2]).slice(1);
  if (parts.length !== pieces) return null;
  for (let i = 0; i < pieces; i++) if (parts[i] === undefined) return null;
  const json = parts.join("");
  try {
    cachePut(runId, json);
  } catch (_e) {
    // The cache is only a speed-up: the sheet has the list.
  }
  return json;
}

/** The run's list removed from the hidden sheet and the cache (the run is finished with, or replaced). */
export function dropList(runId: string): void {
  const sheet = dataSheet(false);
  if (sheet) removeListRows(sheet, runId);
  const cache = CacheService.getUserCache();
  const n = Number((cache && cache.get(`${runId}.list.pieces`)) || 0);
  if (cache && n) {
    const names = [`${runId}.list.pieces`];
    for (let i = 0; i < n; i++) names.push(`${runId}.list.${i}`);
    cache.removeAll(names);
  }
}

function removeListRows(sheet: GoogleAppsScript.Spreadsheet.Sheet, runId: string): void {
  const last = sheet.getLastRow();
  if (last < 1) return;
  const ids = sheet.getRange(1, 1, last, 1).getValues();
  // Bottom up, so that the rows still to delete keep their numbers.
  for (let r = last; r >= 1; r--) {
    if (String(ids[r - 1][0]) !== runId) continue;
    let top = r;
    while (top > 1 && String(ids[top - 2][0]) === runId) top--;
    // Sheets cannot delete every row of a sheet: the last ones are emptied instead.
    if (r - top + 1 >= sheet.getMaxRows())
      sheet.getRange(top, 1, r - top + 1, 3).setValues(ids.slice(top - 1, r).map(() => ["", "", ""]));
    else sheet.deleteRows(top, r - top + 1);
    r = top;
  }
}

function cachePut(runId: string, json: string): void {
  const cache = CacheService.getUserCache();
  if (!cache) return;
  const pieces = piecesByBytes(json, CACHE_PIECE_BYTES);
  const entries: Record<string, string> = { [`${runId}.list.pieces`]: String(pieces.length) };
  pieces.forEach((p, i) => (entries[`${runId}.list.${i}`] = p));
  try {
    cache.putAll(entries, CACHE_SECONDS);
  } catch (_e) {
    // Best effort: the sheet has the list.
  }
}

function cacheGet(runId: string): string | null {
  const cache = CacheService.getUserCache();
  if (!cache) return null;
  const n = Number(cache.get(`${runId}.list.pieces`) || 0);
  if (!n) return null;
  const names: string[] = [];
  for (let i = 0; i < n; i++) names.push(`${runId}.list.${i}`);
  const got = cache.getAll(names);
  let json = "";
  for (const name of names) {
    if (got[name] === undefined || got[name] === null) return null;
    json += got[name];
  }
  return json;
}
