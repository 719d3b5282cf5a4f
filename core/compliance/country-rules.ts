/**
 * The five checks' rules in Wales and Scotland, where they differ from England's: which checks apply, how their periods
 * run, and the words of each source. One entry point, `countryObligations`, takes the obligations England's rules gave
 * a check (core/compliance/obligations.ts) and returns those the property's country gives. Pure and host-free, like England's.
 *
 *   countryObligations("Scotland", "deposit_protection", englandObligations, { today, member, userDates, tenancyStart })
 *
 * - England: the obligation is returned as it is.
 * - A check whose rule is the same in the country (gas safety everywhere in Great Britain; EPC and licensing in Wales)
 *   keeps England's obligation as it is (its rule names a law that extends there).
 * - A check with its own rule there is worked out again from the service's result (`member`) and the user's dates:
 *   Wales's electrical condition report and deposit; Scotland's electrical safety inspection, EPC and deposit. A
 *   failed check keeps its dated renewal beside what the failure asks for, as England's rules do.
 * - A rule England has that the country does not (the EPC minimum in Scotland, selective licensing in Scotland) is not
 *   given a deadline: the row says it does not apply there. A check the service failed is still never OK
 *   (core/compliance/obligations.ts, neverOk): the row says what does not apply and what to do now.
 *
 * `adjustForCountry` does the same over a property's whole list of obligations (what obligationsFor returns).
 *
 * Every statement is dated: CHECKED. The sources, quoted, are in core/compliance/country-sources.ts (kept out of the add-ins' bundles:
 * only the tests and docs read them) and docs/compliance-rules.md.
 */
import { displayStatus, type CheckName } from "../service/checks";
import type { Country } from "./country";
import {
  addDays,
  addMonths,
  compareObligations,
  daysBetween,
  DEFAULT_WINDOWS,
  isoDay,
  windowFor,
  type Obligation,
  type UserDates,
  type WindowDays,
} from "./obligation-days";
import { addWorkingDays } from "./working-days";

export const CHECKED = "2026-11-25";

export interface CountryContext {
  /** The day counted from, YYYY-MM-DD. */
  today: string;
  /** The check's member of the service's result ({ status, expiry, rating, detail, scheme, ... }), when there is one. */
  member?: Record<string, unknown>;
  /** The user's own dates, already read as YYYY-MM-DD (EICR date, deposit received, licence expiry). */
  userDates?: UserDates;
  /** The tenancy's start, YYYY-MM-DD, from the user's "Tenancy start" column: Scotland counts the deposit from it. */
  tenancyStart?: string;
  windows?: Partial<Record<CheckName, Partial<WindowDays>>>;
}

/** How each check stands in a country: applies as in England, applies with its own rule, or only in part. */
export interface CountryRule {
  applies: "as_england" | "own_rule" | "partly";
  /** The law the row names (the Rule column). Each rule's period and its source's words: core/compliance/country-sources.ts. */
  rule: string;
}

/** Which of the five checks apply in Wales and Scotland, and under which law. */
export const COUNTRY_RULES: Readonly<Record<"Wales" | "Scotland", Record<CheckName, CountryRule>>> = {
  Wales: {
    gas_safety: { applies: "as_england", rule: "Gas Safety (Installation and Use) Regs 1998, reg 36 (Great Britain)" },
    eicr: { applies: "own_rule", rule: "Renting Homes (FFHH) (Wales) Regs 2022, reg 6" },
    epc: { applies: "as_england", rule: "Energy Performance of Buildings (E&W) Regs 2012; MEES (E&W) Regs 2015" },
    licensing: {
      applies: "as_england",
      rule: "Housing Act 2004, Parts 2 and 3 (Welsh councils' HMO, additional and selective schemes)",
    },
    deposit_protection: { applies: "own_rule", rule: "Renting Homes (Wales) Act 2016, s.45" },
  },
  Scotland: {
    gas_safety: {
      applies: "as_england",
      rule: "Gas Safety (Installation and Use) Regs 1998, reg 36 (Great Britain); repairing standard",
    },
    eicr: {
      applies: "own_rule",
      rule: "Housing (Scotland) Act 2006, s.19A: electrical safety inspection (EICR and PAT)",
    },
    epc: {
      applies: "partly",
      rule: "Energy Performance of Buildings (Scotland) Regs 2008: EPC valid 10 years; no minimum rating for lets in force",
    },
    licensing: {
      applies: "partly",
      rule: "Housing (Scotland) Act 2006, Part 5 (HMO licensing; no selective licensing)",
    },
    deposit_protection: { applies: "own_rule", rule: "Tenancy Deposit Schemes (Scotland) Regs 2011, reg 3" },
  },
};

