/**
 * Test helpers over the in-memory sheet: seed an input table, and read the output block back by header
 * (column positions and colours come from core's table, never hard-coded here).
 */
import { OUTPUT_COLUMNS, STATUS_COLOURS, type DisplayStatus } from "../../../core";
import type { FakeSheet } from "./fake-sheets";
import type { GasEnvironment } from "./gas";
import { passTime, type SandboxProcess } from "./sandbox";

export const API_KEY = "sandbox-professional";

export function configure(env: GasEnvironment, sandbox: SandboxProcess, key = API_KEY, plan = "professional") {
  const r = env.run("saveSettings", { apiKey: key, baseUrl: sandbox.baseUrl, plan });
  if (!r.ok) throw new Error(r.message);
  return r;
}

/** Header + rows starting at A1; returns the sheet rows of the data. */
export function seedTable(
  sheet: FakeSheet,
  header: unknown[],
  rows: unknown[][],
): { firstRow: number; lastRow: number } {
  if (sheet.maxRows < rows.length + 10) sheet.maxRows = rows.length + 10;
  sheet.seed(1, 1, [header, ...rows]);
  return { firstRow: 2, lastRow: rows.length + 1 };
}

/** A UPRN column of `uprns` under its header at A1, selected whole, and a check started on it from the sidebar. */
export function startOnUprns(env: GasEnvironment, sandbox: SandboxProcess, uprns: readonly string[]): void {
  configure(env, sandbox);
  seedTable(
    env.sheet,
    ["UPRN"],
    uprns.map((u) => [u]),
  );
  env.sheet.select(`A2:A${uprns.length + 1}`);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
}

export function headerRow(sheet: FakeSheet, row = 1): unknown[] {
  return sheet.peek(row, 1, 1, sheet.maxCols)[0];
}

/** 1-based sheet column of an output header, found in the header row. */
export function outputCol(sheet: FakeSheet, key: string, row = 1): number {
  const header = OUTPUT_COLUMNS.find((c) => c.key === key)!.header;
  const i = headerRow(sheet, row).indexOf(header);
  if (i < 0) throw new Error(`output header "${header}" not found in row ${row}`);
  return i + 1;
}

export function cellValue(sheet: FakeSheet, row: number, col: number): unknown {
  return sheet.peek(row, col, 1, 1)[0][0];
}

export const STATUS_KEYS: [string, string][] = OUTPUT_COLUMNS.filter((c) => c.kind === "status").map((c) => [
  c.key,
  c.check as string,
]);

export function expectedFill(status: unknown): string | null {
  const c = STATUS_COLOURS[String(status) as DisplayStatus];
  return c ? c.fill : null;
}

/**
 * The sheets written beside the results block (Action list, Compliance summary, and the Change log and Run log that
 * runs append to): their writes are counted apart from the block's.
 */
export const ACTION_SHEETS = ["Action list", "Compliance summary", "Change log", "Change log (archive)", "Run log"];
const onActionSheets = (c: { sheet?: string; method: string }) =>
  (c.sheet !== undefined && ACTION_SHEETS.includes(c.sheet)) || c.method === "insertSheet";

/** A poll's writes to the checked sheet (the results block), and apart, its writes to the Action list and summary. */
export function writesPerPoll(
  env: GasEnvironment,
  poll: () => unknown,
): { result: any; writes: string[]; calls: number; actionWrites: string[] } {
  const mark = env.log.mark();
  const result = poll();
  const all = env.log.writesSince(mark);
  const writes = all.filter((c) => !onActionSheets(c)).map((c) => `${c.target}.${c.method}`);
  const actionWrites = all.filter(onActionSheets).map((c) => `${c.target}.${c.method}`);
  const calls = env.log.since(mark).filter((c) => !onActionSheets(c)).length;
  return { result, writes, calls, actionWrites };
}

/**
 * Polls as the sidebar does, letting the returned waitMs (capped) pass on the test clock, until the run ends; then
 * the end of the run (finishBulkCheck, the Action list, summary and Run log) when the last poll says it is due.
 */
export async function pollToEnd(
  env: GasEnvironment,
  perPoll?: (writes: string[], calls: number, p: any, actionWrites?: string[]) => void,
  maxPolls = 400,
) {
  const progress: any[] = [];
  for (let i = 0; i < maxPolls; i++) {
    const { result, writes, calls, actionWrites } = writesPerPoll(env, () => env.run("pollBulkCheck"));
    perPoll?.(writes, calls, result, actionWrites);
    progress.push(result);
    if (result && result.endDue) {
      const end = writesPerPoll(env, () => env.run("finishBulkCheck"));
      perPoll?.(end.writes, end.calls, end.result, end.actionWrites);
      progress.push(end.result);
      return progress;
    }
    if (!result || result.phase !== "running") return progress;
    await passTime(env, Math.min(result.waitMs, 3000));
  }
  throw new Error("the run did not end");
}

/** A run's end as the sidebar shows it, headline then Details, in one string (core runEndWords). */
export function runWords(p: { message: string; details?: string[] }): string {
  return [p.message, ...(p.details ?? [])].join(" ");
}
