/**
 * A property's country and obligations from its check result alone, for what knows a property by its UPRN and not by a
 * row (Excel's COMPLIANCE functions and their card): the results block's own rules, so that a formula and the block's
 * row for the same property and day always agree.
 */
import { rulesCountry, type CountryAnswer } from "./country";
import { obligationsFor, type Obligation, type ObligationOptions } from "./obligations";
import { rowPlace } from "./row-place";
import type { CheckResult } from "../service/schemas";

/** The one header core/compliance/row-place.ts reads a typed country under. */
const COUNTRY_HEADER = ["Country"];

/**
 * The country of a checked property by the block's rule (core/compliance/row-place.ts `rowPlace`): a Country the user gives (the
 * table's Country cell, passed to the function) when it names a place, else the postcode that ends the service's
 * matched address. Undefined when neither tells anything: England's rules, as on a block row with no postcode.
 */
export function resultCountry(result: Pick<CheckResult, "address">, countryCell?: unknown): CountryAnswer | undefined {
  return rowPlace(COUNTRY_HEADER, [countryCell ?? ""], { address: result.address }).country;
}

/**
 * Every obligation of a property in its country, most urgent first; null outside these rules (Northern Ireland and the
 * Crown dependencies: no country's deadlines, and the country's message says why).
 */
export function obligationsIn(
  result: CheckResult,
  country: CountryAnswer | undefined,
  o: Omit<ObligationOptions, "country">,
): Obligation[] | null {
  const rules = country ? rulesCountry(country) : undefined;
  return rules === null ? null : obligationsFor(result, { ...o, country: rules });
}

/** The most urgent obligation with something to do, as the block's Next action shows it (null: none, or out of scope). */
export function nextObligationIn(
  result: CheckResult,
  country: CountryAnswer | undefined,
  o: Omit<ObligationOptions, "country">,
): Obligation | null {
  return nextOf(obligationsIn(result, country, o));
}

/** Of a property's obligations (obligationsIn's answer), the most urgent with something to do. */
export function nextOf(obligations: readonly Obligation[] | null): Obligation | null {
  return obligations?.find((x) => x.action !== "") ?? null;
}
