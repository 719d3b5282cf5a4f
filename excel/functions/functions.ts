/**
 * The COMPLIANCE.* custom functions. Each JSDoc block is the function's help in Excel's formula autocomplete and,
 * through custom-functions-metadata-plugin, its entry in functions.json (never written by hand).
 */
import {
  DATE_FORMAT,
  dateSerial,
  displayStatus,
  countryMessage,
  isCheckName,
  nextObligationIn,
  obligationsIn,
  outputHeaders,
  outputRow,
  propertyCard,
  resultCountry,
  type CheckName,
  type CheckResult,
} from "../../core";
import { complianceRuntime } from "../runtime";
import { toFunctionError } from "./batcher";
import { dataTypesSupported, toEntityValue } from "./card";

/** Every failure becomes #N/A or #VALUE! with a message, so no promise is left pending (#BUSY!). */
function cellError(e: unknown): CustomFunctions.Error {
  const f = toFunctionError(e);
  const code =
    f.code === "invalidValue" ? CustomFunctions.ErrorCode.invalidValue : CustomFunctions.ErrorCode.notAvailable;
  return new CustomFunctions.Error(code, f.message.slice(0, 255));
}

async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    // Our own cell errors (unknown check name, missing field) already say what is wrong.
    throw e instanceof CustomFunctions.Error ? e : cellError(e);
  }
}

function notAvailable(message: string): CustomFunctions.Error {
  return new CustomFunctions.Error(CustomFunctions.ErrorCode.notAvailable, message);
}

const CHECK_ALIASES: Record<string, CheckName> = {
  gas: "gas_safety",
  gas_safety_certificate: "gas_safety",
  deposit: "deposit_protection",
  electrical: "eicr",
  licence: "licensing",
  license: "licensing",
  energy: "epc",
};

function checkName(input: unknown): CheckName {
  const w = String(input ?? "")
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  const name = CHECK_ALIASES[w] ?? w;
  if (!isCheckName(name)) {
    throw new CustomFunctions.Error(
      CustomFunctions.ErrorCode.invalidValue,
      `Unknown check "${String(input)}": use epc, gas_safety, eicr, licensing or deposit_protection.`,
    );
  }
  return name;
}

function member(result: CheckResult, name: CheckName): Record<string, unknown> {
  const m = (result.checks as Record<string, Record<string, unknown> | undefined>)[name];
  if (!m) throw notAvailable(`the service returned no ${name} check`);
  return m;
}

async function checkOf(uprn: unknown): Promise<{ result: CheckResult; checkedAt: string }> {
  return complianceRuntime().batcher.check(uprn);
}

/**
 * The user's saved windows (Settings in the pane; the same store and SettingsStore the results block's runs read, on
 * the shared runtime's one page), so a card, NEXTACTION, DUE and the block give the same window for the same day.
 */
async function savedWindows() {
  return (await complianceRuntime().settings.load()).windows;
}

/**
 * Overall compliance score of a property, 0 to 100 (100 when every check passes).
 * @customfunction SCORE
 * @param uprn Unique Property Reference Number: up to 12 digits, e.g. "100023336956" or a cell holding it.
 * @returns The compliance score.
 * @helpurl https://localhost:3000/help.html#score
 */
export async function score(uprn: any): Promise<number> {
  return guarded(async () => {
    const { result } = await checkOf(uprn);
    if (typeof result.compliance_score !== "number") throw notAvailable("the service returned no compliance score");
    return result.compliance_score;
  });
}

/**
 * Risk level of a property as the service rates it: low, medium or high.
 * @customfunction RISK
 * @param uprn Unique Property Reference Number: up to 12 digits, e.g. "100023336956".
 * @returns The risk level word.
 * @helpurl https://localhost:3000/help.html#risk
 */
export async function risk(uprn: any): Promise<string> {
  return guarded(async () => {
    const { result } = await checkOf(uprn);
    if (!result.risk_level) throw notAvailable("the service returned no risk level");
    return result.risk_level;
  });
}

/**
 * Status of one compliance check of a property: pass, warning, fail, not_required (or unknown for a word the add-in does not know).
 * @customfunction STATUS
 * @param uprn Unique Property Reference Number: up to 12 digits, e.g. "100023336956".
 * @param check Which check: "epc", "gas_safety", "eicr", "licensing" or "deposit_protection".
 * @returns The check's status word.
 * @helpurl https://localhost:3000/help.html#status
 */
export async function status(uprn: any, check: string): Promise<string> {
  return guarded(async () => {
    const name = checkName(check);
    const { result } = await checkOf(uprn);
    return displayStatus(member(result, name).status);
  });
}

/** A formatted number value (a date Excel shows as yyyy-mm-dd), or the plain serial where data types are not supported. */
export type DateCell = number | { type: "FormattedNumber"; basicValue: number; numberFormat: string };

