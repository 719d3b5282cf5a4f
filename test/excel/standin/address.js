/**
 * A1 addresses and cell keys as the Excel stand-in reads them: column letters, a worksheet's size, an address (cells,
 * whole columns, whole rows, an optional sheet) as a box, a cell's "row,column" key, and the date serials Excel stores.
 */
"use strict";

function colIndex(letters) {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}
function colLetters(i) {
  let s = "";
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
/** A worksheet's size in Excel 2007 and later. */
const MAX_ROWS = 1048576;
const MAX_COLS = 16384;
function parseAddress(address) {
  const bang = address.lastIndexOf("!");
  const sheet = bang >= 0 ? address.slice(0, bang).replace(/^'|'$/g, "") : null;
  const local = address.slice(bang + 1);
  // Whole columns ("A:C") and whole rows ("5:20"), as Excel names a column or row selection.
  const cols = /^\$?([A-Za-z]+):\$?([A-Za-z]+)$/.exec(local);
  if (cols) {
    const a = colIndex(cols[1]),
      b = colIndex(cols[2]);
    return { sheet, r: 0, c: Math.min(a, b), rows: MAX_ROWS, cols: Math.abs(b - a) + 1 };
  }
  const rowsOnly = /^\$?(\d+):\$?(\d+)$/.exec(local);
  if (rowsOnly) {
    const a = Number(rowsOnly[1]) - 1,
      b = Number(rowsOnly[2]) - 1;
    return { sheet, r: Math.min(a, b), c: 0, rows: Math.abs(b - a) + 1, cols: MAX_COLS };
  }
  const parts = local.split(":");
  const cell = (p) => {
    const m = /^\$?([A-Za-z]+)\$?(\d+)$/.exec(p);
    if (!m) throw new Error("Bad address " + address);
    return { r: Number(m[2]) - 1, c: colIndex(m[1]) };
  };
  const a = cell(parts[0]);
  const b = parts[1] ? cell(parts[1]) : a;
  return {
    sheet,
    r: Math.min(a.r, b.r),
    c: Math.min(a.c, b.c),
    rows: Math.abs(b.r - a.r) + 1,
    cols: Math.abs(b.c - a.c) + 1,
  };
}
function isBlank(cell) {
  return !cell || cell.value === "" || cell.value === null || cell.value === undefined;
}
/** A cell's key "row,column" as [row, column]: the hottest line of a big sheet, so without split and map. */
function keyRC(k) {
  // Digits read in place: slicing the key into two strings cost more than the rest of a whole-sheet scan.
  let r = 0,
    i = 0;
  for (let ch = k.charCodeAt(0); ch !== 44; ch = k.charCodeAt(++i)) {
    if (!(ch >= 48 && ch <= 57)) return keyRCSlow(k);
    r = r * 10 + ch - 48;
  }
  let c = 0;
  for (let j = i + 1; j < k.length; j++) {
    const ch = k.charCodeAt(j);
    if (!(ch >= 48 && ch <= 57)) return keyRCSlow(k);
    c = c * 10 + ch - 48;
  }
  return [r, c];
}
function keyRCSlow(k) {
  const i = k.indexOf(",");
  return [+k.slice(0, i), +k.slice(i + 1)];
}
/** Excel turns date-like and number-like text into numbers unless the cell is formatted as text. */
function excelSerial(iso) {
  const ms = Date.parse(iso + "T00:00:00Z");
  return Math.round(ms / 86400000) + 25569;
}

module.exports = { colIndex, colLetters, MAX_ROWS, MAX_COLS, parseAddress, isBlank, keyRC, excelSerial };
