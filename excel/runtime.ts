/**
 * The one set of live objects (settings, check batcher, address lookups, last quota) of the shared runtime.
 * taskpane.js and functions.js are separate bundles on the same page, so the instance lives on globalThis, not in a module.
 */
import type { RateLimitInfo } from "../core";
import { CheckBatcher } from "./functions/batcher";
import { AddressLookups } from "./functions/lookups";
import { SettingsStore, type UserStore } from "./settings";
import { localDay } from "./taskpane/stored";

export interface ComplianceRuntime {
  settings: SettingsStore;
  batcher: CheckBatcher;
  lookups: AddressLookups;
  /** The clock the functions count days by (tests inject one). */
  now(): number;
  /** The workbook's day now: the computer's local day, as Excel's TODAY() and the results block count days. */
  today(): string;
  lastRateLimit?: RateLimitInfo;
  rateLimitListeners: ((info: RateLimitInfo) => void)[];
  reportRateLimit(info: RateLimitInfo): void;
}

const SLOT = Symbol.for("property-compliance.excel.runtime");

export function complianceRuntime(): ComplianceRuntime {
  const g = globalThis as unknown as Record<symbol, ComplianceRuntime | undefined>;
  return (g[SLOT] ??= createRuntime());
}

/** Tests (and nothing else) build a runtime on a memory store and Node's fetch, then install it. */
export function installRuntime(rt: ComplianceRuntime | undefined): void {
  (globalThis as unknown as Record<symbol, ComplianceRuntime | undefined>)[SLOT] = rt;
}

export function createRuntime(
  o: { store?: UserStore; fallbackBaseUrl?: string; fetch?: typeof fetch; now?: () => number } = {},
): ComplianceRuntime {
  const settings = new SettingsStore(o.store, o.fallbackBaseUrl);
  const getConfig = async () => {
    const s = await settings.load();
    return { baseUrl: s.baseUrl, apiKey: s.apiKey, plan: s.plan };
  };
  // fetch must be called with the window as `this` in some browsers, hence the wrapper.
  const boundFetch: typeof fetch = o.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = o.now ?? (() => Date.now());
  const rt: ComplianceRuntime = {
    settings,
    now,
    today: () => localDay(now()),
    batcher: undefined as unknown as CheckBatcher,
    lookups: new AddressLookups({ getConfig, fetch: boundFetch, onRateLimit: (info) => rt.reportRateLimit(info) }),
    rateLimitListeners: [],
    reportRateLimit(info) {
      rt.lastRateLimit = info;
      for (const l of rt.rateLimitListeners) l(info);
    },
  };
  rt.batcher = new CheckBatcher({ getConfig, fetch: boundFetch, onRateLimit: (info) => rt.reportRateLimit(info) });
  // A new key or base URL must not answer from results fetched with the old one (new windows need no new answers: the
  // functions count them again from the cached results when Excel recalculates).
  settings.onChange((s, before) => {
    if (s.apiKey === before.apiKey && s.baseUrl === before.baseUrl && s.plan === before.plan) return;
    rt.batcher.clear();
    rt.lookups.clear();
  });
  return rt;
}
