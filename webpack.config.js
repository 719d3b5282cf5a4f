/**
 * One webpack entry point for both hosts, as Office and Apps Script developers expect.
 * `--env target=excel`, `gsheets` or `core` builds one; no target builds all three.
 * Each host's configuration lives beside its code (excel/webpack.excel.js, gsheets/webpack.gsheets.js).
 */
module.exports = (env = {}, argv = {}) => {
  const targets = env.target ? String(env.target).split(",") : ["core", "excel", "gsheets"];
  return targets.map((target) => {
    if (target === "core") return require("./core/webpack.core.js")(env, argv);
    if (target === "excel") return require("./excel/webpack.excel.js")(env, argv);
    if (target === "gsheets") return require("./gsheets/webpack.gsheets.js")(env, argv);
    throw new Error(`Unknown build target "${target}" (use core, excel or gsheets)`);
  });
};
