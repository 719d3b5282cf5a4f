/**
 * Finding example properties in the sandbox's register, for this project's tests and demos: by predicate, and named
 * examples of every kind (each status of each check, expiries in each window, postcodes shared or alone).
 */
import { DAY_MS } from "./days";
import type { ExpiryBucket } from "./generate";
import { getDataset } from "./register-day";
import {
  CHECK_NAMES,
  CHECK_STATUSES,
  type CheckName,
  type CheckStatus,
  type Dataset,
  type DepositScheme,
  EPC_RATINGS,
  type EpcRating,
  type Property,
  type RiskLevel,
} from "./register";
import { checkResultFor } from "./score";
import { isValid as isValidPostcode } from "postcode";
/** Properties matching `predicate`, in register order, at most `limit`. */
export function findProperties(ds: Dataset, predicate: (p: Property) => boolean, limit = Infinity): Property[] {
  const out: Property[] = [];
  for (const p of ds.properties) {
    if (out.length >= limit) break;
    if (predicate(p)) out.push(p);
  }
  return out;
}

/** The first property matching `predicate`; throws if none does (a test would be meaningless). */
export function findProperty(ds: Dataset, predicate: (p: Property) => boolean, what = "matching property"): Property {
  const found = ds.properties.find(predicate);
  if (!found) throw new Error(`sandbox dataset has no ${what}`);
  return found;
}

/** Days from the dataset's today to a YYYY-MM-DD date. */
export function daysUntil(ds: Dataset, date: string): number {
  return round((dayMs(date) - dayMs(ds.today)) / DAY_MS);
}

// Tests ask daysUntil of every property in a register, a few thousand dates over and over, in a vm context (jest)
// where each global lookup is slow: the dates are parsed once, and globals read through local bindings.
const parseDate = Date.parse;
const round = Math.round;
const parsedDays = new Map<string, number>();

function dayMs(date: string): number {
  let ms = parsedDays.get(date);
  if (ms === undefined) {
    if (parsedDays.size >= 100_000) parsedDays.clear();
    parsedDays.set(date, (ms = parseDate(date + "T00:00:00Z")));
  }
  return ms;
}

/** The checks with an expiry the add-ins count down to (deposit protection has none). */
export const DATED_CHECKS = ["gas_safety", "eicr", "epc", "licensing"] as const;
export type DatedCheck = (typeof DATED_CHECKS)[number];

/**
 * Days from today to an expiry, bucketed as the add-ins' windows need them (inclusive bounds): already passed,
 * due in 0-7 days (gas's Urgent window), 8-30 days, 31-60 days.
 */
export const DUE_BUCKETS = {
  overdue: [-Infinity, -1],
  within7: [0, 7],
  within30: [8, 30],
  within60: [31, 60],
} as const satisfies Record<string, readonly [number, number]>;
export type DueBucket = keyof typeof DUE_BUCKETS;

export interface DatasetExamples {
  /** A property for every status of every check, e.g. `byCheckStatus.epc.fail`. */
  byCheckStatus: Record<CheckName, Record<CheckStatus, Property>>;
  epcByRating: Record<EpcRating, Property>;
  /** EPC expiries: already past, within 0-30, 31-60, 61-90 days, and beyond 90 days. */
  epcExpiry: Record<ExpiryBucket, Property>;
  /**
   * For each dated check, a property whose expiry falls in each of DUE_BUCKETS, e.g. `dueWithin.gas_safety.within7`.
   * The check is held (not `not_required`); EPCs are rated A-E (an F or G is overdue whatever the date) and EICRs
   * are satisfactory reports, so the expiry is what the property's obligation for that check turns on.
   */
  dueWithin: Record<DatedCheck, Record<DueBucket, Property>>;
  gasNoSupply: Property;
  eicrMissing: Property;
  eicrUnsatisfactory: Property;
  eicrSatisfactory: Property;
  licensing: { notRequired: Property; selective: Property; additionalHmo: Property; mandatoryHmo: Property };
  deposit: Record<DepositScheme, Property> & { unprotected: Property; noDeposit: Property };
  riskLevel: Record<RiskLevel, Property>;
  /** A postcode shared by several properties (so postcode alone is a 409). */
  sharedPostcode: { postcode: string; properties: Property[] };
  /** A street name that matches several first lines of `sharedPostcode`'s properties (409 with address). */
  ambiguousAddress: { postcode: string; address: string; matches: Property[] };
  /** A postcode with exactly one property (postcode alone resolves it). */
  singlePropertyPostcode: { postcode: string; property: Property };
  /** A property whose UPRN has fewer than 12 digits, and that UPRN zero-padded to 12. */
  shortUprn: { property: Property; padded: string };
  /** A property whose address has non-ASCII letters (Welsh). */
  nonAsciiAddress: Property;
  /** Well-formed identifiers that the register does not hold. */
  unknownUprn: string;
  unknownPostcode: string;
}

let examplesCache: { ds: Dataset; ex: DatasetExamples } | undefined;