/**
 * A date as Excel treats dates, so that =COMPLIANCE.DUE(A2)-TODAY() works: a formatted number value (the date format
 * travels with the value) where custom functions may return data types (CustomFunctionsRuntime 1.4 with ExcelApi
 * 1.16), else the date serial (format the cell as a date to see it as one).
 */
export function dateCell(iso: string): DateCell {
  const serial = dateSerial(iso);
  if (serial === null) throw notAvailable(`"${iso}" is not a date`);
  return dataTypesSupported() ? { type: "FormattedNumber", basicValue: serial, numberFormat: DATE_FORMAT } : serial;
}

/**
 * What a property's day-counting functions count with: the workbook's today (the local day, as TODAY()), the saved
 * windows, and the country by the results block's rule (core/compliance/result-place.ts), so a formula agrees with the block's row.
 * A Country the user passes (the table's Country cell) settles a district on both sides of a border, as in the block.
 */
async function countedNow(result: CheckResult, country: unknown) {
  const rt = complianceRuntime();
  return {
    country: resultCountry(result, country),
    options: { today: rt.today(), windows: await savedWindows() },
  };
}

/** Outside these rules (Northern Ireland, the Crown dependencies) no deadline is given: the cell says why. */
function outOfScope(place: ReturnType<typeof resultCountry>): CustomFunctions.Error | null {
  return place?.kind === "out_of_scope" ? notAvailable(countryMessage(place).slice(0, 255)) : null;
}

/**
 * Expiry date of a check's certificate ("epc", "gas_safety" or "eicr"), as a date: =COMPLIANCE.EXPIRY(A2,"eicr")-TODAY() gives the days left.
 * @customfunction EXPIRY
 * @param uprn Unique Property Reference Number: up to 12 digits, e.g. "100023336956".
 * @param check Which check: "epc", "gas_safety" or "eicr".
 * @returns The expiry date.
 * @helpurl https://localhost:3000/help.html#expiry
 */
export async function expiry(uprn: any, check: string): Promise<any> {
  return guarded(async () => {
    const name = checkName(check);
    const { result } = await checkOf(uprn);
    const m = member(result, name);
    if (typeof m.expiry !== "string" || !m.expiry) {
      throw notAvailable(
        displayStatus(m.status) === "not_required"
          ? `${name} is not required for this property`
          : `no ${name} expiry date on record`,
      );
    }
    return dateCell(m.expiry);
  });
}

/**
 * The property's most urgent action in plain words (gas check to book, EICR remedial work, licence to apply for...), counted from today by the rules of the property's country.
 * @customfunction NEXTACTION
 * @param uprn Unique Property Reference Number: up to 12 digits, e.g. "100023336956".
 * @param [country] England, Wales or Scotland when the postcode does not settle it (a district on both sides of a border); omit it to go by the postcode.
 * @returns The next action, or "No action due".
 * @helpurl https://localhost:3000/help.html#nextaction
 */
export async function nextaction(uprn: any, country?: any): Promise<string> {
  return guarded(async () => {
    const { result } = await checkOf(uprn);
    const at = await countedNow(result, country);
    const away = outOfScope(at.country);
    if (away) throw away;
    const next = nextObligationIn(result, at.country, at.options);
    return next ? next.action : "No action due";
  });
}

/**
 * The date the next action is due: for one check when given, else for the property's most urgent action. A date: =COMPLIANCE.DUE(A2)-TODAY() gives the days left.
 * @customfunction DUE
 * @param uprn Unique Property Reference Number: up to 12 digits, e.g. "100023336956".
 * @param [check] Which check: "epc", "gas_safety", "eicr", "licensing" or "deposit_protection"; omit it for the most urgent one.
 * @param [country] England, Wales or Scotland when the postcode does not settle it (a district on both sides of a border); omit it to go by the postcode.
 * @returns The due date.
 * @helpurl https://localhost:3000/help.html#due
 */
export async function due(uprn: any, check?: string, country?: any): Promise<any> {
  return guarded(async () => {
    const name = check === undefined || check === null || String(check).trim() === "" ? null : checkName(check);
    const { result } = await checkOf(uprn);
    const at = await countedNow(result, country);
    const away = outOfScope(at.country);
    if (away) throw away;
    const ob = name
      ? (member(result, name), obligationsIn(result, at.country, { ...at.options, checks: [name] })?.[0] ?? null)
      : nextObligationIn(result, at.country, at.options);
    if (!ob)
      throw notAvailable(
        name ? `${name} is not required for this property: nothing is due` : "no action is due for this property",
      );
    if (!ob.due) throw notAvailable(`no due date: ${ob.action || "nothing to do"}`);
    return dateCell(ob.due);
  });
}

