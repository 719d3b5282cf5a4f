/**
 * The sandbox's synthetic property register: about 20,000 rental properties on real-format UK postcodes,
 * generated from a fixed seed with every date placed relative to "today", so statuses stay realistic.
 */
import { isValid as isValidPostcode } from "postcode";

export const CHECK_NAMES = ["epc", "gas_safety", "eicr", "licensing", "deposit_protection"] as const;
export type CheckName = (typeof CHECK_NAMES)[number];
export const CHECK_STATUSES = ["pass", "warning", "fail", "not_required"] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];
export const EPC_RATINGS = ["A", "B", "C", "D", "E", "F", "G"] as const;
export type EpcRating = (typeof EPC_RATINGS)[number];
export const DEPOSIT_SCHEMES = ["DPS", "mydeposits", "TDS"] as const;
export type DepositScheme = (typeof DEPOSIT_SCHEMES)[number];
export type RiskLevel = "low" | "medium" | "high";

/** An expiry is a `warning` from this many days before it until the day itself; after it, a `fail`. */
export const WARNING_WINDOW_DAYS = 90;

export interface EpcCheck {
  status: CheckStatus;
  rating: EpcRating | null;
  expiry: string | null;
}
export interface GasSafetyCheck {
  status: CheckStatus;
  last_certificate: string | null;
  expiry: string | null;
}
export interface EicrCheck {
  status: CheckStatus;
  expiry: string | null;
  detail: string | null;
}
export interface LicensingCheck {
  status: CheckStatus;
  scheme: string | null;
  expiry: string | null;
}
export interface DepositCheck {
  status: CheckStatus;
  scheme: DepositScheme | null;
  protected_date: string | null;
}

export interface PropertyChecks {
  epc: EpcCheck;
  gas_safety: GasSafetyCheck;
  eicr: EicrCheck;
  licensing: LicensingCheck;
  deposit_protection: DepositCheck;
}

export interface Property {
  /** Canonical UPRN: digits without leading zeros (8 to 12 digits). */
  uprn: string;
  address_line_1: string;
  address_line_2: string | null;
  town: string;
  /** Normalised, e.g. "LS6 1AB". */
  postcode: string;
  /** One string: line 1, line 2 (if any), town, postcode. */
  address: string;
  checks: PropertyChecks;
  last_updated: string;
  /** Facts behind the statuses, for finding examples (not sent by the API). */
  facts: PropertyFacts;
}

export interface PropertyFacts {
  epc: "exempt" | "rated";
  gas_safety: "no_gas_supply" | "missing" | "certificate";
  eicr: "not_required" | "missing" | "unsatisfactory" | "satisfactory";
  licensing: "not_required" | "selective" | "additional_hmo" | "mandatory_hmo";
  licence_held: boolean;
  deposit: "no_deposit" | "unprotected" | "protected_late" | "protected";
}

export interface CheckResult {
  uprn: string;
  address: string;
  compliance_score: number;
  risk_level: RiskLevel;
  checks: Partial<PropertyChecks>;
  last_updated: string;
}

export interface Dataset {
  /** The UTC day the dates are relative to, YYYY-MM-DD. */
  today: string;
  properties: Property[];
  byUprn: Map<string, Property>;
  /** Keyed by normalised postcode ("LS6 1AB"); properties in address order. */
  byPostcode: Map<string, Property[]>;
  buildMs: number;
}

// ---------------------------------------------------------------------------------------------
// Seeded randomness: mulberry32, so every build of the same day yields the same register.

const SEED = 0x5109346b;

