/**
 * Webpack configuration of the Excel add-in, laid out like Microsoft's Excel-Custom-Functions-Shared template:
 * entries taskpane / functions / commands, one shared page (taskpane.html), assets and manifest copied to dist/excel.
 */
const path = require("path");
const HtmlWebpackPlugin = require("html-webpack-plugin");
const CopyWebpackPlugin = require("copy-webpack-plugin");
const CustomFunctionsMetadataPlugin = require("custom-functions-metadata-plugin");

const ROOT = path.resolve(__dirname, "..");
const DEV_ORIGIN = "https://localhost:3000";

/**
 * Where the built add-in will be hosted. The manifest in the repo names the dev server; a production build
 * rewrites it to `--env origin=https://addin.example.com` or ADDIN_ORIGIN (unset: left on localhost, which is
 * what a local sideload wants).
 */
function productionOrigin(env) {
  const origin = String(env.origin || process.env.ADDIN_ORIGIN || DEV_ORIGIN).replace(/\/+$/, "");
  if (!/^https:\/\/[^/]+$/.test(origin)) throw new Error(`Add-in origin must be https://host[:port], got "${origin}"`);
  return origin;
}

/** functions.json is generated, so its help URLs are rewritten after generation rather than at copy time. */
class RewriteOriginPlugin {
  constructor(origin) {
    this.origin = origin;
  }
  apply(compiler) {
    if (this.origin === DEV_ORIGIN) return;
    compiler.hooks.thisCompilation.tap("RewriteOriginPlugin", (compilation) => {
      compilation.hooks.processAssets.tap({ name: "RewriteOriginPlugin", stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_SUMMARIZE }, (assets) => {
        for (const name of ["functions.json"]) {
          if (!assets[name]) continue;
          const text = assets[name].source().toString().split(DEV_ORIGIN).join(this.origin);
          compilation.updateAsset(name, new compiler.webpack.sources.RawSource(text));
        }
      });
    });
  }
}

module.exports = (env = {}, argv = {}) => {
  const dev = argv.mode === "development";
  const origin = dev ? DEV_ORIGIN : productionOrigin(env);
  const functionsEntry = path.join(ROOT, "excel/functions/functions.ts");
  return {
    name: "excel",
    mode: dev ? "development" : "production",
    context: ROOT,
    devtool: "source-map",
    target: ["web", "es2019"],
    entry: {
      taskpane: path.join(ROOT, "excel/taskpane/taskpane.ts"),
      functions: functionsEntry,
      commands: path.join(ROOT, "excel/commands/commands.ts"),
    },
    output: {
      path: path.join(ROOT, "dist/excel"),
      filename: "[name].js",
      clean: true,
    },
    resolve: { extensions: [".ts", ".js"] },
    module: {
      rules: [
        {
          test: /\.ts$/,
          exclude: /node_modules/,
          use: {
            loader: "ts-loader",
            // Type errors are reported by `npm run typecheck`; transpile-only keeps builds fast.
            options: { transpileOnly: true, configFile: path.join(ROOT, "tsconfig.json"), compilerOptions: { module: "esnext", sourceMap: true } },
          },
        },
      ],
    },
    // office.js comes from Microsoft's CDN (an AppSource rule) and is a global, never bundled.
    externals: { "office-js": "Office" },
    performance: { hints: false },
    plugins: [
      // functions.json is generated from the JSDoc of functions.ts; the plugin also appends CustomFunctions.associate calls.
      new CustomFunctionsMetadataPlugin({ output: "functions.json", input: functionsEntry }),
      new HtmlWebpackPlugin({
        filename: "taskpane.html",
        template: path.join(ROOT, "excel/taskpane/taskpane.html"),
        // The shared runtime loads this one page; it must register the functions and the commands too.
        chunks: ["taskpane", "functions", "commands"],
        scriptLoading: "blocking",
        inject: "body",
      }),
      new RewriteOriginPlugin(origin),
      new CopyWebpackPlugin({
        patterns: [
          { from: "assets/*.png", to: "assets/[name][ext]" },
          { from: "excel/taskpane/taskpane.css", to: "taskpane.css" },
          { from: "excel/taskpane/help.html", to: "help.html" },
          {
            from: "manifest.xml",
            to: "manifest.xml",
            transform(content) {
              return origin === DEV_ORIGIN ? content : content.toString().split(DEV_ORIGIN).join(origin);
            },
          },
        ],
      }),
    ],
  };
};
