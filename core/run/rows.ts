/**
 * Writing a run's outcomes: what to write now, where each goes among the rows as they are now (sorted, inserted or
 * deleted rows), the "Checking…" mark of a row on the way, and the fate each written outcome gives its property.
 */
import { describeError, isAboutProperty, serviceError, type ServiceError } from "../service/errors";
import type { Outcome } from "./plan";
import type { InputRow } from "../sheet/input-rows";
import {
  OUTPUT_COLUMNS,
  firstReportedNotes,
  hasValues,
  keptDemoNote,
  outputRow,
  statusWords,
  type Cell,
} from "../sheet/layout";
import { countStatuses } from "./report";
import { collectable, isMaybeCreated, moveRun, isSettled, members, setFate, type Fate, type RunState } from "./state";

const MESSAGE_COLUMN = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");

// ---- writing ----

export interface OutcomeToWrite {
  property: number;
  key: string;
  outcome: Outcome;
  /** Final outcomes are marked written by markWritten; interim ones (paused, stopped but collectable) are said and not marked. */
  final: boolean;
}

/** What to write now: every outcome received and not written yet, and, for a paused or stopped run, why the rest wait. */
export function outcomesToWrite(state: RunState): OutcomeToWrite[] {
  const out: OutcomeToWrite[] = [];
  for (const k of Object.keys(state.received)) {
    const p = Number(k);
    out.push({ property: p, key: state.keys[p], outcome: state.received[k], final: true });
  }
  if (state.phase === "paused" || state.phase === "stopped") {
    const why =
      state.phase === "paused"
        ? serviceError(
            "rate_limited",
            "run_paused",
            `Waiting: ${describeError(state.pauseReason ?? serviceError("rate_limited", "rate_limited", "")).replace(/[\s.]+$/, "")}. Choose Resume after then to collect this row (no new job is sent)`,
          )
        : serviceError(
            "cancelled",
            "run_stopped",
            "Stopped before this row's result arrived. Choose Resume to collect it (no new job is sent)",
          );
    for (const job of state.jobs) {
      if (job.phase === "ended") continue;
      for (const p of members(job))
        if (!isSettled(state, p)) out.push({ property: p, key: state.keys[p], outcome: { error: why }, final: false });
    }
  }
  return out.sort((a, b) => a.property - b.property);
}

/** The fate an outcome gives its property once written. */
export function fateOf(outcome: Outcome): Fate {
  if ("result" in outcome) return "a";
  const e = outcome.error;
  if (isAboutProperty(e)) return "e";
  if (isMaybeCreated(e)) return "u";
  if (e.kind === "cancelled") return "c";
  return "f";
}

/** A property's outcome written: to `rows` rows (matchRows), none when `present` is false. */
export interface WrittenProperty {
  property: number;
  present: boolean;
  rows?: number;
}

/**
 * The host wrote these properties' outcomes (to every row that holds them now), or found no row holding them
 * (`present` false: the row was edited or deleted during the run, so nothing was written). A result's statuses are
 * counted here, once for each row it went to, so the run's end says those of the whole run, a Resume or not.
 */
export function markWritten(state: RunState, written: readonly WrittenProperty[]): void {
  for (const w of written) {
    const outcome = state.received[w.property];
    if (!outcome || state.fates[w.property] !== ".") continue;
    setFate(state, w.property, w.present ? fateOf(outcome) : "g");
    if (w.present && "result" in outcome)
      countStatuses((state.statuses ??= {}), statusWords(outcome.result), w.rows ?? 1 + (state.dupes[w.property] ?? 0));
    delete state.received[w.property];
  }
  if (state.phase === "stopped" && !collectable(state)) moveRun(state, "collected");
}
// ---- rows as they are now ----

/** What a row's Message cell says while its result is on the way: a row that still says it after the run changed. */
export const CHECKING_MESSAGE = "Checking… (the result is written here when it arrives)";

/**
 * A run's short tag, written into its "Checking…" marks ("Checking… (run k3x9a; …)"), so that a row waiting for one
 * run is known as that run's wherever the user sorts it, and another run never takes it for its own. Five base-36
 * characters of a hash of the run's id: two unfinished runs of one user sharing a tag is about one in 60 million.
 */
export function runTag(runId: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < runId.length; i++) h = Math.imul(h ^ runId.charCodeAt(i), 0x01000193) >>> 0;
  return (h % 60466176).toString(36).padStart(5, "0");
}

const TAG = /^Checking…\s*\(run ([0-9a-z]{5})[;)]/;

/** The run tag a "Checking…" mark carries; undefined for a mark without one (written before marks were tagged). */
export function markTag(v: unknown): string | undefined {
  return typeof v === "string" ? TAG.exec(v)?.[1] : undefined;
}

/**
 * Whether a Message cell says "Checking…"; given a run id, only a mark of that run (or an untagged mark, which
 * any run may take as its own, as before tags).
 */
export function isCheckingMessage(v: unknown, runId?: string): boolean {
  if (!(typeof v === "string" && v.startsWith("Checking…"))) return false;
  if (runId === undefined) return true;
  const tag = markTag(v);
  return tag === undefined || tag === runTag(runId);
}

/** The "Checking…" text of a run's rows: with the run's tag when the run is known. */
export function checkingMessage(runId?: string): string {
  return runId === undefined
    ? CHECKING_MESSAGE
    : `Checking… (run ${runTag(runId)}; the result is written here when it arrives)`;
}

