/**
 * What must be done, and by when: for each property and check, a due date, days left, a window (Overdue, Urgent, Book,
 * Plan, OK), the next action in plain words and the rule it comes from. The rules are written out, with their sources,
 * in docs/compliance-rules.md; this module is their one implementation, pure and host-free, so the same result gives the
 * same answer in Excel and in Google Sheets. England's rules; Wales and Scotland differ as the document says.
 */
import { displayStatus, CHECK_NAMES, type CheckName } from "../service/checks";
import type { CheckResult } from "../service/schemas";
import { CHECK_LABELS, type Window } from "../sheet/colours";
import type { Country } from "./country";
import { adjustForCountry } from "./country-rules";
import {
  DEFAULT_WINDOWS,
  SEVERITY,
  addDays,
  addMonths,
  compareObligations,
  daysBetween,
  isoDay,
  windowFor,
  type Obligation,
  type UserDates,
  type WindowDays,
} from "./obligation-days";

export {
  WINDOWS,
  WINDOW_COLOURS,
  windowColour,
  CHECK_LABELS,
  LIST_STATE_COLOURS,
  actionListColour,
  actionListColourRules,
  type Window,
} from "../sheet/colours";
export {
  DEFAULT_WINDOWS,
  DATE_FORMAT,
  addDays,
  addMonths,
  compareObligations,
  dateSerial,
  daysBetween,
  isoDay,
  serialDate,
  windowFor,
  type Obligation,
  type UserDates,
  type WindowDays,
  type WindowSettings,
} from "./obligation-days";

export const RULES: Record<CheckName | "epc_mees" | "epc_2030", string> = {
  gas_safety: "Gas Safety (Installation and Use) Regs 1998, reg 36 and 36A",
  eicr: "Electrical Safety Standards in the PRS (England) Regs 2020, reg 3",
  epc: "Energy Performance of Buildings (E&W) Regs 2012: EPC valid 10 years",
  epc_mees: "Energy Efficiency (PRS) (E&W) Regs 2015 (MEES), reg 23: minimum E",
  epc_2030: "Proposed MEES minimum C from 1 Oct 2030 (not yet law)",
  licensing: "Housing Act 2004, Parts 2 and 3 (HMO and selective licensing)",
  deposit_protection: "Housing Act 2004, ss 213-214",
};

export interface ObligationOptions {
  /** The day the obligations are counted from, YYYY-MM-DD (the check's day). */
  today: string;
  windows?: Partial<Record<CheckName, Partial<WindowDays>>>;
  userDates?: UserDates;
  /** Only these checks (a run may ask for a subset). */
  checks?: readonly CheckName[];
  /**
   * The day the service first reported an obligation that has no statutory date, by rule key (`epc_mees`: an F or G
   * rating). The results block keeps it in its row (core/sheet/layout.ts, firstReportedOf); without it the day counted from.
   */
  firstReported?: Partial<Record<"epc_mees", string>>;
  /** The property's country (core/compliance/country.ts); Wales and Scotland then get their own rules (core/compliance/country-rules.ts). */
  country?: Country;
  /** The tenancy's start, YYYY-MM-DD (the user's "Tenancy start"): Scotland counts the deposit from it. */
  tenancyStart?: string;
}

/**
 * How a source words a period, which decides whether its first day counts:
 * - "beginning with" / "starting with": the start day is day 1 (30 days beginning with 1 March end on 30 March);
 * - "from" / "after": the start day is not counted (30 days from 1 March end on 31 March);
 * - "intervals of not more than" (also "no more than N before"): the next event may fall on the corresponding day N
 *   later and no later (12 months after 15 March 2026 is 15 March 2027).
 * Months and years are calendar months: a day the target month lacks is its last day (29 February + 12 months is
 * 28 February), the corresponding-date rule.
 */
export type Counting = "beginning with" | "starting with" | "from" | "intervals of not more than";

export interface Period {
  days?: number;
  months?: number;
  years?: number;
  counting: Counting;
}

