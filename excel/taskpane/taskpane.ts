/**
 * The task pane's DOM wiring: "Check selected rows", Resume, re-check on open, the sample table, refresh of the
 * functions (Settings in settings-pane.ts, the watch card in watch-pane.ts, the Action list in actions-pane.ts, the
 * UPRN finder in lookup-pane.ts, shared pieces in pane-ui.ts).
 * Everything it does goes through check-run.ts / sheet.ts (Excel) and core (meaning); this file only shows and asks.
 */
import {
  isDemoKey,
  STATUS_COLOURS,
  WINDOW_COLOURS,
  type ColumnMapping,
  type DisplayStatus,
  type ServiceError,
  type Window,
  countWord,
  formatCount,
  nothingToSendLine,
  checkingLine,
} from "../../core";
import { pageWord } from "../../core/page-words";
import { complianceRuntime } from "../runtime";
import { defaultUserStore } from "../settings";
import type { ExcelRun, RunProgress, RunSummary } from "./check-run";
import type { UnfinishedRun } from "./unfinished";
import { HELD_KEY, UNFINISHED_KEY } from "./stored";
import { wireActions } from "./actions-pane";
import { wireLookup } from "./lookup-pane";
import { $, banner, clientFor, errorText, openSettings, savedClient, say, showQuota, startAction } from "./pane-ui";
import { wireSettings } from "./settings-pane";
import { showLastRun, wireWatch } from "./watch-pane";
import { dueBlocks, recordBlock, workbookSettings } from "./watch-settings";

/** Checking rows (check-run.ts, the sheet code, core's engine) is a chunk loaded on first use: the page starts without it. */
const checkRun = () => import(/* webpackChunkName: "check" */ "./check-run");
const unfinishedRuns = () => import(/* webpackChunkName: "check" */ "./unfinished");
/** The digest card (core's digest, its mail and calendar writers) is a chunk too, fetched once the pane is wired. */
const digestPane = () => import(/* webpackChunkName: "digest" */ "./digest-pane");
const excelRun: ExcelRun = (fn) => Excel.run(fn);
const rt = complianceRuntime();
const store = defaultUserStore();
let running: AbortController | null = null;
/** Where the last check wrote (kept in the final status line, so the user sees where to look). */
let placement = "";

/** The Settings field a failure of the whole run points at: the key when refused, the base URL when it is not the API. */
function settingsFieldFor(e: ServiceError | undefined): "api-key" | "base-url" | undefined {
  if (!e) return undefined;
  if (e.kind === "auth" || e.kind === "forbidden") return "api-key";
  if (e.code === "endpoint_not_found") return "base-url";
  return undefined;
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
  const wl = $("window-legend");
  wl.textContent = "";
  for (const [word, c] of Object.entries(WINDOW_COLOURS) as [Window, (typeof WINDOW_COLOURS)[Window]][]) {
    const li = document.createElement("li");
    const sw = Object.assign(document.createElement("span"), { className: "swatch", textContent: word });
    sw.style.background = c.fill;
    sw.style.color = c.font;
    li.append(sw, document.createTextNode(c.label));
    wl.append(li);
  }
}

function showProgress(p: RunProgress): void {
  $("progress-box").hidden = false;
  const bar = $("progress") as HTMLProgressElement;
  bar.max = Math.max(1, p.rowsTotal);
  // Only rows answered fill the bar: a run the service failed must not look finished.
  bar.value = p.rowsChecked;
  // Core's words, as the sidebar shows them: while the run goes, its line; once it has ended, the counts the bar shows.
  say("progress-text", p.line);
  showQuota(p.rateLimit);
}

function hideProgress(): void {
  $("progress-box").hidden = true;
  ($("progress") as HTMLProgressElement).value = 0;
  say("progress-text", "");
}

/** Every block a check wrote is remembered in the workbook, for re-check on open (a failure there never fails the run). */
const onBlockWritten = (place: Parameters<typeof recordBlock>[1], at: string) =>
  recordBlock(workbookSettings(), place, at);

/** Shows a finished run; returns the Settings field to focus when the run failed on the key or the base URL. */
function showSummary(s: RunSummary, text: string): "api-key" | "base-url" | undefined {
  say("status", `${text}${placement ? `\n${placement}` : ""}`);
  void showLastRun(excelRun);
  // The digest card counts from the block this run wrote, not the "no check yet" it showed when the pane opened.
  void withDigest((d) => d.showSinceLastDigest(excelRun, store));
  banner(s.fatal ?? null);
  // This run kept for Resume (paused, stopped, results not all written), or one it set aside: offered at once.
  void offerResume();
  const field = s.fatal ? settingsFieldFor(s.failure) : undefined;
  if (field) ($("settings") as HTMLDetailsElement).open = true;
  return field;
}

