/**
 * The sidebar page: settings, the bulk-check button and its polling loop, and address lookup. Every server
 * call is a short google.script.run call; the loop waits in the browser, never on the server.
 */
import { STATUS_COLOURS } from "../../core/layout";
import type { DisplayStatus } from "../../core/checks";
import type { RunProgress, ServerApi, SettingsView, SidebarState } from "../shared/api";

interface ScriptRunner {
  withSuccessHandler(f: (value: unknown) => void): ScriptRunner;
  withFailureHandler(f: (error: Error) => void): ScriptRunner;
  [name: string]: unknown;
}
declare const google: { script: { run: ScriptRunner } };

/** Typed bridge to the server: the names and shapes come from ServerApi, which the server implements. */
function call<K extends keyof ServerApi>(name: K, ...args: Parameters<ServerApi[K]>): Promise<ReturnType<ServerApi[K]>> {
  return new Promise((resolve, reject) => {
    const runner = google.script.run
      .withSuccessHandler((v) => resolve(v as ReturnType<ServerApi[K]>))
      .withFailureHandler((e) => reject(e));
    (runner[name] as (...a: unknown[]) => void)(...args);
  });
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function showMessage(text: string, isError = false): void {
  const el = $("message");
  el.textContent = text;
  el.className = isError ? "msg error" : "msg";
}

function errorText(e: unknown): string {
  return e && typeof e === "object" && "message" in e ? String((e as Error).message) : String(e);
}

function selectTab(panelId: string): void {
  document.querySelectorAll<HTMLButtonElement>("nav button").forEach((b) => {
    const on = b.dataset.panel === panelId;
    b.setAttribute("aria-selected", on ? "true" : "false");
    $(b.dataset.panel!).hidden = !on;
  });
}

function renderSettings(s: SettingsView): void {
  $("key-masked").textContent = s.hasKey ? s.maskedKey : "none";
  $<HTMLInputElement>("base-url").value = s.baseUrl;
  $<HTMLSelectElement>("plan").value = s.plan;
  $<HTMLButtonElement>("remove-key").disabled = !s.hasKey;
}

function renderLegend(): void {
  const legend = $("legend");
  legend.textContent = "";
  (Object.keys(STATUS_COLOURS) as DisplayStatus[]).forEach((w) => {
    const span = document.createElement("span");
    span.textContent = w.replace("_", " ");
    span.title = STATUS_COLOURS[w].label;
    span.style.background = STATUS_COLOURS[w].fill;
    span.style.color = STATUS_COLOURS[w].font;
    legend.appendChild(span);
  });
}

function renderRun(p: RunProgress | null): void {
  const running = !!p && p.phase === "running";
  if (!running) stopping = false;
  $<HTMLButtonElement>("check-btn").disabled = running;
  $("stop-btn").hidden = !running;
  $<HTMLButtonElement>("stop-btn").disabled = stopping;
  if (!p) {
    $("run").hidden = true;
    return;
  }
  $("run").hidden = false;
  const bar = $<HTMLProgressElement>("progress");
  bar.max = Math.max(1, p.properties);
  bar.value = p.propertiesDone;
  $("progress-text").textContent =
    `${p.propertiesDone} of ${p.properties} properties · ${p.rows} rows (${p.invalidRows} with input errors, ${p.duplicateRows} duplicates) · ${p.sheetName}!${p.rangeA1}`;
  $("run-status").textContent = p.message;
  $("run-status").className = p.rateLimited ? "msg" : "";
  const jobs = $("jobs");
  jobs.textContent = "";
  p.jobs.forEach((j, i) => {
    const li = document.createElement("li");
    li.textContent = `Job ${i + 1}${j.jobId ? ` (${j.jobId})` : ""}: ${j.status.replace("_", " ")}, ${j.processed}/${j.total}`;
    jobs.appendChild(li);
  });
  const notes = $("notes");
  notes.textContent = "";
  p.notes.forEach((n) => {
    const li = document.createElement("li");
    li.textContent = n;
    notes.appendChild(li);
  });
}

// ---- the polling loop: one timer at a time; closing the sidebar stops it, reopening resumes it ----

let timer: number | undefined;
let failures = 0;
/** Stop was pressed and the run has not ended yet (a poll held the lock): asked again until it ends. */
let stopping = false;
const STOP_RETRY_MS = 1500;

function schedulePoll(ms: number): void {
  if (timer !== undefined) window.clearTimeout(timer);
  timer = window.setTimeout(poll, Math.max(0, ms));
}

async function poll(): Promise<void> {
  timer = undefined;
  try {
    const p = await call("pollBulkCheck");
    failures = 0;
    renderRun(p);
    if (p && p.phase === "running") schedulePoll(p.waitMs);
    // A finished run's summary is already under the progress bar: do not repeat it in the top box.
    else if (p) showMessage(p.phase === "stopped" ? p.message : "", p.phase === "stopped");
  } catch (e) {
    // A failed call (a server hiccup, a lost connection) is retried with back-off; the job keeps running.
    failures++;
    showMessage(`Could not reach the add-on's server (${errorText(e)}); retrying…`, true);
    schedulePoll(Math.min(30000, 1000 * Math.pow(2, failures)));
  }
}

async function startCheck(): Promise<void> {
  const btn = $<HTMLButtonElement>("check-btn");
  btn.disabled = true;
  showMessage("Reading the selected rows and sending them…");
  const mapping = {
    uprn: $<HTMLInputElement>("map-uprn").value.trim(),
    postcode: $<HTMLInputElement>("map-postcode").value.trim(),
    address: $<HTMLInputElement>("map-address").value.trim(),
  };
  try {
    const r = await call("startBulkCheck", { mapping });
    if (!r.ok) {
      showMessage(r.message, true);
      if (r.needsMapping) $<HTMLDetailsElement>("mapping").open = true;
      renderRun(r.progress || null);
      if (r.progress && r.progress.phase === "running") schedulePoll(r.progress.waitMs);
      else btn.disabled = false;
      return;
    }
    showMessage(`Sent ${r.jobIds.length} bulk job(s). Results appear as they complete.`);
    renderRun(r.progress);
    if (r.progress.phase === "running") schedulePoll(r.progress.waitMs);
    else showMessage(r.progress.message);
  } catch (e) {
    showMessage(`The check could not start: ${errorText(e)}`, true);
    btn.disabled = false;
  }
}

async function stopCheck(): Promise<void> {
  stopping = true;
  $<HTMLButtonElement>("stop-btn").disabled = true;
  try {
    const p = await call("cancelBulkCheck");
    if (p && p.busy && p.phase === "running") {
      // A poll is writing: the run goes on, so the progress stays, polling goes on, and Stop is asked again.
      renderRun(p);
      showMessage(p.message);
      if (timer === undefined) schedulePoll(p.waitMs);
      window.setTimeout(() => void stopCheck(), STOP_RETRY_MS);
      return;
    }
    if (timer !== undefined) window.clearTimeout(timer);
    timer = undefined;
    stopping = false;
    renderRun(p);
    if (p) showMessage(p.message);
  } catch (e) {
    stopping = false;
    $<HTMLButtonElement>("stop-btn").disabled = false;
    showMessage(errorText(e), true);
  }
}

async function saveSettings(): Promise<void> {
  const keyInput = $<HTMLInputElement>("api-key");
  try {
    const r = await call("saveSettings", {
      apiKey: keyInput.value,
      baseUrl: $<HTMLInputElement>("base-url").value,
      plan: $<HTMLSelectElement>("plan").value,
    });
    if (r.ok) keyInput.value = "";
    renderSettings(r.settings);
    showMessage(r.message, !r.ok);
  } catch (e) {
    showMessage(errorText(e), true);
  }
}

async function removeKey(): Promise<void> {
  try {
    const r = await call("removeApiKey");
    renderSettings(r.settings);
    showMessage(r.message);
  } catch (e) {
    showMessage(errorText(e), true);
  }
}

async function lookup(): Promise<void> {
  const out = $("lookup-results");
  out.textContent = "";
  showMessage("Looking up addresses…");
  try {
    const r = await call("lookupAddresses", { postcode: $<HTMLInputElement>("lookup-postcode").value, query: $<HTMLInputElement>("lookup-query").value });
    showMessage(r.message, !r.ok);
    if (!r.ok) return;
    for (const a of r.addresses) {
      const row = document.createElement("div");
      row.className = "addr";
      const text = document.createElement("span");
      text.textContent = `${a.address} (UPRN ${a.uprn})`;
      const btn = document.createElement("button");
      btn.textContent = "Insert";
      btn.title = "Put this UPRN in the active cell";
      btn.addEventListener("click", async () => {
        try {
          const ins = await call("insertUprn", a.uprn);
          showMessage(ins.message, !ins.ok);
        } catch (e) {
          showMessage(errorText(e), true);
        }
      });
      row.append(text, btn);
      out.appendChild(row);
    }
  } catch (e) {
    showMessage(errorText(e), true);
  }
}

async function init(state?: SidebarState): Promise<void> {
  try {
    const s = state || (await call("getSidebarState"));
    renderSettings(s.settings);
    $("selection").textContent = s.selection || "none";
    renderRun(s.run);
    if (!s.settings.hasKey) {
      showMessage("Add your API key under Settings to start (Professional or Enterprise plan).");
      selectTab("panel-settings");
    } else if (s.intent === "settings") selectTab("panel-settings");
    if (s.run && s.run.phase === "running") {
      showMessage("Resuming the running check…");
      schedulePoll(0);
    } else if (s.intent === "check" && s.settings.hasKey) void startCheck();
  } catch (e) {
    showMessage(errorText(e), true);
  }
}

document.querySelectorAll<HTMLButtonElement>("nav button").forEach((b) => b.addEventListener("click", () => selectTab(b.dataset.panel!)));
$("check-btn").addEventListener("click", () => void startCheck());
$("stop-btn").addEventListener("click", () => void stopCheck());
$("save-settings").addEventListener("click", () => void saveSettings());
$("remove-key").addEventListener("click", () => void removeKey());
$("lookup-btn").addEventListener("click", () => void lookup());
renderLegend();
void init();
