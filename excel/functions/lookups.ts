/**
 * Address lookups for COMPLIANCE.UPRN and COMPLIANCE.ADDRESSES: cached and de-duplicated like checks, but not
 * batched (the service has no bulk address search). Injected fetch and config, so jest runs it against the sandbox.
 */
import {
  ComplianceError,
  normalisePostcode,
  serviceError,
  type AddressList,
  type CheckResult,
  type ComplianceClient,
  type RateLimitInfo,
} from "../../core";
import { createServiceClient } from "../service-client";
import type { BatcherConfig } from "./batcher";

export interface LookupOptions {
  getConfig: () => Promise<BatcherConfig>;
  fetch: typeof fetch;
  cacheTtlMs?: number;
  requestTimeoutMs?: number;
  now?: () => number;
  /** The quota from each answer's X-RateLimit headers, so the pane's count stays current after a search. */
  onRateLimit?: (info: RateLimitInfo) => void;
}

export class AddressLookups {
  private readonly cache = new Map<string, { value: Promise<unknown>; expiresAt: number }>();
  private readonly ttl: number;
  private readonly now: () => number;
  constructor(private readonly o: LookupOptions) {
    this.ttl = o.cacheTtlMs ?? 10 * 60_000;
    this.now = o.now ?? (() => Date.now());
  }

  clear(): void {
    this.cache.clear();
  }

  /** Addresses for a postcode (when the text is one) or for free text. */
  addresses(text: string): Promise<AddressList> {
    const t = String(text ?? "").trim();
    if (!t)
      return Promise.reject(
        new ComplianceError(serviceError("invalid_input", "invalid_request", "Give a postcode or some address text.")),
      );
    const pc = normalisePostcode(t);
    const q = "postcode" in pc ? { postcode: pc.postcode } : { query: t };
    return this.memo(`a:${JSON.stringify(q)}`, async (client) => client.lookupAddresses({ ...q, limit: 100 }));
  }

  /** The property a postcode (and first address line) names, through GET /api/check so the service decides. */
  property(postcode: string, address?: string): Promise<CheckResult> {
    const pc = normalisePostcode(postcode);
    if (!("postcode" in pc))
      return Promise.reject(new ComplianceError(serviceError("invalid_input", "invalid_postcode", pc.error.message)));
    const a = String(address ?? "").trim();
    return this.memo(`p:${pc.postcode}|${a.toLowerCase()}`, (client) =>
      client.check(a ? { postcode: pc.postcode, address: a } : { postcode: pc.postcode }),
    );
  }

  private memo<T>(key: string, run: (client: ComplianceClient) => Promise<T>): Promise<T> {
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value as Promise<T>;
    const value = (async () => {
      const cfg = await this.o.getConfig();
      if (!cfg.apiKey)
        throw new ComplianceError(
          serviceError("auth", "missing_api_key", "No API key set. Open Home > Compliance Check and enter your key"),
        );
      const client = await createServiceClient({
        baseUrl: cfg.baseUrl,
        apiKey: cfg.apiKey,
        fetch: this.o.fetch,
        requestTimeoutMs: this.o.requestTimeoutMs ?? 30_000,
        ...(this.o.onRateLimit ? { onRateLimit: this.o.onRateLimit } : {}),
      });
      return run(client);
    })();
    this.cache.set(key, { value, expiresAt: this.now() + this.ttl });
    // Failures are not remembered: the next recalculation asks again.
    value.catch(() => this.cache.delete(key));
    return value;
  }
}
