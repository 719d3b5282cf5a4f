/**
 * What both add-ins say when a check run ends (or pauses, or is stopped): a headline of one sentence on what happened,
 * shown as the run's status, and the details under it, shown on demand. Made here from the engine's state and the
 * facts only a host has (what its writes counted, the lines of the sheets it built), so that the Excel pane and the
 * Sheets sidebar never word the same end two ways.
 */
import { dateProblemsLine } from "../sheet/user-dates";
import { formatCount } from "../numbers";
import { runSummary } from "./report";
import { shownPhase, type ShownPhase } from "./session";
import type { RunState } from "./state";

/** What a host knows of a run beyond the engine's state, as data; each is left out when absent. */
export interface RunEndFacts {
  /** Rows written with a date of the user's own columns that could not be read (their Message says which). */
  unreadDateRows?: number;
  /**
   * Why nothing could be written when the run was stopped (its results columns deleted or moved): said in the
   * headline, in place of the counts.
   */
  notWritten?: string;
  /** Further sentences of the host's, in order (a save for Resume refused, rows the host could not update). */
  notes?: readonly string[];
  /** The line about the Action list and Compliance summary built again after the run (or why they were not). */
  actionSheets?: string;
  /** The run's line of the Run log (or why it could not be written). */
  runLog?: string;
}

export interface RunEndWords {
  phase: ShownPhase;
  /** The run checked every row asked for, with no row failed, unsent or unwritten ("Done"). */
  complete: boolean;
  /** One sentence on what happened, led by the run's state: "Done. 12 rows checked, 2 with errors (…)." */
  headline: string;
  /** Everything else, a sentence each: what is left and what to do, unread dates, the statuses, the sheets built. */
  details: string[];
}

function statusesLine(complete: boolean, refreshed: number, statuses: Readonly<Record<string, number>>): string {
  const counts = Object.entries(statuses)
    .map(([w, n]) => `${formatCount(n)} ${w.replace("_", " ")}`)
    .join(", ");
  if (complete) return `Statuses over all checks: ${counts || "none"}.`;
  return refreshed > 0 ? `Statuses of the rows refreshed: ${counts || "none"}.` : "";
}

/** What stays on the sheet from before, of the rows the run did not refresh. */
function keptLine(kept: number, missing: number): string {
  if (kept <= 0) return "";
  return kept >= missing
    ? "The earlier values are kept."
    : `The earlier values of ${formatCount(kept)} of them are kept; the others say why in the Message column.`;
}

/**
 * The end of a run in words, the same in both add-ins (core's runSummary, then the host's facts). The earlier values
 * kept and the statuses are the state's (runCounts' kept, state.statuses), over the whole run: a Resume's end counts
 * the rows of the part before it too.
 */
export function runEndWords(state: RunState, facts: RunEndFacts = {}): RunEndWords {
  const s = runSummary(state);
  const phase = shownPhase(state);
  const complete = s.title === "Done";
  const c = s.counts;
  // Rows a Resume still fills show their earlier values meanwhile, whether Stop or a pause left them waiting.
  const missing = c.failed + c.maybeCreated + c.notSent + (phase === "stopped" || phase === "paused" ? c.resumable : 0);
  const headline = facts.notWritten
    ? `${s.title}. Nothing was written: ${facts.notWritten.replace(/[\s.]+$/, "")}.`
    : `${s.title}. ${s.lead}`;
  const details = [
    facts.notWritten ? s.lines[0] : s.then,
    ...s.lines.slice(1),
    complete ? "" : keptLine(c.kept, missing),
    dateProblemsLine(facts.unreadDateRows ?? 0),
    ...(facts.notes ?? []),
    statusesLine(complete, c.answered - c.invalid, state.statuses ?? {}),
    facts.actionSheets ?? "",
    facts.runLog ?? "",
  ].filter((l) => !!l && l.trim());
  return { phase, complete, headline, details };
}
