/**
 * The sidebar page: the tabs, the bulk-check button and its polling loop, the action list and address lookup
 * (Settings in settings.ts, the Schedule section in schedule.ts). Every server
 * call is a short google.script.run call; the loop waits in the browser, never on the server.
 */
import { STATUS_COLOURS, WINDOW_COLOURS, type Window } from "../../core/sheet/colours";
import type { DisplayStatus } from "../../core/service/checks";
import type { JobProgress, RunProgress, SidebarState } from "../shared/api";
import { count } from "../shared/words";
import {
  openLog,
  refreshLastRun,
  renderHours,
  renderLastRun,
  renderSchedule,
  saveDigest,
  saveSchedule,
  showScheduleFields,
} from "./schedule";
import { removeKey, renderSettings, resetWindows, saveSettings } from "./settings";
import { $, call, errorText, showMessage } from "./ui";
import { formatCount } from "../../core/numbers";
import { pageWord } from "../../core/page-words";
import { BUILDING_ACTION_SHEETS, ICS_MIME, calendarReadyLine } from "../../core/reports/report-words";

function tabs(): HTMLButtonElement[] {
  return Array.from(document.querySelectorAll<HTMLButtonElement>('nav [role="tab"]'));
}

/** The ARIA tabs pattern: the selected tab alone is in the Tab order (tabindex 0), the others are reached by arrows. */
function selectTab(panelId: string, focus = false): void {
  tabs().forEach((b) => {
    const on = b.dataset.panel === panelId;
    b.setAttribute("aria-selected", on ? "true" : "false");
    b.tabIndex = on ? 0 : -1;
    $(b.dataset.panel!).hidden = !on;
    if (on && focus) b.focus();
  });
}

/** Left/Right move to the previous/next tab (wrapping), Home/End to the first/last; selection follows focus. */
function onTabKey(e: KeyboardEvent): void {
  const list = tabs();
  const i = list.indexOf(e.currentTarget as HTMLButtonElement);
  const to: Record<string, number> = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: list.length - 1 };
  if (!(e.key in to)) return;
  e.preventDefault();
  const next = list[(to[e.key] + list.length) % list.length];
  selectTab(next.dataset.panel!, true);
}

async function tryDemo(): Promise<void> {
  try {
    const r = await call("saveSettings", { apiKey: "demo" });
    renderSettings(r.settings);
    showMessage(r.message, !r.ok);
    if (r.ok) selectTab("panel-check");
  } catch (e) {
    showMessage(errorText(e), true);
  }
}

async function insertSample(): Promise<void> {
  showMessage("Writing the sample table…");
  try {
    const r = await call("insertSampleTable");
    showMessage(r.message, !r.ok);
    void refreshSelection();
  } catch (e) {
    showMessage(errorText(e), true);
  }
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
  const windows = $("window-legend");
  windows.textContent = "";
  (Object.keys(WINDOW_COLOURS) as Window[]).forEach((w) => {
    const span = document.createElement("span");
    span.textContent = w;
    span.title = WINDOW_COLOURS[w].label;
    span.style.background = WINDOW_COLOURS[w].fill;
    span.style.color = WINDOW_COLOURS[w].font;
    windows.appendChild(span);
  });
}