/** The last day of a period that starts on `start` (YYYY-MM-DD), counted as its source words it. */
export function periodEnd(start: string, p: Period): string {
  const months = (p.months ?? 0) + 12 * (p.years ?? 0);
  const days = p.days ?? 0;
  const inclusive = p.counting === "beginning with" || p.counting === "starting with";
  if (months && days) throw new Error("periodEnd: a period is days or months, not both");
  if (!months) return addDays(start, inclusive ? days - 1 : days);
  const corresponding = addMonths(start, months);
  if (!inclusive) return corresponding;
  // N months beginning with the 31st end on the last day of the month that lacks a 31st, else the day before.
  return +corresponding.slice(8) < +start.slice(8) ? corresponding : addDays(corresponding, -1);
}

/** The first day of a period of whole months "ending with" `end` (reg 36A's 2 months ending with the deadline date). */
export function periodStartEndingWith(end: string, months: number): string {
  return addDays(addMonths(end, -months), 1);
}

// ---------------------------------------------------------------------------------------------------------------

function settingsFor(check: CheckName, o: ObligationOptions): WindowDays {
  return { ...DEFAULT_WINDOWS[check], ...(o.windows?.[check] ?? {}) };
}

function member(r: CheckResult, name: CheckName): Record<string, unknown> | undefined {
  return (r.checks as Record<string, Record<string, unknown> | undefined>)[name];
}

const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");

function dated(check: CheckName, due: string, action: string, rule: string, o: ObligationOptions): Obligation {
  const daysLeft = daysBetween(o.today, due);
  return { check, due, daysLeft, window: windowFor(daysLeft, settingsFor(check, o)), action, rule };
}

/** An obligation due on the check's own day and past any window: "do it now". */
function now(check: CheckName, action: string, rule: string, o: ObligationOptions): Obligation {
  return { check, due: o.today, daysLeft: 0, window: "Overdue", action, rule, dueNow: true };
}

function undated(check: CheckName, window: Window, action: string, rule: string): Obligation {
  return { check, due: null, daysLeft: null, window, action, rule };
}

/** What a check's failure asks for when no rule gives it a later date: now, and past any window. */
const FAILED: Record<CheckName, string> = {
  gas_safety:
    "Gas safety check failed: have a Gas Safe engineer put it right now (an appliance found unsafe must not be used)",
  eicr: "EICR check failed: get the installation inspected and any remedial work done now (qualified electrician)",
  epc: "EPC check failed: get a valid EPC (accredited assessor) before marketing or a new letting",
  licensing: "Licensing check failed: apply for or correct the licence now",
  deposit_protection: "Deposit check failed: protect the deposit and serve the prescribed information now",
};

