/**
 * Generating the sandbox's register for a day: about 20,000 rental properties on real-format UK postcodes, from a
 * fixed seed, with every date placed relative to that day so statuses stay realistic.
 */
import { DAY_MS, type DayFn, dayFormatter, isoSeconds, statusForExpiryDays } from "./days";
import { AREAS, type Area, INWARD_LETTERS, STREETS } from "./places";
import { Rng, SEED, weights } from "./random";
import {
  type DepositScheme,
  type Dataset,
  type EicrCheck,
  type EpcCheck,
  type EpcRating,
  type GasSafetyCheck,
  type LicensingCheck,
  type DepositCheck,
  type Property,
  type PropertyChecks,
  type PropertyFacts,
  WARNING_WINDOW_DAYS,
} from "./register";

export type ExpiryBucket = "past" | "within30" | "within60" | "within90" | "far";

/** Days from today to an expiry in the bucket; `farMax` bounds a far expiry (e.g. 365 for gas). */
function daysFor(rng: Rng, bucket: ExpiryBucket, farMax: number): number {
  switch (bucket) {
    case "past":
      return -rng.int(1, 400);
    case "within30":
      return rng.int(0, 30);
    case "within60":
      return rng.int(31, 60);
    case "within90":
      return rng.int(61, 90);
    case "far":
      return rng.int(WARNING_WINDOW_DAYS + 1, farMax);
  }
}

const EXPIRY_WEIGHTS = weights<ExpiryBucket>({ past: 7, within30: 5, within60: 5, within90: 5, far: 78 });
const EPC_RATING_WEIGHTS = weights<EpcRating>({ A: 3, B: 10, C: 30, D: 32, E: 15, F: 6, G: 4 });
const GAS_WEIGHTS = weights<PropertyFacts["gas_safety"]>({ no_gas_supply: 12, missing: 3, certificate: 85 });
const EICR_WEIGHTS = weights<PropertyFacts["eicr"]>({
  not_required: 3,
  missing: 6,
  unsatisfactory: 5,
  satisfactory: 86,
});
const LICENSING_WEIGHTS = weights<PropertyFacts["licensing"]>({
  not_required: 58,
  selective: 0,
  additional_hmo: 12,
  mandatory_hmo: 10,
});
const LICENSING_WEIGHTS_SELECTIVE = weights<PropertyFacts["licensing"]>({
  not_required: 58,
  selective: 20,
  additional_hmo: 12,
  mandatory_hmo: 10,
});
const DEPOSIT_WEIGHTS = weights<PropertyFacts["deposit"]>({
  no_deposit: 8,
  unprotected: 5,
  protected_late: 4,
  protected: 83,
});
const DEPOSIT_SCHEME_WEIGHTS = weights<DepositScheme>({ DPS: 40, mydeposits: 25, TDS: 35 });

// ---------------------------------------------------------------------------------------------
// Generating one property's checks.

