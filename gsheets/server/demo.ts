/**
 * "Insert sample table": the demo's properties (core/demo/demo.ts) on a sheet of their own, selected, so that "Check
 * selected rows" with the demo key works at once. A new sheet every time (Demo properties, Demo properties 2...):
 * it never writes over anything.
 */
import { demoSampleSheet, demoSheetName, isDemoKey, sampleTableMessage } from "../../core/demo/demo";
import type { ActionSheetsResult } from "../shared/api";
import { loadSettings } from "./settings";

export function insertSampleTable(): ActionSheetsResult {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const name = demoSheetName(ss.getSheets().map((s) => s.getName()));
  const { values, numberFormats } = demoSampleSheet(new Date().toISOString().slice(0, 10));
  const sheet = ss.insertSheet(name, ss.getNumSheets());
  const range = sheet.getRange(1, 1, values.length, values[0].length);
  range.setNumberFormats(values.map(() => numberFormats));
  range.setValues(values);
  sheet.getRange(1, 1, 1, values[0].length).setFontWeight("bold");
  sheet.setFrozenRows(1);
  sheet.autoResizeColumns(1, values[0].length);
  sheet.activate();
  range.activate();
  const s = loadSettings();
  return { ok: true, message: sampleTableMessage(values.length - 1, name, !!s.config && isDemoKey(s.config.apiKey)) };
}
