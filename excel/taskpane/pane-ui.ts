/**
 * The task pane's small shared pieces: element lookup, the status lines and the banner, opening Settings, the quota
 * line, the client for the saved settings, and how an error reads. Used by taskpane.ts and the other *-pane.ts files.
 */
import { describeError, toServiceError, type RateLimitInfo } from "../../core";
import { complianceRuntime } from "../runtime";
import { CHUNK_MISSING, isChunkLoadError } from "../chunk-error";
import { createServiceClient } from "../service-client";

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export function say(id: string, text: string): void {
  if (id !== "status") {
    $(id).textContent = text;
    return;
  }
  // The run's status: its first line says what happened; the rest (where the results went, the statuses, the sheets
  // refreshed, the Run log's line) waits under Details, so that a 320 px pane shows one sentence, not ten. Only the
  // first line is announced: a closed <details> is not rendered.
  const [head, ...rest] = text.split("\n");
  const el = $(id);
  el.textContent = head;
  const more = rest.filter((l) => l.trim());
  if (!more.length) return;
  const details = document.createElement("details");
  details.className = "status-details";
  const summary = document.createElement("summary");
  summary.textContent = "Details";
  const body = document.createElement("div");
  body.textContent = more.join("\n");
  details.append(summary, body);
  el.append(details);
}

/** The message above everything; `info` for a hint (a first open), not a failure, so it is not shown in red. */
export function banner(text: string | null, tone: "error" | "info" = "error"): void {
  const b = $("banner");
  b.hidden = !text;
  b.textContent = text ?? "";
  b.classList.toggle("info", tone === "info");
}

/** Opens Settings at the field to fix; a failure that only Settings can cure should not leave the user hunting for it. */
export function openSettings(focusId?: "api-key" | "base-url"): void {
  ($("settings") as HTMLDetailsElement).open = true;
  if (focusId) $(focusId).focus();
}

/**
 * A client for the service at this base URL and key; rate-limit headers go to the pane's quota line. Its code is
 * fetched with the first one asked for (excel/service-client.ts).
 */
export function clientFor(baseUrl: string, apiKey: string, maxRetries?: number) {
  return createServiceClient({
    baseUrl,
    apiKey,
    ...(maxRetries !== undefined ? { maxRetries } : {}),
    fetch: (url, init) => fetch(url, init as RequestInit),
    onRateLimit: (info) => complianceRuntime().reportRateLimit(info),
  });
}

export function errorText(e: unknown): string {
  if (isChunkLoadError(e)) return CHUNK_MISSING;
  if (e instanceof Error && !(e as { kind?: string }).kind) return e.message;
  return describeError(toServiceError(e));
}

/** Clears what an earlier action left: its banner, status, progress, and a settings message such as "Key saved". */
export function startAction(): void {
  banner(null);
  say("settings-status", "");
}

/** The requests left in the service's current window, as its last answer gave them. */
export function showQuota(info: RateLimitInfo | undefined): void {
  if (!info || info.remaining === undefined) return;
  const reset = info.resetAtMs ? ` (resets in ${Math.max(0, Math.ceil((info.resetAtMs - Date.now()) / 1000))} s)` : "";
  say("quota", `Requests left: ${info.remaining}${info.limit !== undefined ? ` of ${info.limit}` : ""}${reset}`);
}

/**
 * A client for the key and base URL saved in Settings; without a key, says where it goes and gives none, and gives
 * none either when its code cannot be fetched, saying so.
 */
export async function savedClient() {
  const s = await complianceRuntime().settings.load();
  if (!s.apiKey) {
    banner("No API key set. Paste the key from the service dashboard (Settings > API Keys) under Settings below.");
    openSettings("api-key");
    return null;
  }
  try {
    return await clientFor(s.baseUrl, s.apiKey);
  } catch (e) {
    banner(errorText(e));
    return null;
  }
}
