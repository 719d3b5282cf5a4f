/**
 * The Google Sheets side of a test, set up once: a fresh Apps Script environment (the built Code.js in a vm) set up
 * for the sandbox, and a row of the results block read back by header.
 *
 *   const env = configuredEnv(sandbox);
 *   env.sheet.seed(1, 1, [["UPRN"], [uprn]]);
 *   env.sheet.select("A2");
 *   env.run("startBulkCheck", {});
 *   await pollToEnd(env);
 *   resultAt(env, 2, blockColumn(env, 1)).matched;
 */
import { OUTPUT_COLUMNS } from "../../core";
import { createGasEnvironment, type GasEnvironment } from "../gsheets/harness/gas";
import type { SandboxProcess } from "../gsheets/harness/sandbox";
import { configure, outputCol, seedTable } from "../gsheets/harness/table";

/** The number of columns of the results block. */
export const OUTPUT_WIDTH = OUTPUT_COLUMNS.length;
const indexOf = (key: string) => OUTPUT_COLUMNS.findIndex((c) => c.key === key);
/** 0-based places in the block of the columns tests read most. */
export const MATCHED = indexOf("matched_uprn");
export const MESSAGE = indexOf("message");
export const EPC = indexOf("epc_status");

/** A new Apps Script environment whose settings name the sandbox and its Professional key. */
export function configuredEnv(sandbox: SandboxProcess): GasEnvironment {
  const env = createGasEnvironment();
  configure(env, sandbox);
  return env;
}

/** A configured environment whose sheet holds a UPRN table of these properties, its rows selected, as a user would. */
export function selectedUprnTable(sandbox: SandboxProcess, properties: readonly { uprn: string }[]) {
  const env = configuredEnv(sandbox);
  const { firstRow, lastRow } = seedTable(
    env.sheet,
    ["UPRN"],
    properties.map((p) => [p.uprn]),
  );
  env.sheet.select(`A${firstRow}:A${lastRow}`);
  return { env, firstRow, lastRow };
}

/** The 1-based column where the results block whose header is on `headerRow` starts. */
export function blockColumn(env: GasEnvironment, headerRow: number): number {
  return outputCol(env.sheet, "compliance_score", headerRow);
}

/** A row of the results block starting at blockCol: its Matched UPRN, Message and EPC status, and every cell. */
export function resultAt(env: GasEnvironment, row: number, blockCol: number) {
  const r = env.sheet.peek(row, blockCol, 1, OUTPUT_WIDTH)[0];
  return {
    matched: String(r[MATCHED] ?? ""),
    message: String(r[MESSAGE] ?? ""),
    epc: String(r[EPC] ?? ""),
    all: r,
  };
}
