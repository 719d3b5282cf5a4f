/** Jest runs the TypeScript sources with ts-jest; tests that need bundles use dist/ built by `npm test`. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/tsconfig.json", diagnostics: { warnOnly: false } }],
  },
  moduleNameMapper: {
    // office-addin-mock -> office-addin-manifest -> strip-bom@5 is ESM-only; the CommonJS entry avoids it.
    "^office-addin-manifest$": require.resolve("office-addin-manifest/lib/officeApp.js"),
  },
  testTimeout: 120000,
  maxWorkers: 2,
};
