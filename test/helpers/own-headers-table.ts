/**
 * Own-obligation columns headed as agents type them, for both hosts: two smoke-alarm columns (one of them Smoke & CO),
 * "RTR expiry date", "Legionella last assessed", a header that looks like a compliance date but is not read, and one of
 * another purpose. Fixed days long past, so the actions are overdue whatever day the test runs.
 */
export const OWN_HEADERS = [
  "Tenancy start",
  "Smoke alarms checked",
  "Smoke & CO alarms tested",
  "RTR expiry date",
  "Legionella last assessed",
  "Smoke alarm fitted date",
  "Notes on smoke",
];

/** The own cells of the first and second property, in OWN_HEADERS order. */
export const OWN_CELLS = [
  ["2020-01-01", "2019-06-01", "2019-09-01", "2020-02-01", "", "2019-01-01", "kitchen and landing"],
  ["2020-01-01", "2019-10-01", "2019-09-01", "", "2019-03-01", "", ""],
];

const latest = (from: string) =>
  `(date from "${from}", the latest of "Smoke alarms checked" and "Smoke & CO alarms tested")`;

/** What the Action list and the status must show for them. */
export const OWN_EXPECT = {
  /** The first property: the combined column's date is the later; the second: the smoke column's. */
  smokeAction: [
    `Check the smoke alarms work on the day the tenancy begins (2020-01-01), and record it ${latest("Smoke & CO alarms tested")}`,
    `Check the smoke alarms work on the day the tenancy begins (2020-01-01), and record it ${latest("Smoke alarms checked")}`,
  ],
  /** The combined column alone counts for the CO alarms: one column, no choice to name. */
  coAction: "Check the carbon monoxide alarms work on the day the tenancy begins (2020-01-01), and record it",
  due: "2020-01-01",
  rtrDue: "2020-02-01",
  unread: `Column 'Smoke alarm fitted date' looks like a compliance date but is not read: rename it to one of "Smoke alarms checked", "Date of smoke alarm check" or "Smoke & CO alarms checked".`,
};

/** How many times `sentence` occurs in `text`. */
export const occurrences = (text: string, sentence: string) => text.split(sentence).length - 1;
