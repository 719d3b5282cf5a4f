/** Removes what global-setup.js made for the run, and closes the page suites' Chromium when they ran in this process. */
const fs = require("fs");

module.exports = async function globalTeardown() {
  const dir = process.env.COMPLIANCE_TEST_TMP;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  // Only when a suite loaded playwright-core here (jest's --runInBand); workers' browsers end with the workers.
  const loaded = require.cache[require.resolve("playwright-core")];
  const browser = await loaded?.exports[Symbol.for("property-compliance.tests.chromium")]?.catch(() => undefined);
  await browser?.close();
};
