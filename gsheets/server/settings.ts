/**
 * The add-on's settings: API key, base URL and plan, kept only in the user's own properties (document and
 * script properties are readable by other editors and users). The key never leaves this module unmasked.
 */
import { storedPlan, type PlanName } from "../../core/service/checks";
import {
  KEY_CHECK_QUERY,
  baseUrlVersionWarning,
  buildAddressLookupRequest,
  maskApiKey,
  validateApiKey,
  validateBaseUrl,
  type ClientConfig,
} from "../../core/service/requests";
import { describeError, isAboutProperty } from "../../core/service/errors";
import { interpretAddressResponse } from "../../core/service/responses";
import type { WindowSettings } from "../../core/compliance/obligations";
import {
  ACTION_LIST_DAYS,
  parseWindowSettings,
  storedActionDays,
  storedWindows,
} from "../../core/compliance/window-settings";
import { DEMO_KEY, demoModeLine, isDemoKey } from "../../core/demo/demo-key";
import type { SettingsInput, SettingsResult, SettingsView } from "../shared/api";
import manifest from "../appsscript.json";
import { send, sendFor } from "./http";

/** Stands for the service's address until a deployment gives its own; a release build refuses it. */
export const PLACEHOLDER_BASE_URL = "https://api.property-compliance.example/v1";

// Written by the build from one setting, SERVICE_BASE_URL (gsheets/webpack.gsheets.js, docs/deploying.md).
declare const __SERVICE_BASE_URL__: string | undefined;
declare const __URL_FETCH_WHITELIST__: string[] | undefined;

/** The service's base URL until the user sets another in Settings. */
export const DEFAULT_BASE_URL = typeof __SERVICE_BASE_URL__ === "string" ? __SERVICE_BASE_URL__ : PLACEHOLDER_BASE_URL;

/**
 * Apps Script lets a deployed add-on call only URLs that start with an entry of urlFetchWhitelist in its
 * manifest. A base URL outside it would fail on every request, so Settings refuses it up front. Local
 * addresses (the sandbox) are exempt: they are for tests and development only.
 */
export const URL_FETCH_WHITELIST: readonly string[] =
  typeof __URL_FETCH_WHITELIST__ === "object"
    ? __URL_FETCH_WHITELIST__
    : (manifest as { urlFetchWhitelist?: string[] }).urlFetchWhitelist || [];

function isLocal(url: string): boolean {
  return /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/i.test(url);
}

/**
 * Said to the person in Settings, who may never have seen the manifest: which address the add-on may call,
 * and who can change that. A URL that only lacks the version path ("…example" for "…example/v1") gets the
 * address to use instead.
 */
export function whitelistProblem(baseUrl: string): string | null {
  if (isLocal(baseUrl) || !URL_FETCH_WHITELIST.length) return null;
  const withSlash = baseUrl.replace(/\/?$/, "/").toLowerCase();
  if (URL_FETCH_WHITELIST.some((p) => withSlash.startsWith(p.toLowerCase()))) return null;
  const longer = URL_FETCH_WHITELIST.find((p) => p.toLowerCase().startsWith(withSlash));
  if (longer) return `${baseUrl} is missing the end of the service's address: use ${longer.replace(/\/$/, "")}.`;
  const allowed = URL_FETCH_WHITELIST.join(" or ");
  return `This add-on may only call ${allowed}, so it cannot use ${baseUrl}. Use that address, or ask whoever installed the add-on to allow another address.`;
}

const KEYS = {
  apiKey: "compliance.apiKey",
  baseUrl: "compliance.baseUrl",
  plan: "compliance.plan",
  windows: "compliance.windows",
  actionDays: "compliance.actionDays",
} as const;

function store(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getUserProperties();
}

export interface Settings {
  /** Null when no key is stored. */
  config: ClientConfig | null;
  baseUrl: string;
  plan: PlanName;
  windows: WindowSettings;
  actionDays: number;
}

export function loadSettings(): Settings {
  const all = store().getProperties();
  const stored = all[KEYS.baseUrl];
  const base = stored && validateBaseUrl(stored).ok ? stored : DEFAULT_BASE_URL;
  const key = all[KEYS.apiKey] || "";
  return {
    config: key ? { baseUrl: base, apiKey: key } : null,
    baseUrl: base,
    plan: storedPlan(all[KEYS.plan]),
    windows: storedWindows(all[KEYS.windows]),
    actionDays: storedActionDays(all[KEYS.actionDays]),
  };
}

export function settingsView(s: Settings = loadSettings()): SettingsView {
  const key = s.config ? s.config.apiKey : "";
  return {
    hasKey: !!key,
    demo: isDemoKey(key),
    maskedKey: isDemoKey(key) ? DEMO_KEY : maskApiKey(key),
    baseUrl: s.baseUrl,
    defaultBaseUrl: DEFAULT_BASE_URL,
    plan: s.plan,
    windows: s.windows,
    defaultWindows: storedWindows(undefined),
    actionDays: s.actionDays,
  };
}