// ---------------------------------------------------------------------------------------------------------------

const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");

function dated(check: CheckName, due: string, action: string, rule: string, c: CountryContext): Obligation {
  const daysLeft = daysBetween(c.today, due);
  const w = { ...DEFAULT_WINDOWS[check], ...(c.windows?.[check] ?? {}) };
  return { check, due, daysLeft, window: windowFor(daysLeft, w), action, rule };
}

function now(check: CheckName, action: string, rule: string, c: CountryContext): Obligation {
  return { check, due: c.today, daysLeft: 0, window: "Overdue", action, rule, dueNow: true };
}

/** A rule of England's that this country does not have: said in the row, with no deadline. */
function notHere(check: CheckName, action: string, rule: string): Obligation {
  return { check, due: null, daysLeft: null, window: "OK", action, rule };
}

const withRule = (obs: readonly Obligation[], rule: string): Obligation[] => obs.map((ob) => ({ ...ob, rule }));

const UNSATISFACTORY = /unsatisfactory|\bC1\b|\bC2\b|\bFI\b|remedial/i;

function walesElectrical(c: CountryContext, england: readonly Obligation[]): Obligation[] {
  const m = c.member;
  if (!m) return [...england];
  const status = displayStatus(m.status);
  const rule = COUNTRY_RULES.Wales.eicr.rule;
  if (status === "not_required" || status === "unknown") return withRule(england, rule);
  const inspected = isoDay(c.userDates?.eicrDate);
  // reg 6(2)(b)(i): valid "until the end of the period of 5 years beginning with" the inspection day.
  const expiry = isoDay(m.expiry) ?? (inspected ? addDays(addMonths(inspected, 60), -1) : null);
  const renewal = () =>
    dated(
      "eicr",
      expiry!,
      "Book the electrical inspection before the report's 5 years end, then give the contract-holder a copy within 14 days",
      rule,
      c,
    );
  if (status === "fail") {
    const expired = expiry !== null && expiry < c.today;
    if (!expired && (expiry || UNSATISFACTORY.test(text(m.detail)))) {
      // The Welsh regulations give no period for the work itself: the dwelling is not fit until it is done. The report's
      // own end still comes, so its renewal stays on the list.
      const work = now(
        "eicr",
        "Unsatisfactory electrical report: the dwelling is unfit until the remedial work is done; then give the contract-holder written confirmation within 14 days",
        rule,
        c,
      );
      return expiry ? [work, renewal()] : [work];
    }
    if (expired)
      return [
        dated(
          "eicr",
          expiry!,
          "Electrical condition report expired: book a new inspection now, then give the contract-holder a copy within 14 days",
          rule,
          c,
        ),
      ];
    return [
      now(
        "eicr",
        "Get an electrical condition report: none on record (a valid one is needed for every occupation contract)",
        rule,
        c,
      ),
    ];
  }
  if (expiry) return [renewal()];
  return withRule(england, rule);
}

