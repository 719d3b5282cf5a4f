/**
 * The rows one write of a run puts on the sheet: a waiting row while a job is out, core's output row for a final
 * outcome (with the row's country and its own dates), each tallied for the summary, the Change log and Resume.
 */
import {
  outputRow,
  statusColumnIndexes,
  waitingRow,
  rowChanges,
  resultRowContext,
  detectContextColumns,
  rowPlace,
  resultPrint,
  keepsPrint,
  checkedAtText,
  type Cell,
  type Change,
  type Outcome,
  type OutcomeToWrite,
  type RunState,
  type WindowSettings,
} from "../../core";
import type { SummaryTally } from "./run-summary";
import type { TableNow, WrittenRows } from "./rows-now";

const STATUS_COLS = statusColumnIndexes();

/** What the rows of a write are tallied in (the run's tally). */
export type RowsTally = WrittenRows & Pick<SummaryTally, "byRow" | "waiting"> & { dateRows: Set<number> };

export interface OutcomeRowsContext {
  windows?: WindowSettings;
  tally: RowsTally;
  runId: RunState["runId"];
  /** The write's time (ISO) and the file's day of it. */
  at: string;
  day: string;
}

/** A final outcome's row: core's outputRow with the row's country and dates, tallied; gives its changes. */
function finalRow(
  block: Cell[][],
  t: TableNow,
  w: { row: number; outcome: Outcome },
  item: OutcomeToWrite | undefined,
  placeColumns: ReturnType<typeof detectContextColumns>,
  c: OutcomeRowsContext,
): Change[] {
  const { tally, at } = c;
  const prev = t.previous[w.row];
  tally.waiting.delete(w.row);
  // The row's country: core's one rule over the row's cells and the service's answer.
  const place = rowPlace(t.header, t.rows[w.row], w.outcome, {
    postcodeColumn: t.inputColumns.postcode,
    exclude: t.ours,
    context: placeColumns,
  });
  const context = resultRowContext(t.dates[w.row], { windows: c.windows, country: place.country, day: c.day });
  block[w.row] = outputRow(w.outcome, at, prev, t.notes[w.row], context);
  if (context.problems) tally.dateRows.add(w.row);
  else tally.dateRows.delete(w.row);
  tally.byRow.set(w.row, { error: STATUS_COLS.some((col) => block[w.row][col] === "error") });
  if (item && keepsPrint(item.property)) tally.shown.set(item.key, resultPrint(block[w.row]));
  tally.stamps.add(checkedAtText(block[w.row]));
  return rowChanges(prev, block[w.row]);
}

/** Fills `block` with the rows of the matched writes; gives what they change, stamped with the write's time. */
export function outcomeRows(
  block: Cell[][],
  t: TableNow,
  writes: readonly { row: number; outcome: Outcome }[],
  items: readonly OutcomeToWrite[],
  c: OutcomeRowsContext,
): (Change & { runAt: string })[] {
  const interim = new Set(items.filter((i) => !i.final).map((i) => i.outcome));
  const itemOf = new Map(items.map((i) => [i.outcome, i]));
  const changes: (Change & { runAt: string })[] = [];
  // The table's Country column, found in its header once for this write rather than once per row.
  const placeColumns = t.header ? detectContextColumns(t.header, t.ours) : {};
  for (const w of writes) {
    const prev = t.previous[w.row];
    if (interim.has(w.outcome)) {
      block[w.row] = waitingRow(prev, c.at, "error" in w.outcome ? w.outcome.error : undefined, c.runId);
      c.tally.waiting.add(w.row);
    } else {
      for (const ch of finalRow(block, t, w, itemOf.get(w.outcome), placeColumns, c))
        changes.push({ ...ch, runAt: c.at });
    }
  }
  return changes;
}
