/**
 * The obligations no UPRN lookup returns (smoke and CO alarms, legionella, Right to Rent follow-ups, HMO licences,
 * Scottish landlord registration, Rent Smart Wales, the PRS Database), read from the user's own columns by their header,
 * each with its rule, source, period and action. Pure: hosts read the cells, core says what they mean.
 *
 *   const cols = detectOwnColumns(headerRow);                 // which columns, and each one's "Evidence" column
 *   const inputs = ownInputsOf(row, cols, readDay);           // readDay: the user-date reader (text, serials, Dates)
 *   const obs = ownObligations(inputs, { today, country });   // one OwnObligation per column, with its evidence
 *   doneWithoutEvidence(actionRows)                           // the summary's count
 *
 * Dates reach `ownObligations` already read, as YYYY-MM-DD days (`OwnInput.date`); a cell that could not be read comes
 * with `unreadable` set and is said in the row, never taken as "no date". A date in a column is either the day the
 * thing was done (a check, a registration) or the day it falls due (an expiry, a follow-up, a review), by the header's
 * words: "HMO licence expiry" is a due date, "Landlord registration" the day of registration.
 */
import type { Country } from "./country";
import { addDays, addMonths, daysBetween, windowFor, type Window, type WindowDays } from "./obligations";
import { PRS_DATABASE, RULE_BY_KEY, type Meaning, type OwnKey, type OwnRule } from "./own-rules";
import { normaliseHeader, type OwnColumn } from "./own-headers";

export {
  detectOwnColumns,
  normaliseHeader,
  unreadColumnSentence,
  unreadOwnColumns,
  type OwnColumn,
  type UnreadOwnColumn,
} from "./own-headers";

/**
 * The two columns that tell the rules about the row rather than name an obligation: **Country** (settles a border
 * district, core/compliance/country.ts `rowCountry`) and **Tenancy start** (the day alarms are checked in England, and Scotland's
 * deposit count). 0-based, absent when the table has none.
 */
export function detectContextColumns(
  header: readonly unknown[],
  exclude: ReadonlySet<number> = new Set(),
): { country?: number; tenancyStart?: number } {
  const out: { country?: number; tenancyStart?: number } = {};
  header.map(normaliseHeader).forEach((h, i) => {
    if (exclude.has(i)) return;
    if (out.country === undefined && /^(country|nation)$/.test(h)) out.country = i;
    if (
      out.tenancyStart === undefined &&
      /^((tenancy|contract|occupation|let|lease) (start|start date|began|begins|commenced|from)|start of (the )?tenancy|tenancy start(ed)? on|move in( date)?|moved in|occupation date)$/.test(
        h,
      )
    )
      out.tenancyStart = i;
  });
  return out;
}

/** One own-obligation cell as read: the day (YYYY-MM-DD) or null, and what was typed when it could not be read. */
export interface OwnInput {
  key: OwnKey;
  header: string;
  meaning: Meaning;
  date: string | null;
  /** The text of a cell that holds something that is not a date (said in the row, not taken as empty). */
  unreadable?: string;
  evidence?: string;
  /** Set when the obligation has two or more columns with a date: which one the date came from. */
  from?: string;
}

const cellText = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

/**
 * A row's own-obligation cells as inputs, one per obligation. `readDay` turns a cell into YYYY-MM-DD or null: the file's
 * user-date reader (core/sheet/row-dates.ts rowDates passes it), so that these cells are read as every other typed date of
 * the row.
 *
 * Two columns for one obligation ("Smoke alarms checked" and "Smoke & CO alarms tested") are both read: a cell that is
 * not a date is said first (as with one column); else the latest date, from a column saying when it falls due when one
 * has a date (an expiry outranks the day it was done), else from those saying when it was done; `from` names the column.
 */