function renderRun(p: RunProgress | null): void {
  const running = !!p && p.phase === "running";
  if (!running) stopping = false;
  $<HTMLButtonElement>("check-btn").disabled = running;
  $("stop-btn").hidden = !running;
  // Jobs already sent (or queued while the quota was out) can still be collected: Resume sends nothing twice.
  $("resume-btn").hidden = running || !p || !p.resumable;
  $<HTMLButtonElement>("stop-btn").disabled = stopping;
  if (!p) {
    $("run").hidden = true;
    return;
  }
  $("run").hidden = false;
  // Rows answered fill the bar, as in the Excel pane: a run the service failed must not look finished.
  const bar = $<HTMLProgressElement>("progress");
  bar.max = Math.max(1, p.rows);
  bar.value = p.rowsChecked;
  $("progress-text").textContent = `${p.sheetName}!${p.rangeA1}: ${p.caption}`;
  // While the run goes its line is beside the bar; once it has ended, core's headline, its details on demand.
  $("run-status").textContent = running ? "" : p.message;
  const details = $<HTMLDetailsElement>("run-details");
  details.hidden = running || !p.details.length;
  $("run-details-text").textContent = running ? "" : p.details.join("\n");
  // A run that did not check everything must not look like one that did (core's flag, not the words).
  const incomplete = !running && (!p.complete || p.failedJobs > 0);
  $("run-status").className = incomplete ? "msg error" : "";
  const jobs = $("jobs");
  jobs.textContent = "";
  p.jobs.forEach((j, i) => {
    const li = document.createElement("li");
    li.textContent = jobLine(j, i);
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

function jobLine(j: JobProgress, i: number): string {
  // A job the service never accepted has no id: say so rather than show an empty or made-up one.
  const id = j.jobId ? ` (${j.jobId})` : j.status === "failed" || j.status === "stopped" ? " (not created)" : "";
  return `Job ${i + 1}${id}: ${j.status.replace("_", " ")}, ${formatCount(j.processed)} of ${formatCount(j.total)} checked`;
}

/** The top box while a run goes on: "Sending…" until the service has accepted a job, then how many it has. */
function runHeadline(p: RunProgress): string {
  const sent = p.jobs.filter((j) => j.jobId).length;
  if (!sent) return "Sending the properties to the service…";
  const jobs =
    sent === p.jobs.length ? count(sent, "bulk job") : `${formatCount(sent)} of ${count(p.jobs.length, "bulk job")}`;
  return `Sent ${jobs}. Results appear as they complete.`;
}

/** Once a run has ended: why nothing was checked when every job failed; nothing otherwise (the status says it). */
function showEnd(p: RunProgress): void {
  if (p.phase === "stopped" || p.phase === "paused") showMessage(p.message, "error");
  else if (p.problem) showMessage(p.problem, "error");
  else showMessage("");
  void refreshLastRun();
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
    if (p && p.phase === "running") {
      if (!stopping) showMessage(runHeadline(p));
      schedulePoll(p.waitMs);
    }
    // A finished run's summary is already under the progress bar: do not repeat it in the top box.
    else if (p && p.endDue) void finishRun();
    else if (p) showEnd(p);
  } catch (e) {
    // A failed call (a server hiccup, a lost connection) is retried with back-off; the job keeps running.
    failures++;
    showMessage(`Could not reach the add-on's server (${errorText(e)}); retrying…`, true);
    schedulePoll(Math.min(30000, 1000 * Math.pow(2, failures)));
  }
}

/**
 * Every row has its result: the Action list, Compliance summary and Run log are built by their own server call, so
 * the last poll is as short as the others. Asked again while a poll holds the lock.
 */
async function finishRun(): Promise<void> {
  showMessage(`Results written. ${BUILDING_ACTION_SHEETS}`);
  try {
    const p = await call("finishBulkCheck");
    renderRun(p);
    if (p && p.endDue) window.setTimeout(() => void finishRun(), p.waitMs || 1000);
    else if (p) showEnd(p);
  } catch (e) {
    showMessage(
      `The Action list could not be built (${errorText(e)}); the results are written. Press "Refresh action list" to build it.`,
      true,
    );
  }
}

async function startCheck(anyway = false): Promise<void> {
  const btn = $<HTMLButtonElement>("check-btn");
  $("check-anyway-btn").hidden = true;
  if (btn.disabled) return; // a run is going, or starting
  btn.disabled = true;
  showMessage("Reading the selected rows and sending them…");
  void refreshSelection(); // what is checked is what is selected now, so the line should say it too
  const mapping = {
    uprn: $<HTMLInputElement>("map-uprn").value.trim(),
    postcode: $<HTMLInputElement>("map-postcode").value.trim(),
    address: $<HTMLInputElement>("map-address").value.trim(),
  };
  try {
    const r = await call("startBulkCheck", { mapping, anyway });
    if (!r.ok) {
      showMessage(r.message, true);
      // An unfinished run: Resume it (its button shows), or check the selection anyway (it stays resumable).
      $("check-anyway-btn").hidden = !r.askResume;
      if (r.needsMapping) $<HTMLDetailsElement>("mapping").open = true;
      renderRun(r.progress || null);
      if (r.progress && r.progress.phase === "running") schedulePoll(r.progress.waitMs);
      else btn.disabled = false;
      return;
    }
    renderRun(r.progress);
    if (r.progress.phase === "running") {
      showMessage(runHeadline(r.progress));
      schedulePoll(r.progress.waitMs);
    } else showEnd(r.progress);
  } catch (e) {
    showMessage(`The check could not start: ${errorText(e)}`, true);
    btn.disabled = false;
  }
}

async function resumeCheck(): Promise<void> {
  $<HTMLButtonElement>("resume-btn").disabled = true;
  try {
    const p = await call("resumeBulkCheck");
    renderRun(p);
    if (p && p.phase === "running") {
      showMessage(runHeadline(p));
      schedulePoll(p.waitMs);
    } else if (p) showEnd(p);
  } catch (e) {
    showMessage(`Could not resume: ${errorText(e)}`, true);
  } finally {
    $<HTMLButtonElement>("resume-btn").disabled = false;
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

async function refreshActions(): Promise<void> {
  const days = Number($<HTMLSelectElement>("action-days").value);
  showMessage(BUILDING_ACTION_SHEETS);
  try {
    // The choice is remembered for the next checks, then both sheets are built with it.
    await call("saveSettings", { actionDays: days });
    const r = await call("refreshActionSheets", { actionDays: days });
    showMessage(r.message, !r.ok);
  } catch (e) {
    showMessage(errorText(e), true);
  }
}

async function downloadCalendar(): Promise<void> {
  showMessage("Making the calendar…");
  try {
    const r = await call("actionCalendar");
    if (!r.ok) return showMessage(r.message, "warning");
    const link = $<HTMLAnchorElement>("ics-link");
    if (link.href) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([r.ics], { type: ICS_MIME }));
    link.download = r.fileName;
    link.textContent = `Save ${r.fileName}`;
    link.hidden = false;
    link.click();
    showMessage(calendarReadyLine(r.events));
  } catch (e) {
    showMessage(errorText(e), true);
  }
}

async function lookup(): Promise<void> {
  const out = $("lookup-results");
  out.textContent = "";
  showMessage("Looking up addresses…");
  try {
    const r = await call("lookupAddresses", {
      postcode: $<HTMLInputElement>("lookup-postcode").value,
      query: $<HTMLInputElement>("lookup-query").value,
    });
    showMessage(r.message, !r.ok);
    if (!r.ok) return;
    for (const a of r.addresses) {
      const row = document.createElement("div");
      row.className = "addr";
      const text = document.createElement("span");
      text.textContent = `${a.address} (UPRN ${a.uprn})`;
      const btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = "Insert";
      btn.title = "Put this UPRN in the active cell";
      // Every button reads "Insert": the label says which property a screen-reader user is on.
      btn.setAttribute("aria-label", `Insert UPRN ${a.uprn} (${a.address})`);
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
    showSelection(s.selection);
    renderRun(s.run);
    renderLastRun(s.lastRun);
    renderSchedule(s.schedule);
    if (!s.settings.hasKey) {
      showMessage(
        'To start, paste your API key below: copy it from your account\'s API page on the compliance service (Professional or Enterprise plan). No key yet? Choose "Try with demo data".',
      );
      selectTab("panel-settings");
    } else if (s.intent === "settings") selectTab("panel-settings");
    if (s.run && s.run.phase === "running") {
      showMessage("Resuming the running check…");
      schedulePoll(0);
    } else if (s.run && s.run.endDue) void finishRun();
    else if (s.intent === "check" && s.settings.hasKey) void startCheck();
  } catch (e) {
    showMessage(errorText(e), true);
  }
}

// ---- the Selection line: the sheet does not tell the sidebar when the selection changes, so it asks ----

/** Asked every few seconds while someone may be using the sheet; after this long with no sign of them, only on focus. */
const SELECTION_POLL_MS = 5000;
const SELECTION_POLL_FOR_MS = 10 * 60 * 1000;
let lastActiveMs = Date.now();

function showSelection(a1: string): void {
  $("selection").textContent = a1 || "none";
}

async function refreshSelection(): Promise<void> {
  try {
    showSelection(await call("getSelection"));
  } catch {
    // Only the Selection line is stale; the next focus or tick asks again.
  }
}

function watchSelection(): void {
  const active = () => {
    lastActiveMs = Date.now();
  };
  window.addEventListener("focus", () => {
    active();
    void refreshSelection();
  });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) void refreshSelection();
  });
  document.addEventListener("pointerdown", active);
  document.addEventListener("keydown", active);
  window.setInterval(() => {
    if (!document.hidden && Date.now() - lastActiveMs < SELECTION_POLL_FOR_MS) void refreshSelection();
  }, SELECTION_POLL_MS);
}

/** Enter in a field submits its panel's form; the page itself never navigates. */
function onSubmit(formId: string, action: () => Promise<void>): void {
  $(formId).addEventListener("submit", (e) => {
    e.preventDefault();
    void action();
  });
}

tabs().forEach((b) => {
  b.addEventListener("click", () => selectTab(b.dataset.panel!));
  b.addEventListener("keydown", onTabKey);
});
onSubmit("check-form", startCheck);
onSubmit("settings-form", saveSettings);
onSubmit("lookup-form", lookup);
$("stop-btn").addEventListener("click", () => void stopCheck());
$("resume-btn").addEventListener("click", () => {
  $("check-anyway-btn").hidden = true;
  void resumeCheck();
});
$("check-anyway-btn").addEventListener("click", () => void startCheck(true));
$("remove-key").addEventListener("click", () => void removeKey());
$("try-demo").addEventListener("click", () => void tryDemo());
$("insert-sample").addEventListener("click", () => void insertSample());
onSubmit("actions-form", refreshActions);
$("download-ics").addEventListener("click", () => void downloadCalendar());
$("reset-windows").addEventListener("click", resetWindows);
onSubmit("schedule-form", () => saveSchedule());
onSubmit("digest-form", () => saveDigest());
$("remove-schedule").addEventListener("click", () => void saveSchedule("off"));
$("schedule-mode").addEventListener("change", showScheduleFields);
$("open-change-log").addEventListener("click", () => void openLog("Change log"));
$("open-run-log").addEventListener("click", () => void openLog("Run log"));
// The words the sidebar shares with the Excel pane, from core (data-words in Sidebar.html).
for (const el of Array.from(document.querySelectorAll<HTMLElement>("[data-words]")))
  el.textContent = pageWord(el.dataset.words) ?? el.textContent;
renderHours();
renderLegend();
watchSelection();
void init();
