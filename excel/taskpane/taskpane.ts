/**
 * The task pane's DOM wiring: settings, "Check selected rows", address lookup, refresh of the functions, quota display.
 * Everything it does goes through check-run.ts / sheet.ts (Excel) and core (meaning); this file only shows and asks.
 */
import {
  STATUS_COLOURS,
  createClient,
  describeError,
  maskApiKey,
  toServiceError,
  type AddressList,
  type ColumnMapping,
  type DisplayStatus,
  type RateLimitInfo,
} from "../../core";
import { complianceRuntime } from "../runtime";
import { defaultUserStore } from "../settings";
import { loadUnfinished, prepareCheck, resumeRun, runCheck, UNFINISHED_KEY, type ExcelRun, type RunProgress, type RunSummary, type UnfinishedRun } from "./check-run";
import { insertAddress } from "./sheet";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const excelRun: ExcelRun = (fn) => Excel.run(fn);
const rt = complianceRuntime();
const store = defaultUserStore();
let running: AbortController | null = null;
let found: AddressList = [];
/** Where the last check wrote (kept in the final status line, so the user sees where to look). */
let placement = "";

function say(id: string, text: string): void {
  $(id).textContent = text;
}

function banner(text: string | null): void {
  const b = $("banner");
  b.hidden = !text;
  b.textContent = text ?? "";
}

function showQuota(info: RateLimitInfo | undefined): void {
  if (!info || info.remaining === undefined) return;
  const reset = info.resetAtMs ? ` (resets in ${Math.max(0, Math.ceil((info.resetAtMs - Date.now()) / 1000))} s)` : "";
  say("quota", `Requests left: ${info.remaining}${info.limit !== undefined ? ` of ${info.limit}` : ""}${reset}`);
}

async function client() {
  const s = await rt.settings.load();
  if (!s.apiKey) {
    banner("No API key set. Open Settings below and paste the key from the service dashboard (Settings > API Keys).");
    ($("settings") as HTMLDetailsElement).open = true;
    return null;
  }
  return createClient({
    baseUrl: s.baseUrl,
    apiKey: s.apiKey,
    fetch: (url, init) => fetch(url, init as RequestInit),
    onRateLimit: (info) => rt.reportRateLimit(info),
  });
}

async function renderSettings(): Promise<void> {
  const s = await rt.settings.load();
  say("key-state", s.apiKey ? `set (${maskApiKey(s.apiKey)})` : "not set");
  ($("remove-key") as HTMLButtonElement).disabled = !s.apiKey;
  ($("base-url") as HTMLInputElement).value = s.baseUrl;
  ($("plan") as HTMLSelectElement).value = s.plan;
}

function renderLegend(): void {
  const ul = $("legend");
  ul.textContent = "";
  for (const [word, c] of Object.entries(STATUS_COLOURS) as [DisplayStatus, (typeof STATUS_COLOURS)[DisplayStatus]][]) {
    const li = document.createElement("li");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = c.fill;
    sw.style.color = c.font;
    sw.textContent = word;
    li.append(sw, document.createTextNode(c.label));
    ul.append(li);
  }
}

function showProgress(p: RunProgress): void {
  $("progress-box").hidden = false;
  const bar = $("progress") as HTMLProgressElement;
  bar.max = Math.max(1, p.rowsTotal);
  bar.value = p.rowsDone;
  const jobs = p.jobsTotal ? `, bulk jobs ${p.jobsSubmitted} of ${p.jobsTotal} sent` : "";
  say("progress-text", `${p.rowsDone} of ${p.rowsTotal} rows done${jobs}`);
  showQuota(p.rateLimit);
}

function showSummary(s: RunSummary): void {
  const counts = Object.entries(s.byStatus)
    .map(([w, n]) => `${n} ${w.replace("_", " ")}`)
    .join(", ");
  const head = s.cancelled ? "Cancelled." : "Done.";
  say(
    "status",
    `${head} ${s.rowsWritten} row${s.rowsWritten === 1 ? "" : "s"} written${s.errors ? `, ${s.errors} with errors (see the Message column)` : ""}.` +
      `\nStatuses over all checks: ${counts || "none"}.${placement ? `\n${placement}` : ""}`,
  );
  banner(s.fatal ?? null);
}

