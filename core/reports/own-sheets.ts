/**
 * The sheets the add-ins build themselves (the Action list, the Compliance summary and the two logs). Rows on them
 * are never checked, in either add-in: each is written again after every check, so results put there would be lost.
 */
import { ACTION_LIST_SHEET, SUMMARY_SHEET } from "./actions";
import { CHANGE_LOG_ARCHIVE_SHEET, CHANGE_LOG_SHEET, RUN_LOG_SHEET } from "./changes";

export const OWN_SHEETS = [
  ACTION_LIST_SHEET,
  SUMMARY_SHEET,
  CHANGE_LOG_SHEET,
  CHANGE_LOG_ARCHIVE_SHEET,
  RUN_LOG_SHEET,
] as const;

/** Why rows on this sheet cannot be checked, or undefined when they can. */
export function ownSheetProblem(sheetName: string): string | undefined {
  const name = sheetName.trim();
  if (!(OWN_SHEETS as readonly string[]).includes(name)) return undefined;
  return `"${name}" is a sheet the add-in builds itself (it is written again after every check), so its rows cannot be checked. Select rows of your own table of properties, then check again.`;
}
