/**
 * Sheet rows to properties: find the UPRN / Postcode / Address columns, validate and normalise each row,
 * and give every row either a property to check or an error of its own. No row is dropped.
 */
import { fix as fixPostcode, isValid as isValidPostcode, toNormalised } from "postcode";

export interface PropertyQuery {
  uprn?: string;
  postcode?: string;
  address?: string;
}

/** 0-based column indexes into the values passed in. */
export interface ColumnMapping {
  uprn?: number;
  postcode?: number;
  address?: number;
}

export interface RowIssue {
  code: string;
  message: string;
}

export interface InputRow {
  /** Row index in the values passed in (the header row included). */
  index: number;
  property?: PropertyQuery;
  /** Identity used to send each distinct property once. */
  key?: string;
  error?: RowIssue;
  /** Something we changed, e.g. a postcode we corrected; shown to the user. */
  note?: string;
}

export interface ReadRowsResult {
  mapping: ColumnMapping | null;
  /** Index of the header row, or null when the values have none. */
  headerRow: number | null;
  rows: InputRow[];
  /** Set when no UPRN or Postcode column could be found: nothing can be checked. */
  problem?: string;
}

const HEADER_WORDS: Record<keyof ColumnMapping, RegExp> = {
  uprn: /^(uprn|property ?(ref|reference)( ?(no|number))?|unique property reference( number)?)$/,
  postcode: /^(postcode|postal ?code|zip|zip ?code)$/,
  address:
    /^(address|address ?line ?1|address ?1|line ?1|first line( of address)?|street( address)?|property address|house|building)$/,
};

/**
 * A header cell as plain lower-case words: "(12 digits)" and other bracketed notes, punctuation and
 * underscores go; "U.P.R.N." and "Post-code" read as "uprn" and "postcode".
 */
function headerText(v: unknown): string {
  if (typeof v !== "string") return "";
  const t = stripInvisible(v)
    .toLowerCase()
    .replace(/\([^)]*\)|\[[^\]]*\]/g, " ")
    .replace(/\bu\W?p\W?r\W?n\b\W?/g, "uprn ")
    .replace(/\bpost\W?code/g, "postcode")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
  return t;
}

/** The plain word for each input column: it wins over a synonym elsewhere in the row ("UPRN" over "Property ref"). */
const PLAIN_WORD: Record<keyof ColumnMapping, RegExp> = {
  uprn: /^uprn$/,
  postcode: /^postcode$/,
  address: /^address$/,
};

/** A header that names the word among others ("Property UPRN", "UPRN no", "Property postcode"). */
const HAS_WORD: Partial<Record<keyof ColumnMapping, RegExp>> = { uprn: /\buprn\b/, postcode: /\bpostcode\b/ };

/**
 * Someone else's postcode or reference (the landlord's, the agent's), or what the service matched (the add-ins' own
 * "Matched UPRN" results column): never the property's input.
 */
const NOT_THE_PROPERTY =
  /\b(landlord|owner|agent|agency|tenant|contact|billing|correspondence|forwarding|office|parent|old|previous|matched)\b/;

/** How well a header names a column: 3 the plain word, 2 a known synonym, 1 a header containing the word, 0 not at all. */
function headerRank(t: string, key: keyof ColumnMapping): number {
  if (!t) return 0;
  if (PLAIN_WORD[key].test(t)) return 3;
  if (HEADER_WORDS[key].test(t)) return 2;
  if (HAS_WORD[key]?.test(t) && !NOT_THE_PROPERTY.test(t)) return 1;
  return 0;
}

/** How well one header cell names an input column (3 the plain word, 2 a synonym, 1 containing the word, 0 not). */
export function headerCellRank(cell: unknown, key: keyof ColumnMapping): number {
  return headerRank(headerText(cell), key);
}

/** Find our input columns in a header row; null if it has neither a UPRN nor a Postcode header. */
export function detectColumns(headerRow: readonly unknown[]): ColumnMapping | null {
  const mapping: ColumnMapping = {};
  const best: Partial<Record<keyof ColumnMapping, number>> = {};
  headerRow.forEach((cell, i) => {
    const t = headerText(cell);
    for (const key of Object.keys(HEADER_WORDS) as (keyof ColumnMapping)[]) {
      const rank = headerRank(t, key);
      // The best-ranked header wins; among equals, the leftmost.
      if (rank > (best[key] ?? 0)) {
        mapping[key] = i;
        best[key] = rank;
      }
    }
  });
  if (mapping.address !== undefined && (mapping.address === mapping.uprn || mapping.address === mapping.postcode))
    delete mapping.address;
  return mapping.uprn !== undefined || mapping.postcode !== undefined ? mapping : null;
}

