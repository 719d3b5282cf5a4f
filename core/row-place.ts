/**
 * Where a row's property is and when its tenancy began, as the rules read them: one rule for both hosts, which only read
 * the cells. The country comes from the user's "Country" column when it names a place (it settles a district on both
 * sides of a border), else from the postcode: the user's Postcode input column, else the postcode that ends the
 * service's matched address (the service's result carries no postcode field of its own; its `address` is the matched
 * address, "…, Town, CF10 1AA"). "Tenancy start" is read by the same date rule as every user date, or refused aloud.
 */
import { rowCountry, type CountryAnswer } from "./country";
import { readUserDate, type ReadDateOptions } from "./dates";
import { detectContextColumns } from "./own-obligations";
import type { Outcome } from "./plan";

export interface RowPlace {
  /** Undefined when nothing tells the place (no postcode column, no Country column, no matched address): England's rules, as ever. */
  country?: CountryAnswer;
  tenancyStart?: string;
  /** A Tenancy start cell that is not a date, in words for the row's Message. */
  problems: string[];
}

export interface RowPlaceOptions extends ReadDateOptions {
  /** 0-based column of the user's Postcode input, in the same coordinates as `header` and `row`. */
  postcodeColumn?: number;
  /** Columns that are not the user's (our results block). */
  exclude?: ReadonlySet<number>;
}

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

/**
 * The row's country and tenancy start for the results block (core/layout.ts RowContext) and the Action list, from the
 * table's header row, the row's cells (same columns) and the service's answer for it (when there is one).
 */
export function rowPlace(
  header: readonly unknown[] | undefined,
  row: readonly unknown[] | undefined,
  outcome: Outcome | { address?: unknown } | undefined,
  o: RowPlaceOptions = {},
): RowPlace {
  const cols = header ? detectContextColumns(header, o.exclude) : {};
  const cells = row ?? [];
  const problems: string[] = [];
  let tenancyStart: string | undefined;
  if (cols.tenancyStart !== undefined) {
    const r = readUserDate(cells[cols.tenancyStart], text(header?.[cols.tenancyStart]) || "Tenancy start", o);
    if ("day" in r) tenancyStart = r.day;
    else if ("problem" in r) problems.push(r.problem);
  }
  if (outcome && "error" in outcome) return { tenancyStart, problems };
  const matched =
    outcome && "result" in outcome
      ? outcome.result.address
      : outcome && "address" in outcome
        ? outcome.address
        : undefined;
  const postcode = o.postcodeColumn !== undefined ? cells[o.postcodeColumn] : undefined;
  const typed = cols.country !== undefined ? cells[cols.country] : undefined;
  const known = text(postcode) !== "" || text(typed) !== "" || text(matched) !== "";
  return {
    ...(known ? { country: rowCountry(text(postcode), typed, matched) } : {}),
    ...(tenancyStart ? { tenancyStart } : {}),
    problems,
  };
}