function scotlandElectrical(c: CountryContext, england: readonly Obligation[]): Obligation[] {
  const m = c.member;
  if (!m) return [...england];
  const status = displayStatus(m.status);
  const rule = COUNTRY_RULES.Scotland.eicr.rule;
  if (status === "not_required" || status === "unknown") return withRule(england, rule);
  const inspected = isoDay(c.userDates?.eicrDate);
  // s.19A: "at intervals of no more than five years": the fifth anniversary, as England's "no more than 5 years".
  const expiry = isoDay(m.expiry) ?? (inspected ? addMonths(inspected, 60) : null);
  const renewal = () =>
    dated(
      "eicr",
      expiry!,
      "Book the electrical safety inspection (EICR and PAT of the appliances you provide): at most 5 years apart",
      rule,
      c,
    );
  if (status === "fail") {
    const expired = expiry !== null && expiry < c.today;
    if (!expired && (expiry || UNSATISFACTORY.test(text(m.detail)))) {
      const work = now(
        "eicr",
        "Unsatisfactory electrical inspection: repair what it found (the repairing standard gives no fixed period), then give the tenant the record",
        rule,
        c,
      );
      return expiry ? [work, renewal()] : [work];
    }
    if (expired)
      return [
        dated(
          "eicr",
          expiry!,
          "Electrical safety inspection overdue: book the EICR and the appliance test (PAT) now",
          rule,
          c,
        ),
      ];
    return [now("eicr", "Get an electrical safety inspection (EICR and PAT): none on record", rule, c)];
  }
  if (expiry) return [renewal()];
  return withRule(england, rule);
}

function scotlandEpc(c: CountryContext, england: readonly Obligation[]): Obligation[] {
  const m = c.member;
  if (!m) return [...england];
  const status = displayStatus(m.status);
  const rule = COUNTRY_RULES.Scotland.epc.rule;
  if (status === "not_required" || status === "unknown") return withRule(england, rule);
  const rating = text(m.rating).toUpperCase();
  const expiry = isoDay(m.expiry);
  const expired = expiry !== null && expiry < c.today;
  if (expired) return [dated("epc", expiry!, "EPC expired: get a new one before marketing or a new let", rule, c)];
  const renewal = expiry
    ? [dated("epc", expiry, "Renew the EPC before marketing or a new let (valid 10 years)", rule, c)]
    : [];
  if (status === "fail") {
    // The service's fail stands (never shown as OK, whatever the expiry), but England's "cannot be let below E" is not
    // Scottish law: the row says so rather than giving England's reason. An F or G counts from the day it was first
    // reported, as England's obligation keeps it: the action and the note name that day in the row, where the next
    // refresh and every sheet built from the block read it back (core/sheet/layout.ts, firstReportedOf).
    const first = england.find((o) => o.firstReported)?.firstReported;
    const law = `Scotland sets no minimum rating for lets in law, checked ${CHECKED}`;
    const why = first
      ? ` (rated ${rating}, first reported ${first}; ${law})`
      : rating
        ? ` (rating ${rating}; ${law})`
        : "";
    const ob = now("epc", `Resolve the failed EPC check${why}`, rule, c);
    const fail: Obligation = first
      ? {
          ...ob,
          due: first,
          daysLeft: daysBetween(c.today, first),
          firstReported: first,
          note: `EPC rated ${rating} first reported on ${first}: no Scottish rule gives a date for a failed EPC check, so the action counts from that day`,
        }
      : ob;
    return [fail, ...renewal];
  }
  if (expiry) return renewal;
  if (rating)
    return [
      notHere(
        "epc",
        `No minimum EPC rating for lets is law in Scotland (checked ${CHECKED}): England's minimum E and the announced C do not apply`,
        rule,
      ),
    ];
  return withRule(england, rule);
}

function scotlandLicensing(c: CountryContext, england: readonly Obligation[]): Obligation[] {
  const rule = COUNTRY_RULES.Scotland.licensing.rule;
  const scheme = text(c.member?.scheme);
  if (/selective/i.test(scheme)) {
    const none = `Selective licensing does not exist in Scotland (Housing Act 2004 Part 3 is England and Wales)`;
    // The service's fail stands: something about the licence is wrong, though not the scheme the record names.
    if (displayStatus(c.member?.status) === "fail")
      return [
        now(
          "licensing",
          `Licensing check failed: ${none}, so the record's "${scheme}" cannot be the licence needed: find which licence the property needs (an HMO licence, Part 5) and correct the record`,
          rule,
          c,
        ),
      ];
    return [notHere("licensing", `${none}: check the record's "${scheme}"`, rule)];
  }
  return withRule(england, rule);
}

