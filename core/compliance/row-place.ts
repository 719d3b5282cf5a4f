/**
 * Where a row's property is, as the rules read it: one rule for both hosts, which only read the cells. The country comes from the user's "Country" column when it names a place (it settles a district on both
 * sides of a border), else from the postcode: the user's Postcode input column, else the postcode that ends the
 * service's matched address (the service's result carries no postcode field of its own; its `address` is the matched
 * address, "…, Town, CF10 1AA"). The row's "Tenancy start" is one of its typed dates (core/sheet/row-dates.ts).
 */
import { rowCountry, type CountryAnswer } from "./country";
import { detectContextColumns } from "./own-obligations";
import type { Outcome } from "../run/plan";

export interface RowPlace {
  /** Undefined when nothing tells the place (no postcode column, no Country column, no matched address): England's rules, as ever. */
  country?: CountryAnswer;
}

export interface RowPlaceOptions {
  /** 0-based column of the user's Postcode input, in the same coordinates as `header` and `row`. */
  postcodeColumn?: number;
  /** Columns that are not the user's (our results block). */
  exclude?: ReadonlySet<number>;
  /**
   * The table's Country column, as detectContextColumns(header, exclude) finds it: given by a caller placing many rows
   * of one table, so that the header is read once, not once per row.
   */
  context?: { country?: number };
}

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

/**
 * The row's country for the results block (core/sheet/layout.ts RowContext) and the Action list, from the
 * table's header row, the row's cells (same columns) and the service's answer for it (when there is one).
 */
export function rowPlace(
  header: readonly unknown[] | undefined,
  row: readonly unknown[] | undefined,
  outcome: Outcome | { address?: unknown } | undefined,
  o: RowPlaceOptions = {},
): RowPlace {
  const cols = o.context ?? (header ? detectContextColumns(header, o.exclude) : {});
  const cells = row ?? [];
  if (outcome && "error" in outcome) return {};
  const matched =
    outcome && "result" in outcome
      ? outcome.result.address
      : outcome && "address" in outcome
        ? outcome.address
        : undefined;
  const postcode = o.postcodeColumn !== undefined ? cells[o.postcodeColumn] : undefined;
  const typed = cols.country !== undefined ? cells[cols.country] : undefined;
  const known = text(postcode) !== "" || text(typed) !== "" || text(matched) !== "";
  return known ? { country: rowCountry(text(postcode), typed, matched) } : {};
}
