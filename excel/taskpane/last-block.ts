/**
 * The last check's results block and the Action list builders that read it, for the digest and Action list cards as
 * well as the check. Those cards read the sheet, never the service, so they take these from here: through the check
 * chunk they would fetch its code and the service client's chunk too (excel/webpack.excel.js).
 */
import type { UserStore } from "../settings";
import type * as ActionSheets from "./action-sheets";
import type { RunPlace } from "./rows-now";
import { LAST_BLOCK_KEY } from "./stored";

/** The results block of the last check, as stored after it (a hint: the block is found again before use). */
export async function lastBlock(store: UserStore): Promise<RunPlace | null> {
  try {
    const raw = await store.getItem(LAST_BLOCK_KEY);
    const p = raw ? (JSON.parse(raw) as RunPlace) : null;
    return p && typeof p.sheet === "string" && typeof p.blockColumn === "number" ? p : null;
  } catch {
    return null;
  }
}

/**
 * The Action list and Compliance summary builders, loaded when first needed (after a run, or from their buttons): they
 * are not needed to open the pane or compute a function, so the page starts without them (a chunk of its own).
 */
export function actionSheets(): Promise<typeof ActionSheets> {
  return import(/* webpackChunkName: "action-sheets" */ "./action-sheets");
}
