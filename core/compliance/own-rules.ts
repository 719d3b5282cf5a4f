/**
 * The rules of the obligations kept in the user's own columns, one entry each: the headers that name it, what a date
 * in it is (the day it was done, or the day it falls due), the countries it applies in, its rule and source, and its
 * windows. core/compliance/own-obligations.ts reads the columns and applies these rules.
 */
import type { Country } from "./country";
import type { WindowDays } from "./obligations";

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
const alarms = (subject: string) =>
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
    header: alarms("smoke|smoke co"),
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
    header: alarms("co|smoke co"),
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
