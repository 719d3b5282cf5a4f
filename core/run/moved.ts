/**
 * Rows of a run that no longer show their own property's result although the run wrote them: only the input columns
 * were sorted (the results stayed where they were), or a row's input was edited after its result arrived. Both add-ins
 * read the table again before every write and ask this module what each such row gets, so a sheet gets one answer in
 * Excel and in Google Sheets.
 */
import { serviceError, type ServiceError } from "../service/errors";
import { OUTPUT_COLUMNS, outputRow, type Cell } from "../sheet/layout";
import { ROW_CHANGED_ERROR, checkingRow, type RowNow } from "./rows";
import type { RunState } from "./state";

const col = (key: string) => OUTPUT_COLUMNS.findIndex((c) => c.key === key);
const MATCHED_UPRN = col("matched_uprn");
const MATCHED_ADDRESS = col("matched_address");
const CHECKED_AT = col("checked_at");
const MESSAGE = col("message");

const READ = [MATCHED_UPRN, MATCHED_ADDRESS, CHECKED_AT, MESSAGE];
/**
 * The block columns a host reads for movedRows and its "Checking…" marks: Matched UPRN to Message (they stand side by
 * side), 0-based within the block.
 */
export const PRINT_COLUMNS = { first: Math.min(...READ), last: Math.max(...READ) };

/** A cell as text the way both hosts read it back: trimmed, a leading apostrophe (text marker) and leading zeros of a number dropped. */
function text(v: unknown): string {
  const s = String(v ?? "").trim();
  const t = s.startsWith("'") ? s.slice(1) : s;
  return /^\d+$/.test(t) ? t.replace(/^0+(?=\d)/, "") : t;
}

/** Every print is this long, so a host may keep many side by side in one string. */
export const PRINT_LENGTH = 6;
const PRINT_SPACE = 36 ** PRINT_LENGTH;

/**
 * A short print of the property a block row's result is for: its Matched UPRN and Matched address (FNV-1a over them,
 * six base-36 characters). Rows of one property share it whatever their Message says (a duplicate's note, a date of
 * theirs that could not be read); a row whose print is none of those the run wrote was typed over, and is left alone.
 * An error names no property: its print is BLANK_PRINT.
 */
