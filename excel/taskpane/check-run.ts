/**
 * "Check selected rows" from start to end, without DOM: read and validate the rows, write per-row errors, screen the rest
 * with bulk jobs, and write each poll's results in place as they arrive. Also resumes jobs left running when the pane closed.
 */
import {
  OUTPUT_COLUMNS,
  STATUS_COLOURS,
  acceptResultsPage,
  describeError,
  detectColumns,
  checkJobDeadline,
  displayStatus,
  failJob,
  hostSleep,
  isAboutProperty,
  isJobDone,
  keepsEarlierValues,
  nextJobRequest,
  normaliseProperty,
  outputHeaders,
  outputRow,
  planScreening,
  readPropertyRows,
  rowsForProperties,
  serviceError,
  statusColumnIndexes,
  toServiceError,
  type Cell,
  type ColumnMapping,
  type ComplianceClient,
  type InputRow,
  type JobState,
  type Outcome,
  type PlanName,
  type PropertyQuery,
  type RateLimitInfo,
  type ServiceError,
} from "../../core";
import type { UserStore } from "../settings";
import { SHEET_COLUMNS, a1, columnLetter, isBlankCell, lastUsedColumn, officeErrorText, queueHeaders, readBlock, readSelection, writeOutputRows, type Block, type WriteStats } from "./sheet";

export type ExcelRun = <T>(fn: (context: Excel.RequestContext) => Promise<T>) => Promise<T>;

export interface RowProblem {
  /** 1-based sheet row number, as the user sees it. */
  row: number;
  message: string;
}

export interface PreparedCheck {
  region: Block;
  headerRow: number | null;
  mapping: ColumnMapping;
  /** Selected data rows; `index` is the offset into the region. */
  rows: InputRow[];
  problems: RowProblem[];
  /** Top-left of our output block (its header row is the region's first row when there is a header). */
  origin: { sheet: string; rowIndex: number; columnIndex: number };
  /** Whether the block was already there (a re-run updates it in place). */
  inPlace: boolean;
  previous: unknown[][];
  distinct: number;
  /** One sentence saying where the results go (and why there, when it is not directly right of the data). */
  placement: string;
  /** Blank rows at the end of the selection, left out (not a row error each). */
  blankRowsSkipped: number;
}

/**
 * A refused selection. `headers` (every column of the table, to offer in the column chooser) is empty when choosing
 * columns by hand cannot help (nothing selected, no room for the results); `found` is what the headers did name (an
 * Address column, say), to preselect, and `hasHeader` whether the first row reads as a header.
 */
export type PrepareOutcome = { ok: true; check: PreparedCheck } | { ok: false; message: string; headers: string[]; found?: ColumnMapping; hasHeader?: boolean };

export interface PrepareOptions {
  mapping?: ColumnMapping;
  hasHeader?: boolean;
  plan: PlanName;
}

const WIDTH = OUTPUT_COLUMNS.length;
const OUR_HEADERS = outputHeaders().map((h) => h.toLowerCase());
const STATUS_COLS = statusColumnIndexes();
const CHECKED_AT = OUTPUT_COLUMNS.findIndex((c) => c.header.startsWith("Checked at"));
const STATUS_WORDS = new Set<string>(Object.keys(STATUS_COLOURS));
const norm = (v: unknown) => (typeof v === "string" ? v.trim().toLowerCase() : "");

/**
 * Headers of ours that a landlord's own sheet does not use: "EPC rating", "Gas expiry" or "Risk level" are common
 * column names in compliance sheets, so only these make a run of our headers our (changed) block.
 */
const DISTINCTIVE = new Set(["Matched UPRN", "Matched address", "Last updated (UTC)", "Checked at (UTC)", "Message"].map((h) => h.toLowerCase()).filter((h) => OUR_HEADERS.includes(h)));

export interface HeaderBlock {
  /** Start of every one of our headers, in order, untouched. */
  exact?: number;
  /** Start of our block changed by the user (a column inserted into it, a header renamed). */
  changed?: number;
  /** The columns of that changed block that still carry a header of ours. */
  changedColumns?: number[];
}

/**
 * Where our results block stands in a header row. `exact`: every one of our headers, in order, untouched. `changed`:
 * our headers in our order with gaps (a column inserted, a header renamed), at least three of them and two of the
 * distinctive ones; we must neither overwrite it nor read its columns as the user's input. A user's own "Risk level" or
 * "EPC rating" columns are not our block.
 */
