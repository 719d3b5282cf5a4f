/**
 * Reading a block of cells in row chunks under Excel on the web's 5 MB response limit, which counts every property a
 * sync loads (values, number formats...): the one reader every read of the pane goes through.
 */
import { jsonBytes } from "../../core/sheet/write-chunks";
import { officeErrorText } from "./stored";
import type { Block } from "./block";

export interface ReadOptions {
  /** Bytes per response; default 2 MB, well under Excel on the web's 5 MB response limit. */
  maxBytes?: number;
}

/** The grids of a range the pane reads: a row of each is returned for each row of the block. */
export type Grid = "values" | "numberFormat";

/** Excel on the web refused a request or response over 5 MB: the same read in smaller pieces will pass. */
function tooLarge(e: unknown): boolean {
  return /PayloadSizeLimitExceeded/.test(officeErrorText(e));
}

/**
 * The `grids` of a block (its values, and its number formats when asked), in that order, read in row chunks of about
 * 2 MB, one sync each, the way writes are chunked: a re-run over 20,000 rows would otherwise ask for one 7 MB response.
 * Cell sizes are unknown until read, so the first chunk guesses 64 bytes a cell of each grid and later ones size from the
 * widest row read so far; a chunk Excel still refuses (a run of long texts further down) is read again in halves.
 */
export async function readGrids(
  context: Excel.RequestContext,
  b: Block,
  grids: readonly Grid[],
  opts: ReadOptions = {},
): Promise<unknown[][][]> {
  const maxBytes = opts.maxBytes ?? 2_000_000;
  const out: unknown[][][] = grids.map(() => []);
  const cells = Math.max(1, b.columnCount) * grids.length;
  let rowBytes = cells * 64;
  let widest = 0;
  const sheet = context.workbook.worksheets.getItem(b.sheet);
  for (let start = 0; start < b.rowCount;) {
    let count = Math.max(1, Math.min(b.rowCount - start, Math.floor(maxBytes / rowBytes)));
    let read: unknown[][][];
    for (;;) {
      const range = sheet.getRangeByIndexes(b.rowIndex + start, b.columnIndex, count, b.columnCount);
      range.load(grids.slice());
      try {
        await context.sync();
        read = grids.map((g) => range[g] as unknown[][]);
        break;
      } catch (e) {
        if (!tooLarge(e) || count === 1) throw e;
        count = Math.ceil(count / 2);
      }
    }
    for (let i = 0; i < count; i++) {
      let bytes = 0;
      read.forEach((rows, g) => {
        out[g].push(rows[i]);
        bytes += jsonBytes(rows[i]);
      });
      widest = Math.max(widest, bytes);
    }
    // A floor of 16 bytes a cell: rows read empty so far say little about the rows still to come.
    rowBytes = Math.max(widest, cells * 16, 1);
    start += count;
  }
  return out;
}

/** A block's values, read in chunks as readGrids reads. */
export async function readBlock(context: Excel.RequestContext, b: Block, opts: ReadOptions = {}): Promise<unknown[][]> {
  return (await readGrids(context, b, ["values"], opts))[0];
}
