/**
 * Per-user settings of the Excel add-in (API key, base URL, plan), shared by the task pane and the custom functions.
 * Kept in OfficeRuntime.storage or partitioned localStorage, never in the workbook, so sharing a file never shares a key.
 */
import {
  batchCapFor,
  parseWindowSettings,
  storedActionDays,
  storedPlan,
  storedWindows,
  validateApiKey,
  validateBaseUrl,
  type PlanName,
  type WindowSettings,
} from "../core";

/** In-memory store, for tests and for hosts with no storage at all (the key then lasts one session). */
export function memoryStore(): UserStore {
  const m = new Map<string, string>();
  return {
    async getItem(k) {
      return m.has(k) ? m.get(k)! : null;
    },
    async setItem(k, v) {
      m.set(k, v);
    },
    async removeItem(k) {
      m.delete(k);
    },
  };
}

/** The async key-value shape both OfficeRuntime.storage and our localStorage wrapper offer. */
export interface UserStore {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

export interface AddinSettings {
  baseUrl: string;
  plan: PlanName;
  apiKey: string | null;
  /** Days before a due date at which each check enters Plan, Book and Urgent (core's defaults until set). */
  windows: WindowSettings;
  /** The Action list shows actions due within this many days (7, 30, 60 or 90), plus every overdue one. */
  actionDays: number;
}

const KEYS = {
  apiKey: "compliance.apiKey",
  baseUrl: "compliance.baseUrl",
  plan: "compliance.plan",
  windows: "compliance.windows",
  actionDays: "compliance.actionDays",
} as const;

/** localStorage under Office's partition key: Excel on the web isolates add-ins per document origin with it. */
export function partitionedLocalStorage(storage: Storage, partitionKey: string | undefined): UserStore {
  const prefix = partitionKey ? `${partitionKey}/` : "";
  return {
    async getItem(k) {
      return storage.getItem(prefix + k);
    },
    async setItem(k, v) {
      storage.setItem(prefix + k, v);
    },
    async removeItem(k) {
      storage.removeItem(prefix + k);
    },
  };
}

/** OfficeRuntime.storage where the runtime has it (shared runtime, desktop and web); else partitioned localStorage. */
export function defaultUserStore(): UserStore {
  const runtime = (globalThis as { OfficeRuntime?: { storage?: UserStore } }).OfficeRuntime;
  if (runtime && runtime.storage && typeof runtime.storage.getItem === "function") return runtime.storage;
  const office = (globalThis as { Office?: { context?: { partitionKey?: string } } }).Office;
  const local = (globalThis as { localStorage?: Storage }).localStorage;
  return local ? partitionedLocalStorage(local, office?.context?.partitionKey) : memoryStore();
}

/** Set by excel/webpack.excel.js from `--env serviceUrl=...` or SERVICE_BASE_URL; "" or undefined (tests, tsx) when unset. */
declare const __SERVICE_BASE_URL__: string | undefined;
const BUILT_SERVICE_URL = typeof __SERVICE_BASE_URL__ === "string" ? __SERVICE_BASE_URL__ : "";

/**
 * The base URL until the user sets one: the service URL the build was given, for a production build on a static host
 * (whose own /v1 is nothing). Without one, the page's own origin + /v1: `npm start` proxies /v1 to the sandbox, so the
 * add-in talks same-origin (no CORS preflight, no mixed content) until the user points it at the real service.
 */
export function defaultBaseUrl(built: string = BUILT_SERVICE_URL): string {
  if (built && validateBaseUrl(built).ok) return built;
  const loc = (globalThis as { location?: { origin?: string } }).location;
  return loc && loc.origin && /^https?:/.test(loc.origin) ? `${loc.origin}/v1` : "https://localhost:3000/v1";
}

type Listener = (s: AddinSettings, previous: AddinSettings) => void;

/** One settings object per runtime; the pane writes it, the custom functions read it. */
export class SettingsStore {
  private cached: AddinSettings | null = null;
  private listeners: Listener[] = [];
  private readonly store: UserStore;
  private readonly fallbackBaseUrl: string;
  constructor(store?: UserStore, fallbackBaseUrl?: string) {
    this.store = store ?? defaultUserStore();
    this.fallbackBaseUrl = fallbackBaseUrl ?? defaultBaseUrl();
  }

  async load(): Promise<AddinSettings> {
    if (this.cached) return this.cached;
    const [apiKey, baseUrl, plan, windows, actionDays] = await Promise.all([
      this.store.getItem(KEYS.apiKey),
      this.store.getItem(KEYS.baseUrl),
      this.store.getItem(KEYS.plan),
      this.store.getItem(KEYS.windows),
      this.store.getItem(KEYS.actionDays),
    ]);
    this.cached = {
      apiKey: apiKey || null,
      baseUrl: baseUrl && validateBaseUrl(baseUrl).ok ? baseUrl : this.fallbackBaseUrl,
      plan: storedPlan(plan),
      windows: storedWindows(windows),
      actionDays: storedActionDays(actionDays),
    };
    return this.cached;
  }

  /** Throws an Error with a message for the user when the key is not a plausible key. */
  async setApiKey(input: string): Promise<void> {
    const v = validateApiKey(input);
    if (!v.ok) throw new Error(v.message);
    await this.store.setItem(KEYS.apiKey, v.apiKey);
    await this.update({ apiKey: v.apiKey });
  }

  async removeApiKey(): Promise<void> {
    await this.store.removeItem(KEYS.apiKey);
    await this.update({ apiKey: null });
  }

  async setBaseUrl(input: string): Promise<void> {
    const v = validateBaseUrl(input);
    if (!v.ok) throw new Error(v.message);
    await this.store.setItem(KEYS.baseUrl, v.baseUrl);
    await this.update({ baseUrl: v.baseUrl });
  }

  async setPlan(plan: PlanName): Promise<void> {
    const p: PlanName = storedPlan(plan);
    await this.store.setItem(KEYS.plan, p);
    await this.update({ plan: p });
  }

  /** Throws an Error naming the field ("EICR plan window: ...") when a value is not a whole number of days in order. */
  async setWindows(input: unknown): Promise<WindowSettings> {
    const r = parseWindowSettings(input);
    if (!r.ok) throw new Error(r.message);
    await this.store.setItem(KEYS.windows, JSON.stringify(r.value));
    await this.update({ windows: r.value });
    return r.value;
  }

  async resetWindows(): Promise<WindowSettings> {
    await this.store.removeItem(KEYS.windows);
    const w = storedWindows(null);
    await this.update({ windows: w });
    return w;
  }

  async setActionDays(days: number): Promise<void> {
    const n = storedActionDays(days);
    await this.store.setItem(KEYS.actionDays, String(n));
    await this.update({ actionDays: n });
  }

  batchCap(): number {
    return batchCapFor(this.cached?.plan ?? "professional");
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  private async update(patch: Partial<AddinSettings>): Promise<void> {
    const current = await this.load();
    this.cached = { ...current, ...patch };
    for (const l of this.listeners) l(this.cached, current);
  }
}