export function findHeaderBlock(row: readonly unknown[]): HeaderBlock {
  const out: HeaderBlock = {};
  for (let i = 0; i + WIDTH <= row.length && out.exact === undefined; i++) {
    if (OUR_HEADERS.every((h, k) => norm(row[i + k]) === h)) out.exact = i;
  }
  const inExact = (i: number) => out.exact !== undefined && i >= out.exact && i < out.exact + WIDTH;
  const ourIndex = (i: number) => (inExact(i) ? -1 : OUR_HEADERS.indexOf(norm(row[i])));
  for (let i = 0; i < row.length; i++) {
    if (ourIndex(i) < 0) continue;
    // Follow our headers in our order; one out of order starts another block (or was the user's own column).
    const members: number[] = [];
    for (let k = i, last = -1; k < Math.min(row.length, i + WIDTH + 5); k++) {
      const idx = ourIndex(k);
      if (idx < 0) continue;
      if (idx <= last) break;
      members.push(k);
      last = idx;
    }
    const distinctive = members.filter((k) => DISTINCTIVE.has(norm(row[k]))).length;
    if (members.length >= 3 && distinctive >= 2) return { ...out, changed: i, changedColumns: members };
  }
  return out;
}

/**
 * The columns (offsets into the row) that are ours and so never the user's input: an intact block, the headers of a
 * changed one, a block without a header. A column the user mapped, or whose header names an input column ("UPRN",
 * "Postcode", which no header of ours does), stays the user's whatever stands around it.
 */
export function ourColumns(found: HeaderBlock, shape: number | undefined, header: readonly unknown[] | undefined, mapped: readonly number[]): Set<number> {
  const cols = new Set<number>();
  const span = (start: number | undefined) => {
    if (start !== undefined) for (let k = 0; k < WIDTH; k++) cols.add(start + k);
  };
  span(found.exact);
  span(shape);
  for (const c of found.changedColumns ?? []) cols.add(c);
  for (const m of mapped) cols.delete(m);
  for (const c of [...cols]) {
    const h = header?.[c];
    if (!OUR_HEADERS.includes(norm(h)) && detectColumns([h]) !== null) cols.delete(c);
  }
  return cols;
}

/**
 * Where our block stands in rows without a header (we write no header row then): the first column from which every
 * non-blank row holds status words in our status columns and a "YYYY-MM-DD hh:mm:ss" time in Checked at.
 */
export function findBlockByShape(rows: readonly (readonly unknown[])[], from: number): number | undefined {
  const width = Math.max(0, ...rows.map((r) => r.length));
  for (let s = Math.max(0, from); s + CHECKED_AT < width; s++) {
    let matched = 0;
    let ok = true;
    for (const r of rows) {
      const cells = r.slice(s, s + WIDTH);
      if (cells.every(isBlankCell)) continue;
      const statuses = STATUS_COLS.map((c) => norm(cells[c]));
      const at = String(cells[CHECKED_AT] ?? "").trim();
      if (statuses.every((w) => STATUS_WORDS.has(w)) && /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(at)) matched++;
      else if (!(statuses.every((w) => w === "") && at === "")) {
        ok = false;
        break;
      }
    }
    if (ok && matched > 0) return s;
  }
  return undefined;
}

/**
 * The input columns a header row names, also when it names no UPRN or Postcode column (core's detectColumns answers
 * only when one of those is there): a stand-in "UPRN" past the last column lets it name the Address column, to preselect.
 */
export function columnsNamed(header: readonly unknown[]): ColumnMapping {
  const m = detectColumns([...header, "UPRN"]) ?? {};
  const out: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const) if (m[k] !== undefined && m[k]! < header.length) out[k] = m[k];
  return out;
}

/** Whether a row reads as a header (words, no UPRN or postcode values), for the chooser's "First row is a header". */
function looksLikeHeaderRow(row: readonly unknown[]): boolean {
  const cells = row.filter((v) => !isBlankCell(v));
  return cells.length > 0 && cells.every((v) => typeof v === "string" && /[a-z]/i.test(v) && !/\d{5,}/.test(v) && !/^[a-z]{1,2}\d/i.test(v.trim()));
}

