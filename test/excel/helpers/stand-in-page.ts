/**
 * Calls the Excel stand-in inside a page (window.__excelStandIn): `standIn(page)("read", "Sheet1", "A1:C3")`.
 * Arguments and result cross as one JSON string each way: Playwright checks every value of a structured argument or
 * result, and for a grid of a thousand cells that costs more CPU than the check under test. What the stand-in takes
 * and gives is JSON already (text, numbers, booleans, null; dates as serial numbers).
 */
import type { Page } from "playwright-core";

export function standIn(page: Page) {
  return async <T = any>(fn: string, ...args: unknown[]): Promise<T> =>
    JSON.parse(
      await page.evaluate(([f, a]) => JSON.stringify((window as any).__excelStandIn[f](...JSON.parse(a)) ?? null), [
        fn,
        JSON.stringify(args),
      ] as const),
    );
}
