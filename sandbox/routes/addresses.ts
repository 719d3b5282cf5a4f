/** GET /v1/api/addresses: the register's addresses on a postcode, or matching a query. */
import type { FastifyInstance } from "fastify";
import type { Dataset } from "../dataset";
import { ApiError } from "../errors";
import { addressRecord, optionalText, searchAddresses } from "../lookup";
import { positiveInt } from "./query";

const MAX_ADDRESS_LIMIT = 100;

/** `dataset` is the register as it is now (the sandbox's clock may move it). */
export function registerAddresses(app: FastifyInstance, dataset: () => Dataset): void {
  app.get("/v1/api/addresses", async (req) => {
    const q = req.query as Record<string, unknown>;
    const postcode = optionalText(q.postcode, "postcode");
    const query = optionalText(q.query, "query");
    if (postcode === undefined && query === undefined) {
      throw new ApiError(400, "invalid_request", "Give postcode or query.");
    }
    const limit = positiveInt(q.limit, "limit", 50, MAX_ADDRESS_LIMIT);
    const matches = searchAddresses(dataset(), postcode, query);
    return { results: matches.slice(0, limit).map(addressRecord), total: matches.length };
  });
}