/**
 * Every Unicode format character (category Cf: zero-width spaces and joiners, soft hyphens, bidi marks and
 * isolates, invisible operators, the Mongolian vowel separator, byte-order marks) that copy-paste from web
 * pages, PDFs and other programs leaves in cells and keys. U+180E is listed as well because Unicode data before
 * 6.3 classed it as a space, and the zero-width characters the list held before \p{Cf} are all Cf.
 */
const INVISIBLE = /[\p{Cf}\u180e\u200b-\u200d\u2060\ufeff]/gu;

export function stripInvisible(s: string): string {
  return s.replace(INVISIBLE, "");
}

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "string" && stripInvisible(v).trim() === "");
}

function cellPreview(v: unknown): string {
  const s = v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** What Sheets and Excel hand a script for a cell that shows an error (#N/A, #REF!, ...). */
const CELL_ERROR = /^#(N\/A|REF!|VALUE!|DIV\/0!|NAME\?|NUM!|NULL!|ERROR!|SPILL!|CALC!|GETTING_DATA|BUSY!)$/i;

/** A cell that cannot hold a UPRN or postcode whatever its text: an error value, a date, true/false. */
function cellKindIssue(v: unknown, what: "UPRN" | "postcode", code: string): RowIssue | null {
  if (typeof v === "string" && CELL_ERROR.test(v.trim())) {
    return {
      code,
      message: `The ${what} cell shows the error ${v.trim().toUpperCase()}; fix the formula or value in that cell.`,
    };
  }
  if (Object.prototype.toString.call(v) === "[object Date]") {
    return {
      code,
      message: `The ${what} cell holds a date (${cellPreview(v)}), not a ${what}: the column may be formatted as a date; format it as plain text and enter the ${what} again.`,
    };
  }
  if (typeof v === "boolean")
    return { code, message: `The ${what} cell holds ${v ? "TRUE" : "FALSE"} (a checkbox?), not a ${what}.` };
  return null;
}

/** A UPRN is 1 to 12 digits, kept as text; a number typed into a cell is accepted. */
export function normaliseUprn(v: unknown): { uprn: string } | { error: RowIssue } {
  const kind = cellKindIssue(v, "UPRN", "invalid_uprn");
  if (kind) return { error: kind };
  if (typeof v === "number") {
    if (Number.isInteger(v) && v >= 0 && v < 1e12) return { uprn: String(v) };
    return {
      error: { code: "invalid_uprn", message: `UPRN ${cellPreview(v)} is not a whole number of up to 12 digits.` },
    };
  }
  if (typeof v === "string") {
    // Text imported from elsewhere may keep the apostrophe or quotes that marked it as text.
    // A CSV written from a number column may add ".0" ("100023336956.0"): the same whole number.
    const s = stripInvisible(v)
      .trim()
      .replace(/^['\u2018\u2019"\u201c]+|['\u2019"\u201d]+$/g, "")
      .replace(/[\s\u00a0]+/g, "")
      .replace(/^(\d+)\.0+$/, "$1");
    if (/^\d{1,12}$/.test(s)) return { uprn: s };
    if (/^\d+$/.test(s))
      return {
        error: {
          code: "invalid_uprn",
          message: `UPRN "${cellPreview(v)}" has ${s.length} digits; a UPRN has at most 12: check it for an extra digit or a reference pasted into it.`,
        },
      };
    if (/^\d+(\.\d+)?e\+?\d+$/i.test(s)) {
      return {
        error: {
          code: "invalid_uprn",
          message: `UPRN "${cellPreview(v)}" is in scientific notation, so its last digits are lost: format the column as plain text and enter the full UPRN again.`,
        },
      };
    }
    return {
      error: {
        code: "invalid_uprn",
        message: `UPRN "${cellPreview(v)}" is not valid: a UPRN is up to 12 digits. Correct it, or clear it and give the postcode.`,
      },
    };
  }
  return {
    error: {
      code: "invalid_uprn",
      message: `UPRN ${cellPreview(v)} is not valid: a UPRN is up to 12 digits. Correct it, or clear it and give the postcode.`,
    },
  };
}

/** A UK postcode, normalised to "SW1A 2AA"; common slips (O for 0, missing space) are fixed and noted. */
export function normalisePostcode(v: unknown): { postcode: string; note?: string } | { error: RowIssue } {
  const kind = cellKindIssue(v, "postcode", "invalid_postcode");
  if (kind) return { error: kind };
  const raw =
    typeof v === "string" ? stripInvisible(v).trim().replace(/\s+/g, " ") : typeof v === "number" ? String(v) : "";
  if (raw && isValidPostcode(raw)) return { postcode: toNormalised(raw) as string };
  if (raw) {
    const fixed = fixPostcode(raw);
    if (fixed && isValidPostcode(fixed)) {
      const normal = toNormalised(fixed) as string;
      return { postcode: normal, note: `Postcode "${raw}" read as ${normal}.` };
    }
  }
  return {
    error: {
      code: "invalid_postcode",
      message: `Postcode "${cellPreview(v)}" is not a valid UK postcode: correct it (e.g. SW1A 2AA), or give the UPRN.`,
    },
  };
}

/** Identity of a property: a UPRN without its leading zeros, or the postcode with the address. */
export function propertyKey(p: PropertyQuery): string {
  if (p.uprn) return `u:${p.uprn.replace(/^0+(?=\d)/, "")}`;
  const address = (p.address ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
  return `p:${(p.postcode ?? "").replace(/\s/g, "").toUpperCase()}|${address}`;
}

/** Validate and normalise one property, from cells or from a caller's object. */
export function normaliseProperty(uprnCell: unknown, postcodeCell: unknown, addressCell: unknown): InputRow {
  const row: InputRow = { index: -1 };
  // "TBC", "N/A", "-" and the like in the UPRN column say there is no UPRN yet: the postcode (when there is one) is used.
  if (isPlaceholder(uprnCell) && !isBlank(postcodeCell)) {
    const byPostcode = normaliseProperty(undefined, postcodeCell, addressCell);
    const said = `UPRN cell "${cellPreview(uprnCell).trim()}" is not a UPRN, so the row was checked by its postcode.`;
    return byPostcode.error ? byPostcode : { ...byPostcode, note: [said, byPostcode.note].filter(Boolean).join(" ") };
  }
  if (!isBlank(uprnCell)) {
    const u = normaliseUprn(uprnCell);
    if ("error" in u) row.error = u.error;
    else {
      row.property = { uprn: u.uprn };
      row.key = propertyKey(row.property);
    }
    return row;
  }
  if (!isBlank(postcodeCell)) {
    const p = normalisePostcode(postcodeCell);
    if ("error" in p) {
      row.error = p.error;
      return row;
    }
    row.property = { postcode: p.postcode };
    if (p.note) row.note = p.note;
    // An address formula that failed (#N/A) must not be sent as the address.
    if (typeof addressCell === "string" && CELL_ERROR.test(addressCell.trim())) {
      return {
        index: -1,
        error: {
          code: "invalid_address",
          message: `The Address cell shows the error ${addressCell.trim().toUpperCase()}; fix the formula or value in that cell.`,
        },
      };
    }
    if (!isBlank(addressCell)) {
      const address = stripInvisible(String(addressCell instanceof Date ? cellPreview(addressCell) : addressCell))
        .trim()
        .replace(/\s+/g, " ");
      if (address.length > 200) {
        return {
          index: -1,
          error: {
            code: "invalid_address",
            message: "The address is longer than 200 characters; give the first line only.",
          },
        };
      }
      row.property.address = address;
    }
    row.key = propertyKey(row.property);
    return row;
  }
  row.error = isBlank(addressCell)
    ? { code: "empty_row", message: "No UPRN or postcode in this row: add one, or leave the row out of the selection." }
    : { code: "missing_postcode", message: "An address needs its postcode (or give the UPRN)." };
  return row;
}

/** Words people put in a cell to say "no value yet". */
const PLACEHOLDER = /^(tbc|tba|tbd|n\/?a|none|nil|unknown|not known|n\/?k|pending|awaiting|to follow|-+|\?+|x)$/i;

function isPlaceholder(v: unknown): boolean {
  return typeof v === "string" && PLACEHOLDER.test(stripInvisible(v).trim().replace(/\.$/, ""));
}

function looksLikeHeader(row: readonly unknown[]): boolean {
  return detectColumns(row) !== null;
}

/**
 * Read a block of sheet values. With no mapping, the first row must be a header naming a UPRN or
 * Postcode column; with a mapping, a first row that looks like a header is skipped unless hasHeader=false.
 */
export function readPropertyRows(
  values: readonly (readonly unknown[])[],
  opts: { mapping?: ColumnMapping; hasHeader?: boolean } = {},
): ReadRowsResult {
  let mapping: ColumnMapping | null = opts.mapping ?? null;
  let headerRow: number | null = null;
  if (values.length && (opts.hasHeader === true || (opts.hasHeader === undefined && looksLikeHeader(values[0]))))
    headerRow = 0;
  if (!mapping && headerRow === 0) mapping = detectColumns(values[0]);
  if (!mapping || (mapping.uprn === undefined && mapping.postcode === undefined)) {
    return {
      mapping: null,
      headerRow,
      rows: [],
      problem:
        "No UPRN or Postcode column found. Select rows with a header row naming a UPRN or Postcode column, or choose the columns by hand.",
    };
  }
  const m = mapping;
  const rows: InputRow[] = [];
  for (let i = headerRow === null ? 0 : headerRow + 1; i < values.length; i++) {
    const r = values[i] ?? [];
    const cell = (c: number | undefined) => (c === undefined ? undefined : r[c]);
    const row = normaliseProperty(cell(m.uprn), cell(m.postcode), cell(m.address));
    row.index = i;
    rows.push(row);
  }
  return { mapping: m, headerRow, rows };
}
