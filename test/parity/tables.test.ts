/**
 * The same tables and selections give the same grid in Excel and Google Sheets: one cell, a header row, whole
 * columns, stacked and side-by-side tables, title rows, a table away from A1, the user's own columns, no header row.
 * The scenarios are in scenarios.ts, how each runs in both add-ins in hosts.ts.
 */
import { parityScenarios } from "./sheet-model";

parityScenarios("tables");