function makeChecks(rng: Rng, day: DayFn, area: Area): { checks: PropertyChecks; facts: PropertyFacts } {
  // EPC: rated A-G (F/G cannot be let) or exempt.
  let epc: EpcCheck;
  let epcFact: PropertyFacts["epc"] = "rated";
  if (rng.chance(0.02)) {
    epcFact = "exempt";
    epc = { status: "not_required", rating: null, expiry: null };
  } else {
    const rating = rng.weighted(EPC_RATING_WEIGHTS);
    const days = daysFor(rng, rng.weighted(EXPIRY_WEIGHTS), 3650);
    const byDate = statusForExpiryDays(days);
    epc = { status: rating === "F" || rating === "G" ? "fail" : byDate, rating, expiry: day(days) };
  }

  // Gas safety: 12-month certificates; no gas supply means not required.
  let gas: GasSafetyCheck;
  const gasFact = rng.weighted(GAS_WEIGHTS);
  if (gasFact === "no_gas_supply") gas = { status: "not_required", last_certificate: null, expiry: null };
  else if (gasFact === "missing") gas = { status: "fail", last_certificate: null, expiry: null };
  else {
    const days = daysFor(rng, rng.weighted(EXPIRY_WEIGHTS), 365);
    const expiry = day(days);
    gas = { status: statusForExpiryDays(days), last_certificate: day(days - 365), expiry };
  }

  // EICR: 5-year reports; missing or unsatisfactory reports fail with a detail.
  let eicr: EicrCheck;
  const eicrFact = rng.weighted(EICR_WEIGHTS);
  if (eicrFact === "not_required") {
    eicr = {
      status: "not_required",
      expiry: null,
      detail: "Not let under a private tenancy (resident landlord); no EICR required.",
    };
  } else if (eicrFact === "missing") {
    eicr = { status: "fail", expiry: null, detail: "No EICR on record for this property." };
  } else if (eicrFact === "unsatisfactory") {
    const inspected = -rng.int(10, 200);
    const code = rng.pick(["C1", "C2", "FI"]);
    eicr = {
      status: "fail",
      expiry: day(inspected + 5 * 365),
      detail: `Unsatisfactory report (${code} observations); remedial work was due by ${day(inspected + 27)}.`,
    };
  } else {
    const days = daysFor(rng, rng.weighted(EXPIRY_WEIGHTS), 5 * 365);
    const status = statusForExpiryDays(days);
    eicr = {
      status,
      expiry: day(days),
      detail: status === "fail" ? `EICR expired on ${day(days)}.` : null,
    };
  }

  // Licensing: most properties need none; selective schemes only where the council runs one.
  let licensing: LicensingCheck;
  const licFact = rng.weighted(area.selective ? LICENSING_WEIGHTS_SELECTIVE : LICENSING_WEIGHTS);
  let licenceHeld = false;
  if (licFact === "not_required") licensing = { status: "not_required", scheme: null, expiry: null };
  else {
    const scheme =
      licFact === "selective"
        ? `Selective licence (${area.council})`
        : licFact === "additional_hmo"
          ? "Additional HMO licence"
          : "Mandatory HMO licence";
    if (rng.chance(0.12)) licensing = { status: "fail", scheme, expiry: null };
    else {
      licenceHeld = true;
      const days = daysFor(rng, rng.weighted(EXPIRY_WEIGHTS), 5 * 365);
      licensing = { status: statusForExpiryDays(days), scheme, expiry: day(days) };
    }
  }

  // Deposit protection: DPS, mydeposits or TDS; late protection warns, none fails.
  let deposit: DepositCheck;
  const depFact = rng.weighted(DEPOSIT_WEIGHTS);
  if (depFact === "no_deposit" || depFact === "unprotected") {
    deposit = { status: depFact === "no_deposit" ? "not_required" : "fail", scheme: null, protected_date: null };
  } else {
    const scheme = rng.weighted(DEPOSIT_SCHEME_WEIGHTS);
    deposit = {
      status: depFact === "protected_late" ? "warning" : "pass",
      scheme,
      protected_date: day(-rng.int(5, 3 * 365)),
    };
  }

  return {
    checks: { epc, gas_safety: gas, eicr, licensing, deposit_protection: deposit },
    facts: {
      epc: epcFact,
      gas_safety: gasFact,
      eicr: eicrFact,
      licensing: licFact,
      licence_held: licenceHeld,
      deposit: depFact,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Building the register.

/** The contract's example property: pinned so documentation examples resolve. */
const DOWNING_STREET_UPRN = "100023336956";
/** The least 12-digit UPRN the register makes; the most is 79,999,999 more. */
const LONG_UPRN_BASE = 100010000000;
const YEAR_0_MS = Date.parse("0000-01-01T00:00:00Z");

/** "THH:MM:00Z" for each minute of a day. */
const TIMES_OF_DAY: readonly string[] = Array.from({ length: 1440 }, (_, m) => {
  const two = (n: number) => (n < 10 ? "0" : "") + n;
  return "T" + two((m / 60) | 0) + ":" + two(m % 60) + ":00Z";
});

/** A property's address: the parts it has, joined with ", ". */
function makeAddress(line1: string, line2: string | null, town: string, postcode: string): string {
  return join(join(join(line1, line2), town), postcode);
}

/** `address` and then `part` if there is one, joined with ", " (without an array to filter and join per property). */
function join(address: string, part: string | null): string {
  return part ? (address ? address + ", " + part : part) : address;
}

export function buildDataset(today: string): Dataset {
  const started = Date.now();
  const rng = new Rng(SEED);
  const day = dayFormatter(today);
  const todayMs = Date.parse(today + "T00:00:00Z");
  const properties: Property[] = [];
  const byUprn = new Map<string, Property>();
  const byPostcode = new Map<string, Property[]>();
  // UPRNs taken, as numbers: 12-digit ones by their offset from 100010000000, the 8-10 digit ones by value (the two
  // never share a string). A number set, and a string made only for a new UPRN, cost a fraction of a string set.
  const usedLong = new Set<number>([Number(DOWNING_STREET_UPRN) - LONG_UPRN_BASE]);
  const usedShort = new Set<number>();

  const newUprn = (): string => {
    for (;;) {
      // Mostly 12 digits; about 6% are 8-10 digits, which spreadsheets tend to pad or strip.
      if (rng.chance(0.06)) {
        const digits = rng.int(8, 10);
        const n = rng.int(10 ** (digits - 1), 10 ** digits - 1);
        if (!usedShort.has(n)) {
          usedShort.add(n);
          return "" + n;
        }
      } else {
        const offset = rng.int(0, 79_999_999);
        if (!usedLong.has(offset)) {
          usedLong.add(offset);
          // 100010000000 + offset: "1000" then 10000000 + offset, always eight digits.
          return "1000" + (10_000_000 + offset);
        }
      }
    }
  };

  // Each property is made whole in one object literal, its address last (as the API has always listed it): adding
  // the address afterwards, or copying, cost a fifth of a build.
  const add = (p: Property, list: Property[]): void => {
    properties.push(p);
    byUprn.set(p.uprn, p);
    list.push(p);
  };

  // Updated 1-30 days ago at a minute's granularity: the day from `day`, the time from a table, as isoSeconds would
  // write them (which it still does where the 30 days reach before year 0, whose days `day` cannot write).
  const stampsByDay = todayMs - 31 * DAY_MS >= YEAR_0_MS;
  const lastUpdated = (): string => {
    const minutes = rng.int(1, 30 * 1440);
    if (!stampsByDay) return isoSeconds(todayMs - minutes * 60_000);
    const daysBack = ((minutes + 1439) / 1440) | 0;
    return day(-daysBack) + TIMES_OF_DAY[daysBack * 1440 - minutes];
  };

  // The contract's example, alone on its postcode so that the postcode alone resolves it.
  const downingStreet: Property[] = [];
  byPostcode.set("SW1A 2AA", downingStreet);
  add(
    {
      uprn: DOWNING_STREET_UPRN,
      address_line_1: "10 Downing Street",
      address_line_2: null,
      town: "London",
      postcode: "SW1A 2AA",
      checks: {
        epc: { status: "pass", rating: "C", expiry: day(1800) },
        gas_safety: { status: "warning", last_certificate: day(-320), expiry: day(45) },
        eicr: { status: "fail", expiry: null, detail: "No EICR on record for this property." },
        licensing: { status: "not_required", scheme: null, expiry: null },
        deposit_protection: { status: "pass", scheme: "DPS", protected_date: day(-250) },
      },
      facts: {
        epc: "rated",
        gas_safety: "certificate",
        eicr: "missing",
        licensing: "not_required",
        licence_held: false,
        deposit: "protected",
      },
      last_updated: lastUpdated(),
      address: makeAddress("10 Downing Street", null, "London", "SW1A 2AA"),
    },
    downingStreet,
  );

  const TARGET = 20_400;
  const usedPostcodes = new Set<string>(["SW1A 2AA"]);
  let areaIndex = 0;
  while (properties.length < TARGET) {
    const area = AREAS[areaIndex++ % AREAS.length];
    let postcode: string;
    do {
      const inward = "" + rng.int(1, 9) + rng.pick(INWARD_LETTERS) + rng.pick(INWARD_LETTERS);
      postcode = `${area.outward} ${inward}`;
    } while (usedPostcodes.has(postcode));
    usedPostcodes.add(postcode);

    // 3% single-property postcodes; otherwise 5-30 homes on one or two streets.
    const count = rng.chance(0.03) ? 1 : rng.int(5, 30);
    const streets = area.streets ?? STREETS;
    const street = rng.pick(streets);
    const second = rng.chance(0.25) ? rng.pick(streets) : street;
    const lines: string[] = [];
    let number = rng.int(1, 40);
    while (lines.length < count) {
      const onStreet = lines.length % 2 === 1 && second !== street ? second : street;
      if (rng.chance(0.35)) {
        const flats = rng.int(2, 9);
        for (let f = 1; f <= flats && lines.length < count; f++) lines.push(`Flat ${f}, ${number} ${onStreet}`);
      } else {
        lines.push(`${number}${rng.chance(0.05) ? "A" : ""} ${onStreet}`);
      }
      number += rng.int(1, 3);
    }
    const withLocality = area.locality !== null && rng.chance(0.3);
    const line2 = withLocality ? area.locality : null;
    // What follows the first line in each address on this postcode.
    const rest = makeAddress("", line2, area.town, postcode);
    const list: Property[] = [];
    byPostcode.set(postcode, list);
    for (const line of lines) {
      const { checks, facts } = makeChecks(rng, day, area);
      add(
        {
          uprn: newUprn(),
          address_line_1: line,
          address_line_2: line2,
          town: area.town,
          postcode,
          checks,
          facts,
          last_updated: lastUpdated(),
          address: join(line, rest),
        },
        list,
      );
    }
  }

  const collator = new Intl.Collator("en", { numeric: true });
  for (const list of byPostcode.values()) list.sort((a, b) => collator.compare(a.address_line_1, b.address_line_1));
  return { today, properties, byUprn, byPostcode, buildMs: Date.now() - started };
}
