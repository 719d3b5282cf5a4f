/**
 * The pane's Settings: the API key (saved per user in Office's storage, tried once with the service), the base URL,
 * the plan, the action windows and the demo key.
 */
import {
  MAX_WINDOW_DAYS,
  DEMO_KEY,
  demoModeLine,
  KEY_CHECK_QUERY,
  baseUrlVersionWarning,
  describeError,
  isDemoKey,
  maskApiKey,
  toServiceError,
  type WindowSettings,
  windowFieldNamed,
  windowFieldRows,
} from "../../core";
import { complianceRuntime } from "../runtime";
import { $, banner, clientFor, errorText, say } from "./pane-ui";

const rt = complianceRuntime();

export async function renderSettings(): Promise<void> {
  const s = await rt.settings.load();
  const demo = isDemoKey(s.apiKey);
  say(
    "key-state",
    demo ? `${DEMO_KEY} (built-in demo data: nothing is sent)` : s.apiKey ? `set (${maskApiKey(s.apiKey)})` : "not set",
  );
  // Demo answers can never be mistaken for a real check: the banner stays while the demo key is the key.
  $("demo-banner").hidden = !demo;
  $("demo-offer").hidden = demo;
  ($("remove-key") as HTMLButtonElement).disabled = !s.apiKey;
  ($("base-url") as HTMLInputElement).value = s.baseUrl;
  ($("plan") as HTMLSelectElement).value = s.plan;
  ($("action-days") as HTMLSelectElement).value = String(s.actionDays);
  renderWindows(s.windows);
}

/** One row of three day fields per check, each labelled for the check and window it sets. */
function renderWindows(w: WindowSettings): void {
  const body = document.querySelector("#windows-table tbody")!;
  body.textContent = "";
  for (const row of windowFieldRows()) {
    const tr = document.createElement("tr");
    const th = Object.assign(document.createElement("th"), { scope: "row", textContent: row.label });
    tr.append(th);
    for (const f of row.fields) {
      const input = Object.assign(document.createElement("input"), {
        type: "number",
        min: "0",
        max: String(MAX_WINDOW_DAYS),
        id: f.id,
        value: String(w[f.check][f.key]),
      });
      input.setAttribute("aria-label", f.label);
      const td = document.createElement("td");
      td.append(input);
      tr.append(td);
    }
    body.append(tr);
  }
}

/**
 * The COMPLIANCE functions read the saved windows when they calculate: a full recalculation makes the cells already in
 * the workbook (cards, NEXTACTION, DUE) count with the new ones, from their cached answers. The words said after "saved".
 */
async function recalculateFunctions(): Promise<string> {
  try {
    await Excel.run(async (ctx) => {
      ctx.workbook.application.calculate(Excel.CalculationType.full);
      await ctx.sync();
    });
    return "; the COMPLIANCE functions are recalculating with them";
  } catch (e) {
    return `; the COMPLIANCE functions could not be recalculated (${errorText(e)}): press Refresh COMPLIANCE functions`;
  }
}

async function saveWindows(): Promise<void> {
  const typed: Record<string, Record<string, string>> = {};
  for (const row of windowFieldRows()) {
    typed[row.check] = {};
    for (const f of row.fields) typed[row.check][f.key] = ($(f.id) as HTMLInputElement).value;
  }
  document
    .querySelectorAll('#windows-table input[aria-invalid="true"]')
    .forEach((el) => el.removeAttribute("aria-invalid"));
  try {
    renderWindows(await rt.settings.setWindows(typed));
    say(
      "settings-status",
      `Windows saved: the next check and the Action list use them${await recalculateFunctions()}.`,
    );
  } catch (e) {
    const message = errorText(e);
    say("settings-status", message);
    // The field the message names is marked and focused.
    const named = windowFieldNamed(message);
    if (named) {
      const input = $(named.id);
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  }
}

/**
 * One cheap authenticated request (one address at a known postcode) to tell the user at once whether the key they just
 * saved works, instead of at their first check. The key stays saved either way: they may be offline for now.
 */
async function checkSavedKey(): Promise<void> {
  const s = await rt.settings.load();
  if (!s.apiKey) return;
  say("settings-status", "Key saved on this computer. Checking it with the service…");
  try {
    // One retry, not the usual four: the user is waiting on this line, and a check will retry anyway.
    await (await clientFor(s.baseUrl, s.apiKey, 1)).lookupAddresses(KEY_CHECK_QUERY);
    say("settings-status", "Key saved and accepted by the service.");
  } catch (e) {
    const err = toServiceError(e);
    if (err.kind === "auth" || err.kind === "forbidden") {
      say("settings-status", `Key saved on this computer, but the service refused it. ${describeError(err)}`);
      $("api-key").focus();
    } else {
      say("settings-status", `Key saved on this computer, but it could not be checked: ${describeError(err)}`);
    }
  }
}

async function saveKey(e: Event): Promise<void> {
  e.preventDefault();
  const input = $("api-key") as HTMLInputElement;
  try {
    await rt.settings.setApiKey(input.value);
    input.value = "";
    banner(null);
  } catch (err) {
    say("settings-status", errorText(err));
    return;
  }
  await renderSettings();
  await checkSavedKey();
}

async function saveBaseUrl(e: Event): Promise<void> {
  e.preventDefault();
  try {
    await rt.settings.setBaseUrl(($("base-url") as HTMLInputElement).value);
  } catch (err) {
    // Keep what the user typed in the field, so they can correct it rather than type it again.
    say("settings-status", errorText(err));
    return;
  }
  await renderSettings();
  const saved = (await rt.settings.load()).baseUrl;
  say("settings-status", `Base URL saved.${baseUrlVersionWarning(saved)}`);
}

async function removeKey(): Promise<void> {
  await rt.settings.removeApiKey();
  say("settings-status", "Key removed from this computer.");
  await renderSettings();
  // Remove disables itself: put the keyboard on the field where a new key goes.
  $("api-key").focus();
}

async function tryDemo(): Promise<void> {
  await rt.settings.setApiKey(DEMO_KEY);
  banner(null);
  await renderSettings();
  say("settings-status", demoModeLine("checks and functions"));
  $("insert-sample").focus();
}

export function wireSettings(): void {
  void renderSettings();
  $("key-form").addEventListener("submit", (e) => void saveKey(e));
  $("remove-key").addEventListener("click", () => void removeKey());
  $("try-demo").addEventListener("click", () => void tryDemo());
  $("url-form").addEventListener("submit", (e) => void saveBaseUrl(e));
  $("save-windows").addEventListener("click", () => void saveWindows());
  $("reset-windows").addEventListener("click", async () => {
    renderWindows(await rt.settings.resetWindows());
    say("settings-status", `Windows back to the defaults${await recalculateFunctions()}.`);
  });
  $("plan").addEventListener("change", async () => {
    await rt.settings.setPlan(($("plan") as HTMLSelectElement).value as "professional" | "enterprise");
    say("settings-status", "Plan saved.");
  });
}
