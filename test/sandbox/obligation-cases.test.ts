/**
 * The sandbox's register covers every obligation case the add-ins must show (docs/compliance-rules.md), with dates
 * relative to the sandbox's today, so the cases hold whatever day the tests run: gas, EICR, EPC and licence expiries
 * passed and due in 0-7, 8-30 and 31-60 days; EPC ratings F/G and D/E; unsatisfactory and missing EICRs; missing gas
 * certificates; unprotected deposits; licences needed and not held. Counted with the sandbox's own data (it shares
 * no code with core). The counts are sandbox/README.md's "Obligation cases" table: change both together.
 */
import {
  DATED_CHECKS,
  DUE_BUCKETS,
  buildDatasetFor,
  daysUntil,
  findExamples,
  type Dataset,
  type DueBucket,
  type Property,
} from "../../sandbox/dataset";
import { startTestSandbox } from "../helpers/sandbox";

function obligationCases(ds: Dataset): Record<string, number> {
  const out: Record<string, number> = {};
  for (const check of DATED_CHECKS) {
    for (const [bucket, [lo, hi]] of Object.entries(DUE_BUCKETS)) {
      out[`${check} ${bucket}`] = ds.properties.filter((p) => {
        const c = p.checks[check];
        if (!c.expiry || c.status === "not_required") return false;
        const d = daysUntil(ds, c.expiry);
        return d >= lo && d <= hi;
      }).length;
    }
  }
  const count = (f: (p: Property) => boolean) => ds.properties.filter(f).length;
  out["EPC rated F or G"] = count((p) => p.checks.epc.rating === "F" || p.checks.epc.rating === "G");
  out["EPC rated D or E"] = count((p) => p.checks.epc.rating === "D" || p.checks.epc.rating === "E");
  out["EICR unsatisfactory"] = count((p) => p.facts.eicr === "unsatisfactory" && p.checks.eicr.status === "fail");
  out["EICR missing"] = count((p) => p.facts.eicr === "missing" && p.checks.eicr.status === "fail");
  out["gas certificate missing"] = count(
    (p) => p.facts.gas_safety === "missing" && p.checks.gas_safety.status === "fail",
  );
  out["deposit unprotected"] = count(
    (p) => p.facts.deposit === "unprotected" && p.checks.deposit_protection.status === "fail",
  );
  out["licence needed, none held"] = count((p) => p.checks.licensing.status === "fail");
  return out;
}

const FIXED = "2027-01-31T12:00:00Z";
const DAYS = [FIXED, "2026-06-15T08:00:00Z", "2028-02-29T23:30:00Z", new Date().toISOString()];

/** Each day's register and its counts, built once: the fixed day is one of DAYS, and the README's table is its counts. */
const built = new Map<string, { ds: Dataset; cases: Record<string, number> }>();
function onDay(now: string) {
  let day = built.get(now);
  if (!day) {
    const ds = buildDatasetFor(new Date(now));
    built.set(now, (day = { ds, cases: obligationCases(ds) }));
  }
  return day;
}
const fixedCases = () => onDay(FIXED).cases;

describe.each(DAYS)("when today is %s", (now) => {
  const { ds, cases } = onDay(now);

  test("every obligation case has at least one property", () => {
    const missing = Object.entries(cases)
      .filter(([, n]) => n < 1)
      .map(([name]) => name);
    expect(missing).toEqual([]);
    // Under 7 days is the rarest dated case: still dozens of properties for each check.
    for (const check of DATED_CHECKS) expect(cases[`${check} within7`]).toBeGreaterThan(20);
  });

  test("findExamples().dueWithin names, for each dated check, a property in each bucket", () => {
    const ex = findExamples(ds);
    for (const check of DATED_CHECKS) {
      for (const [bucket, [lo, hi]] of Object.entries(DUE_BUCKETS) as [DueBucket, readonly [number, number]][]) {
        const p = ex.dueWithin[check][bucket];
        const c = p.checks[check];
        expect(c.status).not.toBe("not_required");
        const d = daysUntil(ds, c.expiry!);
        expect({ check, bucket, inBucket: d >= lo && d <= hi }).toEqual({ check, bucket, inBucket: true });
        if (check === "epc") expect(["F", "G"]).not.toContain(p.checks.epc.rating);
        if (check === "eicr") expect(p.facts.eicr).toBe("satisfactory");
        // Passed means a fail; due within 60 days is inside the service's 90-day warning window.
        expect({ check, bucket, status: c.status }).toEqual({
          check,
          bucket,
          status: bucket === "overdue" ? "fail" : "warning",
        });
      }
    }
  });

  test("the counts are the same every day: offsets come from the seed, only the dates move", () => {
    expect(cases).toEqual(fixedCases());
  });
});

test("the counts are sandbox/README.md's table", () => {
  expect(fixedCases()).toEqual({
    "gas_safety overdue": 1186,
    "gas_safety within7": 213,
    "gas_safety within30": 638,
    "gas_safety within60": 839,
    "eicr overdue": 1200,
    "eicr within7": 212,
    "eicr within30": 635,
    "eicr within60": 867,
    "epc overdue": 1400,
    "epc within7": 277,
    "epc within30": 765,
    "epc within60": 1028,
    "licensing overdue": 421,
    "licensing within7": 67,
    "licensing within30": 223,
    "licensing within60": 300,
    "EPC rated F or G": 1995,
    "EPC rated D or E": 9347,
    "EICR unsatisfactory": 1026,
    "EICR missing": 1299,
    "gas certificate missing": 644,
    "deposit unprotected": 1005,
    "licence needed, none held": 1219,
  });
});

test("GET /__sandbox/examples names the same due-date examples, and the service's answer for them is that check's", async () => {
  const sb = await startTestSandbox();
  try {
    const res = await fetch(`${sb.url}/__sandbox/examples`, { headers: { connection: "close" } });
    const body = (await res.json()) as { uprn_by_due_within: Record<string, Record<string, string>> };
    const ex = findExamples(sb.dataset());
    for (const check of DATED_CHECKS) {
      for (const bucket of Object.keys(DUE_BUCKETS) as DueBucket[]) {
        expect(body.uprn_by_due_within[check][bucket]).toBe(ex.dueWithin[check][bucket].uprn);
      }
    }
    const gas = body.uprn_by_due_within.gas_safety.within7;
    const check = await fetch(`${sb.baseUrl}/api/check?uprn=${gas}`, {
      headers: { authorization: "Bearer sandbox-professional", connection: "close" },
    });
    const answer = (await check.json()) as { checks: Record<string, { status: string; expiry?: string }> };
    const days = daysUntil(sb.dataset(), answer.checks.gas_safety.expiry!);
    expect({ status: answer.checks.gas_safety.status, inWeek: days >= 0 && days <= 7 }).toEqual({
      status: "warning",
      inWeek: true,
    });
  } finally {
    await sb.close();
  }
});
