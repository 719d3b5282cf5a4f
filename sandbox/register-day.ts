/**
 * The sandbox's register for a day: built once per UTC day and shared, or a register seen on a later (or earlier)
 * day, its dates held still.
 */
import { DAY_MS, statusForExpiryDays, utcDay } from "./days";
import { buildDataset } from "./generate";
import type { CheckStatus, Dataset, Property } from "./register";

/**
 * The registers of the last days asked for, the latest last. A process that serves two days at once (a sandbox on a
 * test clock beside one on the machine's day) builds each day once, where keeping only the last day built it again at
 * every switch: seven builds for two days in one suite. About 17 MB each.
 */
const recent: Dataset[] = [];
const KEEP_DAYS = 3;

/**
 * The register for the UTC day of `now` (built once per day, then shared). Every sandbox of the process shares it (in
 * the tests, every test file a jest worker runs), so it is frozen: a change one of them made would show in all the
 * others, where a change now throws.
 */
export function getDataset(now: Date = new Date()): Dataset {
  const today = utcDay(now);
  const i = recent.findIndex((d) => d.today === today);
  const ds = i >= 0 ? recent.splice(i, 1)[0] : freezeDataset(buildDataset(today));
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

/** `ds` made read-only, its properties and their records frozen, its maps refusing set, delete and clear. */
function freezeDataset(ds: Dataset): Dataset {
  for (const p of ds.properties) {
    const c = p.checks;
    Object.freeze(c.epc);
    Object.freeze(c.gas_safety);
    Object.freeze(c.eicr);
    Object.freeze(c.licensing);
    Object.freeze(c.deposit_protection);
    Object.freeze(c);
    Object.freeze(p.facts);
    Object.freeze(p);
  }
  for (const list of ds.byPostcode.values()) Object.freeze(list);
  Object.freeze(ds.properties);
  readOnlyMap(ds.byUprn);
  readOnlyMap(ds.byPostcode);
  return Object.freeze(ds);
}

function readOnlyMap(map: Map<unknown, unknown>): void {
  const refuse = () => {
    throw new TypeError("The sandbox's register is shared and read-only.");
  };
  for (const name of ["set", "delete", "clear"]) Object.defineProperty(map, name, { value: refuse });
  Object.freeze(map);
}

/** Builds afresh, bypassing the cache (for determinism tests). */
export function buildDatasetFor(now: Date): Dataset {
  return buildDataset(utcDay(now));
}
