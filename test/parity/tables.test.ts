/**
 * The same tables and selections give the same grid in Excel and Google Sheets: one cell, a header row, whole
 * columns, stacked and side-by-side tables, title rows, a table away from A1, the user's own columns, no header row.
 * How each scenario runs in both add-ins is in sheet-model.ts.
 */
import { parityScenarios } from "./sheet-model";

parityScenarios("tables");