/** Reads the selection and validates every selected row with the core; nothing is sent. */
export async function prepareCheck(excelRun: ExcelRun, opts: PrepareOptions): Promise<PrepareOutcome> {
  return excelRun(async (context) => {
    const sel = await readSelection(context);
    if ("problem" in sel) return { ok: false, message: sel.problem, headers: [] };
    let { region, values } = sel;
    let [from, to] = sel.selectedOffsets;
    // A title row (or a few notes) above the header: the table starts at the header row.
    if (!opts.mapping && opts.hasHeader !== false) {
      const h = values.slice(0, 10).findIndex((r) => detectColumns(r) !== null);
      if (h > 0 && h < to) {
        values = values.slice(h);
        region = { ...region, rowIndex: region.rowIndex + h, rowCount: region.rowCount - h };
        from = Math.max(0, from - h);
        to -= h;
      }
    }
    // The same rows as far right as anything is used, to see our block wherever it stands (it may sit past a gap).
    const lastUsed = await lastUsedColumn(context, region, region.columnIndex);
    const wideCount = Math.max(region.columnCount, lastUsed - region.columnIndex + 1);
    const wide = wideCount > region.columnCount ? await readBlock(context, { ...region, columnCount: wideCount }) : values;
    const inHeader = opts.hasHeader === false ? {} : findHeaderBlock(wide[0] ?? []);
    const mapped = Object.values(opts.mapping ?? {}).filter((v): v is number => typeof v === "number");
    const shapeRows = opts.hasHeader === true || inHeader.exact !== undefined || inHeader.changed !== undefined ? wide.slice(1) : wide;
    const shape = findBlockByShape(shapeRows, Math.max(1, ...mapped.map((m) => m + 1)));
    const ours = ourColumns(inHeader, shape, opts.hasHeader === false ? undefined : wide[0], mapped);
    // Every column of the table is offered and read; our own columns are hidden from header detection only, so that
    // "Matched UPRN" is never taken for the user's UPRN and a column of the user's past our block is still found.
    const columnNames = (values[0] ?? []).map((v, i) => `${columnLetter(region.columnIndex + i)}${typeof v === "string" && v.trim() ? ` (${v.trim()})` : ""}`);
    const input = values.map((r, i) => (i === 0 ? r.map((v, c) => (ours.has(c) ? "" : v)) : r));
    const read = readPropertyRows(input, { mapping: opts.mapping, hasHeader: opts.hasHeader });
    if (read.problem || !read.mapping) {
      return { ok: false, message: read.problem ?? "No UPRN or Postcode column.", headers: columnNames, found: columnsNamed(input[0] ?? []), hasHeader: read.headerRow !== null || looksLikeHeaderRow(input[0] ?? []) };
    }
    const selected = read.rows.filter((r) => r.index >= from && r.index <= to);
    // Blank rows at the end of a selection are left out and counted; a blank row in the middle gets its message.
    let end = selected.length;
    const userBlank = (r: readonly unknown[]) => r.every((v, c) => ours.has(c) || isBlankCell(v) || (typeof v === "string" && !v.trim()));
    while (end > 0 && selected[end - 1].error?.code === "empty_row" && userBlank(input[selected[end - 1].index])) end--;
    const rows = selected.slice(0, end);
    const blankRowsSkipped = selected.length - end;
    if (rows.length === 0) {
      return {
        ok: false,
        message: selected.length ? "The selected rows are empty: select the rows to check (or one cell of the table)." : "The selection has no data rows: select the rows to check (or one cell of the table).",
        headers: [],
      };
    }

    // Where the results go: our block where it already is, else directly right of the data if free, else after the
    // last column in use in these rows. Never over a column of the user's, and never over a block the user changed.
    const rowsOf = (col: number) => ({ sheet: region.sheet, rowIndex: region.rowIndex, columnIndex: col, rowCount: region.rowCount, columnCount: WIDTH });
    const existing = inHeader.exact ?? (read.headerRow === null ? shape : undefined);
    let at: number;
    let placement: string;
    if (existing !== undefined) {
      at = region.columnIndex + existing;
      placement = `Results: updated in place in ${a1(rowsOf(at))}.`;
    } else {
      const beside = region.columnIndex + region.columnCount;
      const changed = inHeader.changed ?? shape;
      const free = changed === undefined && wide.every((r) => r.slice(region.columnCount, region.columnCount + WIDTH).every(isBlankCell));
      if (free) {
        at = beside;
        placement = `Results: ${a1(rowsOf(at))}, right of your data.`;
      } else {
        at = Math.max(lastUsed, beside - 1) + 2;
        if (at + WIDTH > SHEET_COLUMNS) {
          return { ok: false, message: `There is no room for the ${WIDTH} result columns right of your data on this sheet: clear some columns to the right.`, headers: [] };
        }
        placement =
          changed !== undefined
            ? `Results: new block at ${a1(rowsOf(at))}. The results block at ${a1(rowsOf(region.columnIndex + changed))} was changed (a column inserted or a header renamed), so it is left as it is.`
            : `Results: new block at ${a1(rowsOf(at))}, after your last column, because the columns right of your data (${a1(rowsOf(beside))}) are not empty. Nothing of yours is overwritten.`;
      }
    }
    const origin = { sheet: region.sheet, rowIndex: region.rowIndex, columnIndex: at };
    const previous = await readBlock(context, rowsOf(at));
    const problems = rows.filter((r) => r.error).map((r) => ({ row: region.rowIndex + r.index + 1, message: r.error!.message }));
    const plan = planScreening(rows, { plan: opts.plan });
    return {
      ok: true,
      check: { region, headerRow: read.headerRow, mapping: read.mapping, rows, problems, origin, inPlace: existing !== undefined, previous, distinct: plan.properties.length, placement, blankRowsSkipped },
    };
  });
}

