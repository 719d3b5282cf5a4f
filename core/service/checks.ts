/**
 * The vocabulary of the service: check names, status words, plans and their limits.
 * Firm where the spec is firm; anything else the service says is passed through as "unknown".
 */

export const CHECK_NAMES = ["epc", "gas_safety", "eicr", "licensing", "deposit_protection"] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** Status words the spec shows. Any other word is kept but displayed as "unknown". */
export const KNOWN_STATUSES = ["pass", "warning", "fail", "not_required"] as const;
export type KnownStatus = (typeof KNOWN_STATUSES)[number];
/** What a status cell can show: the four known words, plus our own "error" and "unknown". */
export type DisplayStatus = KnownStatus | "error" | "unknown";

export function displayStatus(word: unknown): DisplayStatus {
  if (typeof word !== "string") return "unknown";
  // The service's own words, as almost every status is: no need to normalise them (asked for every check of every row).
  if ((KNOWN_STATUSES as readonly string[]).includes(word)) return word as KnownStatus;
  // "Not Required", "not-required" and "NOT_REQUIRED" are one word.
  const w = word
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  return (KNOWN_STATUSES as readonly string[]).includes(w) ? (w as KnownStatus) : "unknown";
}

export function isCheckName(name: unknown): name is CheckName {
  return typeof name === "string" && (CHECK_NAMES as readonly string[]).includes(name);
}

export type PlanName = "professional" | "enterprise";

/** A stored plan read back: anything but "enterprise" is the Professional plan (the smaller batches are safe on both). */
export function storedPlan(v: unknown): PlanName {
  return v === "enterprise" ? "enterprise" : "professional";
}

/** Per-plan limits from the spec's Limits table. */
export const PLANS: Record<PlanName, { batchCap: number; perMinute: number; perDay: number }> = {
  professional: { batchCap: 1000, perMinute: 60, perDay: 10000 },
  enterprise: { batchCap: 10000, perMinute: 300, perDay: 100000 },
};

/** The bulk endpoint never takes more than this, whatever the plan. */
export const MAX_BATCH = 10000;

/** Batch cap for a plan name or an explicit number, clamped to 1..10,000. */
export function batchCapFor(plan: PlanName | number | undefined): number {
  if (typeof plan === "number" && Number.isFinite(plan)) return Math.max(1, Math.min(MAX_BATCH, Math.floor(plan)));
  if (plan && PLANS[plan as PlanName]) return PLANS[plan as PlanName].batchCap;
  return PLANS.professional.batchCap;
}
