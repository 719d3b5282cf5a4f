/**
 * What the sandbox's property register holds, in the service's words: the five checks, their statuses, EPC ratings,
 * deposit schemes, each check's record, a property (with the facts behind its statuses), a check result and the
 * register itself.
 */
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
