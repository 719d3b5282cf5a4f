/**
 * What a host reads to find a results block again (core's blockReadWindows), read as the hosts read it: the rows near
 * the header first, then every row. However many rows are inserted or deleted above the table, the block is found, on
 * the same row as a read of the whole sheet finds it.
 */
import {
  BLOCK_SEARCH_COLUMNS,
  NEAR_HEADER_ROWS,
  OUTPUT_COLUMNS,
  blockReadWindows,
  findBlockNow,
  outputHeaders,
  type BlockAt,
  type ReadWindow,
} from "../../../core";

const W = OUTPUT_COLUMNS.length;
/** The user's UPRN and Landlord columns, then our block from column C. */
const header = ["UPRN", "Landlord", ...outputHeaders()];
const LAST_COLUMN = header.length - 1;

/** A sheet of `rows` rows in use whose table headers stand on the rows given; every other row holds data. */
function sheet(rows: number, headers: number[]): string[][] {
  return Array.from({ length: rows }, (_v, r) =>
    headers.includes(r) ? header : [`10002${r}`, `Landlord ${r}`, ...Array<string>(W).fill("x")],
  );
}

/** Reads the windows in order, as both hosts do, until the block is found; with the cells read. */
function findAsHostsDo(grid: string[][], was: BlockAt): { at?: BlockAt; cells: number; reads: ReadWindow[] } {
  const reads = blockReadWindows({
    lastRow: grid.length - 1,
    lastColumn: LAST_COLUMN,
    maxColumns: 26 + W,
    ...was,
    inputColumns: { uprn: 0 },
  });
  let cells = 0;
  for (const w of reads) {
    const read = grid.slice(w.firstRow, w.firstRow + w.rowCount).map((r) => r.slice(0, w.columnCount));
    cells += w.rowCount * w.columnCount;
    const at = findBlockNow(read, was, BLOCK_SEARCH_COLUMNS, w.firstRow);
    if (at) return { at, cells, reads };
  }
  return { cells, reads };
}

test("a header row deep in a large sheet: the rows near it in the columns in use first, then every row, block and search columns included", () => {
  const windows = blockReadWindows({
    lastRow: 9999,
    lastColumn: LAST_COLUMN,
    maxColumns: 1000,
    headerRow: 300,
    blockColumn: 2,
    inputColumns: { uprn: 0, postcode: 1 },
  });
  expect(windows).toEqual([
    { firstRow: 300 - NEAR_HEADER_ROWS, rowCount: 2 * NEAR_HEADER_ROWS + 1, columnCount: LAST_COLUMN + 1 },
    { firstRow: 0, rowCount: 10000, columnCount: 2 + W + BLOCK_SEARCH_COLUMNS },
  ]);
});

test("every row read once: a sheet no longer than the rows near its header, a block without a header row, and a host that needs every row", () => {
  const o = { lastColumn: LAST_COLUMN, maxColumns: 1000, blockColumn: 2, inputColumns: { uprn: 0 } };
  const whole = (rows: number) => ({ firstRow: 0, rowCount: rows, columnCount: 2 + W + BLOCK_SEARCH_COLUMNS });
  expect(blockReadWindows({ ...o, lastRow: 150, headerRow: 0 })).toEqual([whole(151)]);
  expect(blockReadWindows({ ...o, lastRow: 9999, headerRow: null })).toEqual([whole(10000)]);
  expect(blockReadWindows({ ...o, lastRow: 9999, headerRow: 0, wholeSheet: true })).toEqual([whole(10000)]);
  // The header row was below the rows now in use (rows deleted above it): nothing near it to read first.
  expect(blockReadWindows({ ...o, lastRow: 9999, headerRow: 10300 })).toEqual([whole(10000)]);
});

test("columns: the user's columns past the block are read, the search stops at the sheet's last column", () => {
  const o = { lastRow: 10, headerRow: null, blockColumn: 2, inputColumns: { uprn: 0, address: 70 } };
  expect(blockReadWindows({ ...o, lastColumn: 80, maxColumns: 1000 })[0].columnCount).toBe(81);
  expect(blockReadWindows({ ...o, lastColumn: 3, maxColumns: 1000 })[0].columnCount).toBe(71);
  expect(blockReadWindows({ ...o, inputColumns: {}, lastColumn: 3, maxColumns: 20 })[0].columnCount).toBe(20);
});

test.each([0, 1, 150, 199, 200, 201, 250, 1000, 5000])(
  "%i rows inserted above a header on row 301 of 2,000 rows: found on its new row, as a read of every row finds it",
  (inserted) => {
    const was = { headerRow: 300, blockColumn: 2 };
    const grid = sheet(2000 + inserted, [300 + inserted]);
    const found = findAsHostsDo(grid, was);
    expect(found.at).toEqual({ headerRow: 300 + inserted, blockColumn: 2 });
    expect(found.at).toEqual(findBlockNow(grid, was));
    // While the rows inserted stay near, only the rows near the header are read.
    expect(found.reads.length === 1 || found.cells === found.reads[0].rowCount * found.reads[0].columnCount).toBe(
      inserted <= NEAR_HEADER_ROWS,
    );
  },
);

test.each([
  ["rows deleted above the header", 2000, [80], 80],
  ["rows inserted above it, another table's header nearer below", 2600, [550, 900], 550],
  ["rows inserted above it, another table's header further below", 2600, [550, 1200], 550],
  ["another table's header far above, ours moved down near where it was", 3000, [10, 500], 500],
  ["two headers, neither near where ours was: the nearer one", 3000, [10, 1200], 10],
])("%s: the same header row as a read of every row", (_what, rows, headers, now) => {
  const was = { headerRow: 300, blockColumn: 2 };
  const grid = sheet(rows, headers);
  expect(findAsHostsDo(grid, was).at).toEqual(findBlockNow(grid, was));
  expect(findBlockNow(grid, was)?.headerRow).toBe(now);
});

test("no header row anywhere: not found, after every row was read", () => {
  const found = findAsHostsDo(sheet(3000, []), { headerRow: 300, blockColumn: 2 });
  expect(found.at).toBeUndefined();
  expect(found.reads[found.reads.length - 1]).toMatchObject({ firstRow: 0, rowCount: 3000 });
});
