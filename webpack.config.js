/**
 * One webpack entry point for both hosts, as Office and Apps Script developers expect.
 * `--env target=excel` or `--env target=gsheets` builds one; no target builds both.
 * Each host's configuration lives beside its code (excel/webpack.excel.js, gsheets/webpack.gsheets.js).
 */
module.exports = (env = {}, argv = {}) => {
  const targets = env.target ? String(env.target).split(",") : ["excel", "gsheets"];
  return targets.map((target) => {
    if (target === "excel") return require("./excel/webpack.excel.js")(env, argv);
    if (target === "gsheets") return require("./gsheets/webpack.gsheets.js")(env, argv);
    throw new Error(`Unknown build target "${target}" (use excel or gsheets)`);
  });
};