export interface RunProgress {
  rowsTotal: number;
  /** Rows settled so far, whatever the outcome. */
  rowsDone: number;
  /** Rows answered (a result, or an error about the row itself): what the progress bar shows. */
  rowsChecked: number;
  /** Rows the service failed to answer or Cancel left: never shown as progress. */
  rowsNotRefreshed: number;
  jobsTotal: number;
  jobsSubmitted: number;
  rateLimit?: RateLimitInfo;
}

export interface RunSummary {
  /** Rows of the selection the run wrote; each ends with values or a message. */
  rowsWritten: number;
  /** Rows sent to the service (the rest failed validation). */
  rowsSent: number;
  /** Rows sent that got an answer this run: a result, or "not found" / "ambiguous" (that is the answer too). */
  refreshed: number;
  /** Statuses over all checks of the rows answered this run only: values kept from an earlier check are not counted. */
  byStatus: Record<string, number>;
  /** Rows whose status cells read `error` (what the sheet shows). */
  errors: number;
  /** Rows answered with an error about the row itself (invalid UPRN, not found, ambiguous). */
  rowErrors: number;
  /** Rows the service failed to answer (a failed job, a run of 500s, a refused key, a wrong base URL). */
  notRefreshed: number;
  /** Rows Cancel (or a closed pane) left unanswered. */
  cancelledRows: number;
  /** Of the rows not refreshed or cancelled, those whose earlier values were kept. */
  kept: number;
  cancelled: boolean;
  writes: WriteStats;
  /** The first service failure behind the rows not refreshed. */
  failure?: ServiceError;
  /** A message for the whole run when one failure hit every row sent (a bad key, a wrong base URL, the service down). */
  fatal?: string;
}

export interface RunDeps {
  excelRun: ExcelRun;
  client: ComplianceClient;
  plan: PlanName;
  store?: UserStore;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  onProgress?: (p: RunProgress) => void;
  /** A sentence for the user while the run waits on Excel (a cell being edited blocks every write). */
  onNotice?: (text: string) => void;
  signal?: AbortSignal;
  /** How long the last write is retried before the run gives up on it; default 30 s. */
  writeRetryMs?: number;
}

/** What to tell the user when Excel refuses a write; while a cell is being edited, Excel refuses every write. */
export function writeErrorText(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (/InvalidOperationInCellEditMode/i.test(officeErrorText(e))) {
    return "Excel is editing a cell: finish editing the cell (press Enter or Esc) so that the results can be written.";
  }
  return `Excel did not accept the results: ${message}`;
}

/** What the pane keeps (per user, not in the workbook) to resume jobs after it was closed. */
export interface UnfinishedRun {
  version: 1;
  startedAt: string;
  plan: PlanName;
  origin: { sheet: string; rowIndex: number; columnIndex: number };
  rowCount: number;
  /** For each property sent: its region row offset, and the property. */
  offsets: number[];
  properties: PropertyQuery[];
  notes: (string | undefined)[];
  /** Absolute sheet columns the properties were read from, to see whether the rows changed before writing. */
  inputColumns: ColumnMapping;
  jobs: JobState[];
  jobsTotal: number;
}
export const UNFINISHED_KEY = "compliance.unfinishedRun";

