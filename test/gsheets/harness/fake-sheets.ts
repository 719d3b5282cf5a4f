/**
 * A stand-in for SpreadsheetApp: sheets held in memory that behave like Sheets where our code depends on it
 * (value coercion, formulas, bounds, conditional formats) and record every call, so tests can count writes.
 */
export type { CallRecord } from "./call-log";
export { CallLog } from "./call-log";
export { columnLetter } from "../../helpers/columns";
export { parseA1 } from "./a1";
export { zonedParts, zonedTimeToUtc } from "./zoned-time";
export { FakeChart, FakeChartBuilder } from "./charts";
export { BooleanCriteria, FakeConditionalFormatRule, FakeRuleBuilder } from "./conditional-formats";
export { FakeRange } from "./range";
export { FakeSheet } from "./sheet";
export { FakeSpreadsheet } from "./spreadsheet";