/**
 * Disables Check while a run is on, and moves keyboard focus with it: to Cancel as it appears, back to Check (or to
 * the Settings field to fix) as Cancel disappears, so a keyboard user is never left on a hidden button.
 */
function setRunning(on: boolean, focusAfter?: string): void {
  ($("check") as HTMLButtonElement).disabled = on;
  ($("map-apply") as HTMLButtonElement).disabled = on;
  $("cancel").hidden = !on;
  $(on ? "cancel" : (focusAfter ?? "check")).focus();
}

const MAP_IDS = { uprn: "map-uprn", postcode: "map-postcode", address: "map-address" } as const;

/** The column chooser, with every column of the table and the columns the headers did name already chosen. */
function fillMapping(headers: string[], found: ColumnMapping = {}, hasHeader = true): void {
  for (const [key, id] of Object.entries(MAP_IDS) as [keyof ColumnMapping, string][]) {
    const sel = $<HTMLSelectElement>(id);
    sel.textContent = "";
    sel.append(new Option("(none)", ""));
    headers.forEach((h, i) => sel.append(new Option(h, String(i))));
    sel.value = found[key] !== undefined ? String(found[key]) : "";
  }
  ($("map-header") as HTMLInputElement).checked = hasHeader;
  $("mapping").hidden = false;
}

function mappingFromForm(): ColumnMapping {
  const m: ColumnMapping = {};
  for (const [key, id] of Object.entries(MAP_IDS) as [keyof ColumnMapping, string][]) {
    const v = $<HTMLSelectElement>(id).value;
    if (v !== "") m[key] = Number(v);
  }
  return m;
}

function checkWithMapping(): void {
  const mapping = mappingFromForm();
  if (mapping.uprn === undefined && mapping.postcode === undefined) {
    say(
      "status",
      "Choose the UPRN column or the Postcode column (or both): each row is found by one of them. The Address column alone cannot find a property.",
    );
    $("map-uprn").focus();
    return;
  }
  void check({ mapping, hasHeader: ($("map-header") as HTMLInputElement).checked });
}

function showProblems(problems: { row: number; message: string }[]): void {
  if (!problems.length) return;
  const ul = $("problems");
  ul.textContent = "";
  for (const pr of problems.slice(0, 200)) {
    const li = document.createElement("li");
    li.textContent = `Row ${pr.row}: ${pr.message}`;
    ul.append(li);
  }
  if (problems.length > 200)
    ul.append(
      Object.assign(document.createElement("li"), {
        textContent: `…and ${formatCount(problems.length - 200)} more (see the Message column)`,
      }),
    );
  $("problems-box").hidden = false;
}

async function check(manual?: { mapping: ColumnMapping; hasHeader: boolean }, anyway = false): Promise<void> {
  // A run still unfinished: the user is asked to resume it first; checking anyway keeps it aside, still resumable.
  const question = anyway || !(await unfinished()) ? "" : await (await unfinishedRuns()).resumeFirst(store);
  $("check-anyway").hidden = !question;
  if (question) {
    $("unfinished").hidden = false;
    say("unfinished-text", question);
    return;
  }
  // Checking anyway sets the unfinished run aside; past core's cap the user is told to resume one first.
  const refused = anyway ? await (await unfinishedRuns()).setAsideRefused(store) : "";
  if (refused) {
    $("unfinished").hidden = false;
    say("unfinished-text", refused);
    return;
  }
  startAction();
  say("status", "");
  placement = "";
  $("problems-box").hidden = true;
  hideProgress();
  const c = await savedClient();
  if (!c) return;
  const s = await rt.settings.load();
  setRunning(true);
  running = new AbortController();
  let focusAfter: string | undefined;
  try {
    say("status", "Reading the selection…");
    const { prepareCheck, runCheck, summaryText } = await checkRun();
    const prep = await prepareCheck(excelRun, { plan: s.plan, ...(manual ?? {}) });
    if (!prep.ok) {
      say("status", prep.message);
      // The chooser only where choosing columns can help: no UPRN or Postcode column was found.
      if (prep.headers.length) {
        fillMapping(prep.headers, manual?.mapping ?? prep.found, manual?.hasHeader ?? prep.hasHeader);
        focusAfter = "map-uprn";
      } else $("mapping").hidden = true;
      return;
    }
    $("mapping").hidden = manual ? $("mapping").hidden : true;
    const { check: p } = prep;
    showProblems(p.problems);
    const valid = p.rows.length - p.problems.length - (p.hidden?.length ?? 0);
    say(
      "status",
      valid
        ? `${checkingLine(valid, p.distinct)}\n${p.placement}`
        : `${nothingToSendLine(p.rows.length - (p.hidden?.length ?? 0))}\n${p.placement}`,
    );
    placement = p.placement;
    const summary = await runCheck(p, {
      excelRun,
      client: c,
      plan: s.plan,
      store,
      windows: s.windows,
      actionDays: s.actionDays,
      signal: running.signal,
      onProgress: showProgress,
      onNotice: (t) => say("status", t),
      onBlockWritten,
    });
    focusAfter = showSummary(summary, summaryText(summary));
  } catch (e) {
    banner(errorText(e));
    // A run whose last write Excel refused keeps its record: offer Resume at once.
    void offerResume();
  } finally {
    running = null;
    setRunning(false, focusAfter);
  }
}

