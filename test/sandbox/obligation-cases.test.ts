/**
 * The sandbox's register covers every obligation case the add-ins must show, with dates relative to the sandbox's
 * today, so the cases stay true whatever day the tests run: dated checks due in under 7, 30 and 60 days and overdue,
 * EPC ratings F/G and D/E, failed (unsatisfactory and missing) EICRs, unprotected deposits, missing licences.
 * Counted with the sandbox's own data (it shares no code with core), for the README's table.
 */
import { buildDatasetFor, daysUntil, type Dataset } from "../../sandbox/dataset";

function obligationCases(ds: Dataset) {
  const dated = (check: "epc" | "gas_safety" | "eicr", lo: number, hi: number) =>
    ds.properties.filter((p) => {
      const e = p.checks[check].expiry;
      if (!e || p.checks[check].status === "not_required") return false;
      const d = daysUntil(ds, e);
      return d >= lo && d <= hi;
    }).length;
  const count = (f: (p: Dataset["properties"][number]) => boolean) => ds.properties.filter(f).length;
  const out: Record<string, number> = {};
  for (const c of ["gas_safety", "eicr", "epc"] as const) {
    out[`${c} overdue`] = dated(c, -100000, -1);
    out[`${c} due in 0-7 days`] = dated(c, 0, 7);
    out[`${c} due in 8-30 days`] = dated(c, 8, 30);
    out[`${c} due in 31-60 days`] = dated(c, 31, 60);
  }
  out["EPC rated F or G"] = count((p) => p.checks.epc.rating === "F" || p.checks.epc.rating === "G");
  out["EPC rated D or E"] = count((p) => p.checks.epc.rating === "D" || p.checks.epc.rating === "E");
  out["EICR unsatisfactory"] = count((p) => p.facts.eicr === "unsatisfactory");
  out["EICR missing"] = count((p) => p.facts.eicr === "missing");
  out["gas certificate missing"] = count((p) => p.facts.gas_safety === "missing");
  out["deposit unprotected"] = count((p) => p.facts.deposit === "unprotected");
  out["licence needed, none held"] = count((p) => p.checks.licensing.status === "fail");
  return out;
}

test.each([["2027-01-31T12:00:00Z"], ["2026-06-15T08:00:00Z"], [new Date().toISOString()]])("every obligation case exists when today is %s", (now) => {
  const cases = obligationCases(buildDatasetFor(new Date(now)));
  for (const [name, n] of Object.entries(cases)) expect({ name, some: n > 0 }).toEqual({ name, some: true });
  // Under 7 days is the rarest dated case: still dozens of properties per check.
  expect(cases["gas_safety due in 0-7 days"]).toBeGreaterThan(20);
});
