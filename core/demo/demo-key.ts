/**
 * The demo key and what demo answers say, apart from core/demo/demo.ts (which carries the demo's data) so that a host can
 * recognise the key everywhere and load the demo itself only when it is used.
 */
export const DEMO_KEY = "demo";
/** What the Message column, the pane and the sidebar say about a demo answer. */
export const DEMO_NOTE = "Demo data, not a real check";
/**
 * What an add-in says once the demo key is saved; `answers` says what answers from the demo data there (Excel's
 * functions do too).
 */
export function demoModeLine(answers: "checks" | "checks and functions"): string {
  return `Demo mode: ${answers} answer from built-in demo data (${DEMO_NOTE.toLowerCase()}) and nothing is sent. Insert the sample table to try it, or save your own key to check real properties.`;
}

/** The sheet "Insert sample table" writes. */
export const DEMO_SHEET = "Demo properties";

export function isDemoKey(key: string | null | undefined): boolean {
  return typeof key === "string" && key.trim().toLowerCase() === DEMO_KEY;
}

/** The name "Insert sample table" gives its sheet: DEMO_SHEET, or "Demo properties 2", 3... when taken (never overwrites). */
export function demoSheetName(existing: readonly string[]): string {
  const taken = new Set(existing.map((n) => n.toLowerCase()));
  for (let i = 1; ; i++) {
    const name = i === 1 ? DEMO_SHEET : `${DEMO_SHEET} ${i}`;
    if (!taken.has(name.toLowerCase())) return name;
  }
}
