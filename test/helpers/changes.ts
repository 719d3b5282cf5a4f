/**
 * The changes a re-check should log, worked out from the sandbox's own answers on two days (not from core/reports/changes.ts,
 * which is what is tested): each compared field of each property, "uprn|check|field|was|now". The next action and its
 * window come from the rules module (core/compliance/obligations.ts), counted from `today`, the day the add-in checks on, by the
 * property's country (its postcode, from the sandbox's own record): none out of scope.
 */
import { countryOf, nextObligation, parseCheckResult, rulesCountry, type CheckResult } from "../../core";
import { checkResultFor, findExamples, type Dataset } from "../../sandbox/dataset";

const LABEL: Record<string, string> = {
  epc: "EPC",
  gas_safety: "Gas safety",
  eicr: "EICR",
  licensing: "Licensing",
  deposit_protection: "Deposit",
};

/**
 * The properties a re-check test checks: for each dated check, one due in each of the service's windows (their
 * statuses move as the days pass), then the data set's first `ordinary` ones; each UPRN once.
 */
export function recheckUprns(ds: Dataset, ordinary: number): string[] {
  const picked = new Set<string>();
  for (const byBucket of Object.values(findExamples(ds).dueWithin))
    for (const p of Object.values(byBucket)) picked.add(p.uprn);
  for (const p of ds.properties.slice(0, ordinary)) picked.add(p.uprn);
  return [...picked];
}

function parse(v: unknown): CheckResult {
  const r = parseCheckResult(JSON.parse(JSON.stringify(v)));
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

export function expectedChanges(ds1: Dataset, ds2: Dataset, uprns: readonly string[], today: string): Set<string> {
  const expected = new Set<string>();
  const field = (uprn: string, check: string, name: string, a: unknown, b: unknown) => {
    if ((a ?? "") !== (b ?? "")) expected.add(`${uprn}|${check}|${name}|${a ?? ""}|${b ?? ""}`);
  };
  for (const u of uprns) {
    const a = checkResultFor(ds1.byUprn.get(u)!);
    const b = checkResultFor(ds2.byUprn.get(u)!);
    field(u, "", "Compliance score", a.compliance_score, b.compliance_score);
    field(u, "", "Risk level", a.risk_level, b.risk_level);
    for (const c of ["epc", "gas_safety", "eicr", "licensing", "deposit_protection"] as const) {
      const ma = a.checks[c] as unknown as Record<string, unknown>;
      const mb = b.checks[c] as unknown as Record<string, unknown>;
      field(u, LABEL[c], "Status", ma.status, mb.status);
      if (c === "epc") field(u, LABEL[c], "Rating", ma.rating, mb.rating);
      if (c === "epc" || c === "gas_safety" || c === "eicr") field(u, LABEL[c], "Expiry", ma.expiry, mb.expiry);
    }
    const country = rulesCountry(countryOf(ds2.byUprn.get(u)!.postcode));
    const next = (r: CheckResult) => (country === null ? null : nextObligation(r, { today, country }));
    const oa = next(parse(a));
    const ob = next(parse(b));
    field(u, "", "Next action", oa?.action, ob?.action);
    field(u, "", "Window", oa?.window, ob?.window);
  }
  return expected;
}

/** The same key for a Change log row as read from a sheet. */
export const loggedKey = (r: readonly unknown[]) => `${r[1]}|${r[3]}|${r[4]}|${r[5]}|${r[6]}`;