type Probe = { accepted: true } | { accepted: false; refused: boolean; message: string };

/**
 * One cheap authenticated request (an address lookup of one result), so that Save can say whether the
 * service takes the key. An answer about the lookup itself (no address found) still means it did.
 */
function probeKey(config: ClientConfig): Probe {
  const reply = send(buildAddressLookupRequest(config, KEY_CHECK_QUERY), sendFor(config));
  if (!reply.ok) return { accepted: false, refused: false, message: describeError(reply.error) };
  const r = interpretAddressResponse(reply.status, reply.headers, reply.text, reply.receivedAtMs);
  if (r.ok || isAboutProperty(r.error)) return { accepted: true };
  return { accepted: false, refused: r.error.kind === "auth", message: describeError(r.error) };
}

/**
 * Validates everything first, then stores in one call: a bad base URL never half-saves a new key. A new key
 * (or a new address for the stored one) is tried once: a key the service refuses (401) is not saved, since
 * every check would fail with it; when the service cannot say (unreachable, busy, no API access on the
 * plan) the settings are saved and the answer says what went wrong.
 */
export function saveSettings(input: SettingsInput): SettingsResult {
  const updates: Record<string, string> = {};
  const current = loadSettings();
  if (input.apiKey !== undefined && String(input.apiKey).trim() !== "") {
    const k = validateApiKey(String(input.apiKey));
    if (!k.ok) return { ok: false, message: k.message, settings: settingsView() };
    updates[KEYS.apiKey] = k.apiKey;
  }
  // An emptied field means "the default", which is what a stored URL is deleted for.
  const resetBaseUrl = input.baseUrl !== undefined && String(input.baseUrl).trim() === "";
  if (input.baseUrl !== undefined && String(input.baseUrl).trim() !== "") {
    const b = validateBaseUrl(String(input.baseUrl));
    if (!b.ok) return { ok: false, message: b.message, settings: settingsView() };
    const w = whitelistProblem(b.baseUrl);
    if (w) return { ok: false, message: w, settings: settingsView() };
    updates[KEYS.baseUrl] = b.baseUrl;
  }
  if (input.plan !== undefined && input.plan !== "") {
    if (input.plan !== "professional" && input.plan !== "enterprise") {
      return {
        ok: false,
        message: `Unknown plan "${input.plan}": choose Professional or Enterprise.`,
        settings: settingsView(),
      };
    }
    updates[KEYS.plan] = input.plan;
  }
  if (input.actionDays !== undefined && input.actionDays !== "") {
    const n = Number(input.actionDays);
    if ((ACTION_LIST_DAYS as readonly number[]).indexOf(n) < 0)
      return {
        ok: false,
        message: `Action list: "${String(input.actionDays)}" is not one of ${ACTION_LIST_DAYS.join(", ")} days.`,
        settings: settingsView(),
      };
    updates[KEYS.actionDays] = String(n);
  }
  if (input.windows !== undefined && !input.resetWindows) {
    const w = parseWindowSettings(input.windows);
    if (!w.ok) return { ok: false, message: `Not saved: ${w.message}`, settings: settingsView() };
    updates[KEYS.windows] = JSON.stringify(w.value);
  }
  const apiKey = updates[KEYS.apiKey] || (current.config ? current.config.apiKey : "");
  const baseUrl = resetBaseUrl ? DEFAULT_BASE_URL : updates[KEYS.baseUrl] || current.baseUrl;
  const probe = apiKey && (updates[KEYS.apiKey] || baseUrl !== current.baseUrl) ? probeKey({ baseUrl, apiKey }) : null;
  if (probe && !probe.accepted && probe.refused) {
    return { ok: false, message: `Not saved: ${probe.message}`, settings: settingsView() };
  }
  if (Object.keys(updates).length) store().setProperties(updates);
  if (resetBaseUrl) store().deleteProperty(KEYS.baseUrl);
  if (input.resetWindows) store().deleteProperty(KEYS.windows);
  const reset = resetBaseUrl
    ? ` The service address is back to the default, ${DEFAULT_BASE_URL}.`
    : updates[KEYS.baseUrl]
      ? baseUrlVersionWarning(updates[KEYS.baseUrl])
      : "";
  if (probe && !probe.accepted) {
    return {
      ok: true,
      warning: true,
      message: `Saved, but the service did not confirm the key: ${probe.message}${reset}`,
      settings: settingsView(),
    };
  }
  const what =
    updates[KEYS.apiKey] && isDemoKey(updates[KEYS.apiKey])
      ? demoModeLine("checks")
      : updates[KEYS.apiKey]
        ? "API key saved and accepted by the service."
        : probe
          ? "Settings saved; the service accepts your key there."
          : "Settings saved.";
  return { ok: true, message: what + reset, settings: settingsView() };
}

export function removeApiKey(): SettingsResult {
  store().deleteProperty(KEYS.apiKey);
  return { ok: true, message: "API key removed.", settings: settingsView() };
}
