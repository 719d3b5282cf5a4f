/**
 * The bulk check, in short steps that each fit far inside Apps Script's 6-minute limit: start (read,
 * validate, submit, write the first block) and poll (one fetchAll, one block write, a wait for the sidebar).
 */
import {
  acceptResultsPage,
  buildBulkSubmitRequest,
  checkJobDeadline,
  describeError,
  failJob,
  interpretBulkSubmitResponse,
  interpretResultsResponse,
  isAnswer,
  nextJobRequest,
  outputRow,
  parseRateLimit,
  planScreening,
  readPropertyRows,
  retryDelay,
  serviceError,
  startJob,
  waitBeforeNextRequest,
  type ColumnMapping,
  type HttpRequest,
  type InputRow,
  type Outcome,
  type RateLimitInfo,
  type ScreeningPlan,
  type ServiceError,
} from "../../core";
import type { ColumnLetters, JobProgress, RunProgress, StartResult, StopResult } from "../shared/api";
import { count } from "../shared/words";
import { sendAll, type Reply } from "./http";
import { cacheKeys, cachedKeys, clearRun, loadRun, saveRun, type RunJob, type RunState } from "./runstore";
import { loadSettings } from "./settings";
import { BLOCK_WIDTH, a1, checkBlock, columnNumber, ensureBlockFits, ensureStatusRules, findSheet, formatTextColumns, locateTable, readRows, rememberBlock, writeBlockRows, writeHeaders } from "./sheet";

/** Transient failures of one job in a row before its rows are given up (with their old values kept). */
const MAX_FAILURES = 5;
/** Never ask the sidebar to come back sooner than this, or later than a minute. */
const MIN_WAIT_MS = 250;
const MAX_WAIT_MS = 60000;
/** Requests per poll: keeps each call short whatever the number of jobs. */
const MAX_REQUESTS_PER_POLL = 10;
/**
 * No request is started once a call has run this long: when fetchAll fails and the requests go one by one,
 * each can hang, and Apps Script ends a call at 6 minutes, before the state is saved. The rest wait a poll.
 */
const SEND_BUDGET_MS = 60000;
/** Messages that only hold until the next poll that gets through. */
const PASSING_MESSAGE = /^(Rate limit|The service is slow|The service had a problem)/;

