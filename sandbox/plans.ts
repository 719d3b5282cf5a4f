/**
 * The sandbox's API keys and what each plan allows (the contract's "Keys and plans" table);
 * tests may shrink the limits to reach them quickly.
 */

export type PlanName = "professional" | "enterprise" | "basic";

export interface PlanLimits {
  perMinute: number;
  perDay: number;
  batchCap: number;
}

export type LimitsOverride = Partial<Record<"professional" | "enterprise", Partial<PlanLimits>>>;

export const API_KEYS: Readonly<Record<string, PlanName>> = {
  "sandbox-professional": "professional",
  "sandbox-enterprise": "enterprise",
  "sandbox-no-api": "basic",
};

export const DEFAULT_LIMITS: Readonly<Record<"professional" | "enterprise", PlanLimits>> = {
  professional: { perMinute: 60, perDay: 10_000, batchCap: 1_000 },
  enterprise: { perMinute: 300, perDay: 100_000, batchCap: 10_000 },
};

export function resolveLimits(override: LimitsOverride = {}): Record<"professional" | "enterprise", PlanLimits> {
  return {
    professional: { ...DEFAULT_LIMITS.professional, ...override.professional },
    enterprise: { ...DEFAULT_LIMITS.enterprise, ...override.enterprise },
  };
}

export type AuthOutcome =
  | { kind: "ok"; key: string; plan: "professional" | "enterprise" }
  | { kind: "missing" }
  | { kind: "invalid" }
  | { kind: "no_api"; key: string };

/** Reads `Authorization: Bearer <key>` (scheme case-insensitive, key exact). */
export function authenticate(header: string | string[] | undefined): AuthOutcome {
  if (header === undefined || (typeof header === "string" && header.trim() === "")) return { kind: "missing" };
  if (typeof header !== "string") return { kind: "invalid" };
  const m = /^Bearer +(\S+)\s*$/i.exec(header.trim());
  if (!m) return { kind: "invalid" };
  const plan = API_KEYS[m[1]];
  if (plan === undefined || !Object.prototype.hasOwnProperty.call(API_KEYS, m[1])) return { kind: "invalid" };
  if (plan === "basic") return { kind: "no_api", key: m[1] };
  return { kind: "ok", key: m[1], plan };
}
