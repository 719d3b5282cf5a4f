/**
 * The sources of the own-column obligations (core/compliance/own-rules.ts): title, link and their words where they were read
 * (`quote`), or the effect in ours (`note`). Data for the tests and docs/compliance-rules.md; nothing at run time imports
 * it, so the add-ins' bundles do not carry it. Checked 2026-11-25.
 */
import type { Source } from "./country-sources";
import type { OwnKey } from "./own-rules";

export const OWN_SOURCES: Readonly<Record<OwnKey, Source>> = {
  smoke_alarms: {
    title:
      "Smoke and Carbon Monoxide Alarm (England) Regulations 2015 (SI 2015/1693), reg 4, as amended by SI 2022/1005 from 1 October 2022",
    url: "https://www.legislation.gov.uk/uksi/2015/1693/regulation/4",
    note: "checks are made ... to ensure that each prescribed alarm is in proper working order on the day the tenancy begins if it is a new tenancy. Wales (SI 2022/6 reg 5) and Scotland (tolerable standard) require working, interlinked alarms but set no check date.",
  },
  co_alarms: {
    title:
      "SI 2015/1693 reg 4 (as amended by SI 2022/1005): a CO alarm in every room with a fixed combustion appliance (not a gas cooker)",
    url: "https://www.legislation.gov.uk/uksi/2022/1005/contents/made",
    note: "each prescribed alarm is checked to be in proper working order on the day a new tenancy begins; no check date in Wales or Scotland.",
  },
  legionella: {
    title:
      "HSE, Legionnaires' disease: the control of legionella bacteria in water systems (ACoP L8); landlords' duty under HSWA 1974 s.3 and COSHH 2002 reg 6",
    url: "https://www.hse.gov.uk/legionnaires/",
    note: "a risk assessment is required and reviewed regularly; the law sets no fixed interval, so only a review date the user records gives a deadline.",
  },
  right_to_rent: {
    title:
      "Landlord's guide to right to rent checks (Home Office, GOV.UK); Immigration Act 2014, Part 3 (England only)",
    url: "https://www.gov.uk/government/publications/landlords-guide-to-right-to-rent-checks",
    note: "where a tenant's permission is time-limited, do the follow-up check just before the later of the permission's end or 12 months after the previous check; the column holds that day.",
  },
  hmo_licence: {
    title: "Housing Act 2004, s.68 (England and Wales); Housing (Scotland) Act 2006, Part 5",
    url: "https://www.legislation.gov.uk/ukpga/2004/34/section/68",
    note: "a licence lasts the period it states (at most 5 years in England and Wales, 3 in Scotland); the column holds its expiry.",
  },
  landlord_registration: {
    title: "Antisocial Behaviour etc. (Scotland) Act 2004, Part 8, s.84; Shelter Scotland, the registration scheme",
    url: "https://www.legislation.gov.uk/asp/2004/8/part/8",
    quote:
      "Landlords must apply to be accepted onto the register and, if they are successful, they will be entitled to let property for three years before having to renew their application. (Shelter Scotland)",
  },
  rent_smart_wales: {
    title:
      "Housing (Wales) Act 2014, Part 1 (registration s.15(4): a further fee after the fifth anniversary); Rent Smart Wales",
    url: "https://www.rentsmart.gov.wales/en/waitingforyourlicence/",
    quote: "A licence expires 5 years from the approval date.",
  },
  prs_database: {
    title:
      "Renters' Rights Act 2025, Part 2; Implementing the Renters' Rights Act 2025: our roadmap for reforming the private rented sector (MHCLG, 14 November 2025)",
    url: "https://mhclgmedia.blog.gov.uk/2025/11/14/coverage-of-the-renters-rights-act-implementation-roadmap",
    note: "the database is announced from late 2026; registration is a duty only from the day regulations bring it into force.",
  },
};
