/**
 * The rules of the obligations kept in the user's own columns, one entry each: the headers that name it, what a date
 * in it is (the day it was done, or the day it falls due), the countries it applies in, its rule and source, and its
 * windows. core/own-obligations.ts reads the columns and applies these rules.
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
  /** Headers recognised (after normalising: lower case, single spaces, "carbon monoxide" as "co", "license" as "licence"). */
  header: RegExp;
  /** Words that name the obligation inside another header ("Smoke alarm evidence"). */
  words: RegExp;
  /** What a date in the column is when the header does not say (an expiry or due word makes it "due"). */
  defaultMeaning: Meaning;
  countries: readonly Country[];
  rule: Partial<Record<Country, string>>;
  /** Where to read the rule (its title and words: core/own-sources.ts, for the tests and docs). */
  source: string;
  windows: WindowDays;
}

const ALL: readonly Country[] = ["England", "Wales", "Scotland"];
export const DUE_WORDS =
  /\b(expiry|expires|expiring|expiration|end|ends|renewal|renew|due|next|review|follow up|deadline|until)\b/;

export const OWN_RULES: readonly OwnRule[] = [
  {
    key: "smoke_alarms",
    label: "Smoke alarms",
    header:
      /^(smoke alarms?|smoke detectors?)( (last )?(checked|tested|check|test))?( (date|on))?$|^(date )?smoke alarms? (last )?(checked|tested)$/,
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
    header:
      /^co (alarms?|detectors?)( (last )?(checked|tested|check|test))?( (date|on))?$|^(date )?co alarms? (last )?(checked|tested)$/,
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
    header:
      /^legionella( risk)?( assessment| assessed| ra| check| review)?( (date|done|on|due|review|review date|next review|expiry))?$|^(next )?legionella review( date| due)?$/,
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
      /^(right to rent|rtr)( follow up| follow up check| recheck| re check| repeat check)( (date|due|due date|by))?$|^(right to rent|rtr) (check )?(expiry|expires|due)$/,
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
    header: /^hmo( licence)? (expiry|expires|expiry date|end|end date|renewal|renewal date|renewal due|valid until)$/,
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
    words: /\bdatabase\b/,
    defaultMeaning: "done",
    countries: ["England"],
    rule: { England: "Renters' Rights Act 2025, Part 2, Chapter 3 (Private Rented Sector Database)" },
    source: "https://mhclgmedia.blog.gov.uk/2025/11/14/coverage-of-the-renters-rights-act-implementation-roadmap",
    windows: { plan: 30, book: 14, urgent: 7 },
  },
];

export const RULE_BY_KEY = new Map(OWN_RULES.map((r) => [r.key, r] as const));