function fingerprint(keys: readonly string[]): string {
  // FNV-1a over the ordered keys: equal when the input rows still ask for the same properties in the same order.
  let h = 0x811c9dc5;
  const s = keys.join("\n");
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${keys.length}:${h.toString(16)}`;
}

function lettersToMapping(m: ColumnLetters | undefined): ColumnMapping | null | { problem: string } {
  if (!m || (!m.uprn && !m.postcode && !m.address)) return null;
  const out: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const) {
    if (!m[k]) continue;
    const n = columnNumber(m[k]!);
    if (n === null) return { problem: `"${m[k]}" is not a column letter (for ${k}).` };
    out[k] = n - 1;
  }
  if (out.uprn === undefined && out.postcode === undefined) return { problem: "Choose a UPRN or a Postcode column." };
  return out;
}

/** Rows checked by this run as read now, with their keys by sheet row. */
interface Input {
  rows: InputRow[];
  plan: ScreeningPlan;
}

function readInput(sheet: GoogleAppsScript.Spreadsheet.Sheet, run: Pick<RunState, "firstRow" | "lastRow" | "inputCols" | "mapping" | "batchCap">): Input {
  const values = readRows(sheet, run.firstRow, run.lastRow, run.inputCols);
  const read = readPropertyRows(values, { mapping: run.mapping, hasHeader: false });
  return { rows: read.rows, plan: planScreening(read.rows, { plan: run.batchCap }) };
}

/** Sheet rows per property key, from the rows as they are now. */
function rowsByKey(input: Input, firstRow: number): Map<string, number[]> {
  const map = new Map<string, number[]>();
  input.rows.forEach((row) => {
    if (!row.key || row.error) return;
    const list = map.get(row.key) || [];
    list.push(firstRow + row.index);
    map.set(row.key, list);
  });
  return map;
}

function duplicateNotes(input: Input, firstRow: number): Map<number, string> {
  const notes = new Map<number, string>();
  for (const rowIdxs of input.plan.rowsByProperty) {
    const firstSheetRow = firstRow + input.rows[rowIdxs[0]].index;
    for (const r of rowIdxs.slice(1)) notes.set(firstRow + input.rows[r].index, `Same property as row ${firstSheetRow}; checked once.`);
  }
  return notes;
}

function noteFor(input: Input, firstRow: number, dupes: Map<number, string>, sheetRow: number): string | undefined {
  const row = input.rows[sheetRow - firstRow];
  return [row?.note, dupes.get(sheetRow)].filter(Boolean).join(" ") || undefined;
}

function jobRequests(run: RunState, input: Input | null, nowMs: number, cfg: { baseUrl: string; apiKey: string }) {
  const due: { job: RunJob; req: HttpRequest; kind: "submit" | "results" }[] = [];
  for (const job of run.jobs) {
    if (due.length >= MAX_REQUESTS_PER_POLL) break;
    if (job.error) continue;
    if (!job.state) {
      if ((job.retryAtMs ?? 0) > nowMs || !input) continue;
      const props = input.plan.properties.slice(job.offset, job.offset + job.count);
      due.push({ job, req: buildBulkSubmitRequest(cfg, props), kind: "submit" });
    } else if (job.state.status === "running" && job.state.nextPollAtMs <= nowMs) {
      const req = nextJobRequest(cfg, job.state);
      if (req) due.push({ job, req, kind: "results" });
    }
  }
  return due;
}

type Items = { index: number; outcome: Outcome }[];

/** Errors that stop the whole run: nothing else can succeed with this key or these settings. */
function isFatal(e: ServiceError): boolean {
  return e.kind === "auth" || e.kind === "forbidden" || e.code === "batch_too_large" || e.status === 413;
}

function fatalMessage(e: ServiceError, run: RunState): string {
  if (e.code === "batch_too_large" || e.status === 413) {
    const d = (e.details || {}) as { max_batch_size?: number; plan?: string };
    const cap = d.max_batch_size ? ` Your key allows ${d.max_batch_size} properties per job` : "";
    return `The service refused a job of ${run.batchCap} properties.${cap}${d.plan ? ` (${d.plan} plan)` : ""}; set the matching plan in Settings and run the check again.`;
  }
  return describeError(e);
}

/** A failure that ends a job: kept as a transient kind so rows keep any earlier values (see core outputRow). */
function asJobFailure(e: ServiceError, jobId: string): ServiceError {
  return serviceError("job_failed", e.code, `Bulk job ${jobId}: ${describeError(e)}`, { status: e.status });
}

/**
 * Back off by Retry-After only when the server sent one: core falls back to the rate-limit window's reset
 * for a 503, which would stall a transient blip for up to a minute.
 */
function retryAfterHeader(r: object): number | undefined {
  const rl = (r as { rateLimit?: RateLimitInfo }).rateLimit;
  return rl ? rl.retryAfterMs : undefined;
}

function handleReply(run: RunState, job: RunJob, kind: "submit" | "results", reply: Reply, input: Input | null, items: Items): ServiceError | null {
  const now = reply.receivedAtMs;
  if (reply.ok) run.rateLimit = parseRateLimit(reply.headers, now);
  if (kind === "submit") {
    const r = reply.ok ? interpretBulkSubmitResponse(reply.status, reply.headers, reply.text, now) : { ok: false as const, error: reply.error };
    if (r.ok) {
      job.state = startJob(r.value, { offset: job.offset, count: job.count, nowMs: now });
      job.failures = 0;
      return null;
    }
    const e = r.error;
    if (isFatal(e)) return e;
    if (e.kind === "rate_limited") {
      run.retries = (run.retries || 0) + 1;
      job.retryAtMs = now + (e.retryAfterMs ?? 1000);
      run.waitUntilMs = Math.max(run.waitUntilMs, job.retryAtMs);
      return null;
    }
    if (e.kind === "invalid_input" || ++job.failures >= MAX_FAILURES) {
      // The service refused these properties (or kept failing): every row of the slice says why.
      job.error = e.kind === "invalid_input" ? e : asJobFailure(e, "not created");
      for (let i = 0; i < job.count; i++) items.push({ index: job.offset + i, outcome: { error: job.error } });
      return null;
    }
    run.retries = (run.retries || 0) + 1;
    job.retryAtMs = now + retryDelay(job.failures, retryAfterHeader(r));
    return null;
  }
  const state = job.state!;
  const r = reply.ok ? interpretResultsResponse(reply.status, reply.headers, reply.text, now) : { ok: false as const, error: reply.error };
  if (r.ok) {
    const props = input ? input.plan.properties.slice(job.offset, job.offset + job.count) : undefined;
    const accepted = acceptResultsPage(state, r.value, now, props);
    job.state = accepted.state;
    job.failures = 0;
    if (!accepted.done && accepted.waitMs === 0) job.state.nextPollAtMs = now;
    items.push(...accepted.items);
    job.answered = (job.answered || 0) + accepted.items.filter((it) => isAnswer(it.outcome)).length;
    return null;
  }
  const e = r.error;
  if (isFatal(e)) return e;
  if (e.kind === "rate_limited") {
    run.retries = (run.retries || 0) + 1;
    state.nextPollAtMs = now + (e.retryAfterMs ?? 1000);
    run.waitUntilMs = Math.max(run.waitUntilMs, state.nextPollAtMs);
    return null;
  }
  if (e.kind === "not_found" || e.kind === "invalid_input" || ++job.failures >= MAX_FAILURES) {
    const ended = failJob(state, asJobFailure(e, state.jobId), now);
    job.state = ended.state;
    items.push(...ended.items);
    return null;
  }
  run.retries = (run.retries || 0) + 1;
  state.nextPollAtMs = now + retryDelay(job.failures, retryAfterHeader(r));
  return null;
}

function jobsDone(run: RunState): boolean {
  return run.jobs.every((j) => !!j.error || (!!j.state && j.state.status !== "running"));
}

function propertiesDone(run: RunState): number {
  return run.jobs.reduce((n, j) => n + Math.min(j.count, j.answered || 0), 0);
}

/** Stop, and the ends a run is stopped for (sheet deleted, key removed), end jobs with a "cancelled" error. */
function jobStatus(j: RunJob): string {
  const error = j.error || (j.state && j.state.status !== "running" && j.state.status !== "completed" ? j.state.error : undefined);
  if (error && error.kind === "cancelled") return "stopped";
  if (j.error) return "failed";
  return j.state ? j.state.status : "submitting";
}

function jobView(j: RunJob): JobProgress {
  const answered = Math.min(j.count, j.answered || 0);
  const running = !!j.state && j.state.status === "running";
  return {
    jobId: j.state ? j.state.jobId : null,
    status: jobStatus(j),
    processed: running ? Math.max(j.state!.processed, answered) : answered,
    total: j.count,
  };
}

function failedJobs(run: RunState): RunJob[] {
  return run.jobs.filter((j) => {
    const status = jobStatus(j);
    return status === "failed" || status === "timed_out";
  });
}

/** Why nothing was checked, when every job failed: the first job's error, in core's words. */
function problemOf(run: RunState): string {
  const failed = failedJobs(run);
  if (run.phase === "running" || !failed.length || failed.length < run.jobs.length) return "";
  const e = failed[0].error || (failed[0].state && failed[0].state.error);
  return e ? describeError(e) : "";
}

function nextWaitMs(run: RunState, nowMs: number): number {
  if (run.phase !== "running") return 0;
  let soonest = Infinity;
  let active = 0;
  for (const j of run.jobs) {
    if (j.error) continue;
    if (!j.state) soonest = Math.min(soonest, j.retryAtMs ?? nowMs);
    else if (j.state.status === "running") soonest = Math.min(soonest, j.state.nextPollAtMs);
    else continue;
    active++;
  }
  let wait = (Number.isFinite(soonest) ? soonest : nowMs) - nowMs;
  wait = Math.max(wait, run.waitUntilMs - nowMs, waitBeforeNextRequest(run.rateLimit, nowMs));
  // Spread the requests left in the rate-limit window over the window, so that polling itself never hits a 429.
  const rl = run.rateLimit;
  if (rl && rl.remaining !== undefined && rl.resetAtMs !== undefined && rl.resetAtMs > nowMs && active > 0) {
    wait = Math.max(wait, Math.ceil(((rl.resetAtMs - nowMs) / Math.max(1, rl.remaining)) * active));
  }
  return Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, wait));
}

export function progressOf(run: RunState, nowMs = Date.now()): RunProgress {
  return {
    runId: run.runId,
    sheetName: run.sheetName,
    rangeA1: a1(run.firstRow, 1, run.lastRow - run.firstRow + 1, run.inputCols),
    outputA1: a1(run.headerRow || run.firstRow, run.blockCol, run.lastRow - (run.headerRow || run.firstRow) + 1, BLOCK_WIDTH),
    phase: run.phase,
    rows: run.rows,
    invalidRows: run.invalidRows,
    duplicateRows: run.duplicateRows,
    properties: run.properties,
    propertiesDone: propertiesDone(run),
    rowsWritten: run.rowsWritten,
    jobs: run.jobs.map(jobView),
    waitMs: nextWaitMs(run, nowMs),
    message: run.message,
    rateLimited: run.waitUntilMs > nowMs,
    notes: run.notes,
    failedJobs: run.phase === "running" ? 0 : failedJobs(run).length,
    problem: problemOf(run),
  };
}

/**
 * Write results into the rows that ask for them now: rows are found by property key, so a row that was
 * moved or edited during the run gets the right result or none, never another row's.
 */
function writeItems(sheet: GoogleAppsScript.Spreadsheet.Sheet, run: RunState, input: Input, keys: readonly string[], items: Items, nowIso: string): void {
  if (!items.length) return;
  const byKey = rowsByKey(input, run.firstRow);
  const dupes = duplicateNotes(input, run.firstRow);
  const writes = new Map<number, (prev: unknown[]) => ReturnType<typeof outputRow>>();
  for (const { index, outcome } of items) {
    for (const sheetRow of byKey.get(keys[index]) || []) {
      const note = noteFor(input, run.firstRow, dupes, sheetRow);
      writes.set(sheetRow, (prev) => outputRow(outcome, nowIso, prev, note));
    }
  }
  writeBlockRows(sheet, run.blockCol, writes);
  run.rowsWritten += writes.size;
}

function finishRun(sheet: GoogleAppsScript.Spreadsheet.Sheet, run: RunState, input: Input, keys: readonly string[], nowIso: string): void {
  run.phase = "done";
  const known = new Set(keys);
  const changed = new Map<number, (prev: unknown[]) => ReturnType<typeof outputRow>>();
  const e = serviceError("cancelled", "input_changed", "This row changed while the check ran; run the check again for it.");
  input.rows.forEach((row) => {
    if (row.key && !row.error && !known.has(row.key)) changed.set(run.firstRow + row.index, (prev) => outputRow({ error: e }, nowIso, prev));
  });
  writeBlockRows(sheet, run.blockCol, changed);
  if (!run.jobs.length) {
    run.message = `Nothing was sent: none of the ${count(run.rows, "row")} has a valid UPRN or postcode. Each row's Message says what to fix.`;
    return;
  }
  run.message = summary(run, changed.size);
}