/** Writes results as they arrive: updates coalesce while a write is out, so writes never queue up behind polls. */
class ResultWriter {
  readonly block: Cell[][];
  private pending = new Set<number>();
  private chain: Promise<void> = Promise.resolve();
  readonly stats: WriteStats = { syncs: 0, chunks: 0, maxChunkBytes: 0 };
  error: unknown;
  hasPending(): boolean {
    return this.pending.size > 0;
  }
  constructor(
    private readonly excelRun: ExcelRun,
    private readonly origin: { sheet: string; rowIndex: number; columnIndex: number },
    previous: unknown[][],
    private headers: boolean,
    private readonly onFail?: (e: unknown) => void,
  ) {
    this.block = previous.map((r) => OUTPUT_COLUMNS.map((_c, i) => (r[i] ?? "") as Cell));
  }
  set(offset: number, row: Cell[]): void {
    this.block[offset] = row;
    this.pending.add(offset);
  }
  flush(): Promise<void> {
    this.chain = this.chain.then(async () => {
      if (this.pending.size === 0 && !this.headers) return;
      const rows = this.pending;
      this.pending = new Set();
      const withHeaders = this.headers;
      this.headers = false;
      try {
        await this.excelRun(async (context) => {
          if (withHeaders) queueHeaders(context, this.origin);
          const s = await writeOutputRows(context, this.origin, this.block, rows);
          if (withHeaders && s.syncs === 0) {
            await context.sync();
            s.syncs++;
          }
          this.stats.syncs += s.syncs;
          this.stats.chunks += s.chunks;
          this.stats.maxChunkBytes = Math.max(this.stats.maxChunkBytes, s.maxChunkBytes);
        });
        this.error = undefined;
      } catch (e) {
        // Keep the rows (and the header row) for the next flush; a failed write must not lose results.
        for (const r of rows) this.pending.add(r);
        if (withHeaders) this.headers = true;
        this.error = e;
        this.onFail?.(e);
      }
    });
    return this.chain;
  }
  /**
   * Flushes until nothing is pending, waiting longer between tries, for up to `budgetMs`: Excel refuses every write while
   * the user is typing in a cell, which ends when they press Enter. True when everything is on the sheet.
   */
  async drain(sleep: (ms: number) => Promise<void>, budgetMs: number): Promise<boolean> {
    await this.flush();
    let waited = 0;
    for (let delay = 250; this.hasPending() && waited < budgetMs; delay = Math.min(delay * 2, 4_000)) {
      const ms = Math.min(delay, budgetMs - waited);
      await sleep(ms);
      waited += ms;
      await this.flush();
    }
    return !this.hasPending();
  }
}

/** answered: a result; rowError: "not found", "ambiguous" from the service; invalid: never sent (failed validation). */
type Fate = "answered" | "rowError" | "invalid" | "failed" | "cancelled";

/**
 * What happened to each row this run. The sheet alone cannot tell: a row whose refresh failed keeps its earlier values,
 * which must not pass for this run's answer in the pane's counts.
 */
class RowFates {
  private readonly fates = new Map<number, { fate: Fate; kept: boolean }>();
  private firstFailure: ServiceError | undefined;
  constructor(private readonly previous: readonly (readonly unknown[] | undefined)[]) {}

  invalid(offset: number): void {
    this.fates.set(offset, { fate: "invalid", kept: false });
  }

  note(offset: number, outcome: Outcome | undefined): void {
    const error = outcome && "error" in outcome ? outcome.error : undefined;
    if (!error) return void this.fates.set(offset, { fate: "answered", kept: false });
    if (isAboutProperty(error)) return void this.fates.set(offset, { fate: "rowError", kept: false });
    const cancelled = error.kind === "cancelled";
    if (!cancelled) this.firstFailure ??= error;
    // Core's own rule, so the pane's counts say what outputRow wrote.
    this.fates.set(offset, { fate: cancelled ? "cancelled" : "failed", kept: keepsEarlierValues(error, this.previous[offset]) });
  }

  count(fate: Fate): number {
    let n = 0;
    for (const f of this.fates.values()) if (f.fate === fate) n++;
    return n;
  }

  is(offset: number, fate: Fate): boolean {
    return this.fates.get(offset)?.fate === fate;
  }

  kept(): number {
    let n = 0;
    for (const f of this.fates.values()) if (f.kept) n++;
    return n;
  }

  failure(): ServiceError | undefined {
    return this.firstFailure;
  }

  progress(rowsTotal: number, jobs: { jobsTotal: number; jobsSubmitted: number; rateLimit?: RateLimitInfo }): RunProgress {
    const checked = this.count("answered") + this.count("rowError") + this.count("invalid");
    const notRefreshed = this.count("failed") + this.count("cancelled");
    return { rowsTotal, rowsDone: checked + notRefreshed, rowsChecked: checked, rowsNotRefreshed: notRefreshed, ...jobs };
  }
}

