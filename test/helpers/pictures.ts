/**
 * Pictures the page tests can leave in test-output/ (git-ignored) for a person to look at: no test compares them, and
 * each costs Chromium a paint of the whole page and a PNG, so they are taken only when PAGE_PICTURES is set
 * (`PAGE_PICTURES=1 npx jest test/gsheets/sidebar/sidebar.e2e.test.ts`).
 */
import * as fs from "fs";
import * as path from "path";
import type { Page } from "playwright-core";

export const PICTURES_DIR = path.resolve(__dirname, "../../test-output");

/** PAGE_PICTURES set to anything but "", "0" or "false". */
export function picturesWanted(): boolean {
  const v = (process.env.PAGE_PICTURES ?? "").trim().toLowerCase();
  return v !== "" && v !== "0" && v !== "false";
}

/** Saves the page as test-output/`file` when pictures are wanted (the whole page unless `fullPage` is false). */
export async function savePicture(page: Pick<Page, "screenshot">, file: string, fullPage = true): Promise<void> {
  if (!picturesWanted()) return;
  fs.mkdirSync(PICTURES_DIR, { recursive: true });
  await page.screenshot({ path: path.join(PICTURES_DIR, file), fullPage });
}