/**
 * The last word on a run: "Done" only when every job finished; a run whose jobs failed says "Failed" and
 * how many properties were not checked, so that it never reads as a success.
 */
function summary(run: RunState, changedRows: number): string {
  const failed = failedJobs(run).length;
  const done = propertiesDone(run);
  const tail =
    (run.invalidRows ? `; ${count(run.invalidRows, "row")} with input errors` : "") +
    (changedRows ? `; ${count(changedRows, "row")} changed during the check` : "") +
    ".";
  if (!failed) return `Done: ${count(run.properties, "property", "properties")} checked in ${count(run.jobs.length, "job")}${tail}`;
  const jobs = failed === run.jobs.length ? (failed === 1 ? "the job" : `all ${failed} jobs`) : `${failed} of ${run.jobs.length} jobs`;
  const checked = done ? `only ${done.toLocaleString("en-GB")} of ${count(run.properties, "property", "properties")} checked` : `none of ${count(run.properties, "property", "properties")} checked`;
  return `Failed: ${jobs} failed, ${checked}; the rows not checked keep their earlier values, and their Message says why${tail}`;
}

/** Apps Script's exceptions carry the text in message (and their text names no key, see http.ts). */
function errorText(e: unknown): string {
  return e && typeof e === "object" && "message" in e ? String((e as Error).message) : String(e);
}

