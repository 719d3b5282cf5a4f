/**
 * The sandbox's own routes under /__sandbox, with no key and no rate limit: request counts, reset, fault rules, the
 * clock, and example UPRNs and postcodes for manual testing.
 */
import type { FastifyInstance } from "fastify";
import type { SandboxControl } from "../control";
import { findExamples } from "../dataset";
import { ApiError } from "../errors";
import { type FaultStore, parseFaultRules } from "../faults";

export function registerControls(app: FastifyInstance, control: SandboxControl, faults: FaultStore): void {
  app.get("/__sandbox/stats", async () => control.stats());
  app.post("/__sandbox/reset", async () => {
    control.reset();
    return { ok: true };
  });
  app.get("/__sandbox/faults", async () => ({ rules: faults.list() }));
  app.post("/__sandbox/faults", async (req) => {
    const body = req.body as { rules?: unknown } | undefined;
    faults.add(parseFaultRules(body && typeof body === "object" ? body.rules : undefined));
    return { rules: faults.list() };
  });
  app.delete("/__sandbox/faults", async () => {
    faults.clear();
    return { rules: [] };
  });
  // The sandbox's clock: GET says the day; POST { "today": "2027-03-31" } or { "advance_days": 60 } moves it (the
  // register's dates stay, so certificates expire); DELETE goes back to the day the register was made for.
  app.get("/__sandbox/clock", async () => control.clock());
  app.post("/__sandbox/clock", async (req) => {
    const body = (req.body ?? {}) as { today?: unknown; advance_days?: unknown };
    if (body.advance_days !== undefined) {
      const n = Number(body.advance_days);
      if (!Number.isInteger(n) || Math.abs(n) > 36500)
        throw new ApiError(400, "invalid_request", "advance_days must be a whole number of days.");
      control.setToday(
        new Date(Date.parse(control.dataset().today + "T00:00:00Z") + n * 86400000).toISOString().slice(0, 10),
      );
    } else control.setToday(typeof body.today === "string" ? body.today : String(body.today));
    return control.clock();
  });
  app.delete("/__sandbox/clock", async () => {
    control.setToday(null);
    return control.clock();
  });
  app.get("/__sandbox/examples", async () => {
    const dataset = control.dataset();
    const ex = findExamples(dataset);
    const status: Record<string, Record<string, string>> = {};
    for (const [check, byStatus] of Object.entries(ex.byCheckStatus)) {
      status[check] = Object.fromEntries(Object.entries(byStatus).map(([s, p]) => [s, p.uprn]));
    }
    return {
      today: dataset.today,
      properties: dataset.properties.length,
      postcodes: dataset.byPostcode.size,
      uprn_by_check_status: status,
      uprn_by_epc_rating: Object.fromEntries(Object.entries(ex.epcByRating).map(([r, p]) => [r, p.uprn])),
      uprn_by_due_within: Object.fromEntries(
        Object.entries(ex.dueWithin).map(([check, byBucket]) => [
          check,
          Object.fromEntries(Object.entries(byBucket).map(([b, p]) => [b, p.uprn])),
        ]),
      ),
      shared_postcode: ex.sharedPostcode.postcode,
      ambiguous_address: { postcode: ex.ambiguousAddress.postcode, address: ex.ambiguousAddress.address },
      single_property_postcode: ex.singlePropertyPostcode.postcode,
      short_uprn: ex.shortUprn.property.uprn,
      short_uprn_padded: ex.shortUprn.padded,
      unknown_uprn: ex.unknownUprn,
      unknown_postcode: ex.unknownPostcode,
    };
  });
}