export function ownInputsOf(
  row: readonly unknown[],
  cols: readonly OwnColumn[],
  readDay: (v: unknown) => string | null,
): OwnInput[] {
  const read = cols.map((c): OwnInput => {
    const v = row[c.column];
    const date = readDay(v);
    const typed = cellText(v);
    const evidence = c.evidenceColumn === undefined ? "" : cellText(row[c.evidenceColumn]);
    return {
      key: c.key,
      header: c.header,
      meaning: c.meaning,
      date,
      ...(date === null && typed ? { unreadable: typed } : {}),
      ...(evidence ? { evidence } : {}),
    };
  });
  const keys = [...new Set(read.map((i) => i.key))];
  return keys.map((k) => {
    const group = read.filter((i) => i.key === k);
    if (group.length === 1) return group[0];
    const dated = group.filter((i) => i.date !== null);
    const pool = dated.some((i) => i.meaning === "due") ? dated.filter((i) => i.meaning === "due") : dated;
    const latest = pool.reduce<OwnInput | null>((a, b) => (!a || b.date! > a.date! ? b : a), null);
    const chosen = group.find((i) => i.unreadable !== undefined) ?? latest ?? group[0];
    const evidence = chosen.evidence ?? group.find((i) => i.evidence)?.evidence;
    const from =
      chosen === latest && dated.length > 1
        ? `date from "${chosen.header}", the latest of ${group.map((i) => `"${i.header}"`).join(" and ")}`
        : undefined;
    return { ...chosen, ...(evidence ? { evidence } : {}), ...(from ? { from } : {}) };
  });
}

export interface OwnObligation {
  key: OwnKey;
  label: string;
  /** The user's column header it came from. */
  header: string;
  due: string | null;
  daysLeft: number | null;
  /** null: nothing to do and nothing to say. */
  window: Window | null;
  action: string;
  rule: string;
  source: string;
  /** What the row says besides the action (why there is no date, why it does not apply here). */
  note: string;
  /** The Evidence cell as typed (a link to the certificate), kept for the Action list. */
  evidence: string;
}

export interface OwnContext {
  /** The day counted from, YYYY-MM-DD. */
  today: string;
  country: Country;
  /** The tenancy's start, when the table has a "Tenancy start" column (the day alarms must be checked in England). */
  tenancyStart?: string;
  /** The PRS Database's opening day, once regulations set one (else PRS_DATABASE.opens). */
  prsDatabaseOpens?: string | null;
  windows?: Partial<Record<OwnKey, Partial<WindowDays>>>;
}

/** The last day of a period of `years` beginning with `day` (the day itself is day 1). */
const lastDayOf = (day: string, years: number) => addDays(addMonths(day, years * 12), -1);

function build(
  r: OwnRule,
  input: OwnInput,
  c: OwnContext,
  due: string | null,
  action: string,
  note = "",
  window?: Window | null,
): OwnObligation {
  const daysLeft = due ? daysBetween(c.today, due) : null;
  const w = { ...r.windows, ...(c.windows?.[r.key] ?? {}) };
  // Which of the obligation's columns the date came from: said where the user reads it (the action, else the note).
  if (input.from && action) action = `${action} (${input.from})`;
  else if (input.from) note = [note, `${input.from[0].toUpperCase()}${input.from.slice(1)}`].filter(Boolean).join(". ");
  return {
    key: r.key,
    label: r.label,
    header: input.header,
    due,
    daysLeft,
    window: window !== undefined ? window : daysLeft === null ? null : windowFor(daysLeft, w),
    action,
    rule: r.rule[c.country] ?? Object.values(r.rule)[0] ?? "",
    source: r.source,
    note,
    evidence: input.evidence ?? "",
  };
}

function alarms(r: OwnRule, input: OwnInput, c: OwnContext): OwnObligation {
  const what = r.key === "smoke_alarms" ? "smoke alarms" : "carbon monoxide alarms";
  if (c.country !== "England") {
    return build(
      r,
      input,
      c,
      null,
      "",
      `${c.country} sets no check date: the ${what} must be kept working and in repair throughout the tenancy`,
      null,
    );
  }
  const start = c.tenancyStart ?? null;
  if (start && (!input.date || input.date < start)) {
    return build(r, input, c, start, `Check the ${what} work on the day the tenancy begins (${start}), and record it`);
  }
  if (input.date)
    return build(
      r,
      input,
      c,
      null,
      "",
      `Checked ${input.date}; the next check is due on the day a new tenancy begins`,
      null,
    );
  return build(
    r,
    input,
    c,
    null,
    `Record when the ${what} were checked (the law asks for a check on the day each new tenancy begins)`,
    "",
    "Plan",
  );
}

function fromDate(r: OwnRule, input: OwnInput, c: OwnContext, years: number, verb: string): OwnObligation {
  // An empty cell is not known to be a lapse: it asks for the date rather than claiming a deadline.
  if (!input.date)
    return build(
      r,
      input,
      c,
      null,
      `Record the date in "${input.header}" (${r.label} lasts ${years} years)`,
      "",
      "Plan",
    );
  const due = input.meaning === "due" ? input.date : lastDayOf(input.date, years);
  const past = due < c.today;
  return build(
    r,
    input,
    c,
    due,
    past ? `${r.label} has lapsed (${due}): ${verb.toLowerCase()} now` : `${verb} before ${due}`,
  );
}

