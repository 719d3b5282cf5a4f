/**
 * How a large write to Excel is cut into requests (one `context.sync` each). Excel on the web refuses a request over
 * 5 MB (RequestPayloadSizeLimitExceeded, and nothing of it is applied), so the rows to write are packed, in sheet
 * order, into as few requests as fit under a budget below that limit. Each row's size is measured by the host from what
 * it really sends (the JSON of its values, number formats and colours); this module only packs. Pure: no Office.
 */

/** Excel on the web's request limit, read as 5,000,000 bytes (the smaller reading of "5 MB"; 5 MiB is 5,242,880). */
export const EXCEL_REQUEST_LIMIT_BYTES = 5_000_000;

/**
 * What one range costs a request beyond its cells' JSON: Office.js sends each `getRangeByIndexes` as an object path
 * (its id, parent, method name and four arguments) and each property set or method call as an action naming that path
 * (about 120 bytes each, written out). A range with values, number formats or cell properties set is a path and one or
 * two actions: 512 bytes is more than that, so it is counted for every range, measured or not.
 */
export const RANGE_OVERHEAD_BYTES = 512;

/**
 * The budget of one request: 90 % of the limit. The rows' JSON and each range's overhead are counted above; the 10 %
 * left covers what is not: the request's own envelope (a few hundred bytes), and a server that counts its limit
 * differently from our JSON (digits of a number written out differently, escapes).
 */
export const EXCEL_REQUEST_BUDGET_BYTES = Math.floor(EXCEL_REQUEST_LIMIT_BYTES * 0.9);

/** A character outside ASCII (one UTF-16 unit): the only ones that take more than one byte. */
const NON_ASCII = /[^\0-\x7f]/g;

/**
 * UTF-8 bytes of a JSON text (what goes over the wire): non-ASCII characters take two to four bytes, not one. Every
 * row of a large write is measured, so the scan for them is the regular expression engine's, which steps over ASCII
 * several times faster than a loop over the characters here; only the characters it finds are looked at.
 */
export function utf8Bytes(text: string): number {
  let n = text.length;
  NON_ASCII.lastIndex = 0;
  for (let m = NON_ASCII.exec(text); m; m = NON_ASCII.exec(text)) {
    const c = text.charCodeAt(m.index);
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 2; // a surrogate pair: 4 bytes for 2 UTF-16 units
      NON_ASCII.lastIndex++;
    } else n += 2;
  }
  return n;
}

/** The JSON size in bytes of a value, as a request carries it. */
export const jsonBytes = (v: unknown): number => utf8Bytes(JSON.stringify(v) ?? "");

/** One range of a request: rows `start` to `end` (inclusive, offsets into the block), and what they weigh. */
export interface WritePiece {
  start: number;
  end: number;
  bytes: number;
}

/** One request: its ranges, and their bytes in all (row JSON plus each range's overhead). */
export interface WriteChunk {
  pieces: WritePiece[];
  bytes: number;
}

export interface ChunkOptions {
  /** Bytes per request; default EXCEL_REQUEST_BUDGET_BYTES. */
  budgetBytes?: number;
  /** What each range of a piece costs beyond its rows (all the ranges one piece writes); default RANGE_OVERHEAD_BYTES. */
  pieceOverheadBytes?: number;
  /** Rows per request, whatever their size (none by default). */
  maxRows?: number;
}

/**
 * Packs runs of rows (inclusive [first, last] offsets, in order) into requests: greedily, each request filled to the
 * budget before the next starts, a run cut where a request is full (its rest opens the next one). A row too large for
 * a request on its own still goes, alone: Excel is then the judge, and its refusal is reported.
 */
export function packWriteChunks(
  runs: readonly (readonly [number, number])[],
  rowBytes: (offset: number) => number,
  opts: ChunkOptions = {},
): WriteChunk[] {
  const budget = opts.budgetBytes ?? EXCEL_REQUEST_BUDGET_BYTES;
  const overhead = opts.pieceOverheadBytes ?? RANGE_OVERHEAD_BYTES;
  const maxRows = opts.maxRows ?? Infinity;
  const chunks: WriteChunk[] = [];
  let chunk: WriteChunk = { pieces: [], bytes: 0 };
  let rows = 0;
  const close = () => {
    if (chunk.pieces.length) chunks.push(chunk);
    chunk = { pieces: [], bytes: 0 };
    rows = 0;
  };
  for (const [first, last] of runs) {
    let piece: WritePiece | null = null;
    for (let r = first; r <= last; r++) {
      const b = rowBytes(r);
      const add = piece ? b : b + overhead;
      if (chunk.pieces.length && (chunk.bytes + add > budget || rows + 1 > maxRows)) {
        close();
        piece = null;
      }
      if (!piece) {
        piece = { start: r, end: r, bytes: overhead };
        chunk.pieces.push(piece);
        chunk.bytes += overhead;
      }
      piece.end = r;
      piece.bytes += b;
      chunk.bytes += b;
      rows++;
    }
  }
  close();
  return chunks;
}

/** The fewest requests `totalBytes` could ever take under `limitBytes`: the floor a packing is measured against. */
export const requestFloor = (totalBytes: number, limitBytes = EXCEL_REQUEST_LIMIT_BYTES): number =>
  Math.max(1, Math.ceil(totalBytes / limitBytes));