export function resultPrint(cells: readonly unknown[]): string {
  const s = `${text(cells[MATCHED_UPRN])}\u0001${text(cells[MATCHED_ADDRESS])}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return ((h >>> 0) % PRINT_SPACE).toString(36).padStart(PRINT_LENGTH, "0");
}

/** The print of a row that names no property (an error, or an input that could not be read). */
export const BLANK_PRINT = resultPrint([]);

/**
 * A run keeps the prints of its first this many properties, in both add-ins: six characters each, 120 KB, which Google
 * Sheets stores with the run between polls beside the rest of its 500 KB of user properties. A row of a later property
 * is left as it shows, as a row the run never wrote (movedRows puts right only what it knows the run wrote).
 */
export const MAX_PRINTED_PROPERTIES = 20_000;

/** Whether the run keeps the print of its property at this index. */
export function keepsPrint(property: number): boolean {
  return property >= 0 && property < MAX_PRINTED_PROPERTIES;
}

/** The Checked at text of a block row as read back, to compare with the stamps the run wrote. */
export function checkedAtText(cells: readonly unknown[]): string {
  return text(cells[CHECKED_AT]);
}

/** The property keys whose result this run has still to receive. */
export function pendingKeys(state: RunState): Set<string> {
  const out = new Set<string>();
  for (let p = 0; p < state.keys.length; p++) if (state.fates[p] === ".") out.add(state.keys[p]);
  return out;
}

export interface RowAsRead {
  /** The property key the row's input gives now ("!" + the reason when it is invalid); none when blank. */
  key?: string;
  /** Its Message still says "Checking…" for this run. */
  checking?: boolean;
  /** Its block cells as read (at least PRINT_COLUMNS and Checked at). */
  cells: readonly unknown[];
}

export interface RunWritten {
  /** Whether this run wrote a row with this Checked at text. */
  stamped(checkedAt: string): boolean;
  /** The print of what this run wrote for a property key, if it wrote it (keys of unreadable inputs need none). */
  printFor(key: string): string | undefined;
  /** Every print this run wrote (BLANK_PRINT, an error's, always counts). */
  prints: ReadonlySet<string>;
  /** Keys whose result is still to come. */
  pending: ReadonlySet<string>;
}

/**
 * What a row gets: the cells of row `from` (which shows its property's result, as this run wrote it), the run's
 * "Checking…" mark (its result is still to come, and is written there when it arrives), the error of the input it
 * holds now when that cannot be read (`error`, written as at the start of the run), or core's ROW_CHANGED_ERROR.
 */
export type MovedRow =
  | { row: number; kind: "copy"; from: number }
  | { row: number; kind: "checking"; key: string }
  | { row: number; kind: "unreadable"; error: ServiceError }
  | { row: number; kind: "changed" };

/**
 * Rows this run wrote whose result is not their input's property now, and rows still "Checking…" whose property's
 * result this run already wrote elsewhere. A result is copied from a row that shows it; an input that cannot be read
 * gets its own error again; otherwise, when no row shows the result (it was deleted or typed over), the row says it
 * changed and to check it again. Rows the run did not write, and rows whose block someone edited, are left alone.
 */
export function movedRows(rows: readonly RowAsRead[], run: RunWritten): MovedRow[] {
  const prints = rows.map((r) => resultPrint(r.cells));
  // What this run wrote for a key: an input it could not read is an error, which names no property.
  const printFor = (key: string) => (key.startsWith("!") ? BLANK_PRINT : run.printFor(key));
  const ours = (i: number) =>
    (prints[i] === BLANK_PRINT || run.prints.has(prints[i])) && run.stamped(checkedAtText(rows[i].cells));
  // Where each property's result is shown now: a row of its own that shows it (an error too), else the first row of
  // this run that shows it (a property's result only: an error says nothing of which property it was for).
  const inPlace = new Map<string, number>();
  const shownAt = new Map<string, number>();
  rows.forEach((r, i) => {
    if (!ours(i) || r.checking) return;
    if (r.key && !inPlace.has(r.key) && prints[i] === printFor(r.key)) inPlace.set(r.key, i);
    if (prints[i] !== BLANK_PRINT && !shownAt.has(prints[i])) shownAt.set(prints[i], i);
  });
  const fix = (row: number, key: string, want: string): MovedRow => {
    const from = inPlace.get(key) ?? (want === BLANK_PRINT ? undefined : shownAt.get(want));
    if (from !== undefined) return { row, kind: "copy", from };
    // An input that cannot be read says so again, wherever it went: its key holds the reason.
    if (key.startsWith("!")) return { row, kind: "unreadable", error: unreadableInput(key.slice(1)) };
    return { row, kind: "changed" };
  };
  const out: MovedRow[] = [];
  rows.forEach((r, i) => {
    const want = r.key ? printFor(r.key) : undefined;
    if (r.checking) {
      if (want !== undefined && !run.pending.has(r.key!)) out.push(fix(i, r.key!, want));
      return;
    }
    // Only a result this run wrote, still naming the property it was written for, and now beside another's input.
    if (!ours(i) || prints[i] === want) return;
    // A row cleared since: nothing to say unless it still shows a property's result.
    if (!r.key && prints[i] === BLANK_PRINT) return;
    // A row whose result is still to come is marked again: it shows another row's result or error, which this run
    // stamped (a "Checking…" mark has no Checked at of this run, so words typed over one never come here).
    if (want !== undefined) out.push(fix(i, r.key!, want));
    else if (r.key && run.pending.has(r.key)) out.push({ row: i, kind: "checking", key: r.key });
    else out.push({ row: i, kind: "changed" });
  });
  return out;
}

/**
 * What a host writes for a moved row that is not a copy (a copy is the host's own cells of row `from`): given the
 * row's cells before the write and the time of this write.
 */
export function movedRowCells(
  f: Exclude<MovedRow, { kind: "copy" }>,
  atIso: string,
  previous: readonly unknown[] | undefined,
  runId?: string,
): Cell[] {
  // A mark is blank but for its Message: the cells it showed were another property's result.
  if (f.kind === "checking") return checkingRow(undefined, atIso, runId);
  if (f.kind === "unreadable") return outputRow({ error: f.error }, atIso, undefined);
  return outputRow({ error: ROW_CHANGED_ERROR }, atIso, previous);
}

/**
 * The row as matchRows should then see it: marked for its property's result, or taking none (a copy, an unreadable
 * input's error); undefined leaves it as it was read.
 */
export function movedRowNow(f: MovedRow): RowNow | undefined {
  if (f.kind === "checking") return { key: f.key, checking: true };
  return f.kind === "changed" ? undefined : {};
}

/** The error a row whose input cannot be read shows (the reason as the input's check gave it). */
export function unreadableInput(reason: string): ServiceError {
  return serviceError("invalid_input", "invalid_input", reason);
}
