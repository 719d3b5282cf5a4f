/**
 * Jest runs the TypeScript sources through SWC, transpiling each file alone with tsconfig.json's settings (ES2019,
 * CommonJS with esModuleInterop, class fields assigned as TypeScript does for that target, source maps) and without
 * type-checking: `npm run typecheck` already checks the types, before the tests. jest.mock calls are hoisted as usual.
 * Tests that need bundles use dist/ built by `npm test`.
 */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      {
        jsc: {
          parser: { syntax: "typescript" },
          target: "es2019",
          transform: { useDefineForClassFields: false },
        },
        module: { type: "commonjs" },
        sourceMaps: "inline",
      },
    ],
  },
  moduleNameMapper: {
    // office-addin-mock -> office-addin-manifest -> strip-bom@5 is ESM-only; the CommonJS entry avoids it.
    "^office-addin-manifest$": require.resolve("office-addin-manifest/lib/officeApp.js"),
    // zod's core and zod/mini require every locale as they load (only zod requires this path); see the file.
    "^\\.\\./locales/index\\.cjs$": "<rootDir>/test/helpers/zod-locales.js",
  },
  testSequencer: "<rootDir>/test/helpers/sequencer.js",
  globalSetup: "<rootDir>/test/helpers/global-setup.js",
  globalTeardown: "<rootDir>/test/helpers/global-teardown.js",
  testTimeout: 120000,
  // Three on a 2-core machine: a suite spends about a third of its time waiting (a browser, a sandbox process, the
  // service's replies), so a third worker fills the idle core time (test/gsheets alone: 94 s with two, 84 s with three).
  maxWorkers: 3,
  // `npm test` starts jest with a larger young generation (node --max-semi-space-size=32, package.json test:run), which
  // the workers inherit: the Sheets suites make short-lived objects by the million (10,000-row blocks read and written
  // whole), and the collector took a tenth of their CPU. Run side by side, test/gsheets/server/digest.test.ts took 56.1 s of
  // CPU without it and 54.0 s with it; a suite of small objects (test/core/reports/actions.test.ts) is the same either way.
  // Each worker leaves within a millisecond or two of being told to (logged inside the workers), but with both cores
  // busy jest sees the exit later (545 to 649 ms under two CPU burners) than its default 500 ms, and calls a clean exit
  // a forced one. Two seconds leave room for that; a worker still holding a handle is still reported.
  workerGracefulExitTimeout: 2000,
};
