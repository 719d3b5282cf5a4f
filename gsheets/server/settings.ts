/**
 * The add-on's settings: API key, base URL and plan, kept only in the user's own properties (document and
 * script properties are readable by other editors and users). The key never leaves this module unmasked.
 */
import type { PlanName } from "../../core/checks";
import { maskApiKey, validateApiKey, validateBaseUrl, type ClientConfig } from "../../core/requests";
import type { SettingsInput, SettingsResult, SettingsView } from "../shared/api";
import manifest from "../appsscript.json";

/** The service's base URL; appsscript.json's urlFetchWhitelist must cover it (the build checks). */
export const DEFAULT_BASE_URL = "https://api.property-compliance.example/v1";

/**
 * Apps Script lets a deployed add-on call only URLs that start with an entry of urlFetchWhitelist in its
 * manifest. A base URL outside it would fail on every request, so Settings refuses it up front. Local
 * addresses (the sandbox) are exempt: they are for tests and development only.
 */
export const URL_FETCH_WHITELIST: readonly string[] = (manifest as { urlFetchWhitelist?: string[] }).urlFetchWhitelist || [];

function isLocal(url: string): boolean {
  return /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/i.test(url);
}

export function whitelistProblem(baseUrl: string): string | null {
  if (isLocal(baseUrl) || !URL_FETCH_WHITELIST.length) return null;
  const withSlash = baseUrl.replace(/\/?$/, "/");
  if (URL_FETCH_WHITELIST.some((p) => withSlash.toLowerCase().startsWith(p.toLowerCase()))) return null;
  return (
    `This add-on may only call the addresses in its manifest's urlFetchWhitelist (${URL_FETCH_WHITELIST.join(", ")}), ` +
    `so ${baseUrl} would fail on every request. Use one of those, or ask whoever deploys the add-on to add it to urlFetchWhitelist in appsscript.json.`
  );
}

const KEYS = { apiKey: "compliance.apiKey", baseUrl: "compliance.baseUrl", plan: "compliance.plan" } as const;

function store(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getUserProperties();
}

function planOf(v: unknown): PlanName {
  return v === "enterprise" ? "enterprise" : "professional";
}

export interface Settings {
  /** Null when no key is stored. */
  config: ClientConfig | null;
  baseUrl: string;
  plan: PlanName;
}

export function loadSettings(): Settings {
  const all = store().getProperties();
  const stored = all[KEYS.baseUrl];
  const base = stored && validateBaseUrl(stored).ok ? stored : DEFAULT_BASE_URL;
  const key = all[KEYS.apiKey] || "";
  return { config: key ? { baseUrl: base, apiKey: key } : null, baseUrl: base, plan: planOf(all[KEYS.plan]) };
}

export function settingsView(s: Settings = loadSettings()): SettingsView {
  const key = s.config ? s.config.apiKey : "";
  return { hasKey: !!key, maskedKey: maskApiKey(key), baseUrl: s.baseUrl, defaultBaseUrl: DEFAULT_BASE_URL, plan: s.plan };
}

/** Validates everything first, then stores in one call: a bad base URL never half-saves a new key. */
export function saveSettings(input: SettingsInput): SettingsResult {
  const updates: Record<string, string> = {};
  if (input.apiKey !== undefined && String(input.apiKey).trim() !== "") {
    const k = validateApiKey(String(input.apiKey));
    if (!k.ok) return { ok: false, message: k.message, settings: settingsView() };
    updates[KEYS.apiKey] = k.apiKey;
  }
  if (input.baseUrl !== undefined && String(input.baseUrl).trim() !== "") {
    const b = validateBaseUrl(String(input.baseUrl));
    if (!b.ok) return { ok: false, message: b.message, settings: settingsView() };
    const w = whitelistProblem(b.baseUrl);
    if (w) return { ok: false, message: w, settings: settingsView() };
    updates[KEYS.baseUrl] = b.baseUrl;
  }
  if (input.plan !== undefined && input.plan !== "") {
    if (input.plan !== "professional" && input.plan !== "enterprise") {
      return { ok: false, message: `Unknown plan "${input.plan}": choose Professional or Enterprise.`, settings: settingsView() };
    }
    updates[KEYS.plan] = input.plan;
  }
  if (Object.keys(updates).length) store().setProperties(updates);
  return { ok: true, message: updates[KEYS.apiKey] ? "API key saved." : "Settings saved.", settings: settingsView() };
}

export function removeApiKey(): SettingsResult {
  store().deleteProperty(KEYS.apiKey);
  return { ok: true, message: "API key removed.", settings: settingsView() };
}