/** An unfinished run to offer; the check chunk is loaded only when one is stored. */
async function unfinished(): Promise<UnfinishedRun | null> {
  if (!(await store.getItem(UNFINISHED_KEY).catch(() => null)) && !(await store.getItem(HELD_KEY).catch(() => null)))
    return null;
  return (await unfinishedRuns()).loadUnfinished(store);
}

async function offerResume(): Promise<void> {
  try {
    const run = await unfinished();
    if (!run) return;
    $("unfinished").hidden = false;
    $("check-anyway").hidden = true;
    say("unfinished-text", (await unfinishedRuns()).unfinishedText(run));
  } catch (e) {
    // The run stays stored; only the offer could not be made (its chunk could not be fetched).
    banner(errorText(e));
  }
}

async function resume(): Promise<void> {
  const run = await unfinished();
  $("unfinished").hidden = true;
  if (!run) return;
  startAction();
  placement = "";
  hideProgress();
  const c = await savedClient();
  if (!c) return;
  setRunning(true);
  running = new AbortController();
  let focusAfter: string | undefined;
  try {
    say("status", "Resuming the unfinished check…");
    const s = await rt.settings.load();
    const { resumeRun, summaryText } = await checkRun();
    const summary = await resumeRun(run, {
      excelRun,
      client: c,
      plan: run.plan,
      store,
      windows: s.windows,
      actionDays: s.actionDays,
      signal: running.signal,
      onProgress: showProgress,
      onNotice: (t) => say("status", t),
      onBlockWritten,
    });
    focusAfter = showSummary(summary, summaryText(summary));
  } catch (e) {
    banner(errorText(e));
    void offerResume();
  } finally {
    running = null;
    setRunning(false, focusAfter);
  }
}

