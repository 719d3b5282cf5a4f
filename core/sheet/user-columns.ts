/**
 * The user's own columns that the obligations read (EICR date, licence expiry, deposit received, owner, address), found
 * by header with the same words in both hosts, and a date as a cell hands it back. Apart from core/reports/actions.ts so that a
 * host reading rows needs only this, not the Action list and summary builders.
 */
import { isoDay, serialDate, type UserDates } from "../compliance/obligations";
import { readUserDate, type ReadDateOptions } from "./user-dates";

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

/** A date as a cell hands it back (YYYY-MM-DD text, a date serial, a Date object) as YYYY-MM-DD, else null. */
export function cellDay(v: unknown): string | null {
  if (typeof v === "number") return serialDate(v);
  if (v && typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]") {
    const ms = (v as Date).getTime();
    // A date-only cell is local midnight, up to 14 hours either side of UTC midnight: the nearest UTC midnight is its day.
    return Number.isFinite(ms) ? new Date(ms + 12 * 3600 * 1000).toISOString().slice(0, 10) : null;
  }
  return isoDay(text(v));
}

const USER_HEADERS: Record<keyof UserDates | "owner" | "address" | "assignee", RegExp> = {
  eicrDate:
    /^(eicr|electrical (safety )?(report|inspection|certificate))( (inspection|report|test|certificate))? date$|^date of (last )?eicr$|^last eicr$/,
  licenceExpiry: /^licen[cs]e (expiry|expires|end|end date|expiry date|renewal( date)?)$/,
  depositReceived: /^(deposit (received|paid|taken)|date deposit (received|paid))( date| on)?$/,
  owner: /^(owner|landlord|client|owner name|landlord name|owner \/ landlord|landlord \/ owner)$/,
  // Who the reminder digests send a row's actions to (core/reports/digest.ts).
  assignee: /^(assigned to|responsible|responsible person|assignee)$/,
  address:
    /^(address|property address|full address|address ?line ?1|line ?1|first line( of address)?|street( address)?)$/,
};

export interface UserColumns {
  eicrDate?: number;
  licenceExpiry?: number;
  depositReceived?: number;
  owner?: number;
  address?: number;
  assignee?: number;
}

/** Which of the user's columns (0-based in the header row) hold the dates the rules read, the owner and the address. */
export function detectUserColumns(header: readonly unknown[], exclude: ReadonlySet<number> = new Set()): UserColumns {
  const out: UserColumns = {};
  header.forEach((h, i) => {
    if (exclude.has(i)) return;
    const t = text(h)
      .toLowerCase()
      .replace(/[_\s]+/g, " ")
      .replace(/[:.]$/, "");
    for (const [k, re] of Object.entries(USER_HEADERS) as [keyof UserColumns, RegExp][]) {
      if (out[k] === undefined && re.test(t)) out[k] = i;
    }
  });
  return out;
}

const DATE_LABELS: Record<keyof UserDates, string> = {
  eicrDate: "EICR date",
  licenceExpiry: "Licence expiry",
  depositReceived: "Deposit received",
};

export interface UserDateOptions extends ReadDateOptions {
  /** The header row the columns were found in (columns at the same indexes as `row`): problems name the user's header. */
  header?: readonly unknown[];
}

/**
 * A row's own dates, each read by core's one rule (dates.ts, readUserDate), and a sentence for each cell that holds
 * something that is not a date it can read: hosts put those in the row's Message and count the rows in the summary.
 */
export function readUserDates(
  row: readonly unknown[],
  cols: UserColumns,
  o: UserDateOptions,
): { dates: UserDates; problems: string[] } {
  const dates: UserDates = {};
  const problems: string[] = [];
  for (const k of ["eicrDate", "licenceExpiry", "depositReceived"] as const) {
    const c = cols[k];
    if (c === undefined) continue;
    const label = text(o.header?.[c]) || DATE_LABELS[k];
    const r = readUserDate(row[c], label, o);
    if ("day" in r) dates[k] = r.day;
    else if ("problem" in r) problems.push(r.problem);
  }
  return { dates, problems };
}