/**
 * The row a host writes into each row being checked at the start: earlier values kept, Message says it is on the way
 * (and keeps the day an F or G rating was first reported, which the result read back from this row counts from, and,
 * over demo values, that they are the demo's: the change check after the run reads this row).
 */
export function checkingRow(previous: readonly unknown[] | undefined, checkedAtIso: string, runId?: string): Cell[] {
  const row = outputRow(undefined, checkedAtIso, previous);
  row[MESSAGE_COLUMN] = [checkingMessage(runId), keptDemoNote(previous), ...firstReportedNotes(previous)]
    .filter(Boolean)
    .join("; ");
  return row;
}

/**
 * As a run's rows are marked (startRow), how many rows of each property show values of an earlier check, which the
 * marks keep: the run's end says which of them still do (runCounts' kept), whatever Stop, a pause or a Resume did.
 * `rows` are the run's rows with what each showed before its mark.
 */
export function noteEarlierValues(
  state: RunState,
  rows: readonly (Pick<InputRow, "key" | "error"> & { previous: readonly unknown[] | undefined })[],
): void {
  const index = new Map(state.keys.map((k, p) => [k, p]));
  const shown = new Map<number, number>();
  for (const r of rows) {
    const p = r.key && !r.error ? index.get(r.key) : undefined;
    if (p !== undefined && hasValues(r.previous)) shown.set(p, (shown.get(p) ?? 0) + 1);
  }
  const ranges: [number, number][] = [];
  const some: Record<string, number> = {};
  for (const p of [...shown.keys()].sort((a, b) => a - b)) {
    const n = shown.get(p)!;
    if (n < 1 + (state.dupes[p] ?? 0)) {
      some[p] = n;
      continue;
    }
    const last = ranges[ranges.length - 1];
    if (last && last[1] === p) last[1] = p + 1;
    else ranges.push([p, p + 1]);
  }
  if (ranges.length) state.earlier = ranges;
  else delete state.earlier;
  if (Object.keys(some).length) state.earlierSome = some;
  else delete state.earlierSome;
}

/**
 * The row a host writes into each row of a run as it begins: an invalid row's reason at once (with its note, a postcode
 * read another way), else the Checking… mark. Both add-ins write the same words.
 */
export function startRow(
  row: Pick<InputRow, "error" | "note">,
  previous: readonly unknown[] | undefined,
  checkedAtIso: string,
  runId?: string,
): Cell[] {
  return row.error
    ? outputRow(
        { error: serviceError("invalid_input", row.error.code, row.error.message) },
        checkedAtIso,
        previous,
        row.note,
      )
    : checkingRow(previous, checkedAtIso, runId);
}

/**
 * The row of a result that waits (paused, stopped): still "Checking…", so a Resume finds it and its property, and why
 * (the waiting outcome's error, in core's words).
 */
export function waitingRow(
  previous: readonly unknown[] | undefined,
  checkedAtIso: string,
  why: ServiceError | undefined,
  runId?: string,
): Cell[] {
  const row = checkingRow(previous, checkedAtIso);
  const text = why ? describeError(why) : "";
  row[MESSAGE_COLUMN] = [
    `Checking… ${runId === undefined ? "" : `(run ${runTag(runId)}) `}${text.replace(/[\s.]+$/, "")}.`,
    keptDemoNote(previous),
    ...firstReportedNotes(previous),
  ]
    .filter(Boolean)
    .join("; ");
  return row;
}

export const ROW_CHANGED_ERROR: ServiceError = serviceError(
  "cancelled",
  "input_changed",
  "This row changed while the check ran, so its result was not written here; run the check again for it.",
);

export interface RowNow {
  /** The property key the row's input cells give now (core normaliseProperty), none when blank or invalid. */
  key?: string;
  /** Its Message cell still says "Checking…" for this run (isCheckingMessage with the run's id: another run's marks are not). */
  checking?: boolean;
}

/**
 * Where each outcome goes, from the rows as they are now (read just before the write): to every row that holds its
 * property, wherever sorting, inserted or deleted rows moved it. A property no row holds any more is reported as
 * not present (nothing is written for it). A row still marked "Checking…" whose input no longer names a property
 * of this run changed during the run: it gets ROW_CHANGED_ERROR, never another property's result.
 */
export function matchRows(
  state: RunState,
  rowsNow: readonly RowNow[],
  items: readonly OutcomeToWrite[],
): {
  writes: { row: number; outcome: Outcome }[];
  written: WrittenProperty[];
  changed: number[];
} {
  const rowsByKey = new Map<string, number[]>();
  rowsNow.forEach((r, i) => {
    if (!r.key) return;
    const list = rowsByKey.get(r.key);
    if (list) list.push(i);
    else rowsByKey.set(r.key, [i]);
  });
  const writes: { row: number; outcome: Outcome }[] = [];
  const written: WrittenProperty[] = [];
  for (const it of items) {
    const rows = rowsByKey.get(it.key) ?? [];
    for (const row of rows) writes.push({ row, outcome: it.outcome });
    if (it.final) written.push({ property: it.property, present: rows.length > 0, rows: rows.length });
  }
  const runKeys = new Set(state.keys);
  const changed: number[] = [];
  rowsNow.forEach((r, i) => {
    if (r.checking && (!r.key || !runKeys.has(r.key))) changed.push(i);
  });
  for (const row of changed) writes.push({ row, outcome: { error: ROW_CHANGED_ERROR } });
  return { writes, written, changed };
}
