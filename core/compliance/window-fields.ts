/**
 * The windows table of both add-ins' settings: a row of three day fields per check, each with its id and the words
 * that label it, and the field a refusal of parseWindowSettings names. Light (no rules), so the Sheets sidebar bundles
 * it.
 */
import { CHECK_NAMES, type CheckName } from "../service/checks";
import { CHECK_LABELS } from "../sheet/colours";

export const WINDOW_KEYS = ["plan", "book", "urgent"] as const;
export type WindowKey = (typeof WINDOW_KEYS)[number];

/** The most days a window may be: ten years. */
export const MAX_WINDOW_DAYS = 3650;

export interface WindowField {
  check: CheckName;
  key: WindowKey;
  /** The input's id in the page. */
  id: string;
  /** Its accessible name, the words a refusal names it by. */
  label: string;
}

/** One row per check, in the checks' order: the check's label and its Plan, Book and Urgent fields. */
export function windowFieldRows(): { check: CheckName; label: string; fields: WindowField[] }[] {
  return CHECK_NAMES.map((check) => ({
    check,
    label: CHECK_LABELS[check],
    fields: WINDOW_KEYS.map((key) => ({
      check,
      key,
      id: `win-${check}-${key}`,
      label: `${CHECK_LABELS[check]} ${key} window, days`,
    })),
  }));
}

/**
 * The field a settings message names ("EICR plan window: ..."), or a check's Plan field when the message is about the
 * order of its windows ("EICR windows must be Plan ≥ Book ≥ Urgent"); undefined when it names none.
 */
export function windowFieldNamed(message: string): WindowField | undefined {
  for (const row of windowFieldRows())
    for (const f of row.fields)
      if (
        message.includes(`${row.label} ${f.key} window`) ||
        (f.key === "plan" && message.includes(`${row.label} windows must be`))
      )
        return f;
  return undefined;
}
