/**
 * The obligations kept in the user's own columns, one rule each: the headers that name it, what a date in it is (the
 * day it was done, or the day it falls due), the countries it applies in, its rule, source and windows, and what a
 * date in its column asks for (`ownObligation`). A date is either the day the thing was done (a check, a registration)
 * or the day it falls due (an expiry, a follow-up, a review), by the header's words: "HMO licence expiry" is a due
 * date, "Landlord registration" the day of registration. core/compliance/own-obligations.ts reads a row's columns.
 */
import type { Country } from "./country";
import { addDays, addMonths, daysBetween, windowFor, type Window, type WindowDays } from "./obligations";

export const OWN_KEYS = [
  "smoke_alarms",
  "co_alarms",
  "legionella",
  "right_to_rent",
  "hmo_licence",
  "landlord_registration",
  "rent_smart_wales",
  "prs_database",
] as const;
export type OwnKey = (typeof OWN_KEYS)[number];

/**
 * The Private Rented Sector Database (Renters' Rights Act 2025, Part 2; England): not open on the day these rules were
 * checked. Government's roadmap (November 2025) announces it "from late 2026"; no regulations naming a day were found.
 * Until a day is set here (or passed as `prsDatabaseOpens`), a PRS Database column gives no deadline and says why.
 */
export const PRS_DATABASE = {
  opens: null as string | null,
  announced: "from late 2026 (Implementing the Renters' Rights Act 2025: our roadmap, November 2025)",
  checked: "2026-11-25",
};

export type Meaning = "done" | "due";

export interface OwnRule {
  key: OwnKey;
  label: string;
  /**
   * Headers recognised, after normalising (core/compliance/own-headers.ts `normaliseHeader`: lower case, single spaces, "carbon
   * monoxide" as "co", "license" as "licence", a one-letter typo of the rules' words mended, "Smoke & CO" as "smoke co").
   */
  header: RegExp;
  /** Headers the docs and the "not read" message offer, each held by a test to be read as this obligation. */
  examples: readonly string[];
  /** Words that make a header look like this obligation's, said aloud when the header is not read. */
  looks: RegExp;
  /** Words that name the obligation inside another header ("Smoke alarm evidence"). */
  words: RegExp;
  /** What a date in the column is when the header does not say (an expiry or due word makes it "due"). */
  defaultMeaning: Meaning;
  countries: readonly Country[];
  rule: Partial<Record<Country, string>>;
  /** Where to read the rule (its title and words: core/compliance/own-sources.ts, for the tests and docs). */
  source: string;
  windows: WindowDays;
}

const ALL: readonly Country[] = ["England", "Wales", "Scotland"];
export const DUE_WORDS =
  /\b(expiry|expires|expiring|expiration|end|ends|renewal|renew|due|next|review|follow up|deadline|until)\b/;

/** "Date of", "Last", "Date of last" before an obligation's name. */
const PRE = "(?:(?:date of|date|when) )?(?:(?:last|latest|most recent) )?";
/** What was done to the alarms, after their name, with a date word. */
const ALARM_DONE = "(?: (?:last )?(?:checked|tested|check|test|inspected|inspection))?(?: (?:date|on|done))?";
const alarmHeader = (subject: string) =>
  new RegExp(
    `^${PRE}(?:${subject}) (?:alarms?|detectors?)${ALARM_DONE}$|^${PRE}smoke co (?:checked|tested|check|test)(?: (?:date|on))?$`,
  );

/**
 * Words of the rules' headers: a header word one letter away from exactly one of them (a letter missing, added, changed
 * or two swapped: "alrams", "smoek", "legionela") is read as it. Words under five letters are never mended.
 */
export const HEADER_WORDS: readonly string[] = [
  "smoke",
  "alarm",
  "alarms",
  "detector",
  "detectors",
  "checked",
  "tested",
  "check",
  "inspected",
  "inspection",
  "legionella",
  "assessment",
  "assessed",
  "review",
  "reviewed",
  "expiry",
  "expires",
  "renewal",
  "licence",
  "registration",
  "registered",
  "landlord",
  "database",
  "follow",
  "monoxide",
  "carbon",
];