/**
 * Ends the run, whatever happens to the sheet: the rows' last lines are written if they can be, and if not the
 * message says so (a failed write must never leave a run that no poll or Stop can end).
 */
function stopRun(sheet: GoogleAppsScript.Spreadsheet.Sheet | null, run: RunState, input: Input | null, keys: readonly string[] | null, reason: string, nowIso: string): void {
  // Stopping is not the rows' fault: "cancelled" keeps any earlier values and says why in Message.
  const e = serviceError("cancelled", "stopped", reason);
  const items: Items = [];
  for (const job of run.jobs) {
    if (job.error) continue;
    if (!job.state) {
      job.error = e;
      for (let i = 0; i < job.count; i++) items.push({ index: job.offset + i, outcome: { error: e } });
    } else if (job.state.status === "running") {
      const ended = failJob(job.state, e, Date.now());
      job.state = ended.state;
      items.push(...ended.items);
    }
  }
  let unwritten = "";
  if (sheet && input && keys) {
    try {
      writeItems(sheet, run, input, keys, items, nowIso);
    } catch (err) {
      unwritten = ` However, the rows could not be updated (${errorText(err)}), so those not yet checked may still say "Not checked yet."`;
    }
  }
  run.phase = "stopped";
  run.message = reason + unwritten;
}

