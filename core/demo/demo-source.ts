/**
 * Where the demo's properties come from: core/demo/demo-data.ts, bundled with the code. The Apps Script build replaces this
 * module with gsheets/server/demo-source.ts, which reads the same text from a project file only when the demo is
 * used, so that Code.js (evaluated on every server call) does not carry it.
 */
import { DEMO_DATA } from "./demo-data";

export const demoDataText = (): string => DEMO_DATA;
