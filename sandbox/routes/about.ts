/**
 * What the bare origin and the base URL answer, with no key needed: what the sandbox is and its routes (a newcomer's
 * first request), as JSON under /v1 and as a page at /.
 */
import type { FastifyInstance } from "fastify";
import { API_KEYS } from "../plans";

export function registerAbout(app: FastifyInstance): void {
  const describeApi = () => ({
    service: "Property Compliance Check Service v1: local sandbox (made-up data, no real properties)",
    base_url: "/v1",
    authentication: "Authorization: Bearer <API key>",
    sandbox_keys: Object.keys(API_KEYS),
    endpoints: [
      "GET /v1/api/check?uprn=",
      "GET /v1/api/check?postcode=&address=",
      "POST /v1/api/check/bulk",
      "GET /v1/api/check/bulk/{job_id}/results",
      "GET /v1/api/addresses?postcode=|q=",
    ],
    sandbox_controls: [
      "GET /__sandbox/examples",
      "GET|POST /__sandbox/faults",
      "GET|POST|DELETE /__sandbox/clock",
      "GET /__sandbox/stats",
    ],
    docs: "sandbox/README.md and docs/service-contract.md in the repository",
  });
  app.get("/v1", async () => describeApi());
  app.get("/v1/", async () => describeApi());
  app.get("/", async (_req, reply) => {
    const api = describeApi();
    const items = [...api.endpoints, ...api.sandbox_controls].map((e) => `<li><code>${e}</code></li>`).join("");
    reply
      .type("text/html; charset=utf-8")
      .send(
        `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><title>Compliance service sandbox</title></head><body>` +
          `<h1>Property Compliance Check Service: local sandbox</h1><p>${api.service}. Base URL: <a href="/v1">/v1</a>. ` +
          `Send <code>${api.authentication}</code>; sandbox keys: ${api.sandbox_keys.map((k) => `<code>${k}</code>`).join(", ")}.</p>` +
          `<ul>${items}</ul><p>See ${api.docs}.</p></body></html>`,
      );
  });
}
