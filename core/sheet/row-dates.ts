/**
 * A row's typed dates (EICR date, Licence expiry, Deposit received, Tenancy start and the own-obligation columns), read
 * once, by core's one rule (core/sheet/user-dates.ts) in the file's date order: the results block and the Action list (and so its
 * calendar and the summary's chart) take a row's days from this value, so that one cell never gives two days.
 *
 *   const reading = dateReading(header, { monthFirst, today }, ours);  // once per table: its columns, the file's order
 *   const dates = rowDates(row, reading);                              // once per row: every day, and what is unread
 */
import { readUserDate, type ReadDateOptions } from "./user-dates";
import type { UserDates } from "../compliance/obligations";
import { detectContextColumns, detectOwnColumns, ownInputsOf, type OwnColumn } from "../compliance/own-obligations";
import type { OwnInput } from "../compliance/own-rules";
import { detectUserColumns, readUserDates, type UserColumns } from "./user-columns";
import type { RowContext } from "./layout";

/** Which of a table's columns hold typed dates, and how the file writes them: made once from the header row. */
export interface DateReading {
  readonly header: readonly unknown[];
  readonly user: UserColumns;
  readonly tenancyStart?: number;
  readonly own: readonly OwnColumn[];
  readonly order: ReadDateOptions;
}

/** A row's typed dates as read: the days the rules count from, and a sentence for each cell that is not a date. */
export interface RowDates {
  userDates: UserDates;
  tenancyStart?: string;
  /** The own-obligation cells (smoke alarms, legionella...), with their Evidence. */
  own: OwnInput[];
  /** The EICR date, licence expiry, deposit received and tenancy start cells that could not be read, in words. */
  problems: string[];
}

const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

/** The date columns of a table's header row (our block's columns, `exclude`, are never the user's) and the file's order. */
export function dateReading(
  header: readonly unknown[] | undefined,
  order: ReadDateOptions,
  exclude: ReadonlySet<number> = new Set(),
): DateReading {
  const h = header ?? [];
  const user = detectUserColumns(h, exclude);
  const { tenancyStart } = detectContextColumns(h, exclude);
  return {
    header: h,
    user: { eicrDate: user.eicrDate, licenceExpiry: user.licenceExpiry, depositReceived: user.depositReceived },
    ...(tenancyStart !== undefined ? { tenancyStart } : {}),
    own: detectOwnColumns(h, exclude),
    order,
  };
}

/** The 0-based columns a reading reads: a host that reads part of each row reads at least these. */
export function dateColumns(r: DateReading): number[] {
  const u = r.user;
  return [u.eicrDate, u.licenceExpiry, u.depositReceived, r.tenancyStart, ...r.own.map((c) => c.column)]
    .concat(r.own.map((c) => c.evidenceColumn))
    .filter((c): c is number => c !== undefined);
}

/** Every typed date of one row (cells in the header's columns), each read once by core's one rule. */
export function rowDates(row: readonly unknown[], r: DateReading): RowDates {
  const { dates, problems } = readUserDates(row, r.user, { ...r.order, header: r.header });
  let tenancyStart: string | undefined;
  if (r.tenancyStart !== undefined) {
    const t = readUserDate(row[r.tenancyStart], text(r.header[r.tenancyStart]) || "Tenancy start", r.order);
    if ("day" in t) tenancyStart = t.day;
    else if ("problem" in t) problems.push(t.problem);
  }
  const readDay = (v: unknown) => {
    const d = readUserDate(v, "", r.order);
    return "day" in d ? d.day : null;
  };
  return {
    userDates: dates,
    ...(tenancyStart ? { tenancyStart } : {}),
    own: r.own.length ? ownInputsOf(row, r.own, readDay) : [],
    problems,
  };
}

/**
 * What a results row is written with (outputRow's context), in both add-ins: the row's dates, the problems with them
 * (absent when none, so the Message says nothing of dates), and the user's windows, the row's country and the file's day.
 */
export function resultRowContext(
  d: RowDates | undefined,
  o: Pick<RowContext, "windows" | "country" | "day">,
): Omit<RowContext, "checkedAt"> {
  const { problems, ...dated } = rowDateContext(d);
  return { ...o, ...dated, ...(problems.length ? { problems } : {}) };
}

/** What the results block's row takes from a row's dates (core/sheet/layout.ts RowContext); nothing for a row not read. */
export function rowDateContext(d: RowDates | undefined): {
  userDates?: UserDates;
  tenancyStart?: string;
  problems: string[];
} {
  if (!d) return { problems: [] };
  return {
    userDates: d.userDates,
    ...(d.tenancyStart ? { tenancyStart: d.tenancyStart } : {}),
    problems: [...d.problems],
  };
}
