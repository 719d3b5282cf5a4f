/** Removes what global-setup.js made for the run. */
const fs = require("fs");

module.exports = async function globalTeardown() {
  const dir = process.env.COMPLIANCE_TEST_TMP;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
};
