/**
 * A real spreadsheet formula engine (HyperFormula) for tests: the stand-ins of Excel and Google Sheets store formulas as
 * text, and this computes them over the same cells, so a test can compare a COUNTIF's answer with the cells it counts.
 * Test-only (HyperFormula's GPL-3.0 licence key is for this non-distributed use); nothing of it reaches a bundle.
 */
import { HyperFormula } from "hyperformula";

export type Grid = unknown[][];

function cellForEngine(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  // A Date (from any realm: the Apps Script vm's too) as its serial, as Sheets hands dates back.
  if (Object.prototype.toString.call(v) === "[object Date]") return (v as Date).getTime() / 86_400_000 + 25569;
  if (typeof v === "string" && v.startsWith("'")) return v.slice(1);
  return v;
}

/** The computed values of `sheet` when every sheet of `sheets` is loaded (formulas are strings starting with "="). */
export function computeSheet(sheets: Record<string, Grid>, sheet: string): unknown[][] {
  const data: Record<string, unknown[][]> = {};
  for (const [name, grid] of Object.entries(sheets)) data[name] = grid.map((r) => r.map(cellForEngine));
  const hf = HyperFormula.buildFromSheets(data as never, { licenseKey: "gpl-v3" });
  try {
    const id = hf.getSheetId(sheet);
    if (id === undefined) throw new Error(`no sheet ${sheet} among ${hf.getSheetNames().join(", ")}`);
    return hf.getSheetValues(id) as unknown[][];
  } finally {
    hf.destroy();
  }
}
