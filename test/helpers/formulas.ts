/**
 * A real spreadsheet formula engine (HyperFormula) for tests: the stand-ins of Excel and Google Sheets store formulas as
 * text, and this computes them over the same cells, so a test can compare a COUNTIF's answer with the cells it counts.
 * Test-only (HyperFormula's GPL-3.0 licence key is for this non-distributed use); nothing of it reaches a bundle.
 */
import { HyperFormula } from "hyperformula";
import { columnLetter } from "./columns";

export type Grid = unknown[][];

function cellForEngine(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  // A Date (from any realm: the Apps Script vm's too) as its serial, as Sheets hands dates back.
  if (Object.prototype.toString.call(v) === "[object Date]") return (v as Date).getTime() / 86_400_000 + 25569;
  if (typeof v === "string" && v.startsWith("'")) return v.slice(1);
  return v;
}

/** An Excel Table as the stand-in describes it: 0-based top-left, size with the header row, its column names. */
export interface TableDef {
  name: string;
  sheet: string;
  r: number;
  c: number;
  rows: number;
  cols: number;
  headers: string[];
}

/** Column letters of a 0-based column index. */
const letters = (i: number): string => columnLetter(i + 1);
/** Excel escapes ' [ ] # in a column specifier with a leading '. */
const unescape = (name: string) => name.trim().replace(/'(.)/g, "$1");

/**
 * Excel's structured references (`Properties[EPC status]`, `Properties[[#Headers],[Notes]]`, `Properties[#All]`,
 * `Properties[[Score]:[Message]]`) turned into the A1 ranges they name, as Excel resolves them, for an engine that knows
 * no Tables. A table name alone or `[#Data]` is the data rows; an unknown table or column is left as it is (the engine then
 * reports #NAME?, as Excel would).
 */
export function structuredToA1(formula: string, tables: readonly TableDef[]): string {
  if (!tables.length) return formula;
  // Outside string literals only: "text [in brackets]" stays text.
  return formula
    .split(/("(?:[^"]|"")*")/)
    .map((part, i) =>
      i % 2
        ? part
        : part.replace(
            /([A-Za-z_\\][\w.\\]*)\[((?:[^[\]]|\[(?:[^\]']|'.)*\])*)\]/g,
            (whole, name: string, spec: string) => resolve(whole, name, spec, tables),
          ),
    )
    .join("");
}

function resolve(whole: string, name: string, spec: string, tables: readonly TableDef[]): string {
  const t = tables.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!t) return whole;
  const items = spec.includes("[")
    ? [...spec.matchAll(/\[((?:[^\]']|'.)*)\]|(:)/g)].map((m) => (m[2] ? ":" : m[1]))
    : spec.trim()
      ? [spec]
      : [];
  let rows: [number, number] = [t.r + 1, t.r + t.rows - 1];
  let cols: [number, number] = [t.c, t.c + t.cols - 1];
  const col = (n: string) => t.headers.findIndex((h) => h.toLowerCase() === unescape(n).toLowerCase());
  for (let k = 0; k < items.length; k++) {
    const it = items[k];
    const key = it.trim().toLowerCase();
    if (key === "#all") rows = [t.r, t.r + t.rows - 1];
    else if (key === "#headers") rows = [t.r, t.r];
    else if (key === "#data") rows = [t.r + 1, t.r + t.rows - 1];
    else if (it === ":") continue;
    else {
      const a = col(it);
      if (a < 0) return whole;
      const b = items[k + 1] === ":" && items[k + 2] !== undefined ? col(items[k + 2]) : a;
      if (b < 0) return whole;
      cols = [t.c + Math.min(a, b), t.c + Math.max(a, b)];
      if (items[k + 1] === ":") k += 2;
    }
  }
  const sheet = `'${t.sheet.replace(/'/g, "''")}'`;
  return `${sheet}!$${letters(cols[0])}$${rows[0] + 1}:$${letters(cols[1])}$${rows[1] + 1}`;
}

/**
 * The computed values of `sheet` when every sheet of `sheets` is loaded (formulas are strings starting with "="). With
 * `tables`, structured references to them are resolved first (HyperFormula has no Excel Tables).
 */
export function computeSheet(
  sheets: Record<string, Grid>,
  sheet: string,
  opts: { tables?: readonly TableDef[] } = {},
): unknown[][] {
  const data: Record<string, unknown[][]> = {};
  const tables = opts.tables ?? [];
  const cell = (v: unknown) =>
    tables.length && typeof v === "string" && v.startsWith("=") ? structuredToA1(v, tables) : v;
  for (const [name, grid] of Object.entries(sheets)) data[name] = grid.map((r) => r.map((v) => cellForEngine(cell(v))));
  const hf = HyperFormula.buildFromSheets(data as never, { licenseKey: "gpl-v3" });
  try {
    const id = hf.getSheetId(sheet);
    if (id === undefined) throw new Error(`no sheet ${sheet} among ${hf.getSheetNames().join(", ")}`);
    return hf.getSheetValues(id) as unknown[][];
  } finally {
    hf.destroy();
  }
}
