/**
 * The Excel side of a test, set up once: a workbook in the Excel stand-in, a Professional client on the sandbox, the
 * task pane's prepareCheck and runCheck with their dependencies, and the results block read back by header.
 *
 *   const { excelRun, api } = workbook();
 *   api.seed("Sheet1", "A1", [["UPRN"], [uprn]]);
 *   api.select("Sheet1", "A1");
 *   await runCheck(await prepared(excelRun), deps(excelRun, proClient(sb)));
 *   block(api, "Sheet1", 1, 2, 2).values[0][MATCHED];   // the results block from column B, row 2
 */
import { OUTPUT_COLUMNS, createClient, type FetchLike, type PlanName } from "../../core";
import { prepareCheck, runCheck, type ExcelRun, type RunDeps } from "../../excel/taskpane/check-run";
import type { TestClock } from "./clock";
import type { Sandbox } from "./sandbox";
import { colLetters, createStandIn } from "./excel-standin";

export { colLetters, createStandIn };

/** The number of columns of the results block. */
export const OUTPUT_WIDTH = OUTPUT_COLUMNS.length;
/** The 0-based place of a results column in the block, by its header ("Matched UPRN"). */
export function outputIndex(header: string): number {
  const i = OUTPUT_COLUMNS.findIndex((c) => c.header === header);
  if (i < 0) throw new Error(`no results column "${header}"`);
  return i;
}
export const MATCHED = outputIndex("Matched UPRN");
export const MESSAGE = outputIndex("Message");
export const EPC = outputIndex("EPC status");

/** A workbook in the stand-in, and the Excel.run the pane's code is given. */
export function workbook() {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  return { s, excelRun, api: s.api };
}

/**
 * A Professional client on the sandbox over loopback. With a test clock its waits and the sandbox's jobs move on that
 * clock; `fetch` wraps each request (to act on the sheet between a request and its answer being written).
 */
export function proClient(sb: Sandbox, opts: { clock?: TestClock; fetch?: FetchLike } = {}) {
  const inner: FetchLike = opts.fetch ?? ((u, i) => fetch(u, i as RequestInit) as never);
  return createClient({
    baseUrl: sb.baseUrl,
    apiKey: "sandbox-professional",
    fetch: opts.clock ? opts.clock.fetch(inner) : inner,
    ...(opts.clock ? { sleep: opts.clock.sleep, now: opts.clock.now } : {}),
  });
}

/** prepareCheck on the selection, failing the test with the pane's own message when it refuses. */
export async function prepared(
  excelRun: ExcelRun,
  opts: { plan: PlanName; mapping?: any; hasHeader?: boolean } = { plan: "professional" },
) {
  const prep = await prepareCheck(excelRun, opts);
  if (!prep.ok) throw new Error(prep.message);
  return prep.check;
}

/** runCheck's dependencies: the workbook, a client, Professional, no action sheets unless asked. */
export function deps(
  excelRun: ExcelRun,
  client: ReturnType<typeof createClient>,
  extra: Partial<RunDeps> = {},
): RunDeps {
  return { excelRun, client, plan: "professional", actionSheets: false, ...extra };
}

/** Prepares the selection and runs the check on it. */
export async function checkSelection(excelRun: ExcelRun, client: ReturnType<typeof createClient>) {
  return runCheck(await prepared(excelRun), deps(excelRun, client));
}

/** The results block's rows `first` to `last` (1-based sheet rows), the block starting at a 0-based column. */
export function block(api: any, sheet: string, startCol: number, first: number, last: number) {
  return api.read(sheet, `${colLetters(startCol)}${first}:${colLetters(startCol + OUTPUT_WIDTH - 1)}${last}`);
}

/** Deletes whole columns, shifting the cells right of them left (Excel's Delete > Sheet Columns), in the stand-in. */
export function deleteColumns(api: any, sheet: string, first: number, count: number) {
  const cells: Map<string, unknown> = api.state.sheets.get(sheet);
  const moved = new Map<string, unknown>();
  for (const [k, cell] of cells) {
    const [r, c] = k.split(",").map(Number);
    if (c >= first && c < first + count) continue;
    moved.set(`${r},${c >= first + count ? c - count : c}`, cell);
  }
  cells.clear();
  for (const [k, cell] of moved) cells.set(k, cell);
}