/** Keys of the run's properties: from the rows as they are now when unchanged, else from the cache. */
function runKeys(run: RunState, input: Input): readonly string[] | null {
  if (fingerprint(input.plan.keys) === run.fingerprint) return input.plan.keys;
  run.inputChanged = true;
  return cachedKeys(run.runId);
}

/** The rows a run covers, shown to a person: "A2:C51" style, on its sheet. */
function describeRun(run: RunState): string {
  return `${run.sheetName}!${a1(run.firstRow, 1, run.lastRow - run.firstRow + 1, run.inputCols)}`;
}

function isBlankCell(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "string" && v.trim() === "");
}

/** Names the cells the person selected (not the table rows they fall in), and what to select instead. */
function nothingToCheck(selection: GoogleAppsScript.Spreadsheet.Range | null): string {
  const where = selection ? ` in ${selection.getA1Notation()}, the cells you selected` : "";
  return `Nothing to check${where}: no UPRN, postcode or address there. Select rows of your table (with its header row or the rows under it), then check again.`;
}

function multiAreaMessage(areas: GoogleAppsScript.Spreadsheet.Range[]): string {
  const list = areas.map((r) => r.getA1Notation()).join(", ");
  return `You selected ${areas.length} separate areas (${list.length > 80 ? `${list.slice(0, 77)}...` : list}). Select one block of rows (click the first row, Shift+click the last), or one cell of the table, and check again.`;
}

/**
 * Checks one run at a time per user: a second sidebar (or a double click) is refused while a check runs,
 * with the running check's progress, so that the first run's state is never overwritten. Under the user
 * lock, so two starts at the same moment cannot both pass.
 */
export function startBulkCheck(opts: { mapping?: ColumnLetters }): StartResult {
  return withUserLock(
    () => startUnlocked(opts),
    () => {
      const run = loadRun();
      return { ok: false, message: "Another check is starting or updating right now; try again in a moment.", progress: run ? progressOf(run) : null };
    },
  );
}

