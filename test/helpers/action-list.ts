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

/** What a test typed on the Action list, by action (its key): the action's Action ID then, and its Done and Notes. */
export type TypedOnList = Map<string, { id: unknown; done: unknown; notes: unknown }>;

/** A list's header row without an owner column (the tables these tests check have none), and a column's index in it. */
export const LIST_HEADERS = ACTION_LIST_HEADERS.filter((h) => h !== "Landlord");
export const listColumn = (name: string) => LIST_HEADERS.indexOf(name);

/**
 * Types Done on every third open action of the list's grid and a note on every other one, through the host's `type`
 * (0-based row of the grid, then the Done and Notes cells); returns what was typed, by the action's `key`.
 */
export function typeOnActionList(
  grid: readonly (readonly unknown[])[],
  key: (row: readonly unknown[]) => string,
  type: (row: number, done: unknown, notes: unknown) => void,
): TypedOnList {
  const typed: TypedOnList = new Map();
  for (let i = 1; i < grid.length && grid[i][listColumn("UPRN")] !== ""; i++) {
    const done = i % 3 === 0 ? true : "";
    const notes = i % 2 === 0 ? `booked, ref ${i}` : "";
    if (!done && !notes) continue;
    type(i, done, notes);
    typed.set(key(grid[i]), { id: grid[i][listColumn("Action ID")], done, notes });
  }
  return typed;
}

/** Every typed value is on its action's row again (Closed when ticked Done past its due date), none under "no longer found". */
export function expectTypedKept(
  grid: readonly (readonly unknown[])[],
  key: (row: readonly unknown[]) => string,
  typed: TypedOnList,
): void {
  const byKey = new Map(grid.slice(1).map((r) => [key(r), r]));
  expect(typed.size).toBeGreaterThan(5);
  for (const [k, t] of typed) {
    const r = byKey.get(k)!;
    expect(r).toBeDefined();
    expect([r[listColumn("Action ID")], r[listColumn("Done")], r[listColumn("Notes")]]).toEqual([
      t.id,
      t.done,
      t.notes,
    ]);
  }
  expect(grid.flat().some((v) => /no longer found/.test(String(v)))).toBe(false);
}
