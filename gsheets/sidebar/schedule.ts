/**
 * The sidebar's last run's line, the buttons that open the Change log and Run log, and the Schedule section (Off,
 * daily at an hour, weekly on a day; who it runs as; the stale banner). The server side is gsheets/server/schedule.ts.
 */
import type { ScheduleView } from "../shared/api";
import { $, call, errorText, showMessage } from "./ui";

export function renderLastRun(line: string): void {
  $("last-run-box").hidden = !line;
  $("last-run").textContent = line;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

export function renderHours(): void {
  const select = $<HTMLSelectElement>("schedule-hour");
  for (let h = 0; h < 24; h++) {
    const o = document.createElement("option");
    o.value = String(h);
    o.textContent = `${two(h)}:00 and ${two((h + 1) % 24)}:00`;
    select.appendChild(o);
  }
}

/** Day and hour are asked for only when they mean something: the day for a weekly schedule, the hour unless Off. */
export function showScheduleFields(): void {
  const mode = $<HTMLSelectElement>("schedule-mode").value;
  $("schedule-day-box").hidden = mode !== "weekly";
  $("schedule-hour-box").hidden = mode === "off";
}

export function renderSchedule(v: ScheduleView, keepInputs = false): void {
  if (!keepInputs) {
    $<HTMLSelectElement>("schedule-mode").value = v.mode;
    $<HTMLSelectElement>("schedule-hour").value = String(v.hour);
    $<HTMLSelectElement>("schedule-day").value = v.weekday;
  }
  showScheduleFields();
  $("schedule-summary").textContent = v.summary;
  $("schedule-warning").hidden = !v.warning;
  $("schedule-warning").textContent = v.warning;
  $("schedule-limits").textContent = v.limits;
  $("schedule-pending").hidden = !v.pending;
  $("schedule-pending").textContent = v.pending;
  $<HTMLButtonElement>("remove-schedule").hidden = v.mode === "off";
  const tables = $("schedule-tables");
  tables.textContent = "";
  if (v.mode !== "off") {
    v.tables.forEach((t) => {
      const li = document.createElement("li");
      li.textContent = t;
      tables.appendChild(li);
    });
  }
  if (v.digest) {
    if (!keepInputs) {
      $<HTMLInputElement>("digest-on").checked = v.digest.on;
      $<HTMLInputElement>("digest-thresholds").value = v.digest.thresholds;
      $<HTMLInputElement>("digest-extra").value = v.digest.extra;
      $<HTMLSelectElement>("digest-day").value = v.digest.summaryDay;
    }
    $("digest-last").textContent = v.digest.last;
  }
  // Results that may be out of date are said above every tab, not only in the Schedule section.
  $("stale-banner").hidden = !v.stale;
  $("stale-banner").textContent = v.stale;
}

export async function saveSchedule(mode?: string): Promise<void> {
  const save = $<HTMLButtonElement>("save-schedule");
  save.disabled = true;
  try {
    const r = await call("saveSchedule", {
      mode: mode || $<HTMLSelectElement>("schedule-mode").value,
      hour: $<HTMLSelectElement>("schedule-hour").value,
      weekday: $<HTMLSelectElement>("schedule-day").value,
    });
    renderSchedule(r.schedule, !r.ok);
    showMessage(r.message, !r.ok);
  } catch (e) {
    showMessage(errorText(e), true);
  } finally {
    save.disabled = false;
  }
}

export async function saveDigest(): Promise<void> {
  const save = $<HTMLButtonElement>("save-digest");
  save.disabled = true;
  try {
    const r = await call("saveDigest", {
      on: $<HTMLInputElement>("digest-on").checked,
      thresholds: $<HTMLInputElement>("digest-thresholds").value,
      extra: $<HTMLInputElement>("digest-extra").value,
      summaryDay: $<HTMLSelectElement>("digest-day").value,
    });
    renderSchedule(r.schedule, !r.ok);
    showMessage(r.message, !r.ok);
  } catch (e) {
    showMessage(errorText(e), true);
  } finally {
    save.disabled = false;
  }
}

export async function openLog(name: string): Promise<void> {
  try {
    const r = await call("openLogSheet", name);
    showMessage(r.message, r.ok ? "info" : "warning");
  } catch (e) {
    showMessage(errorText(e), true);
  }
}

/** After a run ends: the last run's line (and the schedule's tables) as the server has them now. */
export async function refreshLastRun(): Promise<void> {
  try {
    const s = await call("getSidebarState");
    renderLastRun(s.lastRun);
    renderSchedule(s.schedule, true);
  } catch {
    // Only the line is stale; the next opening shows it.
  }
}