export const OWN_RULES: readonly OwnRule[] = [
  {
    key: "smoke_alarms",
    label: "Smoke alarms",
    header: alarmHeader("smoke|smoke co"),
    examples: ["Smoke alarms checked", "Date of smoke alarm check", "Smoke & CO alarms checked"],
    looks: /\bsmoke\b/,
    words: /\bsmoke\b/,
    defaultMeaning: "done",
    countries: ALL,
    rule: {
      England: "Smoke and Carbon Monoxide Alarm (England) Regs 2015, reg 4(1)(b) (as amended 2022)",
      Wales: "Renting Homes (FFHH) (Wales) Regs 2022, reg 5(1)",
      Scotland: "Housing (Scotland) Act 1987, s.86 (tolerable standard, from 1 February 2022)",
    },
    source: "https://www.legislation.gov.uk/uksi/2015/1693/regulation/4",
    windows: { plan: 30, book: 14, urgent: 7 },
  },
  {
    key: "co_alarms",
    label: "Carbon monoxide alarms",
    header: alarmHeader("co|smoke co"),
    examples: ["CO alarms checked", "Carbon monoxide alarm test", "Smoke & CO alarms checked"],
    looks: /\bco (alarms?|detectors?)\b/,
    words: /\bco\b/,
    defaultMeaning: "done",
    countries: ALL,
    rule: {
      England: "Smoke and Carbon Monoxide Alarm (England) Regs 2015, reg 4(1)(b) (as amended 2022)",
      Wales: "Renting Homes (FFHH) (Wales) Regs 2022, reg 5(2)",
      Scotland: "Housing (Scotland) Act 1987, s.86 (tolerable standard, from 1 February 2022)",
    },
    source: "https://www.legislation.gov.uk/uksi/2022/1005/contents/made",
    windows: { plan: 30, book: 14, urgent: 7 },
  },
  {
    key: "legionella",
    label: "Legionella risk assessment",
    header: new RegExp(
      `^${PRE}legionella(?: risk)?(?: (?:last )?(?:assessment|assessed|ra|check|checked|review|reviewed))?(?: (?:date|done|on|due|review|review date|next review|expiry))?$|^(?:next )?legionella (?:risk assessment )?review(?: date| due)?$`,
    ),
    examples: ["Legionella risk assessment", "Legionella last assessed", "Legionella review due"],
    looks: /\blegionella\b/,
    words: /\blegionella\b/,
    defaultMeaning: "done",
    countries: ALL,
    rule: {
      England: "HSWA 1974 s.3; COSHH 2002 reg 6; HSE ACoP L8",
      Wales: "HSWA 1974 s.3; COSHH 2002 reg 6; HSE ACoP L8",
      Scotland: "HSWA 1974 s.3; COSHH 2002 reg 6; HSE ACoP L8",
    },
    source: "https://www.hse.gov.uk/legionnaires/",
    windows: { plan: 60, book: 30, urgent: 14 },
  },
  {
    key: "right_to_rent",
    label: "Right to Rent follow-up",
    header:
      /^(next )?(right to rent|rtr)( check)?( follow up| follow up check| recheck| re check| repeat check)( (date|due|due date|by))?$|^(right to rent|rtr) (check )?(expiry|expires|due)( date| on)?$|^next (right to rent|rtr) check( date| due)?$/,
    examples: ["Right to Rent follow-up", "RTR expiry date", "Next right to rent check"],
    looks: /\bright to rent\b|\brtr\b/,
    words: /\bright to rent\b|\brtr\b/,
    defaultMeaning: "due",
    countries: ["England"],
    rule: { England: "Immigration Act 2014, ss.22-24; Code of practice on right to rent (2024)" },
    source: "https://www.gov.uk/government/publications/landlords-guide-to-right-to-rent-checks",
    windows: { plan: 60, book: 28, urgent: 7 },
  },
  {
    key: "hmo_licence",
    label: "HMO licence",
    header:
      /^hmo( licence)? (expiry|expires|expiry date|expires on|end|end date|renewal|renewal date|renewal due|valid until)$/,
    examples: ["HMO licence expiry", "HMO licence expiry date", "HMO renewal date"],
    looks: /\bhmo\b/,
    words: /\bhmo\b/,
    defaultMeaning: "due",
    countries: ALL,
    rule: {
      England: "Housing Act 2004, s.61 and s.68 (HMO licence up to 5 years)",
      Wales: "Housing Act 2004, s.61 and s.68 (HMO licence up to 5 years)",
      Scotland: "Housing (Scotland) Act 2006, Part 5 (HMO licence up to 3 years)",
    },
    source: "https://www.legislation.gov.uk/ukpga/2004/34/section/68",
    windows: { plan: 120, book: 60, urgent: 30 },
  },
  {
    key: "landlord_registration",
    label: "Landlord registration (Scotland)",
    header:
      /^(scottish )?landlord registration( (date|registered|expiry|expires|expiry date|renewal|renewal date|renewal due|due))?$|^landlord registered( on)?$/,
    examples: ["Landlord registration", "Landlord registration expiry"],
    looks: /\blandlord registration\b/,
    words: /\blandlord registration\b/,
    defaultMeaning: "done",
    countries: ["Scotland"],
    rule: { Scotland: "Antisocial Behaviour etc. (Scotland) Act 2004, Part 8 (registration for 3 years)" },
    source: "https://www.legislation.gov.uk/asp/2004/8/part/8",
    windows: { plan: 120, book: 60, urgent: 30 },
  },
  {
    key: "rent_smart_wales",
    label: "Rent Smart Wales",
    header:
      /^(rent smart wales|rsw)( (registration|licence|registered|licensed))?( (date|expiry|expires|expiry date|renewal|renewal date|renewal due|due|number date))?$/,
    examples: ["Rent Smart Wales", "Rent Smart Wales registration", "RSW licence expiry"],
    looks: /\brent smart\b|\brsw\b/,
    words: /\brent smart\b|\brsw\b/,
    defaultMeaning: "done",
    countries: ["Wales"],
    rule: { Wales: "Housing (Wales) Act 2014, Part 1, ss.4-7 and s.15(4) (registration and licence, 5 years)" },
    source: "https://www.rentsmart.gov.wales/en/waitingforyourlicence/",
    windows: { plan: 120, book: 60, urgent: 30 },
  },
  {
    key: "prs_database",
    label: "PRS Database registration",
    header:
      /^(prs|private rented sector|landlord) database( registration| registered)?( (date|on))?$|^prs db( registration)?$/,
    examples: ["PRS Database registration", "Private rented sector database"],
    looks: /\b(prs|private rented sector|landlord) (database|db)\b/,
    words: /\bdatabase\b/,
    defaultMeaning: "done",
    countries: ["England"],
    rule: { England: "Renters' Rights Act 2025, Part 2, Chapter 3 (Private Rented Sector Database)" },
    source: "https://mhclgmedia.blog.gov.uk/2025/11/14/coverage-of-the-renters-rights-act-implementation-roadmap",
    windows: { plan: 30, book: 14, urgent: 7 },
  },
];