/**
 * Energy Performance Certificate rating of a property: a letter from A to G.
 * @customfunction EPC
 * @param uprn Unique Property Reference Number: up to 12 digits, e.g. "100023336956".
 * @returns The EPC rating letter.
 * @helpurl https://localhost:3000/help.html#epc
 */
export async function epc(uprn: any): Promise<string> {
  return guarded(async () => {
    const { result } = await checkOf(uprn);
    const rating = member(result, "epc").rating;
    if (typeof rating !== "string" || !rating) throw notAvailable("no EPC rating on record");
    return rating;
  });
}

/**
 * Every result of a property in one row (score, risk, each check's status and dates, message), in the same columns as the task pane writes. Spills to the right; see COMPLIANCE.HEADERS for the header row.
 * @customfunction CHECK
 * @param uprn Unique Property Reference Number: up to 12 digits, e.g. "100023336956".
 * @param [country] England, Wales or Scotland when the postcode does not settle it (a district on both sides of a border); omit it to go by the postcode.
 * @returns One row of results.
 * @helpurl https://localhost:3000/help.html#check
 */
export async function check(uprn: any, country?: any): Promise<any[][]> {
  return guarded(async () => {
    const { result, checkedAt } = await checkOf(uprn);
    const at = await countedNow(result, country);
    // The row a check written today would give: its days counted from today, its country by the block's rule.
    const row = outputRow({ result }, checkedAt, undefined, undefined, {
      windows: at.options.windows,
      country: at.country,
      day: at.options.today,
    });
    // Spilled values are never parsed as formulas, so the apostrophe guard that protects written cells is not needed here.
    return [row.map((v) => (typeof v === "string" && v.startsWith("'") ? v.slice(1) : v))];
  });
}

/**
 * A property card: a data type whose text is the address and whose fields are the property's results (Score, Risk, Next action, Action due, Days left, Window, each check's status and dates, Last updated, Checked at). Reach a field with =B2.Score or =B2.[Next action]. Needs Excel with data types (Microsoft 365); elsewhere use COMPLIANCE.CHECK.
 * @customfunction PROPERTY
 * @param uprn Unique Property Reference Number: up to 12 digits, e.g. "100023336956" or a cell holding it.
 * @param [country] England, Wales or Scotland when the postcode does not settle it (a district on both sides of a border); omit it to go by the postcode.
 * @returns The property as a data type (an entity value).
 * @helpurl https://localhost:3000/help.html#property
 */
export async function property(uprn: any, country?: any): Promise<any> {
  return guarded(async () => {
    // Asked before any request: where a function cannot return a data type, no answer could be shown.
    if (!dataTypesSupported()) {
      throw notAvailable(
        "Property cards need Excel with data types (Microsoft 365: ExcelApi 1.16). Use =COMPLIANCE.CHECK(uprn) for the same results in one row.",
      );
    }
    const { result, checkedAt } = await checkOf(uprn);
    // Counted from today, as NEXTACTION and DUE are, so =B2.[Next action] and =COMPLIANCE.NEXTACTION(A2) agree.
    const at = await countedNow(result, country);
    return toEntityValue(propertyCard(result, checkedAt, { ...at.options, country: at.country }));
  });
}

/**
 * The header row of COMPLIANCE.CHECK's columns, to put above a column of CHECK formulas. Spills to the right.
 * @customfunction HEADERS
 * @returns One row of column headers.
 * @helpurl https://localhost:3000/help.html#headers
 */
export function headers(): string[][] {
  return [outputHeaders()];
}

/**
 * UPRN of the property at a postcode; give the first line of the address when the postcode has several properties.
 * @customfunction UPRN
 * @param postcode UK postcode, with or without the space, e.g. "SW1A 2AA".
 * @param [address] First line of the address, e.g. "10 Downing Street".
 * @returns The UPRN as text.
 * @helpurl https://localhost:3000/help.html#uprn
 */
export async function uprn(postcode: string, address?: string): Promise<string> {
  return guarded(async () => {
    const result = await complianceRuntime().lookups.property(postcode, address);
    return String(result.uprn);
  });
}

/**
 * Addresses found for a postcode or some address text: one row per address with its UPRN and full address. Spills down.
 * @customfunction ADDRESSES
 * @param postcode_or_text A UK postcode (e.g. "SW1A 2AA") or words of an address (e.g. "Downing Street London").
 * @returns Rows of UPRN and address.
 * @helpurl https://localhost:3000/help.html#addresses
 */
export async function addresses(postcode_or_text: string): Promise<string[][]> {
  return guarded(async () => {
    const list = await complianceRuntime().lookups.addresses(postcode_or_text);
    if (list.length === 0) throw notAvailable(`no addresses found for "${String(postcode_or_text).slice(0, 60)}"`);
    return list.map((a) => [a.uprn, a.address]);
  });
}
