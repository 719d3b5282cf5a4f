/**
 * The sources of the Welsh and Scottish rules (core/compliance/country-rules.ts), in their own words where they were read, with each
 * rule's period as the source words it. Data for the tests and docs/compliance-rules.md; the add-ins' bundles do not
 * carry it (nothing at run time imports this file). Checked 2026-11-25.
 */
import type { CheckName } from "../service/checks";

/** A source as the docs cite it: what it is, where to read it, its own words. */
export interface Source {
  title: string;
  url: string;
  /** The source's own words, where they were read; `note` is ours, where only the effect is stated. */
  quote?: string;
  note?: string;
}

export const GSIUR: Source = {
  title:
    "Gas Safety (Installation and Use) Regulations 1998 (SI 1998/2451), reg 36(3): Great Britain, so England, Wales and Scotland",
  url: "https://www.legislation.gov.uk/uksi/1998/2451/regulation/36",
  quote:
    "each appliance and flue ... is checked for safety within 12 months of being installed and at intervals of not more than 12 months since it was last checked for safety",
};

export const COUNTRY_SOURCES = {
  walesElectrical: {
    title:
      "Renting Homes (Fitness for Human Habitation) (Wales) Regulations 2022 (SI 2022/6), reg 6 (as amended: 14 days)",
    url: "https://www.legislation.gov.uk/wsi/2022/6/regulation/6",
    quote:
      "valid— (i) until the end of the period of 5 years beginning with the day on which the electrical safety inspection is carried out ... the contract-holder is, before the end of the period of 14 days starting with the occupation date, given— (a) a copy of the most recent electrical condition report",
  },
  walesDeposit: {
    title: "Renting Homes (Wales) Act 2016, s.45(2)",
    url: "https://www.legislation.gov.uk/anaw/2016/1/section/45",
    quote:
      "Before the end of the period of 30 days starting with the day on which the deposit is paid, the landlord must— (a) comply with the initial requirements of an authorised deposit scheme, and (b) give the contract-holder ... the required information.",
  },
  scotlandElectrical: {
    title:
      "Housing (Scotland) Act 2006, ss.19A-19B (the repairing standard: electrical safety inspections); Repairing Standard statutory guidance for private landlords, in force from 1 March 2024",
    url: "https://www.gov.scot/publications/repairing-standard-statutory-guidance-private-landlords/pages/16/",
    quote:
      "Landlords are required to ensure an electrical safety inspection is carried out by a competent person before the tenancy commences, and then at intervals of no more than five years. (Annex D3, D.55; sections 19A and 19B cover the installations, fixtures and fittings and any appliances provided by the landlord under the tenancy)",
  },
  scotlandDeposit: {
    title: "Tenancy Deposit Schemes (Scotland) Regulations 2011 (SSI 2011/176), reg 3(1) and reg 2",
    url: "https://www.legislation.gov.uk/ssi/2011/176/regulation/3",
    quote:
      'A landlord who has received a tenancy deposit in connection with a relevant tenancy must, within 30 working days of the beginning of the tenancy— (a) pay the deposit to the scheme administrator of an approved scheme; and (b) provide the tenant with the information required under regulation 42. [reg 2:] "working day" means a day that is not a Saturday or Sunday, nor any day that is a bank holiday under the Banking and Financial Dealings Act 1971 in any part of the United Kingdom',
  },
  scotlandEpc: {
    title:
      "Energy Performance of Buildings (Scotland) Regulations 2008 (SSI 2008/309); the MEES Regulations (SI 2015/962) extend to England and Wales only",
    url: "https://www.legislation.gov.uk/ssi/2008/309/contents",
    note: "An EPC is given to a prospective tenant and is valid for 10 years. No minimum rating for private lets is in force in Scotland (checked 2026-11-25): the minimum E of SI 2015/962 and the C announced for 2030 are for England and Wales.",
  },
  scotlandHmo: {
    title:
      "Housing (Scotland) Act 2006, Part 5 (licensing of houses in multiple occupation); Housing Act 2004 Parts 2 and 3 do not extend to Scotland",
    url: "https://www.legislation.gov.uk/asp/2006/1/part/5",
    note: "An HMO must be licensed by the council; a licence lasts the period the council sets, at most 3 years. Scotland has no selective licensing.",
  },
} as const;

export interface RuleSource {
  period: string;
  sources: readonly Source[];
}

/** Each check's period in Wales and Scotland, as its source words it, and the sources. */
export const COUNTRY_RULE_SOURCES: Readonly<Record<"Wales" | "Scotland", Record<CheckName, RuleSource>>> = {
  Wales: {
    gas_safety: { period: "at intervals of not more than 12 months", sources: [GSIUR] },
    eicr: {
      period:
        "valid for 5 years beginning with the inspection day (last day: inspection + 5 years - 1 day); copy to the contract-holder within 14 days",
      sources: [COUNTRY_SOURCES.walesElectrical],
    },
    epc: { period: "EPC valid 10 years; F or G cannot be let", sources: [] },
    licensing: { period: "licences last up to 5 years", sources: [] },
    deposit_protection: {
      period: "30 days starting with the day the deposit is paid (last day: paid + 29)",
      sources: [COUNTRY_SOURCES.walesDeposit],
    },
  },
  Scotland: {
    gas_safety: { period: "at intervals of not more than 12 months", sources: [GSIUR] },
    eicr: {
      period: "before a tenancy starts and at intervals of no more than 5 years",
      sources: [COUNTRY_SOURCES.scotlandElectrical],
    },
    epc: { period: "EPC valid 10 years", sources: [COUNTRY_SOURCES.scotlandEpc] },
    licensing: {
      period: "HMO licences last up to 3 years (the council sets the period)",
      sources: [COUNTRY_SOURCES.scotlandHmo],
    },
    deposit_protection: {
      period:
        "within 30 working days of the tenancy's start (the start day not counted; bank holidays of any part of the UK are not working days)",
      sources: [COUNTRY_SOURCES.scotlandDeposit],
    },
  },
};