export const RULE_BY_KEY = new Map(OWN_RULES.map((r) => [r.key, r] as const));

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
      return legionella(r, input, c);
    case "right_to_rent":
      return rightToRent(r, input, c);
    case "hmo_licence":
      return hmoLicence(r, input, c);
    case "landlord_registration":
      return fromDate(r, input, c, 3, "Renew the landlord registration with the council");
    case "rent_smart_wales":
      return fromDate(r, input, c, 5, "Renew with Rent Smart Wales");
    case "prs_database":
      return prsDatabase(r, input, c);
  }
}

function legionella(r: OwnRule, input: OwnInput, c: OwnContext): OwnObligation {
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
}

function rightToRent(r: OwnRule, input: OwnInput, c: OwnContext): OwnObligation {
  if (!input.date)
    return build(r, input, c, null, "", "No follow-up date: none is needed where the right to rent is unlimited", null);
  return build(
    r,
    input,
    c,
    input.date,
    `Do the follow-up Right to Rent check by ${input.date} (the time-limited excuse then ends)`,
  );
}

function hmoLicence(r: OwnRule, input: OwnInput, c: OwnContext): OwnObligation {
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
}

/** Nothing is due before the PRS Database opens (PRS_DATABASE, or the day `c` gives once regulations set one). */
function prsDatabase(r: OwnRule, input: OwnInput, c: OwnContext): OwnObligation {
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
