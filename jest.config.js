/**
 * Jest runs the TypeScript sources with ts-jest, transpiling each file alone (test/tsconfig.jest.json sets isolatedModules):
 * `npm run typecheck` already checks the types, before the tests. Tests that need bundles use dist/ built by `npm test`.
 */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/test/tsconfig.jest.json" }],
  },
  moduleNameMapper: {
    // office-addin-mock -> office-addin-manifest -> strip-bom@5 is ESM-only; the CommonJS entry avoids it.
    "^office-addin-manifest$": require.resolve("office-addin-manifest/lib/officeApp.js"),
  },
  testTimeout: 120000,
  maxWorkers: 2,
};