function summarise(block: Cell[][], offsets: number[], fates: RowFates, rowsSent: number, writes: WriteStats, cancelled: boolean): RunSummary {
  const statusCols = statusColumnIndexes();
  const byStatus: Record<string, number> = {};
  let errors = 0;
  for (const o of offsets) {
    const row = block[o];
    if (statusCols.some((c) => row[c] === "error")) errors++;
    if (!fates.is(o, "answered")) continue;
    for (const c of statusCols) {
      const w = String(row[c] ?? "");
      const k = displayStatus(w) === "unknown" ? "unknown" : w;
      if (w && w !== "error") byStatus[k] = (byStatus[k] ?? 0) + 1;
    }
  }
  const failed = fates.count("failed");
  const failure = fates.failure();
  const summary: RunSummary = {
    rowsWritten: offsets.length,
    rowsSent,
    refreshed: fates.count("answered") + fates.count("rowError"),
    byStatus,
    errors,
    rowErrors: fates.count("rowError") + fates.count("invalid"),
    notRefreshed: failed,
    cancelledRows: fates.count("cancelled"),
    kept: fates.kept(),
    cancelled,
    writes,
  };
  if (failure) summary.failure = failure;
  // One failure on every row sent says nothing about the rows: it is the key, the address or the service. Say it once.
  if (failure && rowsSent > 0 && failed === rowsSent) summary.fatal = describeError(failure);
  return summary;
}

const rowsWord = (n: number) => `${n} row${n === 1 ? "" : "s"}`;

/**
 * The pane's status line for a finished run, for a letting agent: how many rows got fresh answers, and, when the
 * service failed or the user cancelled, that the values still on the sheet are the earlier ones. When a banner says
 * why (`fatal`), the reason is not repeated here.
 */
export function summaryText(s: RunSummary): string {
  const counts = Object.entries(s.byStatus)
    .map(([w, n]) => `${n} ${w.replace("_", " ")}`)
    .join(", ");
  const problems = s.rowErrors ? ` ${s.rowErrors} with errors (see the Message column).` : "";
  if (!s.notRefreshed && !s.cancelledRows) {
    const errs = s.rowErrors ? `, ${s.rowErrors} with errors (see the Message column)` : "";
    return `Done. ${rowsWord(s.rowsWritten)} checked${errs}.\nStatuses over all checks: ${counts || "none"}.`;
  }
  const missing = s.notRefreshed + s.cancelledRows;
  const lines: string[] = [];
  if (!s.cancelledRows) lines.push(`${s.refreshed} of ${rowsWord(s.rowsSent)} refreshed: the service failed.`);
  else if (!s.notRefreshed) lines.push(`Cancelled. ${s.refreshed} of ${rowsWord(s.rowsSent)} refreshed, ${s.cancelledRows} cancelled.`);
  else lines.push(`${s.refreshed} of ${rowsWord(s.rowsSent)} refreshed: ${s.notRefreshed} not refreshed because the service failed, ${s.cancelledRows} cancelled.`);
  if (s.failure && s.notRefreshed && !s.fatal) lines.push(describeError(s.failure));
  if (s.kept === missing) lines.push("The earlier values are kept.");
  else if (s.kept > 0) lines.push(`The earlier values of ${s.kept} of them are kept; the others say why in the Message column.`);
  else lines.push("Their Message column says why.");
  let text = lines.join(" ") + problems;
  if (s.refreshed > 0) text += `\nStatuses of the rows refreshed: ${counts || "none"}.`;
  return text;
}

