/**
 * What both add-ins tell the user as a check begins, from core's plan of it (planTable): what the selection means
 * (one cell, the whole table, rows left out), where the results go, that the table has no header row, and which rows
 * are not sent as they stand. The Excel pane shows these lines under its status, the Sheets sidebar as its notes, in
 * this order. Nothing is read here: the host passes what it read (the rows below the table, the rows hidden by a
 * filter) and shows the lines as they come.
 */
import type { InputRow } from "./input-rows";
import { rowsAsideNotes, type TablePlan } from "./check-plan";
import { EDITED_BLOCK_NOTE, NO_HEADER_NOTE, resultsPlaceNote } from "./placement";
import { checkedRowsNote, oneCellNote, type CheckedRows } from "./table";

/** What a line is about, so a host or a test can find one without matching its words. */
export type StartNoteKind =
  | "one-cell"
  | "rows-checked"
  | "edited-block"
  | "results-place"
  | "no-header"
  | "input-errors"
  | "duplicates"
  | "hidden";

export interface StartNote {
  kind: StartNoteKind;
  text: string;
}

export interface StartNotesInput {
  plan: TablePlan;
  /** Sheet row (1-based, as the user numbers rows) of the first row of the values the plan was made from. */
  firstRow: number;
  /**
   * The selection the plan was made from: its rows as given to planTable, and whether it was one cell. Absent when
   * nobody selected anything (a scheduled re-check, a re-check on open): nothing is said of a selection then.
   */
  selection?: { rows: readonly [number, number]; oneCell: boolean };
  /** The rows of data below the blank row that ends the whole table (rowsAfterBlank), when the host read them. */
  leftBelow?: CheckedRows["leftBelow"];
  /**
   * Where the results go, in the host's own words, when they go somewhere only that host has (an Excel Table's own
   * columns, under the Table's header row): said instead of core's block placement and its header-row note.
   */
  ownPlace?: string;
  /** The rows to send, those hidden by a filter already set aside, and how many were hidden. */
  rows: readonly InputRow[];
  hidden: number;
}

/**
 * The lines said as a check begins, in the order both add-ins show them; a line with nothing to say is left out.
 * Sheet rows in them are the user's (1-based); the rows checked are the plan's.
 */
export function startNotes(s: StartNotesInput): StartNote[] {
  const { plan } = s;
  const rowNo = (i: number) => s.firstRow + plan.top + i;
  const notes: StartNote[] = [];
  const add = (kind: StartNoteKind, text: string) => void (text && notes.push({ kind, text }));
  if (s.selection) {
    add(
      "one-cell",
      oneCellNote({
        rows: s.selection.oneCell ? 1 : 0,
        columns: 1,
        sheetRow: s.firstRow + s.selection.rows[0],
        onOrAboveHeader: plan.headerRow !== null && s.selection.rows[1] - plan.top <= plan.headerRow,
      }),
    );
    add(
      "rows-checked",
      checkedRowsNote({
        firstRow: rowNo(plan.rows[0].index),
        lastRow: rowNo(plan.rows[plan.rows.length - 1].index),
        whole: plan.whole,
        anotherHeaderRow: plan.anotherTable === undefined ? undefined : rowNo(plan.anotherTable),
        blankBelow: plan.blankRowsSkipped,
        leftBelow: s.leftBelow,
      }),
    );
  }
  if (s.ownPlace !== undefined) add("results-place", s.ownPlace);
  else {
    if (plan.editedAt !== undefined) add("edited-block", EDITED_BLOCK_NOTE);
    add(
      "results-place",
      resultsPlaceNote({ kind: plan.kind, at: plan.at, dataFirst: plan.first, changedAt: plan.changedAt }),
    );
    if (plan.headerRow === null) add("no-header", NO_HEADER_NOTE);
  }
  // Rows not sent as they stand, counted as the run counts them: an input error each, and one check per property.
  const valid = s.rows.filter((r) => r.property && r.key && !r.error);
  const aside = (kind: StartNoteKind, c: Partial<Parameters<typeof rowsAsideNotes>[0]>) =>
    add(kind, rowsAsideNotes({ invalid: 0, duplicates: 0, hidden: 0, ...c })[0] ?? "");
  aside("input-errors", { invalid: s.rows.filter((r) => r.error).length });
  aside("duplicates", { duplicates: valid.length - new Set(valid.map((r) => r.key)).size });
  aside("hidden", { hidden: s.hidden });
  return notes;
}