/** One own-obligation column's obligation for a property in `c.country`. */
export function ownObligation(input: OwnInput, c: OwnContext): OwnObligation {
  const r = RULE_BY_KEY.get(input.key)!;
  if (input.unreadable !== undefined) {
    return build(
      r,
      input,
      c,
      null,
      `"${input.unreadable}" in ${input.header} is not a date: enter the date (for example 2027-03-15)`,
      "",
      "Plan",
    );
  }
  if (!r.countries.includes(c.country)) {
    const where = r.countries.length === 1 ? `${r.countries[0]} only` : r.countries.join(" and ");
    return build(r, input, c, null, "", `${r.label}: applies in ${where}, not in ${c.country}; nothing is due`, null);
  }
  switch (r.key) {
    case "smoke_alarms":
    case "co_alarms":
      return alarms(r, input, c);
    case "legionella":
      if (input.date && input.meaning === "due")
        return build(r, input, c, input.date, "Review the legionella risk assessment");
      if (input.date)
        return build(
          r,
          input,
          c,
          null,
          "",
          `Assessed ${input.date}; the law sets no review interval: add a review date to be reminded`,
          null,
        );
      return build(r, input, c, null, "Record the legionella risk assessment (none recorded)", "", "Plan");
    case "right_to_rent":
      if (!input.date)
        return build(
          r,
          input,
          c,
          null,
          "",
          "No follow-up date: none is needed where the right to rent is unlimited",
          null,
        );
      return build(
        r,
        input,
        c,
        input.date,
        `Do the follow-up Right to Rent check by ${input.date} (the time-limited excuse then ends)`,
      );
    case "hmo_licence":
      if (!input.date) return build(r, input, c, null, "", "No expiry recorded", null);
      return build(
        r,
        input,
        c,
        input.date,
        input.date < c.today
          ? `HMO licence expired on ${input.date}: apply for a new one now`
          : `Apply to renew the HMO licence before it expires on ${input.date}`,
      );
    case "landlord_registration":
      return fromDate(r, input, c, 3, "Renew the landlord registration with the council");
    case "rent_smart_wales":
      return fromDate(r, input, c, 5, "Renew with Rent Smart Wales");
    case "prs_database": {
      const opens = c.prsDatabaseOpens === undefined ? PRS_DATABASE.opens : c.prsDatabaseOpens;
      if (!opens || opens > c.today) {
        return build(
          r,
          input,
          c,
          null,
          "",
          `The PRS Database is not open yet (announced ${PRS_DATABASE.announced}; checked ${PRS_DATABASE.checked}): nothing is due`,
          null,
        );
      }
      if (input.date) return build(r, input, c, null, "", `Registered ${input.date}`, null);
      return build(r, input, c, opens, "Register the landlord and this property on the PRS Database");
    }
  }
}

/** Every own-obligation of a row, most urgent first (those with nothing to do or say left out). */
export function ownObligations(inputs: readonly OwnInput[], c: OwnContext): OwnObligation[] {
  const order: Record<Window, number> = { Overdue: 0, Urgent: 1, Book: 2, Plan: 3, OK: 4 };
  return inputs
    .map((i) => ownObligation(i, c))
    .filter((o) => o.action !== "" || o.note !== "")
    .sort(
      (a, b) =>
        (a.window ? order[a.window] : 9) - (b.window ? order[b.window] : 9) ||
        (a.due ?? "9999").localeCompare(b.due ?? "9999"),
    );
}

/** Whether a Done cell says the action is done: TRUE, a tick, "yes", "done", "x", or a date. */
export function isMarkedDone(v: unknown): boolean {
  if (v === true) return true;
  if (typeof v === "number") return v > 0;
  if (v && typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]")
    return Number.isFinite((v as Date).getTime());
  const t = cellText(v).toLowerCase();
  return (
    /^(true|yes|y|done|x|✓|✔|☑|complete|completed)$/.test(t) ||
    /^\d{4}-\d{1,2}-\d{1,2}$|^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$/.test(t)
  );
}

/** The summary's count: rows marked done whose Evidence is empty. */
export function doneWithoutEvidence(rows: readonly { done: unknown; evidence: unknown }[]): number {
  return rows.filter((r) => isMarkedDone(r.done) && cellText(r.evidence) === "").length;
}
