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

/** The workbook in a page, as a test reads it: the stand-in's calls, the saved workbook, a range's values. */
export function pageWorkbook(page: () => Page) {
  const call = <T = any>(fn: string, ...args: unknown[]) => standIn(page())<T>(fn, ...args);
  return {
    standIn: call,
    dump: async () => JSON.parse(await call<string>("dump")),
    read: (sheet: string, a1: string) => call<{ values: unknown[][] }>("read", sheet, a1).then((r) => r.values),
  };
}

/**
 * Closes the workbook and opens it again as `saved` (the stand-in's dump, as text or parsed): the page reloads with it.
 * `at`: the page's clock when it opens again (a page whose clock the test installed).
 */
export async function reopenWorkbook(page: Page, saved: unknown, at?: Date): Promise<void> {
  await page.evaluate(
    (d) => sessionStorage.setItem("standin-restore", d),
    typeof saved === "string" ? saved : JSON.stringify(saved),
  );
  if (at) await page.clock.setSystemTime(at);
  await page.reload();
}
