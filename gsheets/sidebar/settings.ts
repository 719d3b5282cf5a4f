/**
 * The sidebar's Settings: the API key (tried with the service on Save), the base URL, the plan and the action
 * windows, shown as the server has them (the key masked).
 */
import { MAX_WINDOW_DAYS, windowFieldNamed, windowFieldRows } from "../../core/compliance/window-fields";
import type { WindowSettings } from "../../core/compliance/obligations";
import type { SettingsView } from "../shared/api";
import { $, call, errorText, showMessage } from "./ui";

/** keepInputs: after a refused Save, what the person typed stays in the fields for them to correct. */
let defaultWindows: WindowSettings | null = null;

/** One row of three day fields per check; each field named for the check and window, for the message that names it. */
export function renderWindows(w: WindowSettings): void {
  const body = document.querySelector("#windows-table tbody")!;
  body.textContent = "";
  for (const row of windowFieldRows()) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = row.label;
    tr.appendChild(th);
    for (const f of row.fields) {
      const td = document.createElement("td");
      const input = document.createElement("input");
      input.type = "number";
      input.min = "0";
      input.max = String(MAX_WINDOW_DAYS);
      input.id = f.id;
      input.value = String(w[f.check][f.key]);
      input.setAttribute("aria-label", f.label);
      td.appendChild(input);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

export function windowsFromForm(): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const row of windowFieldRows()) {
    out[row.check] = {};
    for (const f of row.fields) out[row.check][f.key] = $<HTMLInputElement>(f.id).value;
  }
  return out;
}

/** The field a settings message names ("EICR plan window: ..."), marked invalid and focused. */
export function markWindowField(message: string): void {
  document
    .querySelectorAll('#windows-table input[aria-invalid="true"]')
    .forEach((el) => el.removeAttribute("aria-invalid"));
  const named = windowFieldNamed(message);
  if (named) {
    const input = $<HTMLInputElement>(named.id);
    input.setAttribute("aria-invalid", "true");
    ($("windows-settings") as HTMLDetailsElement).open = true;
    input.focus();
  }
}

export function renderSettings(s: SettingsView, keepInputs = false): void {
  $("key-masked").textContent = s.hasKey ? s.maskedKey : "none";
  defaultWindows = s.defaultWindows;
  if (!keepInputs) {
    $<HTMLInputElement>("base-url").value = s.baseUrl;
    $<HTMLSelectElement>("plan").value = s.plan;
    renderWindows(s.windows);
    $<HTMLSelectElement>("action-days").value = String(s.actionDays);
  }
  $<HTMLButtonElement>("remove-key").disabled = !s.hasKey;
  // Demo answers can never be mistaken for a real check: the banner stays while the demo key is the key.
  $("demo-banner").hidden = !s.demo;
  $("try-demo").parentElement!.hidden = s.demo;
}

/** Reset to defaults puts the default windows in the form; Save keeps them. */
export function resetWindows(): void {
  if (defaultWindows) renderWindows(defaultWindows);
  showMessage("Default windows put back: press Save to keep them.");
}

export async function saveSettings(): Promise<void> {
  const keyInput = $<HTMLInputElement>("api-key");
  const save = $<HTMLButtonElement>("save-settings");
  save.disabled = true;
  if (keyInput.value.trim()) showMessage("Trying the key with the service…");
  try {
    const r = await call("saveSettings", {
      apiKey: keyInput.value,
      baseUrl: $<HTMLInputElement>("base-url").value,
      plan: $<HTMLSelectElement>("plan").value,
      windows: windowsFromForm(),
    });
    if (r.ok) keyInput.value = "";
    renderSettings(r.settings, !r.ok);
    showMessage(r.message, !r.ok ? "error" : r.warning ? "warning" : "info");
    if (!r.ok) markWindowField(r.message);
  } catch (e) {
    showMessage(errorText(e), true);
  } finally {
    save.disabled = false;
  }
}

export async function removeKey(): Promise<void> {
  try {
    const r = await call("removeApiKey");
    renderSettings(r.settings);
    showMessage(r.message);
  } catch (e) {
    showMessage(errorText(e), true);
  }
}