/** Runs a prepared check to the end (or to Cancel). Every selected row ends with values or a message. */
export async function runCheck(prepared: PreparedCheck, deps: RunDeps): Promise<RunSummary> {
  const now = deps.now ?? (() => Date.now());
  const iso = () => new Date(now()).toISOString();
  const writer = new ResultWriter(deps.excelRun, prepared.origin, prepared.previous, prepared.headerRow !== null, failedWrite(deps));
  if (prepared.headerRow !== null) writer.block[prepared.headerRow] = outputHeaders();
  const valid = prepared.rows.filter((r) => r.property && !r.error);
  const fates = new RowFates(prepared.previous);
  const progress = (jobs: { jobsTotal: number; jobsSubmitted: number; rateLimit?: RateLimitInfo } = { jobsTotal: 0, jobsSubmitted: 0 }) =>
    deps.onProgress?.(fates.progress(prepared.rows.length, jobs));

  for (const r of prepared.rows) {
    if (!r.error) continue;
    writer.set(r.index, outputRow({ error: serviceError("invalid_input", r.error.code, r.error.message) }, iso(), prepared.previous[r.index], r.note));
    fates.invalid(r.index);
  }
  await writer.flush();
  progress();

  const saved: UnfinishedRun = {
    version: 1,
    startedAt: iso(),
    plan: deps.plan,
    origin: prepared.origin,
    rowCount: prepared.region.rowCount,
    offsets: valid.map((r) => r.index),
    properties: valid.map((r) => r.property!),
    notes: valid.map((r) => r.note),
    inputColumns: Object.fromEntries(Object.entries(prepared.mapping).map(([k, v]) => [k, prepared.region.columnIndex + (v as number)])),
    jobs: [],
    jobsTotal: 0,
  };
  // Each job as it was when submitted: a Resume from these fetches all of its results again.
  const submitted = new Map<string, JobState>();
  if (valid.length) {
    await deps.client.screen(saved.properties, {
      plan: deps.plan,
      signal: deps.signal,
      onJobs: (jobs) => {
        for (const j of jobs) if (!submitted.has(j.jobId)) submitted.set(j.jobId, JSON.parse(JSON.stringify(j)) as JobState);
        saved.jobs = jobs;
        void deps.store?.setItem(UNFINISHED_KEY, JSON.stringify(saved)).catch(() => undefined);
      },
      onProgress: (p) => {
        saved.jobsTotal = p.jobsTotal;
        for (const c of p.completed) {
          const row = valid[c.index];
          writer.set(row.index, outputRow(c.outcome, iso(), prepared.previous[row.index], row.note));
          fates.note(row.index, c.outcome);
        }
        progress({ jobsTotal: p.jobsTotal, jobsSubmitted: p.jobsSubmitted, rateLimit: p.rateLimit });
        // One write per poll, bounded by chunked syncs; results are on the sheet before the next poll is answered.
        void writer.flush();
      },
    });
  }
  await finishWrites(writer, deps, !!deps.store && saved.jobs.length > 0, async () => {
    // The saved jobs say their results were received, but those results never reached the sheet.
    saved.jobs = saved.jobs.map((j) => submitted.get(j.jobId) ?? j);
    await deps.store?.setItem(UNFINISHED_KEY, JSON.stringify(saved)).catch(() => undefined);
  });
  return summarise(writer.block, prepared.rows.map((r) => r.index), fates, valid.length, writer.stats, !!deps.signal?.aborted);
}

/** Tells the user, once per failure, why results are waiting (the pane shows it in the status line). */
function failedWrite(deps: RunDeps): (e: unknown) => void {
  return (e) => deps.onNotice?.(`${writeErrorText(e)} Results are kept and written as soon as Excel accepts them.`);
}

/**
 * The last write of a run, retried with back-off for up to 30 s. The unfinished-run record is removed only once every
 * result is on the sheet: if Excel still refuses, it stays, so Resume (now, or when the pane is reopened) fetches the
 * results again from the service and writes them.
 */
async function finishWrites(writer: ResultWriter, deps: RunDeps, resumable: boolean, keepForResume?: () => Promise<void>): Promise<void> {
  const sleep = deps.sleep ?? hostSleep;
  // No abort signal here: Cancel stops polling, but what was already fetched is still written.
  if (await writer.drain((ms) => sleep(ms), deps.writeRetryMs ?? 30_000)) {
    await deps.store?.removeItem(UNFINISHED_KEY).catch(() => undefined);
    return;
  }
  if (resumable) await keepForResume?.();
  const next = resumable ? " Then choose Resume to write them." : " Then run Check again.";
  throw new Error(`Some results could not be written to the sheet. ${writeErrorText(writer.error)}${next}`);
}

/** The unfinished run saved by a pane that was closed mid-run, if any. */
export async function loadUnfinished(store: UserStore): Promise<UnfinishedRun | null> {
  try {
    const raw = await store.getItem(UNFINISHED_KEY);
    const run = raw ? (JSON.parse(raw) as UnfinishedRun) : null;
    return run && run.version === 1 && Array.isArray(run.jobs) ? run : null;
  } catch {
    return null;
  }
}

/**
 * Continues polling the jobs of an unfinished run and writes their results where they belong. Rows whose job was never
 * submitted get a message to run Check again. The sheet's rows are compared with what was sent, so a sheet that changed
 * meanwhile is reported, not overwritten.
 */
