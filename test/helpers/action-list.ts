/**
 * The Action list's header row as the user sees it, with the sheet's own owner column found as "Landlord": written out
 * here once, not derived from core, so a change to the columns the user sees shows up as a failing test.
 */
export const ACTION_LIST_HEADERS = [
  "Window",
  "Due",
  "Days left",
  "UPRN",
  "Address",
  "Landlord",
  "Check",
  "Action",
  "Rule",
  "Table",
  "Row",
  "Done",
  "Notes",
  "Action ID",
];
