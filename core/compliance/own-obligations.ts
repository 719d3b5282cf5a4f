/**
 * A row's own obligations (smoke and CO alarms, legionella, Right to Rent follow-ups, HMO licences, Scottish landlord
 * registration, Rent Smart Wales, the PRS Database): the user's own columns found by their header, a row's cells read
 * as the rules' inputs, and the row's obligations, most urgent first. Pure: hosts read the cells, core says what they
 * mean (each obligation's rule, and what a date asks for: core/compliance/own-rules.ts).
 *
 *   const cols = detectOwnColumns(headerRow);                 // which columns, and each one's "Evidence" column
 *   const inputs = ownInputsOf(row, cols, readDay);           // readDay: the user-date reader (text, serials, Dates)
 *   const obs = ownObligations(inputs, { today, country });   // one OwnObligation per column, with its evidence
 *
 * Dates reach `ownObligations` already read, as YYYY-MM-DD days (`OwnInput.date`); a cell that could not be read comes
 * with `unreadable` set and is said in the row, never taken as "no date".
 */
import type { Window } from "./obligations";
import { ownObligation, type OwnContext, type OwnInput, type OwnObligation } from "./own-rules";
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