export async function resumeRun(run: UnfinishedRun, deps: RunDeps): Promise<RunSummary> {
  const now = deps.now ?? (() => Date.now());
  const sleep = deps.sleep ?? hostSleep;
  const iso = () => new Date(now()).toISOString();
  const previous = await deps.excelRun((context) => readBlock(context, { ...run.origin, rowCount: run.rowCount, columnCount: OUTPUT_COLUMNS.length }));
  const changed = await rowsChanged(run, deps.excelRun);
  if (changed) {
    if (deps.store) await deps.store.removeItem(UNFINISHED_KEY);
    throw new Error(`${changed} Nothing was written; select the rows and run Check again.`);
  }
  const writer = new ResultWriter(deps.excelRun, run.origin, previous, false, failedWrite(deps));
  // The same plan screen() made, so job offsets mean the same properties.
  const rows = run.properties.map((p, i) => ({ ...normaliseProperty(p.uprn, p.postcode, p.address), index: i }));
  const plan = planScreening(rows, { plan: run.plan });
  const fates = new RowFates(previous);
  const settle = (items: { index: number; outcome: Outcome }[]) => {
    for (const it of items) {
      for (const r of rowsForProperties(plan, [it.index])) {
        const offset = run.offsets[r];
        writer.set(offset, outputRow(it.outcome, iso(), previous[offset], run.notes[r]));
        fates.note(offset, it.outcome);
      }
    }
    deps.onProgress?.(fates.progress(run.offsets.length, { jobsTotal: plan.jobs.length, jobsSubmitted: run.jobs.length }));
    void writer.flush();
  };
  const cfg = deps.client.config;
  for (let j = 0; j < run.jobs.length; j++) {
    let state = run.jobs[j];
    while (!isJobDone(state) && !deps.signal?.aborted) {
      const late = checkJobDeadline(state, now());
      if (late) {
        state = late.state;
        settle(late.items);
        break;
      }
      try {
        const page = await deps.client.getBulkResults(nextJobRequest(cfg, state)!.url, { signal: deps.signal });
        const step = acceptResultsPage(state, page, now(), plan.properties.slice(state.offset, state.offset + state.total));
        state = step.state;
        settle(step.items);
        if (!step.done && step.waitMs > 0) await sleep(step.waitMs, deps.signal);
      } catch (e) {
        const failed = failJob(state, toServiceError(e), now());
        state = failed.state;
        settle(failed.items);
        break;
      }
    }
    run.jobs[j] = state;
  }
  // Properties whose job was never submitted (the pane closed first) are said, not dropped.
  const submitted = new Set<number>();
  for (const s of run.jobs) for (let p = s.offset; p < s.offset + s.total; p++) submitted.add(p);
  const missing: { index: number; outcome: Outcome }[] = [];
  for (let p = 0; p < plan.properties.length; p++) {
    if (!submitted.has(p)) missing.push({ index: p, outcome: { error: serviceError("cancelled", "not_sent", "The pane was closed before this row was sent; run Check again.") } });
  }
  if (missing.length) settle(missing);
  await finishWrites(writer, deps, true);
  return summarise(writer.block, run.offsets, fates, run.offsets.length, writer.stats, !!deps.signal?.aborted);
}

/** A sentence when the sheet no longer holds the properties that were sent (rows inserted, sorted or edited), else null. */
async function rowsChanged(run: UnfinishedRun, excelRun: ExcelRun): Promise<string | null> {
  const cols = Object.values(run.inputColumns).filter((c): c is number => typeof c === "number");
  if (cols.length === 0) return null;
  const left = Math.min(...cols);
  const width = Math.max(...cols) - left + 1;
  const values = await excelRun((context) => readBlock(context, { sheet: run.origin.sheet, rowIndex: run.origin.rowIndex, columnIndex: left, rowCount: run.rowCount, columnCount: width }));
  const cell = (row: unknown[], c: number | undefined) => (c === undefined ? undefined : row[c - left]);
  for (let i = 0; i < run.offsets.length; i++) {
    const row = values[run.offsets[i]] ?? [];
    const now = normaliseProperty(cell(row, run.inputColumns.uprn), cell(row, run.inputColumns.postcode), cell(row, run.inputColumns.address));
    const then = normaliseProperty(run.properties[i].uprn, run.properties[i].postcode, run.properties[i].address);
    if (now.key !== then.key) return `Row ${run.origin.rowIndex + run.offsets[i] + 1} of ${run.origin.sheet} changed since the unfinished check started.`;
  }
  return null;
}