function gas(m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation[] {
  const last = isoDay(m.last_certificate);
  // reg 36(3)(a): checked "at intervals of not more than 12 months since it was last checked for safety".
  const due =
    isoDay(m.expiry) ?? (last ? periodEnd(last, { months: 12, counting: "intervals of not more than" }) : null);
  const out: Obligation[] = [];
  if (due) {
    // reg 36A: a check "within the period of 2 months ending with the deadline date" is treated as made on that date.
    const from = periodStartEndingWith(due, 2);
    const action =
      due < o.today
        ? "Gas safety check overdue: book it now (Gas Safe engineer), then give the tenant a copy within 28 days"
        : `Book the annual gas safety check (Gas Safe engineer): a check from ${from} keeps the ${due} anniversary`;
    out.push(dated("gas_safety", due, action, RULES.gas_safety, o));
  }
  if (status === "fail" && !(due && due < o.today)) {
    out.push(
      now(
        "gas_safety",
        due ? FAILED.gas_safety : "Get a gas safety check now (Gas Safe engineer): no certificate on record",
        RULES.gas_safety,
        o,
      ),
    );
  }
  return out.length ? out : [generic("gas_safety", status, o)];
}

function eicr(m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation[] {
  const userDate = isoDay(o.userDates?.eicrDate);
  // reg 3(1)(b): inspected and tested "at intervals of no more than 5 years".
  const expiry =
    isoDay(m.expiry) ?? (userDate ? periodEnd(userDate, { years: 5, counting: "intervals of not more than" }) : null);
  const renewal = expiry
    ? dated(
        "eicr",
        expiry,
        expiry < o.today
          ? "EICR expired: book a new inspection now (qualified electrician)"
          : "Book the 5-yearly EICR (qualified electrician)",
        RULES.eicr,
        o,
      )
    : null;
  if (status !== "fail") return renewal ? [renewal] : [generic("eicr", status, o)];
  if (renewal && expiry! < o.today) return [renewal];
  const detail = text(m.detail);
  if (!expiry && !/unsatisfactory|\bC1\b|\bC2\b|\bFI\b|remedial/i.test(detail))
    return [
      now(
        "eicr",
        /no eicr|none|missing/i.test(detail) || !detail
          ? "Get an EICR (qualified electrician): none on record"
          : FAILED.eicr,
        RULES.eicr,
        o,
      ),
    ];
  // reg 3(4): remedial work "within 28 days ... starting with the date of the inspection", or the shorter period the
  // report gives (a date the service's detail names).
  const named = /(?:due|by|before)[^0-9]{0,20}(\d{4}-\d{2}-\d{2})/i.exec(detail);
  const report = userDate ?? (expiry ? addMonths(expiry, -60) : null);
  const due =
    (named && isoDay(named[1])) || (report ? periodEnd(report, { days: 28, counting: "starting with" }) : null);
  const action =
    "Remedial work within 28 days of the inspection, then confirm in writing to the tenant and the council within 28 days of finishing it";
  const remedial = due ? dated("eicr", due, action, RULES.eicr, o) : now("eicr", action, RULES.eicr, o);
  return renewal ? [remedial, renewal] : [remedial];
}

function epc(m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation[] {
  const rating = text(m.rating).toUpperCase();
  const expiry = isoDay(m.expiry);
  const out: Obligation[] = [];
  if (rating === "F" || rating === "G") {
    // MEES reg 23 forbids letting a sub-standard property and gives no date to act by: the action counts from the day
    // the service first reported the rating (kept by the caller), else from the day counted from.
    const since = isoDay(o.firstReported?.epc_mees) ?? o.today;
    const first = since < o.today ? since : o.today;
    out.push({
      ...now(
        "epc",
        `Cannot be let (rated ${rating}, first reported ${first}): improve to E or register an exemption`,
        RULES.epc_mees,
        o,
      ),
      due: first,
      daysLeft: daysBetween(o.today, first),
      firstReported: first,
      note: `EPC rated ${rating} first reported on ${first}: the regulations give no date, so the action counts from that day`,
    });
  }
  if (expiry)
    out.push(
      dated(
        "epc",
        expiry,
        expiry < o.today
          ? "EPC expired: get a new one before marketing or a new letting"
          : "Renew the EPC before marketing or a new letting (valid 10 years)",
        RULES.epc,
        o,
      ),
    );
  if (rating === "D" || rating === "E")
    out.push({
      ...dated(
        "epc",
        "2030-10-01",
        "Below C: the announced minimum of C from 1 October 2030 is not yet law",
        RULES.epc_2030,
        o,
      ),
      window: "Plan",
    });
  // A failed check that neither the rating nor a past expiry explains is still a failure: never OK.
  if (status === "fail" && rating !== "F" && rating !== "G" && !(expiry && expiry < o.today))
    out.push(now("epc", expiry ? FAILED.epc : "Get a valid EPC: none on record", RULES.epc, o));
  return out.length ? out : [generic("epc", status, o)];
}

function licensing(m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation[] {
  const scheme = text(m.scheme);
  const named = scheme ? ` (${scheme})` : "";
  // The service's licence expiry (its `licensing.expiry`), else the user's own "Licence expiry" column.
  const expiry = isoDay(m.expiry) ?? isoDay(o.userDates?.licenceExpiry);
  const out: Obligation[] = [];
  if (expiry)
    out.push(
      dated(
        "licensing",
        expiry,
        expiry < o.today
          ? `Licence${named} expired on ${expiry}: apply for a new one now`
          : `Renew the licence${named} before it expires on ${expiry}`,
        RULES.licensing,
        o,
      ),
    );
  if (status === "fail" && !(expiry && expiry < o.today))
    out.push(now("licensing", `Apply for the licence${named}`, RULES.licensing, o));
  return out.length ? out : [generic("licensing", status, o)];
}

function deposit(_m: Record<string, unknown>, status: string, o: ObligationOptions): Obligation[] {
  if (status !== "fail") return [generic("deposit_protection", status, o)];
  const action = "Protect the deposit and serve the prescribed information within 30 days of receiving it";
  const received = isoDay(o.userDates?.depositReceived);
  // s.213(3) and (6): "within the period of 30 days beginning with the date on which it is received".
  return [
    received
      ? dated(
          "deposit_protection",
          periodEnd(received, { days: 30, counting: "beginning with" }),
          action,
          RULES.deposit_protection,
          o,
        )
      : now("deposit_protection", action, RULES.deposit_protection, o),
  ];
}

function generic(check: CheckName, status: string, o: ObligationOptions): Obligation {
  const rule = RULES[check];
  if (status === "fail") return now(check, FAILED[check], rule, o);
  if (status === "warning")
    return undated(check, "Plan", `Review the ${CHECK_LABELS[check]} warning in the property's record`, rule);
  if (status === "pass") return { check, due: null, daysLeft: null, window: "OK", action: "", rule };
  return undated(check, "Plan", "Check this property's record", rule);
}

const BY_CHECK: Record<CheckName, (m: Record<string, unknown>, status: string, o: ObligationOptions) => Obligation[]> =
  {
    gas_safety: gas,
    eicr,
    epc,
    licensing,
    deposit_protection: deposit,
  };

/**
 * A failed check is never OK, in any country and whatever its rule's date: the most urgent obligation of each check the
 * service failed is due soon at the latest (its window "Book" unless already more urgent), is marked `failed` (the
 * Action list lists it whatever its window), and, when no rule gave it a date, is due on the day counted from. The
 * check's other obligations (a dated renewal) are kept as they are. Takes and returns most urgent first.
 */
export function neverOk(
  obligations: readonly Obligation[],
  result: CheckResult,
  o: Pick<ObligationOptions, "today">,
): Obligation[] {
  const seen = new Set<CheckName>();
  return obligations
    .map((ob) => {
      if (seen.has(ob.check) || displayStatus(member(result, ob.check)?.status) !== "fail") return ob;
      seen.add(ob.check);
      const soon = ob.window !== null && SEVERITY[ob.window] <= SEVERITY.Book;
      const dated = ob.due ? {} : { due: o.today, daysLeft: 0 };
      return { ...ob, ...dated, window: soon ? ob.window : "Book", failed: true } as Obligation;
    })
    .sort(compareObligations);
}

/** Every obligation of one check, most urgent first; empty when the check is absent or not required. */
export function checkObligations(result: CheckResult, check: CheckName, o: ObligationOptions): Obligation[] {
  const m = member(result, check);
  if (!m) return [];
  const shown = displayStatus(m.status);
  if (shown === "not_required") return [];
  // An unknown status word: the rules cannot say what it means.
  if (shown === "unknown") return [undated(check, "Plan", "Check this property's record", RULES[check])];
  const obligations = BY_CHECK[check](m, shown, o).sort(compareObligations);
  // neverOk changes a failed check's obligations only (asked for every check of every row, and most pass).
  return shown === "fail" ? neverOk(obligations, result, o) : obligations;
}

/** One check's most urgent obligation; null when the check is absent or not required. */
export function obligationFor(result: CheckResult, check: CheckName, o: ObligationOptions): Obligation | null {
  return checkObligations(result, check, o)[0] ?? null;
}

/**
 * Every obligation of every check, most urgent first (not required and absent checks left out): a check may have
 * several (an F-rated EPC that has also expired has both), and the Action list lists each of them.
 */
export function obligationsFor(result: CheckResult, o: ObligationOptions): Obligation[] {
  const checks = o.checks ?? CHECK_NAMES;
  const england = checks.flatMap((c) => checkObligations(result, c, o)).sort(compareObligations);
  // England's are final: each failed check's most urgent obligation is already marked, and the sort keeps it first.
  return o.country && o.country !== "England"
    ? neverOk(
        adjustForCountry(england, o.country, (c) => member(result, c), o),
        result,
        o,
      )
    : england;
}

/** The row's most urgent obligation with something to do (an OK with no action is not one). */
export function nextObligation(result: CheckResult, o: ObligationOptions): Obligation | null {
  return obligationsFor(result, o).find((x) => x.action !== "") ?? null;
}
