/**
 * The colours of the status words and of the windows an action falls in, and the checks' short names: small and
 * free of the rules, so the Sheets sidebar can show the legends without bundling the rest of core.
 */
import type { CheckName, DisplayStatus } from "../service/checks";

/** Fluent UI palette: red/amber/green by status, grey for not required and unknown, orange for errors. */
export const STATUS_COLOURS: Record<DisplayStatus, { fill: string; font: string; label: string }> = {
  pass: { fill: "#DFF6DD", font: "#0E700E", label: "Pass" },
  warning: { fill: "#FFF4CE", font: "#8A5300", label: "Warning: expiring soon or needs attention" },
  fail: { fill: "#FDE7E9", font: "#A80000", label: "Fail" },
  not_required: { fill: "#F3F2F1", font: "#605E5C", label: "Not required" },
  error: { fill: "#FED9CC", font: "#A52A00", label: "Error: not checked (see Message)" },
  unknown: { fill: "#EDEBE9", font: "#323130", label: "Unknown status word from the service (see Message)" },
};

export function statusColour(value: unknown): { fill: string; font: string } | null {
  if (typeof value !== "string") return null;
  const c = STATUS_COLOURS[value.trim().toLowerCase() as DisplayStatus];
  return c ? { fill: c.fill, font: c.font } : null;
}

export const WINDOWS = ["Overdue", "Urgent", "Book", "Plan", "OK"] as const;
export type Window = (typeof WINDOWS)[number];

/** Window colours, defined once like the status colours: Overdue red, Urgent orange, Book amber, Plan blue, OK green. */
export const WINDOW_COLOURS: Record<Window, { fill: string; font: string; label: string }> = {
  Overdue: { fill: "#FDE7E9", font: "#A80000", label: "Overdue: the due date has passed, or it cannot wait" },
  Urgent: { fill: "#FED9CC", font: "#A52A00", label: "Urgent: due within the urgent window (7 days for gas)" },
  Book: { fill: "#FFF4CE", font: "#8A5300", label: "Book: time to book the work" },
  Plan: { fill: "#DEECF9", font: "#004578", label: "Plan: coming up, or a note to plan for" },
  OK: { fill: "#DFF6DD", font: "#0E700E", label: "OK: nothing due inside the windows" },
};

export function windowColour(value: unknown): { fill: string; font: string } | null {
  if (typeof value !== "string") return null;
  const w = WINDOWS.find((x) => x.toLowerCase() === value.trim().toLowerCase());
  return w ? { fill: WINDOW_COLOURS[w].fill, font: WINDOW_COLOURS[w].font } : null;
}

/**
 * The Action list's own words in its Window column: "Later" (an action typed on, due after the list's window: set aside
 * until the window reaches it) and "Closed" (its action ended). Greys, told apart: a Later action is still to do.
 */
export const LIST_STATE_COLOURS: Record<"Later" | "Closed", { fill: string; font: string }> = {
  Later: { fill: "#EDEBE9", font: "#323130" },
  Closed: { fill: "#F3F2F1", font: "#605E5C" },
};

/** The colour of an Action list Window cell: a window's, Later's or Closed's; null for anything else. */
export function actionListColour(value: unknown): { fill: string; font: string } | null {
  if (value === "Later" || value === "Closed") return { ...LIST_STATE_COLOURS[value] };
  return windowColour(value);
}

/**
 * A Status or Window cell that holds no word of ours: white with black text, so a colour left by an earlier word does
 * not stay (Excel sets every cell's colours; Google Sheets' rules leave such a cell alone).
 */
export const NO_FILL = { fill: "#FFFFFF", font: "#000000" } as const;

/** Every word the Action list's Window column colours, with its colour: the rules a host sets once over the column. */
export function actionListColourRules(): { word: string; fill: string; font: string }[] {
  return [...WINDOWS, "Later" as const, "Closed" as const].map((word) => ({ word, ...actionListColour(word)! }));
}

export const CHECK_LABELS: Record<CheckName, string> = {
  epc: "EPC",
  gas_safety: "Gas safety",
  eicr: "EICR",
  licensing: "Licensing",
  deposit_protection: "Deposit",
};
