/**
 * The order jest starts suites in. With timings from an earlier run (jest's cache) the slowest go first anyway; on a
 * fresh clone there are none and jest goes by file size, which can start a long suite last and leave the other workers
 * idle at the end. So the suites known to take longest (about 7 s or more each, in a run of `npm test`) start first, the rest as jest would.
 */
const Sequencer = require("@jest/test-sequencer").default;

const SLOW_FIRST = [
  "test/gsheets/server/digest.test.ts",
  "test/gsheets/sidebar/sidebar.e2e.test.ts",
  "test/gsheets/server/schedule.test.ts",
  "test/excel/taskpane/check-run.test.ts",
  "test/gsheets/server/storage-limits.test.ts",
  "test/parity/tables.test.ts",
  "test/excel/taskpane/accessibility.e2e.test.ts",
  "test/gsheets/sidebar/accessibility.e2e.test.ts",
  "test/excel/taskpane/action-sheets.test.ts",
  "test/gsheets/server/action-sheets.test.ts",
  "test/parity/rows.test.ts",
  "test/excel/taskpane/portfolio.test.ts",
  "test/excel/taskpane/taskpane.e2e.test.ts",
  "test/tooling/start.test.ts",
  "test/parity/blocks.test.ts",
  "test/gsheets/server/portfolio.test.ts",
  "test/excel/taskpane/change-log.test.ts",
  "test/excel/taskpane/recheck-renamed.e2e.test.ts",
  "test/excel/taskpane/typed-dates.test.ts",
  "test/excel/manifest.test.ts",
  "test/gsheets/server/service-address.test.ts",
  "test/core/reports/actions.test.ts",
  "test/gsheets/server/run-engine.test.ts",
  "test/excel/taskpane/write-chunks.test.ts",
  "test/parity/run-words.test.ts",
];

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    // Timings known (a cache from an earlier run): jest's order, slowest first, stands.
    if (sorted.some((t) => t.duration != null)) return sorted;
    const rank = (t) => {
      const i = SLOW_FIRST.findIndex((p) => t.path.replace(/\\/g, "/").endsWith(p));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    // A stable sort: the rest keep jest's order by file size.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowFirstSequencer;
module.exports.SLOW_FIRST = SLOW_FIRST;
