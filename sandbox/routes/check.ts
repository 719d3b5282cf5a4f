/** GET /v1/api/check: one property's checks, by UPRN or by postcode and address. */
import type { FastifyInstance } from "fastify";
import { type Dataset, checkResultFor } from "../dataset";
import { resolveProperty } from "../lookup";

/** `dataset` is the register as it is now (the sandbox's clock may move it). */
export function registerCheck(app: FastifyInstance, dataset: () => Dataset): void {
  app.get("/v1/api/check", async (req) =>
    checkResultFor(resolveProperty(dataset(), req.query as Record<string, unknown>)),
  );
}