// Hot loops read globals through local bindings: in a vm context (jest) every global lookup is slow.
const imul = Math.imul;
const floor = Math.floor;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  int(min: number, max: number): number {
    return min + floor(this.next() * (max - min + 1));
  }
  pick<T>(items: ArrayLike<T>): T {
    return items[floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** Picks a key of a weight table. */
  weighted<K extends string>(table: WeightTable<K>): K {
    const r = this.next() * table.total;
    for (let i = 0; i < table.cumulative.length; i++) if (r < table.cumulative[i]) return table.keys[i];
    return table.keys[table.keys.length - 1];
  }
}

interface WeightTable<K extends string> {
  keys: K[];
  cumulative: number[];
  total: number;
}

/** Precomputed once: building 20,000 properties draws about 150,000 weighted picks. */
function weights<K extends string>(w: Record<K, number>): WeightTable<K> {
  const keys = Object.keys(w) as K[];
  const cumulative: number[] = [];
  let total = 0;
  for (const k of keys) cumulative.push((total += w[k]));
  return { keys, cumulative, total };
}

// ---------------------------------------------------------------------------------------------
// Places: real outward codes, their post towns, a locality for line 2 and the council that runs a
// selective licensing scheme there (if we pretend one does).

interface Area {
  outward: string;
  town: string;
  locality: string | null;
  council: string;
  selective: boolean;
  streets?: readonly string[];
}

const AREAS: readonly Area[] = [
  { outward: "E15", town: "London", locality: "Stratford", council: "Newham", selective: true },
  { outward: "E6", town: "London", locality: "East Ham", council: "Newham", selective: true },
  { outward: "E1W", town: "London", locality: "Wapping", council: "Tower Hamlets", selective: false },
  { outward: "N1", town: "London", locality: "Islington", council: "Islington", selective: false },
  { outward: "EC1V", town: "London", locality: "Clerkenwell", council: "Islington", selective: false },
  { outward: "WC1N", town: "London", locality: "Bloomsbury", council: "Camden", selective: false },
  { outward: "NW1", town: "London", locality: "Camden Town", council: "Camden", selective: false },
  { outward: "SE15", town: "London", locality: "Peckham", council: "Southwark", selective: true },
  { outward: "W12", town: "London", locality: "Shepherd's Bush", council: "Hammersmith and Fulham", selective: false },
  { outward: "N17", town: "London", locality: "Tottenham", council: "Haringey", selective: true },
  { outward: "M1", town: "Manchester", locality: null, council: "Manchester", selective: false },
  { outward: "M14", town: "Manchester", locality: "Fallowfield", council: "Manchester", selective: true },
  { outward: "M20", town: "Manchester", locality: "Didsbury", council: "Manchester", selective: false },
  { outward: "B15", town: "Birmingham", locality: "Edgbaston", council: "Birmingham", selective: false },
  { outward: "B29", town: "Birmingham", locality: "Selly Oak", council: "Birmingham", selective: true },
  { outward: "LS6", town: "Leeds", locality: "Headingley", council: "Leeds", selective: true },
  { outward: "LS2", town: "Leeds", locality: null, council: "Leeds", selective: false },
  {
    outward: "EH3",
    town: "Edinburgh",
    locality: null,
    council: "City of Edinburgh",
    selective: false,
    streets: ["Lauriston Place", "Tollcross", "Brougham Street", "Valleyfield Street", "Leven Street"],
  },
  {
    outward: "EH9",
    town: "Edinburgh",
    locality: "Marchmont",
    council: "City of Edinburgh",
    selective: false,
    streets: ["Marchmont Road", "Warrender Park Road", "Thirlestane Road", "Spottiswoode Street"],
  },
  {
    outward: "CF10",
    town: "Cardiff",
    locality: null,
    council: "Cardiff",
    selective: false,
    streets: ["Heol y Frenhines", "Stryd y Bont", "Ffordd Glyndŵr", "Churchill Way", "Bute Terrace"],
  },
  {
    outward: "CF24",
    town: "Cardiff",
    locality: "Cathays",
    council: "Cardiff",
    selective: true,
    streets: ["Rhodfa'r Môr", "Salisbury Road", "Cathays Terrace", "Miskin Street", "Heol Senghennydd"],
  },
  { outward: "BS8", town: "Bristol", locality: "Clifton", council: "Bristol", selective: false },
  { outward: "BS5", town: "Bristol", locality: "Easton", council: "Bristol", selective: true },
  { outward: "NG7", town: "Nottingham", locality: "Lenton", council: "Nottingham", selective: true },
  { outward: "L17", town: "Liverpool", locality: "Aigburth", council: "Liverpool", selective: true },
  { outward: "L7", town: "Liverpool", locality: "Kensington", council: "Liverpool", selective: true },
  {
    outward: "G12",
    town: "Glasgow",
    locality: "Hillhead",
    council: "Glasgow City",
    selective: false,
    streets: ["Great George Street", "Otago Street", "Gibson Street", "Cecil Street", "Kersland Street"],
  },
  { outward: "NE1", town: "Newcastle upon Tyne", locality: null, council: "Newcastle", selective: false },
  { outward: "NE6", town: "Newcastle upon Tyne", locality: "Heaton", council: "Newcastle", selective: true },
  { outward: "OX4", town: "Oxford", locality: "Cowley", council: "Oxford", selective: true },
  { outward: "CB2", town: "Cambridge", locality: null, council: "Cambridge", selective: false },
  { outward: "S10", town: "Sheffield", locality: "Broomhill", council: "Sheffield", selective: false },
  { outward: "BN2", town: "Brighton", locality: "Kemptown", council: "Brighton and Hove", selective: true },
  { outward: "PO5", town: "Southsea", locality: null, council: "Portsmouth", selective: false },
  { outward: "SO17", town: "Southampton", locality: "Portswood", council: "Southampton", selective: false },
  { outward: "LE2", town: "Leicester", locality: null, council: "Leicester", selective: true },
  { outward: "CV1", town: "Coventry", locality: null, council: "Coventry", selective: false },
  { outward: "YO10", town: "York", locality: null, council: "York", selective: false },
  { outward: "DH1", town: "Durham", locality: null, council: "County Durham", selective: true },
  { outward: "BT7", town: "Belfast", locality: null, council: "Belfast", selective: false },
  { outward: "AB24", town: "Aberdeen", locality: "Old Aberdeen", council: "Aberdeen City", selective: false },
  { outward: "DD1", town: "Dundee", locality: null, council: "Dundee City", selective: false },
  {
    outward: "SA1",
    town: "Swansea",
    locality: null,
    council: "Swansea",
    selective: false,
    streets: ["Heol y Castell", "Stryd Fawr", "Mansel Street", "Walter Road", "St Helen's Road"],
  },
  {
    outward: "LL57",
    town: "Bangor",
    locality: null,
    council: "Gwynedd",
    selective: false,
    streets: ["Ffordd Deiniol", "Stryd Fawr", "Lôn Pobty", "Glanrafon", "Ffordd Caergybi"],
  },
  { outward: "EX4", town: "Exeter", locality: null, council: "Exeter", selective: false },
  { outward: "PL4", town: "Plymouth", locality: "Mutley", council: "Plymouth", selective: false },
  { outward: "NR2", town: "Norwich", locality: null, council: "Norwich", selective: false },
  { outward: "HU5", town: "Hull", locality: null, council: "Hull", selective: true },
  { outward: "ST4", town: "Stoke-on-Trent", locality: null, council: "Stoke-on-Trent", selective: true },
  { outward: "WV1", town: "Wolverhampton", locality: null, council: "Wolverhampton", selective: false },
  { outward: "DE22", town: "Derby", locality: null, council: "Derby", selective: false },
  { outward: "MK9", town: "Milton Keynes", locality: null, council: "Milton Keynes", selective: false },
  { outward: "RG1", town: "Reading", locality: null, council: "Reading", selective: false },
  { outward: "GU1", town: "Guildford", locality: null, council: "Guildford", selective: false },
  { outward: "CT1", town: "Canterbury", locality: null, council: "Canterbury", selective: false },
  { outward: "BA2", town: "Bath", locality: "Widcombe", council: "Bath and North East Somerset", selective: false },
  { outward: "IP4", town: "Ipswich", locality: null, council: "Ipswich", selective: false },
  { outward: "LN1", town: "Lincoln", locality: null, council: "Lincoln", selective: true },
  { outward: "TS1", town: "Middlesbrough", locality: null, council: "Middlesbrough", selective: true },
  { outward: "SR2", town: "Sunderland", locality: null, council: "Sunderland", selective: false },
  { outward: "BD7", town: "Bradford", locality: "Great Horton", council: "Bradford", selective: false },
  { outward: "HD1", town: "Huddersfield", locality: null, council: "Kirklees", selective: false },
  { outward: "PR1", town: "Preston", locality: null, council: "Preston", selective: false },
  { outward: "LA1", town: "Lancaster", locality: null, council: "Lancaster", selective: false },
  { outward: "CH1", town: "Chester", locality: null, council: "Cheshire West and Chester", selective: false },
  { outward: "WA1", town: "Warrington", locality: null, council: "Warrington", selective: false },
];

const STREETS = [
  "Acacia Avenue",
  "Victoria Road",
  "Station Road",
  "Church Street",
  "High Street",
  "Park Lane",
  "Mill Lane",
  "Queen's Road",
  "King Street",
  "Albert Road",
  "Grove Road",
  "Manor Road",
  "The Crescent",
  "Clarendon Road",
  "Cardigan Road",
  "Hyde Park Terrace",
  "Belle Vue Road",
  "Newport Road",
  "Ash Grove",
  "Beech Avenue",
  "Cedar Close",
  "Elm Grove",
  "Hawthorn Way",
  "Holly Bank",
  "Kingsway",
  "Lime Street",
  "Maple Drive",
  "Oak Road",
  "Orchard Way",
  "Pine Walk",
  "Regent Street",
  "Richmond Terrace",
  "St John's Road",
  "St Mary's Road",
  "Springfield Road",
  "Stanley Road",
  "Trinity Street",
  "Union Street",
  "Vicarage Lane",
  "Welbeck Road",
  "West End Lane",
  "Windsor Road",
  "York Place",
  "Brunswick Square",
  "Canal Side",
  "Chapel Row",
  "Derby Road",
  "Egerton Road",
  "Falkner Street",
  "Gloucester Place",
  "Harcourt Terrace",
  "Ivy Lane",
  "Jubilee Road",
  "Kensington Gardens",
  "Lambert Way",
  "Marlborough Road",
  "Nelson Street",
  "Osborne Road",
  "Palmerston Road",
  "Raglan Street",
  "Salisbury Avenue",
  "Talbot Road",
  "Upper Parliament Street",
];

const INWARD_LETTERS = "ABDEFGHJLNPQRSTUWXYZ";

// ---------------------------------------------------------------------------------------------
// Dates relative to today.

const DAY_MS = 86_400_000;

function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** YYYY-MM-DD of `today` + n days, memoised per build (100,000 dates from a few thousand offsets). */
type DayFn = (offset: number) => string;

function dayFormatter(today: string): DayFn {
  const base = Date.parse(today + "T00:00:00Z");
  const memo = new Map<number, string>();
  return (offset) => {
    let s = memo.get(offset);
    if (s === undefined) {
      s = utcDay(new Date(base + offset * DAY_MS));
      memo.set(offset, s);
    }
    return s;
  };
}

/** ISO 8601 UTC without milliseconds, the service's timestamp format. */
export function isoSeconds(ms: number): string {
  const iso = new Date(ms).toISOString();
  // "2026-11-26T01:02:03.456Z" in years 0 to 9999; a wider year ("+012026-...") keeps its own length.
  return iso.length === 24 ? iso.slice(0, 19) + "Z" : iso.replace(/\.\d{3}Z$/, "Z");
}

type ExpiryBucket = "past" | "within30" | "within60" | "within90" | "far";

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

function statusForExpiryDays(days: number): CheckStatus {
  if (days < 0) return "fail";
  if (days <= WARNING_WINDOW_DAYS) return "warning";
  return "pass";
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
// Scoring: the same rule for the full result and for a `checks` subset.

const POINTS: Record<string, number> = { pass: 100, warning: 60, fail: 0 };

/** Score 0-100 over the statuses present: pass 100, warning 60, fail 0; not_required does not count. */
export function scoreChecks(checks: Partial<PropertyChecks>): { score: number; risk: RiskLevel } {
  let sum = 0;
  let n = 0;
  let fails = 0;
  let warnings = 0;
  for (const c of Object.values(checks)) {
    if (!c || c.status === "not_required") continue;
    sum += POINTS[c.status] ?? 0;
    n++;
    if (c.status === "fail") fails++;
    if (c.status === "warning") warnings++;
  }
  const score = n === 0 ? 100 : Math.round(sum / n);
  const risk: RiskLevel = fails >= 2 || score < 50 ? "high" : fails === 1 || warnings > 0 ? "medium" : "low";
  return { score, risk };
}

/** The body GET /api/check returns for a property; `checks` limits the members (bulk). */
export function checkResultFor(property: Property, checks: readonly CheckName[] = CHECK_NAMES): CheckResult {
  const subset: Partial<PropertyChecks> = {};
  for (const name of checks) (subset as Record<string, unknown>)[name] = { ...property.checks[name] };
  const { score, risk } = scoreChecks(subset);
  return {
    uprn: property.uprn,
    address: property.address,
    compliance_score: score,
    risk_level: risk,
    checks: subset,
    last_updated: property.last_updated,
  };
}

// ---------------------------------------------------------------------------------------------
// Building the register.

/** The contract's example property: pinned so documentation examples resolve. */
const DOWNING_STREET_UPRN = "100023336956";

function makeAddress(p: Pick<Property, "address_line_1" | "address_line_2" | "town" | "postcode">): string {
  return [p.address_line_1, p.address_line_2, p.town, p.postcode].filter(Boolean).join(", ");
}

function buildDataset(today: string): Dataset {
  const started = Date.now();
  const rng = new Rng(SEED);
  const day = dayFormatter(today);
  const todayMs = Date.parse(today + "T00:00:00Z");
  const properties: Property[] = [];
  const byUprn = new Map<string, Property>();
  const byPostcode = new Map<string, Property[]>();
  const usedUprns = new Set<string>([DOWNING_STREET_UPRN]);

  const newUprn = (): string => {
    for (;;) {
      // Mostly 12 digits; about 6% are 8-10 digits, which spreadsheets tend to pad or strip.
      const digits = rng.chance(0.06) ? rng.int(8, 10) : 12;
      const u =
        digits < 12
          ? String(rng.int(10 ** (digits - 1), 10 ** digits - 1))
          : String(100010000000 + rng.int(0, 79_999_999));
      if (!usedUprns.has(u)) {
        usedUprns.add(u);
        return u;
      }
    }
  };

  const add = (p: Omit<Property, "address">): void => {
    // The object given becomes the property (address last, as a copy would put it): copying 20,000 of them cost a
    // fifth of a build.
    const full = p as Property;
    full.address = makeAddress(p);
    properties.push(full);
    byUprn.set(full.uprn, full);
    const list = byPostcode.get(full.postcode) ?? [];
    list.push(full);
    byPostcode.set(full.postcode, list);
  };

  // Updated 1-30 days ago at a minute's granularity (memoised like the dates).
  const stamps = new Map<number, string>();
  const lastUpdated = (): string => {
    const minutes = rng.int(1, 30 * 1440);
    let s = stamps.get(minutes);
    if (s === undefined) stamps.set(minutes, (s = isoSeconds(todayMs - minutes * 60_000)));
    return s;
  };

  // The contract's example, alone on its postcode so that the postcode alone resolves it.
  add({
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
  });

  const TARGET = 20_400;
  const usedPostcodes = new Set<string>(["SW1A 2AA"]);
  let areaIndex = 0;
  while (properties.length < TARGET) {
    const area = AREAS[areaIndex++ % AREAS.length];
    let postcode: string;
    do {
      const inward = String(rng.int(1, 9)) + rng.pick(INWARD_LETTERS) + rng.pick(INWARD_LETTERS);
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
    for (const line of lines) {
      const { checks, facts } = makeChecks(rng, day, area);
      add({
        uprn: newUprn(),
        address_line_1: line,
        address_line_2: withLocality ? area.locality : null,
        town: area.town,
        postcode,
        checks,
        facts,
        last_updated: lastUpdated(),
      });
    }
  }

  const collator = new Intl.Collator("en", { numeric: true });
  for (const list of byPostcode.values()) list.sort((a, b) => collator.compare(a.address_line_1, b.address_line_1));
  return { today, properties, byUprn, byPostcode, buildMs: Date.now() - started };
}

/**
 * The registers of the last days asked for, the latest last. A process that serves two days at once (a sandbox on a
 * test clock beside one on the machine's day) builds each day once, where keeping only the last day built it again at
 * every switch: seven builds for two days in one suite. About 17 MB each.
 */
const recent: Dataset[] = [];
const KEEP_DAYS = 3;

/** The register for the UTC day of `now` (built once per day, then shared). */
export function getDataset(now: Date = new Date()): Dataset {
  const today = utcDay(now);
  const i = recent.findIndex((d) => d.today === today);
  const ds = i >= 0 ? recent.splice(i, 1)[0] : buildDataset(today);
  recent.push(ds);
  if (recent.length > KEEP_DAYS) recent.shift();
  return ds;
}

/**
 * The register of `anchor` seen on a later (or earlier) day: every date stays where it is and the statuses that turn
 * on a date are worked out again for `today` (an expiry passed fails, one within 90 days warns), so certificates
 * expire as the sandbox's clock moves (POST /__sandbox/clock, SANDBOX_TODAY). Unsatisfactory or missing EICRs, F/G
 * ratings, missing certificates and deposits do not change with the date. `anchor` itself is not changed.
 */
export function datasetOnDay(anchor: Dataset, today: string): Dataset {
  if (today === anchor.today) return anchor;
  const started = Date.now();
  const base = Date.parse(today + "T00:00:00Z");
  const days = (d: string) => Math.round((Date.parse(d + "T00:00:00Z") - base) / DAY_MS);
  const byDate = (expiry: string | null, status: CheckStatus) =>
    expiry && status !== "not_required" ? statusForExpiryDays(days(expiry)) : status;
  const properties = anchor.properties.map((p): Property => {
    const c = p.checks;
    const rated = c.epc.rating === "F" || c.epc.rating === "G";
    const epc = { ...c.epc, status: rated ? ("fail" as const) : byDate(c.epc.expiry, c.epc.status) };
    const gas =
      p.facts.gas_safety === "certificate"
        ? { ...c.gas_safety, status: byDate(c.gas_safety.expiry, c.gas_safety.status) }
        : { ...c.gas_safety };
    let eicr = { ...c.eicr };
    if (p.facts.eicr === "satisfactory") {
      const status = byDate(c.eicr.expiry, c.eicr.status);
      eicr = { ...c.eicr, status, detail: status === "fail" ? `EICR expired on ${c.eicr.expiry}.` : null };
    }
    const licensing = p.facts.licence_held
      ? { ...c.licensing, status: byDate(c.licensing.expiry, c.licensing.status) }
      : { ...c.licensing };
    return { ...p, checks: { epc, gas_safety: gas, eicr, licensing, deposit_protection: { ...c.deposit_protection } } };
  });
  const byUprn = new Map(properties.map((p) => [p.uprn, p] as const));
  const byPostcode = new Map(
    [...anchor.byPostcode].map(([k, list]) => [k, list.map((p) => byUprn.get(p.uprn)!)] as const),
  );
  return { today, properties, byUprn, byPostcode, buildMs: Date.now() - started };
}

/** Builds afresh, bypassing the cache (for determinism tests). */
export function buildDatasetFor(now: Date): Dataset {
  return buildDataset(utcDay(now));
}

// ---------------------------------------------------------------------------------------------
// Finding examples, for this project's tests and demos.

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
  return Math.round((Date.parse(date + "T00:00:00Z") - Date.parse(ds.today + "T00:00:00Z")) / DAY_MS);
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