function startUnlocked(opts: { mapping?: ColumnLetters }): StartResult {
  const settings = loadSettings();
  if (!settings.config) return { ok: false, message: "No API key yet: add your key under Settings (it is stored only for you)." };
  const existing = loadRun();
  if (existing && existing.phase === "running") {
    return {
      ok: false,
      message: `A check of ${describeRun(existing)} is already running (started from this or another sidebar). Wait for it to finish, or press Stop, then check again.`,
      progress: progressOf(existing),
    };
  }
  const manual = lettersToMapping(opts && opts.mapping);
  if (manual && "problem" in manual) return { ok: false, message: manual.problem, needsMapping: true };

  const sheet = SpreadsheetApp.getActiveSheet();
  // getActiveRange() is only the last area of a Ctrl+click selection: the others would be silently left out.
  const areas = sheet.getActiveRangeList();
  const areaList = areas ? areas.getRanges() : [];
  if (areaList.length > 1) return { ok: false, message: multiAreaMessage(areaList) };
  const selection = areaList.length ? areaList[0] : sheet.getActiveRange();
  const lastRow = sheet.getLastRow();
  const table = locateTable(sheet, manual, selection ? { firstRow: selection.getRow(), lastRow: Math.min(selection.getLastRow(), Math.max(lastRow, selection.getRow())) } : undefined);
  if ("problem" in table) return { ok: false, message: table.problem, needsMapping: /No UPRN or Postcode column/.test(table.problem) };
  let firstRow = selection ? selection.getRow() : table.headerRow + 1;
  let endRow = selection ? selection.getLastRow() : lastRow;
  // A selection on or above the header means "the whole table".
  const wholeTable = !!selection && endRow <= table.headerRow;
  if (endRow <= table.headerRow) {
    firstRow = table.headerRow + 1;
    endRow = lastRow;
  }
  firstRow = Math.max(firstRow, table.headerRow + 1);
  // Whole columns (A:C) select every row of the sheet: stop at the last row with data, and then at the last
  // row whose input columns hold anything, so the blank tail is not a wall of "empty row" errors.
  const selectedEnd = endRow;
  endRow = Math.min(endRow, lastRow);
  if (endRow >= firstRow) {
    const values = readRows(sheet, firstRow, endRow, table.inputCols);
    const cols = [table.mapping.uprn, table.mapping.postcode, table.mapping.address].filter((c): c is number => c !== undefined);
    let last = values.length - 1;
    while (last >= 0 && cols.every((c) => isBlankCell(values[last][c]))) last--;
    endRow = firstRow + last;
  }
  if (endRow < firstRow) return { ok: false, message: nothingToCheck(selection) };
  if (wholeTable) {
    const picked = selection!.getLastRow() === table.headerRow ? "the header row" : "rows above the table";
    table.notes.unshift(`You selected ${picked}, so the whole table is checked: rows ${firstRow}–${endRow}.`);
  }
  else if (selectedEnd > endRow) table.notes.push(`Checked rows ${firstRow}–${endRow}: the selected rows below ${endRow} are empty and were left out.`);

  const runBase = { firstRow, lastRow: endRow, inputCols: table.inputCols, mapping: table.mapping, batchCap: settings.plan === "enterprise" ? 10000 : 1000 };
  const input = readInput(sheet, runBase);
  const invalid = input.rows.filter((r) => r.error).length;
  const validRows = input.rows.length - invalid;
  const now = Date.now();
  const run: RunState = {
    v: 1,
    runId: `run_${now.toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`,
    sheetId: sheet.getSheetId(),
    sheetName: sheet.getName(),
    headerRow: table.headerRow,
    ...runBase,
    blockCol: table.blockCol,
    fingerprint: fingerprint(input.plan.keys),
    properties: input.plan.properties.length,
    rows: input.rows.length,
    invalidRows: invalid,
    duplicateRows: validRows - input.plan.properties.length,
    rowsWritten: 0,
    jobs: input.plan.jobs.map((j) => ({ offset: j.start, count: j.end - j.start, failures: 0 })),
    phase: "running",
    waitUntilMs: 0,
    message: "",
    notes: table.notes.slice(),
    startedAtMs: now,
  };

  // Submit first: a refused key or plan stops here with nothing written to the sheet.
  const items: Items = [];
  const due = jobRequests(run, input, now, settings.config);
  const replies = sendAll(
    due.map((d) => d.req),
    now + SEND_BUDGET_MS,
  );
  for (let i = 0; i < due.length; i++) {
    const reply = replies[i];
    if (!reply) continue; // not sent in time: the first poll sends it
    const fatal = handleReply(run, due[i].job, due[i].kind, reply, input, items);
    if (fatal) return { ok: false, message: fatalMessage(fatal, run) };
  }

  ensureBlockFits(sheet, table.blockCol);
  if (!table.blockExists) writeHeaders(sheet, table.headerRow, table.blockCol);
  formatTextColumns(sheet, table.blockCol, firstRow, endRow);
  ensureStatusRules(sheet, table.blockCol, table.headerRow + 1);
  if (!table.headerRow) {
    rememberBlock(sheet, table.blockCol);
    run.notes.push("No header row: the results columns have no headers; the add-on remembers where they are, so a re-run updates them in place.");
  }

  // Every row gets its line now: input errors at their row, the rest "Not checked yet." (or their earlier values).
  const nowIso = new Date(now).toISOString();
  const dupes = duplicateNotes(input, firstRow);
  const submitted = new Map<number, Outcome>();
  for (const it of items) for (const r of input.plan.rowsByProperty[it.index]) submitted.set(r, it.outcome);
  const first = new Map<number, (prev: unknown[]) => ReturnType<typeof outputRow>>();
  input.rows.forEach((row, r) => {
    const sheetRow = firstRow + row.index;
    const outcome: Outcome | undefined = row.error ? { error: serviceError("invalid_input", row.error.code, row.error.message) } : submitted.get(r);
    first.set(sheetRow, (prev) => outputRow(outcome, nowIso, prev, row.error ? undefined : noteFor(input, firstRow, dupes, sheetRow)));
  });
  writeBlockRows(sheet, table.blockCol, first);
  run.rowsWritten = invalid + submitted.size;

  if (!run.jobs.length) run.phase = "done";
  if (run.phase === "done") finishRun(sheet, run, input, input.plan.keys, nowIso);
  else {
    cacheKeys(run.runId, input.plan.keys);
    const waiting = run.jobs.filter((j) => !j.state && !j.error).length;
    const whole = wholeTable ? "the whole table: " : "";
    run.message =
      `Checking ${whole}${count(run.properties, "property", "properties")} from ${count(run.rows, "row")} in ${count(run.jobs.length, "job")}` +
      (waiting ? `; ${waiting === run.jobs.length ? "sending" : `${count(waiting, "job")} still to send`}${retriesSoFar(run)}.` : ".");
    if (invalid) run.notes.push(`${count(invalid, "row")} with input errors; see ${invalid === 1 ? "its" : "their"} Message.`);
    if (run.duplicateRows) run.notes.push(`${count(run.duplicateRows, "duplicate row")} ${run.duplicateRows === 1 ? "shares" : "share"} a check with an earlier row.`);
  }
  saveRun(run);
  return { ok: true, jobIds: run.jobs.filter((j) => j.state).map((j) => j.state!.jobId), progress: progressOf(run) };
}