function setRunning(on: boolean): void {
  ($("check") as HTMLButtonElement).disabled = on;
  ($("map-apply") as HTMLButtonElement).disabled = on;
  $("cancel").hidden = !on;
}

function fillMapping(headers: string[]): void {
  for (const id of ["map-uprn", "map-postcode", "map-address"]) {
    const sel = $<HTMLSelectElement>(id);
    sel.textContent = "";
    sel.append(new Option("(none)", ""));
    headers.forEach((h, i) => sel.append(new Option(h, String(i))));
  }
  $("mapping").hidden = false;
}

function mappingFromForm(): ColumnMapping {
  const m: ColumnMapping = {};
  const pick = (id: string) => ($<HTMLSelectElement>(id).value === "" ? undefined : Number($<HTMLSelectElement>(id).value));
  const u = pick("map-uprn");
  const p = pick("map-postcode");
  const a = pick("map-address");
  if (u !== undefined) m.uprn = u;
  if (p !== undefined) m.postcode = p;
  if (a !== undefined) m.address = a;
  return m;
}

async function check(manual?: { mapping: ColumnMapping; hasHeader: boolean }): Promise<void> {
  banner(null);
  say("status", "");
  placement = "";
  $("problems-box").hidden = true;
  const c = await client();
  if (!c) return;
  const s = await rt.settings.load();
  setRunning(true);
  running = new AbortController();
  try {
    say("status", "Reading the selection…");
    const prep = await prepareCheck(excelRun, { plan: s.plan, ...(manual ?? {}) });
    if (!prep.ok) {
      say("status", prep.message);
      if (prep.headers.length) fillMapping(prep.headers);
      return;
    }
    $("mapping").hidden = manual ? $("mapping").hidden : true;
    const { check: p } = prep;
    if (p.problems.length) {
      const ul = $("problems");
      ul.textContent = "";
      for (const pr of p.problems.slice(0, 200)) {
        const li = document.createElement("li");
        li.textContent = `Row ${pr.row}: ${pr.message}`;
        ul.append(li);
      }
      if (p.problems.length > 200) ul.append(Object.assign(document.createElement("li"), { textContent: `…and ${p.problems.length - 200} more (see the Message column)` }));
      $("problems-box").hidden = false;
    }
    const valid = p.rows.length - p.problems.length;
    const skipped = p.blankRowsSkipped ? `\n${p.blankRowsSkipped} blank row${p.blankRowsSkipped === 1 ? " at the end of the selection was" : "s at the end of the selection were"} left out.` : "";
    say(
      "status",
      valid
        ? `Checking ${valid} row${valid === 1 ? "" : "s"} (${p.distinct} distinct ${p.distinct === 1 ? "property" : "properties"})…\n${p.placement}${skipped}`
        : `None of the ${p.rows.length} selected rows can be checked (see below); nothing is sent.\n${p.placement}${skipped}`,
    );
    placement = `${p.placement}${skipped}`;
    const summary = await runCheck(p, { excelRun, client: c, plan: s.plan, store, signal: running.signal, onProgress: showProgress, onNotice: (t) => say("status", t) });
    showSummary(summary);
  } catch (e) {
    banner(errorText(e));
    // A run whose last write Excel refused keeps its record: offer Resume at once.
    void offerResume();
  } finally {
    running = null;
    setRunning(false);
  }
}

function errorText(e: unknown): string {
  if (e instanceof Error && !(e as { kind?: string }).kind) return e.message;
  return describeError(toServiceError(e));
}

async function offerResume(): Promise<void> {
  const run = await loadUnfinished(store);
  if (!run) return;
  $("unfinished").hidden = false;
  say(
    "unfinished-text",
    `A check of ${run.offsets.length} rows on ${run.origin.sheet}, started ${run.startedAt.slice(0, 16).replace("T", " ")} UTC, was still running when the pane closed (${run.jobs.length} of ${run.jobsTotal || run.jobs.length} bulk jobs sent).`,
  );
}

async function resume(): Promise<void> {
  const run: UnfinishedRun | null = await loadUnfinished(store);
  $("unfinished").hidden = true;
  if (!run) return;
  const c = await client();
  if (!c) return;
  setRunning(true);
  running = new AbortController();
  try {
    say("status", "Resuming the unfinished check…");
    showSummary(await resumeRun(run, { excelRun, client: c, plan: run.plan, store, signal: running.signal, onProgress: showProgress, onNotice: (t) => say("status", t) }));
  } catch (e) {
    banner(errorText(e));
    void offerResume();
  } finally {
    running = null;
    setRunning(false);
  }
}

