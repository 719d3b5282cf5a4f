/**
 * The task pane's small shared pieces: element lookup, the status lines and the banner, opening Settings, the client
 * for the saved settings, and how an error reads. Used by taskpane.ts and settings-pane.ts.
 */
import { createClient, describeError, toServiceError } from "../../core";
import { complianceRuntime } from "../runtime";

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export function say(id: string, text: string): void {
  $(id).textContent = text;
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

/** A client for the service at this base URL and key; rate-limit headers go to the pane's quota line. */
export function clientFor(baseUrl: string, apiKey: string, maxRetries?: number) {
  return createClient({
    baseUrl,
    apiKey,
    ...(maxRetries !== undefined ? { maxRetries } : {}),
    fetch: (url, init) => fetch(url, init as RequestInit),
    onRateLimit: (info) => complianceRuntime().reportRateLimit(info),
  });
}

export function errorText(e: unknown): string {
  if (e instanceof Error && !(e as { kind?: string }).kind) return e.message;
  return describeError(toServiceError(e));
}