function withUserLock<T>(fn: () => T, busy: () => T): T {
  const lock = LockService.getUserLock();
  if (!lock.tryLock(2000)) return busy();
  try {
    return fn();
  } finally {
    lock.releaseLock();
  }
}

/** One short step of a running check; the sidebar calls it again after the returned waitMs. */
export function pollBulkCheck(): RunProgress | null {
  const callStartMs = Date.now();
  return withUserLock(
    () => {
      const run = loadRun();
      if (!run) return null;
      if (run.phase !== "running") return progressOf(run);
      try {
        pollRun(run, callStartMs);
      } catch (e) {
        // A sheet that cannot be read or written would fail every poll the same way: end the run, and say why.
        stopRun(null, run, null, null, `The check stopped: the sheet could not be read or written (${errorText(e)}). Rows not updated keep their last values; check again.`, new Date(Date.now()).toISOString());
      }
      saveRun(run);
      return progressOf(run);
    },
    () => {
      const run = loadRun();
      return run ? { ...progressOf(run), waitMs: 1000 } : null;
    },
  );
}

function pollRun(run: RunState, callStartMs: number): void {
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const sheet = findSheet(run.sheetId);
  const settings = loadSettings();
  if (sheet) run.sheetName = sheet.getName(); // renamed mid-run: results still go to the same sheet
  if (!sheet) {
    stopRun(null, run, null, null, `The sheet "${run.sheetName}" was deleted, so the check stopped; nothing else was written.`, nowIso);
    return;
  }
  const block = checkBlock(sheet, run.headerRow, run.blockCol, run.lastRow);
  if ("problem" in block) {
    stopRun(null, run, null, null, `${block.problem}, so the check stopped; nothing more was written and nothing more is sent. Check again to write fresh results.`, nowIso);
    return;
  }
  run.blockCol = block.col; // columns inserted left of the block: it moved with them
  if (!settings.config) {
    const stoppedInput = readInput(sheet, run);
    const stoppedKeys = runKeys(run, stoppedInput);
    stopRun(sheet, run, stoppedInput, stoppedKeys, "The API key was removed in Settings, so the check stopped; rows not yet checked say so.", nowIso);
    return;
  }
  if (run.waitUntilMs > now || waitBeforeNextRequest(run.rateLimit, now) > 0) return;
  run.message = PASSING_MESSAGE.test(run.message) ? "" : run.message;

  const input = readInput(sheet, run);
  const keys = runKeys(run, input);
  if (!keys) {
    stopRun(null, run, null, null, "The rows were edited during the check and the saved row map has expired; run the check again.", nowIso);
    return;
  }
  const items: Items = [];
  for (const job of run.jobs) {
    const late = job.state ? checkJobDeadline(job.state, now) : null;
    if (late) {
      job.state = late.state;
      items.push(...late.items);
    }
  }
  // Unsent jobs need the original properties: if the rows changed, those rows are asked to re-run.
  const sendable = keys === input.plan.keys ? input : null;
  let due = jobRequests(run, sendable, now, settings.config);
  const budget = run.rateLimit && run.rateLimit.remaining !== undefined ? Math.max(1, run.rateLimit.remaining) : due.length;
  due = due.slice(0, budget);
  const replies = sendAll(
    due.map((d) => d.req),
    callStartMs + SEND_BUDGET_MS,
  );
  let fatal: ServiceError | null = null;
  let unsent = 0;
  for (let i = 0; i < due.length; i++) {
    const reply = replies[i];
    if (reply) fatal = handleReply(run, due[i].job, due[i].kind, reply, sendable, items) || fatal;
    else unsent++; // out of time in this call: the job is due again at the next poll
  }
  if (!sendable) {
    for (const job of run.jobs) {
      if (job.state || job.error) continue;
      job.error = serviceError("cancelled", "input_changed", "The rows changed before this part of the check was sent; run the check again.");
    }
  }
  try {
    writeItems(sheet, run, input, keys, items, nowIso);
  } catch (e) {
    // Those results are taken from the service already: say which could not be written rather than retry forever.
    stopRun(null, run, null, null, `The check stopped: ${count(items.length, "result")} could not be written to the sheet (${errorText(e)}). Check again to fill those rows.`, nowIso);
    return;
  }
  if (fatal) stopRun(sheet, run, input, keys, fatalMessage(fatal, run), nowIso);
  else if (jobsDone(run)) finishRun(sheet, run, input, keys, nowIso);
  else if (run.waitUntilMs > Date.now()) {
    run.message = `Rate limit reached; waiting ${Math.ceil((run.waitUntilMs - Date.now()) / 1000)} s before the next request${retriesSoFar(run)}.`;
  } else if (unsent) {
    run.message = `The service is slow to answer; ${count(unsent, "request")} wait for the next update${retriesSoFar(run)}.`;
  } else if (run.jobs.some((j) => !j.error && j.failures > 0 && (!j.state || j.state.status === "running"))) {
    run.message = `The service had a problem; trying again${retriesSoFar(run)}.`;
  }
  if (run.inputChanged && run.notes.indexOf(INPUT_CHANGED_NOTE) < 0) run.notes.push(INPUT_CHANGED_NOTE);
}

