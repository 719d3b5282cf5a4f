/**
 * `npm start` and `npm test` first check that this Node is one package.json's engines field accepts, and say so in one
 * line when it is not: an older Node otherwise fails later, deep in webpack or a test, with an error that names neither
 * Node nor its version. Written for old Nodes too (no syntax newer than Node 12's), and with no dependency, so that it
 * runs before anything else can fail.
 */
"use strict";
const path = require("path");

/** "20.19.0" from ">=20.19.0": the only form of engines.node this check reads (a test holds package.json to it). */
function oldestNode(range) {
  const m = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(String(range).trim());
  if (!m) throw new Error(`package.json engines.node is "${range}"; this check reads only ">=major.minor.patch"`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** null when `version` (e.g. "20.18.1") meets `range`, else the sentence to print. */
function nodeProblem(version, range) {
  const oldest = oldestNode(range);
  const have = String(version)
    .replace(/^v/, "")
    .split(".")
    .map((n) => Number(n) || 0);
  for (let i = 0; i < 3; i++) {
    if (have[i] > oldest[i]) return null;
    if (have[i] < oldest[i])
      return (
        `This is Node ${have.join(".")}; this project needs Node ${oldest.join(".")} or later (package.json "engines"). ` +
        `Install a newer Node (https://nodejs.org, or \`nvm install 22\`), then run the command again.`
      );
  }
  return null;
}

module.exports = { nodeProblem, oldestNode };

if (require.main === module) {
  const engines = require(path.join(__dirname, "..", "package.json")).engines.node;
  const problem = nodeProblem(process.versions.node, engines);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
