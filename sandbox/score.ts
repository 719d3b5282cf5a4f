/**
 * Scoring a property, the same rule for the full result and for a `checks` subset, and the body GET /api/check returns.
 */
import {
  CHECK_NAMES,
  type CheckName,
  type CheckResult,
  type PropertyChecks,
  type Property,
  type RiskLevel,
} from "./register";

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
