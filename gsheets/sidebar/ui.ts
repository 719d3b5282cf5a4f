/**
 * The sidebar's small shared pieces: the typed bridge to the server, element lookup, the message box and how an
 * error reads. Used by sidebar.ts and schedule.ts.
 */
import type { ServerApi } from "../shared/api";
import { errorText } from "../shared/words";

interface ScriptRunner {
  withSuccessHandler(f: (value: unknown) => void): ScriptRunner;
  withFailureHandler(f: (error: Error) => void): ScriptRunner;
  [name: string]: unknown;
}
declare const google: { script: { run: ScriptRunner } };

/** Typed bridge to the server: the names and shapes come from ServerApi, which the server implements. */
export function call<K extends keyof ServerApi>(
  name: K,
  ...args: Parameters<ServerApi[K]>
): Promise<ReturnType<ServerApi[K]>> {
  return new Promise((resolve, reject) => {
    const runner = google.script.run
      .withSuccessHandler((v) => resolve(v as ReturnType<ServerApi[K]>))
      .withFailureHandler((e) => reject(e));
    (runner[name] as (...a: unknown[]) => void)(...args);
  });
}

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export type Tone = "info" | "warning" | "error";

/**
 * The box under the tabs. Only errors are role="alert" (read out at once, interrupting); progress words
 * such as "Looking up addresses…" are a polite status, read when the screen reader is idle.
 */
export function showMessage(text: string, tone: Tone | boolean = "info"): void {
  const t: Tone = tone === true ? "error" : tone === false ? "info" : tone;
  const el = $("message");
  const cls = t === "info" ? "msg" : `msg ${t}`;
  // Each poll repeats the headline: rewriting the same words would have some screen readers read them again.
  if (el.textContent === text && el.className === cls) return;
  el.setAttribute("role", t === "error" ? "alert" : "status");
  el.textContent = text;
  el.className = cls;
}

export { errorText };
