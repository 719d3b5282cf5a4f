/**
 * The suites the sequencer starts first on a fresh clone (test/helpers/sequencer.js) are suites that exist: a suite
 * moved or renamed would otherwise drop out of the list unseen, and start last.
 */
import fs from "fs";
import path from "path";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SLOW_FIRST } = require("../helpers/sequencer") as { SLOW_FIRST: string[] };
const ROOT = path.resolve(__dirname, "../..");

test("every suite named to start first exists, once", () => {
  expect(SLOW_FIRST.length).toBeGreaterThan(10);
  expect(SLOW_FIRST.filter((p) => !fs.existsSync(path.join(ROOT, p)))).toEqual([]);
  expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length);
});