/** " (retry 7, 23 s since the check started)": a wait that goes on shows it is still trying, and for how long. */
function retriesSoFar(run: RunState): string {
  if (!run.retries) return "";
  const secs = Math.max(0, Math.round((Date.now() - run.startedAtMs) / 1000));
  return ` (retry ${run.retries.toLocaleString("en-GB")}, ${secs} s since the check started)`;
}

const INPUT_CHANGED_NOTE = "The input rows changed during the check: results go to the rows that still hold each property.";

/**
 * Stop always ends the run and saves it, even when the sheet cannot be read or written (the message says what
 * was not written). While a poll holds the lock the answer is "busy": the sidebar keeps polling and asks again.
 */
export function cancelBulkCheck(): StopResult | null {
  return withUserLock(
    () => {
      const run = loadRun();
      if (!run) return null;
      if (run.phase === "running") {
        stopByUser(run);
        saveRun(run);
      }
      return progressOf(run);
    },
    () => {
      const run = loadRun();
      if (!run) return null;
      return { ...progressOf(run), busy: true, message: "The add-on is updating the sheet right now; stopping as soon as it is done…" };
    },
  );
}

function stopByUser(run: RunState): void {
  const nowIso = new Date(Date.now()).toISOString();
  const reason = `Stopped by you: ${propertiesDone(run).toLocaleString("en-GB")} of ${count(run.properties, "property", "properties")} checked; rows not yet checked say so.`;
  const sheet = findSheet(run.sheetId);
  let input: Input | null = null;
  let keys: readonly string[] | null = null;
  let unreadable = "";
  try {
    const block = sheet ? checkBlock(sheet, run.headerRow, run.blockCol, run.lastRow) : null;
    if (block && "problem" in block) unreadable = ` Nothing was written: ${block.problem}.`;
    else if (sheet && block) {
      run.blockCol = block.col;
      input = readInput(sheet, run);
      keys = runKeys(run, input);
    }
  } catch (e) {
    unreadable = ` Nothing was written: the sheet could not be read (${errorText(e)}).`;
  }
  stopRun(input ? sheet : null, run, input, keys, unreadable ? `Stopped by you.${unreadable}` : reason, nowIso);
}

export function currentRun(): RunProgress | null {
  const run = loadRun();
  return run ? progressOf(run) : null;
}

export function forgetRun(): void {
  clearRun();
}