function deposit(country: "Wales" | "Scotland", c: CountryContext, england: readonly Obligation[]): Obligation[] {
  const m = c.member;
  const rule = COUNTRY_RULES[country].deposit_protection.rule;
  if (!m || displayStatus(m.status) !== "fail") return withRule(england, rule);
  const received = isoDay(c.userDates?.depositReceived);
  if (country === "Wales") {
    const action =
      "Protect the deposit in an authorised scheme and give the contract-holder the required information within 30 days of payment";
    // s.45(2): "the period of 30 days starting with the day on which the deposit is paid": day 1 is the day of payment.
    return [
      received
        ? dated("deposit_protection", addDays(received, 29), action, rule, c)
        : now("deposit_protection", action, rule, c),
    ];
  }
  const start = isoDay(c.tenancyStart);
  const action =
    "Pay the deposit to an approved scheme (SafeDeposits Scotland, Letting Protection Service Scotland, mydeposits Scotland) and give the tenant the reg 42 information within 30 working days of the tenancy's start";
  if (start) return [dated("deposit_protection", addWorkingDays(start, 30), action, rule, c)];
  // Without the start, the deposit's receipt (usually on or before it) gives a date no later than the law's.
  if (received)
    return [
      dated(
        "deposit_protection",
        addWorkingDays(received, 30),
        `${action} (counted from the deposit's receipt: add a Tenancy start column for the exact date)`,
        rule,
        c,
      ),
    ];
  return [now("deposit_protection", action, rule, c)];
}

/**
 * Every obligation of `check` for a property in `country`, most urgent first, given those England's rules gave
 * (`england`, empty when the check is absent or not required). Empty only where England's is. A failed check keeps its
 * dated renewal beside the action the failure asks for, as in England.
 */
export function countryObligations(
  country: Country,
  check: CheckName,
  england: readonly Obligation[],
  c: CountryContext,
): Obligation[] {
  if (country === "England" || !england.length || COUNTRY_RULES[country][check].applies === "as_england")
    return [...england];
  const out =
    country === "Wales"
      ? check === "eicr"
        ? walesElectrical(c, england)
        : check === "deposit_protection"
          ? deposit("Wales", c, england)
          : [...england]
      : check === "eicr"
        ? scotlandElectrical(c, england)
        : check === "epc"
          ? scotlandEpc(c, england)
          : check === "licensing"
            ? scotlandLicensing(c, england)
            : check === "deposit_protection"
              ? deposit("Scotland", c, england)
              : [...england];
  return out.sort(compareObligations);
}

/**
 * The most urgent obligation of `check` for a property in `country`, given England's (`england`, null when the check is
 * absent or not required): countryObligations' first. Returns null only where England's did.
 */
export function countryAdjust(
  country: Country,
  check: CheckName,
  england: Obligation | null,
  c: CountryContext,
): Obligation | null {
  return countryObligations(country, check, england ? [england] : [], c)[0] ?? null;
}

/**
 * A property's obligations (England's, most urgent first, possibly several for one check) as its country gives them:
 * checks that apply as in England are kept; each check with its own rule there becomes the one obligation that rule
 * gives (worked out once from the service's member, not once per England obligation). Most urgent first again.
 */
export function adjustForCountry(
  obligations: readonly Obligation[],
  country: Country,
  memberOf: (check: CheckName) => Record<string, unknown> | undefined,
  c: Omit<CountryContext, "member">,
): Obligation[] {
  if (country === "England") return [...obligations];
  const out: Obligation[] = [];
  const done = new Set<CheckName>();
  for (const ob of obligations) {
    if (COUNTRY_RULES[country][ob.check].applies === "as_england") {
      out.push(ob);
      continue;
    }
    if (done.has(ob.check)) continue;
    done.add(ob.check);
    const england = obligations.filter((o) => o.check === ob.check);
    out.push(...countryObligations(country, ob.check, england, { ...c, member: memberOf(ob.check) }));
  }
  return out.sort(compareObligations);
}
