/**
 * A webpack loader for the builds a test makes of its own (a service address or an origin baked in): TypeScript and
 * JavaScript through SWC, as jest runs the same sources, instead of ts-loader, whose per-file TypeScript emit was most
 * of such a build's CPU. What those tests check is what the configuration writes (manifests, the address, the
 * whitelist), not how TypeScript is lowered: the bundles `npm test` runs from dist/ are still ts-loader's.
 * Options: `target` ("es2020" unless given), as the configuration's own loader has it.
 */
const { transformSync } = require("@swc/core");

function swcLoader(source) {
  const { target = "es2020" } = this.getOptions();
  const typescript = /\.[cm]?ts$/.test(this.resourcePath);
  const { code } = transformSync(source, {
    filename: this.resourcePath,
    swcrc: false,
    configFile: false,
    jsc: {
      parser: typescript ? { syntax: "typescript" } : { syntax: "ecmascript" },
      target,
      // As TypeScript does for targets before ES2022 (and as jest.config.js has it): fields assigned, not defined.
      transform: { useDefineForClassFields: false },
    },
    // import and export left for webpack, which tree-shakes them as it does ts-loader's output.
    module: { type: "es6" },
    sourceMaps: false,
  });
  return code;
}

/** The configuration with its ts-loader rules given to this loader, same files, same target; the rest as it is. */
function withSwcLoader(config) {
  const rules = config.module.rules.map((rule) => {
    const use = rule.use;
    if (!use || use.loader !== "ts-loader") return rule;
    const target = String(use.options.compilerOptions.target).toLowerCase();
    return { ...rule, use: { loader: __filename, options: { target } } };
  });
  return { ...config, module: { ...config.module, rules } };
}

module.exports = swcLoader;
module.exports.withSwcLoader = withSwcLoader;