async function refreshFunctions(): Promise<void> {
  say("settings-status", "");
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

/** The demo's sample table on a new sheet (never over an existing one), selected, ready for "Check selected rows". */
async function insertSampleTable(): Promise<void> {
  try {
    const demo = await import(/* webpackChunkName: "demo" */ "../../core/demo/demo");
    const { values, numberFormats } = demo.demoSampleSheet(new Date().toISOString().slice(0, 10));
    const name = await excelRun(async (context) => {
      const sheets = context.workbook.worksheets;
      sheets.load("items/name");
      await context.sync();
      const sheetName = demo.demoSheetName(sheets.items.map((w) => w.name));
      const ws = sheets.add(sheetName);
      const range = ws.getRangeByIndexes(0, 0, values.length, values[0].length);
      range.numberFormat = values.map(() => numberFormats);
      range.values = values;
      ws.getRangeByIndexes(0, 0, 1, values[0].length).format.font.bold = true;
      ws.freezePanes.freezeRows(1);
      range.format.autofitColumns();
      ws.activate();
      range.select();
      await context.sync();
      return sheetName;
    });
    const s = await rt.settings.load();
    say("status", demo.sampleTableMessage(values.length - 1, name, isDemoKey(s.apiKey)));
  } catch (err) {
    say("status", `The sample table could not be written (${errorText(err)}). Try again, or add a sheet yourself.`);
  }
}

/**
 * Re-check on open: the workbook asked for it (Settings of this workbook) and some block's last check is older than the
 * days chosen. Runs in the background as the workbook opens (the pane need not be shown), with Cancel while it runs.
 * An unfinished check goes first (it waits for Resume), and nothing is sent without a key on this computer.
 */
async function recheckIfDue(): Promise<void> {
  const settings = workbookSettings();
  const due = dueBlocks(settings, Date.now());
  if (!settings || due.length === 0 || running) return;
  if (await unfinished())
    return void say("watch-status", "Re-check on open waits: finish or discard the unfinished check first.");
  const s = await rt.settings.load();
  if (!s.apiKey)
    return void say(
      "watch-status",
      `Re-check on open: ${due.length} block${due.length === 1 ? " is" : "s are"} due, but no API key is set on this computer. Add it under Settings, then check by hand.`,
    );
  running = new AbortController();
  ($("check") as HTMLButtonElement).disabled = true;
  $("cancel").hidden = false;
  say(
    "status",
    `Re-checking ${due.length} results block${due.length === 1 ? "" : "s"} of this workbook (re-check on open)…`,
  );
  try {
    const { recheckOnOpen } = await import(/* webpackChunkName: "check" */ "./watch");
    const out = await recheckOnOpen({
      excelRun,
      client: await clientFor(s.baseUrl, s.apiKey),
      plan: s.plan,
      store,
      windows: s.windows,
      actionDays: s.actionDays,
      settings,
      signal: running.signal,
      onProgress: showProgress,
      onNotice: (t) => say("status", t),
    });
    say(
      "status",
      `Re-check on open: ${formatCount(out.checked)} of ${countWord(out.due, "block")} checked again.\n${out.lines.join("\n")}`,
    );
  } catch (e) {
    banner(`Re-check on open stopped: ${errorText(e)}`);
    void offerResume();
  } finally {
    running = null;
    ($("check") as HTMLButtonElement).disabled = false;
    $("cancel").hidden = true;
    void showLastRun(excelRun);
  }
}

/** A first open: nothing works without a key, so say so and show where it goes (without moving focus on load). */
async function greet(): Promise<void> {
  const s = await rt.settings.load();
  if (s.apiKey) return;
  banner(
    'Add your API key to start: paste it under Settings below (service dashboard > Settings > API Keys). No key yet? Choose "Try with demo data" under Settings.',
    "info",
  );
  openSettings();
}

function wire(): void {
  renderLegend();
  wireSettings();
  void greet();
  void offerResume();
  wireWatch(excelRun);
  // The digest counts from what the re-check on open wrote.
  void recheckIfDue().then(() => withDigest((d) => d.showSinceLastDigest(excelRun, store)));
  rt.rateLimitListeners.push(showQuota);
  $("check").addEventListener("click", () => void check());
  $("cancel").addEventListener("click", () => running?.abort());
  $("map-apply").addEventListener("click", () => checkWithMapping());
  $("resume").addEventListener("click", () => void resume());
  $("discard").addEventListener("click", async () => {
    await (await unfinishedRuns()).discardUnfinished(store);
    $("unfinished").hidden = true;
    void offerResume();
  });
  $("check-anyway").addEventListener("click", () => {
    $("unfinished").hidden = true;
    void check(undefined, true);
  });
  wireLookup(excelRun);
  $("refresh").addEventListener("click", () => void refreshFunctions());
  $("insert-sample").addEventListener("click", () => void insertSampleTable());
  wireActions(excelRun, store);
  void withDigest((d) => d.showDigestOwner());
  $("email-digest").addEventListener("click", () => void withDigest((d) => d.emailDigest(excelRun, store)));
}

/** Runs `fn` with the digest card's chunk; a chunk that cannot be fetched (offline, an old deployment) says so on the card. */
async function withDigest(fn: (d: Awaited<ReturnType<typeof digestPane>>) => unknown): Promise<void> {
  let d: Awaited<ReturnType<typeof digestPane>>;
  try {
    d = await digestPane();
  } catch (e) {
    // webpack's own message names a chunk number and a URL, which tell the user nothing they can act on.
    return say("digest-status", errorText(e));
  }
  await fn(d);
}

/**
 * The pane only works inside Excel. Opened straight in a browser (the URL `npm start` prints), Office.js either
 * fails to load (no CDN) or reports no host: say so, with the way to sideload, instead of buttons that do nothing.
 */
function notInExcel(why: string): void {
  banner(
    `${why} This page is the task pane of an Excel add-in: open it from Excel (Home > Compliance Check) after sideloading manifest.xml (see docs/excel.md).`,
    "info",
  );
  for (const b of Array.from(document.querySelectorAll("button"))) (b as HTMLButtonElement).disabled = true;
}

// The words the pane shares with the Sheets sidebar, from core (data-words in taskpane.html).
for (const el of Array.from(document.querySelectorAll<HTMLElement>("[data-words]")))
  el.textContent = pageWord(el.dataset.words) ?? el.textContent;

if (typeof Office === "undefined") {
  notInExcel("Office.js could not be loaded (it comes from Microsoft's CDN).");
} else {
  Office.onReady((info) => (info && info.host ? wire() : notInExcel("This page is not running inside Excel.")));
}
