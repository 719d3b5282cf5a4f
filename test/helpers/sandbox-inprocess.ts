/**
 * What the tests' in-process sandbox needs from the sandbox's sources, as one module: test/helpers/global-setup.js
 * bundles it once per jest run, and test/helpers/sandbox.ts loads the bundle through Node's own module cache.
 */
export { startSandbox } from "../../sandbox/app";
export { getDataset } from "../../sandbox/dataset";
