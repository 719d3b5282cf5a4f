/**
 * Re-check on open: when the workbook opens (the add-in loads with it, see watch-settings.ts) every recorded results
 * block whose last check is older than the chosen days is checked again, one after another, with the same engine,
 * columns, Change log and Run log as a check by hand (trigger "on open"). Nothing is selected or activated: the user
 * may be working in the workbook meanwhile, so each block is found again from what the sheet holds now, and a block
 * that cannot be found, or that the user changed, is not written: its Run log row says why, and it is forgotten.
 * Loaded as a chunk only when such a re-check is due.
 */
import { inputColumnNotFound, notCheckedLogEntry, sentence, type ColumnMapping } from "../../core";
import { actionSheets, prepareCheck, runCheck, type RunDeps } from "./check-run";
import { readRecordedTable, type RecordedTable, type RunPlace } from "./recorded-table";
import { isBlankCell, officeErrorText } from "./sheet";
import {
  dueBlocks,
  forgetBlocks,
  recordBlock,
  sameBlock,
  watchedBlocks,
  type WatchedBlock,
  type WorkbookSettings,
} from "./watch-settings";

export interface RecheckDeps extends Omit<RunDeps, "trigger" | "onBlockWritten"> {
  settings: WorkbookSettings;
}

export interface RecheckOutcome {
  /** Blocks that were due. */
  due: number;
  /** Blocks checked again (a run was made). */
  checked: number;
  /** One line per block: its Run log line, or why it was not checked. */
  lines: string[];
}

type Located =
  | { sheet: string; rowIndex: number; columnIndex: number; inputColumns?: ColumnMapping; found: RecordedTable }
  | { problem: string };

/** Where the block's table starts now: its header cell over the first input column, or its first data row. */
async function locate(context: Excel.RequestContext, b: WatchedBlock): Promise<Located> {
  const found = await readRecordedTable(context, b);
  if ("problem" in found) return { problem: sentence(found.problem) };
  const { grid, at, sheet } = found;
  const first = b.inputColumns.uprn ?? b.inputColumns.postcode ?? b.inputColumns.address;
  if (first === undefined) return { problem: `The check of "${sheet}" recorded no UPRN or Postcode column` };
  // The input columns moved with the block (a column inserted left of both) or stayed (inserted between them): core decides.
  const s = found.inputShift;
  if (s === undefined) return { problem: sentence(inputColumnNotFound(sheet)) };
  if (at.headerRow !== null) return { sheet, rowIndex: at.headerRow, columnIndex: first + s, found };
  const row = grid.findIndex((r) => !isBlankCell(r[first + s]));
  const inputColumns: ColumnMapping = {};
  for (const k of ["uprn", "postcode", "address"] as const)
    if (b.inputColumns[k] !== undefined) inputColumns[k] = b.inputColumns[k]! + s;
  return { sheet, rowIndex: row, columnIndex: first + s, inputColumns, found };
}

/** A Run log row for a block that was due but not checked (nothing sent, nothing written on its sheet). */
async function logNotChecked(deps: RecheckDeps, startedAt: string, problem: string): Promise<string> {
  const now = deps.now ?? deps.client.transport.now;
  const entry = notCheckedLogEntry({
    startedAt,
    endedAt: new Date(now()).toISOString(),
    trigger: "on open",
    runBy: deps.runBy ?? "",
    problem,
  });
  return actionSheets()
    .then((m) => m.appendRunLogs(deps.excelRun, [], entry))
    .catch((e: unknown) => `${problem} (and the Run log could not be written: ${officeErrorText(e)}).`);
}

/** Checks again every recorded block that is due, in the order they were recorded. */
export async function recheckOnOpen(deps: RecheckDeps): Promise<RecheckOutcome> {
  const now = deps.now ?? deps.client.transport.now;
  const due = dueBlocks(deps.settings, now());
  const out: RecheckOutcome = { due: due.length, checked: 0, lines: [] };
  const seen = new Set<string>();
  const gone: RunPlace[] = [];
  const written: RunPlace[] = [];
  for (const b of due) {
    if (deps.signal?.aborted) break;
    const startedAt = new Date(now()).toISOString();
    let at: Located;
    try {
      at = await deps.excelRun((context) => locate(context, b));
    } catch (e) {
      at = { problem: `The sheet "${b.sheet}" could not be read (${officeErrorText(e)})` };
    }
    if ("problem" in at) {
      gone.push(b);
      out.lines.push(
        await logNotChecked(
          deps,
          startedAt,
          `${at.problem}, so it was not re-checked on open and is no longer watched. Check it by hand to watch it again.`,
        ),
      );
      continue;
    }
    // Two records of one block (it moved between checks): checked once.
    const key = `${at.found.sheetId}|${at.rowIndex}|${at.columnIndex}`;
    if (seen.has(key)) {
      gone.push(b);
      continue;
    }
    seen.add(key);
    const { sheet, rowIndex, columnIndex, inputColumns } = at;
    const prep = await prepareCheck(deps.excelRun, {
      plan: deps.plan,
      at: { sheet, rowIndex, columnIndex, inputColumns },
    });
    if (!prep.ok || !prep.check.inPlace) {
      gone.push(b);
      const why = prep.ok
        ? `The results block on "${sheet}" was changed since the last check (a column inserted or a header renamed)`
        : `The table on "${sheet}" cannot be checked now: ${prep.message}`;
      out.lines.push(
        await logNotChecked(
          deps,
          startedAt,
          `${why.replace(/[.\s]+$/, "")}. It was not re-checked on open and is no longer watched; check it by hand to watch it again.`,
        ),
      );
      continue;
    }
    const summary = await runCheck(prep.check, {
      ...deps,
      trigger: "on open",
      onBlockWritten: (place, checkedAt) => (written.push(place), recordBlock(deps.settings, place, checkedAt, b)),
      tables: () => watchedBlocks(deps.settings),
    });
    // Its record is replaced by the one the run made where the block is now (the same, unless the block moved).
    gone.push(b);
    out.checked++;
    out.lines.push(summary.runLog ?? summary.title);
    if (summary.fatal) break;
  }
  // Records of blocks gone, changed, seen twice, or moved (recorded again where they are now) are forgotten; new ones stay.
  await forgetBlocks(
    deps.settings,
    gone.filter((g) => !written.some((w) => sameBlock(g, w))),
  ).catch(() => undefined);
  return out;
}