/** Named example properties of each kind; throws if the register lacks one (it never should). */
export function findExamples(ds: Dataset = getDataset()): DatasetExamples {
  if (examplesCache && examplesCache.ds === ds) return examplesCache.ex;
  const one = (what: string, pred: (p: Property) => boolean) => findProperty(ds, pred, what);
  const byCheckStatus = {} as Record<CheckName, Record<CheckStatus, Property>>;
  for (const name of CHECK_NAMES) {
    byCheckStatus[name] = {} as Record<CheckStatus, Property>;
    for (const status of CHECK_STATUSES) {
      byCheckStatus[name][status] = one(`${name} ${status}`, (p) => p.checks[name].status === status);
    }
  }
  const epcByRating = {} as Record<EpcRating, Property>;
  for (const r of EPC_RATINGS) epcByRating[r] = one(`EPC rating ${r}`, (p) => p.checks.epc.rating === r);
  const epcDays = (p: Property) => (p.checks.epc.expiry ? daysUntil(ds, p.checks.epc.expiry) : NaN);
  const okRating = (p: Property) => p.checks.epc.rating !== null && !["F", "G"].includes(p.checks.epc.rating);
  const epcExpiry: Record<ExpiryBucket, Property> = {
    past: one("expired EPC", (p) => okRating(p) && epcDays(p) < 0),
    within30: one("EPC expiring within 30 days", (p) => okRating(p) && epcDays(p) >= 0 && epcDays(p) <= 30),
    within60: one("EPC expiring in 31-60 days", (p) => okRating(p) && epcDays(p) > 30 && epcDays(p) <= 60),
    within90: one("EPC expiring in 61-90 days", (p) => okRating(p) && epcDays(p) > 60 && epcDays(p) <= 90),
    far: one("EPC expiring after 90 days", (p) => okRating(p) && epcDays(p) > 90),
  };
  const dueWithin = {} as Record<DatedCheck, Record<DueBucket, Property>>;
  for (const check of DATED_CHECKS) {
    dueWithin[check] = {} as Record<DueBucket, Property>;
    for (const [bucket, [lo, hi]] of Object.entries(DUE_BUCKETS) as [DueBucket, readonly [number, number]][]) {
      dueWithin[check][bucket] = one(`${check} expiry ${bucket}`, (p) => {
        const c = p.checks[check];
        if (!c.expiry || c.status === "not_required") return false;
        if (check === "epc" && !okRating(p)) return false;
        if (check === "eicr" && p.facts.eicr !== "satisfactory") return false;
        const d = daysUntil(ds, c.expiry);
        return d >= lo && d <= hi;
      });
    }
  }
  const shared = [...ds.byPostcode.entries()].find(([, list]) => {
    const street = list[0].address_line_1.replace(/^(Flat \d+, )?\d+A? /, "");
    return list.length >= 8 && list.filter((p) => p.address_line_1.endsWith(street)).length >= 3;
  });
  if (!shared) throw new Error("sandbox dataset has no shared postcode");
  const street = shared[1][0].address_line_1.replace(/^(Flat \d+, )?\d+A? /, "");
  const single = [...ds.byPostcode.entries()].find(([pc, list]) => list.length === 1 && pc !== "SW1A 2AA");
  if (!single) throw new Error("sandbox dataset has no single-property postcode");
  const short = one("short UPRN", (p) => p.uprn.length < 12);
  let unknownUprn = "999999999999";
  while (ds.byUprn.has(unknownUprn)) unknownUprn = String(Number(unknownUprn) - 1);

  const ex: DatasetExamples = {
    byCheckStatus,
    epcByRating,
    epcExpiry,
    dueWithin,
    gasNoSupply: one("property without gas", (p) => p.facts.gas_safety === "no_gas_supply"),
    eicrMissing: one("missing EICR", (p) => p.facts.eicr === "missing"),
    eicrUnsatisfactory: one("unsatisfactory EICR", (p) => p.facts.eicr === "unsatisfactory"),
    eicrSatisfactory: one(
      "satisfactory EICR",
      (p) => p.facts.eicr === "satisfactory" && p.checks.eicr.status === "pass",
    ),
    licensing: {
      notRequired: one("no licensing", (p) => p.facts.licensing === "not_required"),
      selective: one("selective licence", (p) => p.facts.licensing === "selective"),
      additionalHmo: one("additional HMO licence", (p) => p.facts.licensing === "additional_hmo"),
      mandatoryHmo: one("mandatory HMO licence", (p) => p.facts.licensing === "mandatory_hmo"),
    },
    deposit: {
      DPS: one("DPS deposit", (p) => p.checks.deposit_protection.scheme === "DPS"),
      mydeposits: one("mydeposits deposit", (p) => p.checks.deposit_protection.scheme === "mydeposits"),
      TDS: one("TDS deposit", (p) => p.checks.deposit_protection.scheme === "TDS"),
      unprotected: one("unprotected deposit", (p) => p.facts.deposit === "unprotected"),
      noDeposit: one("no deposit", (p) => p.facts.deposit === "no_deposit"),
    },
    riskLevel: {
      low: one("low risk", (p) => checkResultFor(p).risk_level === "low"),
      medium: one("medium risk", (p) => checkResultFor(p).risk_level === "medium"),
      high: one("high risk", (p) => checkResultFor(p).risk_level === "high"),
    },
    sharedPostcode: { postcode: shared[0], properties: shared[1] },
    ambiguousAddress: {
      postcode: shared[0],
      address: street,
      matches: shared[1].filter((p) => p.address_line_1.toLowerCase().includes(street.toLowerCase())),
    },
    singlePropertyPostcode: { postcode: single[0], property: single[1][0] },
    shortUprn: { property: short, padded: short.uprn.padStart(12, "0") },
    // eslint-disable-next-line no-control-regex -- the range is all of ASCII, from NUL: a match is a character outside it.
    nonAsciiAddress: one("non-ASCII address", (p) => /[^\x00-\x7f]/.test(p.address)),
    unknownUprn,
    unknownPostcode: "ZZ1 1ZZ",
  };
  examplesCache = { ds, ex };
  return ex;
}

/** True when every postcode in the register passes the `postcode` package's validation. */
export function allPostcodesValid(ds: Dataset): boolean {
  for (const pc of ds.byPostcode.keys()) if (!isValidPostcode(pc)) return false;
  return true;
}