async function lookup(ev: Event): Promise<void> {
  ev.preventDefault();
  const text = ($("lookup-text") as HTMLInputElement).value.trim();
  const list = $<HTMLSelectElement>("lookup-results");
  if (!text) return say("lookup-status", "Type a postcode or some words of the address.");
  const c = await client();
  if (!c) return;
  say("lookup-status", "Searching…");
  try {
    found = await rt.lookups.addresses(text);
    list.textContent = "";
    found.forEach((a, i) => list.append(new Option(`${a.address} (UPRN ${a.uprn})`, String(i))));
    list.hidden = found.length === 0;
    $("insert-row").hidden = found.length === 0;
    if (found.length) list.selectedIndex = 0;
    const total = found.total;
    const more = total !== undefined && total > found.length ? ` (the first ${found.length} of ${total.toLocaleString("en-GB")}: add words to narrow it)` : "";
    say("lookup-status", found.length ? `${found.length} address${found.length === 1 ? "" : "es"} found${more}. Pick one, select a cell, then Insert.` : "No addresses found.");
  } catch (e) {
    say("lookup-status", errorText(e));
  }
  showQuota(rt.lastRateLimit);
}

async function insert(withAddress: boolean): Promise<void> {
  const a = found[Number($<HTMLSelectElement>("lookup-results").value)];
  if (!a) return say("lookup-status", "Pick an address first.");
  try {
    const done = await excelRun((ctx) => insertAddress(ctx, a.uprn, withAddress ? a.address : null));
    say("lookup-status", `Inserted UPRN ${a.uprn} at ${done.uprnAt}${done.addressAt ? ` and the address at ${done.addressAt}` : ""}.${done.skipped ? ` ${done.skipped}` : ""}`);
  } catch (e) {
    say("lookup-status", errorText(e));
  }
}

async function refreshFunctions(): Promise<void> {
  rt.batcher.clear();
  rt.lookups.clear();
  try {
    await excelRun(async (ctx) => {
      ctx.workbook.application.calculate(Excel.CalculationType.full);
      await ctx.sync();
    });
    say("refresh-status", "Cache cleared; COMPLIANCE functions are recalculating.");
  } catch (e) {
    say("refresh-status", errorText(e));
  }
}

function wire(): void {
  renderLegend();
  void renderSettings();
  void offerResume();
  rt.rateLimitListeners.push(showQuota);
  $("check").addEventListener("click", () => void check());
  $("cancel").addEventListener("click", () => running?.abort());
  $("map-apply").addEventListener("click", () => void check({ mapping: mappingFromForm(), hasHeader: ($("map-header") as HTMLInputElement).checked }));
  $("resume").addEventListener("click", () => void resume());
  $("discard").addEventListener("click", async () => {
    await store.removeItem(UNFINISHED_KEY);
    $("unfinished").hidden = true;
  });
  $("lookup-form").addEventListener("submit", (e) => void lookup(e));
  $("insert-uprn").addEventListener("click", () => void insert(false));
  $("insert-both").addEventListener("click", () => void insert(true));
  $("refresh").addEventListener("click", () => void refreshFunctions());
  $("key-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const input = $("api-key") as HTMLInputElement;
    try {
      await rt.settings.setApiKey(input.value);
      input.value = "";
      say("settings-status", "Key saved on this computer.");
      banner(null);
    } catch (err) {
      say("settings-status", errorText(err));
    }
    await renderSettings();
  });
  $("remove-key").addEventListener("click", async () => {
    await rt.settings.removeApiKey();
    say("settings-status", "Key removed from this computer.");
    await renderSettings();
  });
  $("url-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await rt.settings.setBaseUrl(($("base-url") as HTMLInputElement).value);
      say("settings-status", "Base URL saved.");
    } catch (err) {
      say("settings-status", errorText(err));
    }
    await renderSettings();
  });
  $("plan").addEventListener("change", async () => {
    await rt.settings.setPlan(($("plan") as HTMLSelectElement).value as "professional" | "enterprise");
    say("settings-status", "Plan saved.");
  });
}

Office.onReady(() => wire());
