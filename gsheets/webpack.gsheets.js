/**
 * Webpack configuration of the Google Sheets add-on: the server code (with core/) becomes dist/gsheets/Code.js,
 * whose entry points are top-level functions, and the sidebar becomes ONE self-contained Sidebar.html.
 */
const path = require("path");
const fs = require("fs");
const ts = require("typescript");
const webpack = require("webpack");
const GasPlugin = require("gas-webpack-plugin");
const HtmlWebpackPlugin = require("html-webpack-plugin");
const HtmlInlineScriptPlugin = require("html-inline-script-webpack-plugin");
const CopyWebpackPlugin = require("copy-webpack-plugin");
const MinimizerPlugin = require("minimizer-webpack-plugin");

const ROOT = path.resolve(__dirname, "..");
const HERE = __dirname;

/**
 * ts-loader runs transpile-only because one webpack config must compile two programs whose type sets
 * conflict (@types/google-apps-script vs the DOM); this plugin type-checks each with its own tsconfig.
 * Only diagnostics in gsheets/ are reported: core/ is checked by the root tsconfig.
 */
class TypecheckPlugin {
  constructor(configs) {
    this.configs = configs;
  }
  apply(compiler) {
    compiler.hooks.thisCompilation.tap("GsheetsTypecheck", (compilation) => {
      compilation.hooks.finishModules.tap("GsheetsTypecheck", () => {
        for (const configFile of this.configs) {
          const read = ts.readConfigFile(configFile, ts.sys.readFile);
          const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configFile));
          const program = ts.createProgram(parsed.fileNames, parsed.options);
          const diagnostics = ts
            .getPreEmitDiagnostics(program)
            .filter(
              (d) => !d.file || d.file.fileName.startsWith(HERE + path.sep) || d.file.fileName.startsWith(HERE + "/"),
            );
          for (const d of diagnostics) {
            const where = d.file
              ? `${path.relative(ROOT, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start || 0).line + 1}: `
              : "";
            compilation.errors.push(
              new webpack.WebpackError(`${where}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`),
            );
          }
        }
      });
    });
  }
}

/**
 * Apps Script (V8) gets ES2020: every module, node_modules included, is lowered to it, so `?.` and `??` stay as written
 * (lowered to ES2019 they cost about 6 KB of Code.js) and class fields do not. Evidence that Apps Script's V8 runtime
 * takes ES2020 syntax: Google's own samples, which its documentation embeds, use it in V8 projects, e.g.
 * github.com/googleworkspace/apps-script-samples advanced/adsense.gs (`??`, since commit 35afc05, 2021),
 * adminSDK/directory/quickstart.gs (`?.`) and the add-on solutions/add-on/share-macro/UI.js (`?.`, runtimeVersion V8).
 * test/gsheets/menu-settings.test.ts parses Code.js as ES2020, so nothing later (class fields, `#private`) gets in.
 * The sidebar is lowered alike: it runs in the browsers Google Sheets supports, which all take ES2020.
 */
const ES = 2020;
const tsRule = {
  test: /\.[cm]?[jt]s$/,
  use: {
    loader: "ts-loader",
    options: {
      transpileOnly: true,
      configFile: path.join(HERE, "tsconfig.json"),
      compilerOptions: { target: `ES${ES}`, module: "esnext", allowJs: true, sourceMap: false, importHelpers: false },
    },
  },
};

/** The whitelist in appsscript.json must cover the default base URL, or a versioned deployment cannot call it. */
function checkWhitelist() {
  const manifest = JSON.parse(fs.readFileSync(path.join(HERE, "appsscript.json"), "utf8"));
  const src = fs.readFileSync(path.join(HERE, "server/settings.ts"), "utf8");
  const m = /DEFAULT_BASE_URL\s*=\s*"([^"]+)"/.exec(src);
  if (!m) throw new Error("gsheets/server/settings.ts must define DEFAULT_BASE_URL");
  const base = m[1].replace(/\/?$/, "/");
  const ok = (manifest.urlFetchWhitelist || []).some((p) => /^https:\/\/[^/]+\/.+/.test(p) && base.startsWith(p));
  if (!ok) throw new Error(`appsscript.json urlFetchWhitelist does not cover DEFAULT_BASE_URL ${base}`);
}

/** help.html's sections that apply to both hosts (all but "functions"), whitespace collapsed. */
function sharedHelp() {
  const html = require("fs").readFileSync(path.join(HERE, "../excel/taskpane/help.html"), "utf8");
  const body = html.slice(html.indexOf("<h2 "), html.lastIndexOf("</body>"));
  return body
    .split(/(?=<h2 )/)
    .filter((section) => !/^<h2 id="functions"/.test(section))
    .join("")
    .replace(/<div class="fn"[\s\S]*?<\/div>/g, "")
    .replace(/\s+/g, " ")
    .replace(/> </g, "><")
    .trim();
}

/** DemoData.html: the JSON text of core/demo-data.ts's DEMO_DATA (a JSON.stringify'd string there), checked to parse. */
function demoDataHtml(content) {
  const m = /export const DEMO_DATA = ("(?:[^"\\]|\\.)*");/.exec(content.toString("utf8"));
  if (!m) throw new Error("core/demo-data.ts must define DEMO_DATA as one string literal");
  const text = JSON.parse(m[1]);
  if (!Array.isArray(JSON.parse(text)) || /[<>&]/.test(text))
    throw new Error("DEMO_DATA must be a JSON array with no < > &");
  return text;
}

module.exports = (env = {}, argv = {}) => {
  checkWhitelist();
  return {
    name: "gsheets",
    // development mode wraps modules in eval and gas-webpack-plugin then finds no globals: never use it here.
    mode: argv.mode === "none" ? "none" : "production",
    context: ROOT,
    devtool: false,
    target: ["web", `es${ES}`],
    entry: {
      Code: path.join(HERE, "server/index.ts"),
      sidebar: path.join(HERE, "sidebar/sidebar.ts"),
    },
    output: {
      path: path.join(ROOT, "dist/gsheets"),
      filename: "[name].js",
      clean: true,
      environment: {
        arrowFunction: true,
        const: true,
        destructuring: true,
        forOf: true,
        module: false,
        dynamicImport: false,
      },
    },
    resolve: { extensions: [".ts", ".js", ".cjs", ".mjs"] },
    module: { rules: [tsRule] },
    node: { global: true },
    performance: { hints: false },
    optimization: {
      // Apps Script evaluates the whole project on every google.script.run call (the sidebar makes one per poll), so
      // Code.js is minified. The entry points stay callable by name: gas-webpack-plugin writes them as top-level
      // function declarations, which a minifier keeps (only names inside the bundle's closure are shortened).
      minimize: true,
      // SWC's minifier (Rust), as for the Excel add-in: a smaller Code.js than terser's, in a fraction of its time.
      // unsafe_arrows (about 1 KB): a function expression that uses no `this`, `arguments` or `new.target` becomes an
      // arrow; safe here because none is called with `new` (constructors are classes or function declarations, which
      // it leaves alone). Not `unsafe` (String(x) as ""+x and the like: 0.4 KB) nor pure_getters (0.2 KB): they change
      // what an error path does for too little. `toplevel` would buy nothing: every name but the entry points is
      // already inside the bundle's closure and mangled, and the entry points must keep theirs.
      minimizer: [
        new MinimizerPlugin({
          minify: {
            implementation: MinimizerPlugin.swcMinify,
            options: { ecma: ES, compress: { passes: 3, unsafe_arrows: true } },
          },
        }),
      ],
      splitChunks: false,
      runtimeChunk: false,
    },
    plugins: [
      // Apps Script loads one file: a dynamic import anywhere in core (the Excel add-in's demo chunk) is inlined.
      new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 }),
      // `--env typecheck=false` leaves it out where `npm run typecheck` checks the same two tsconfigs alongside (npm test).
      env.typecheck !== "false" &&
        new TypecheckPlugin([path.join(HERE, "tsconfig.json"), path.join(HERE, "sidebar/tsconfig.json")]),
      // Only the server entry's `global.x = fn` assignments become top-level functions.
      new GasPlugin({ include: [path.join(HERE, "server/index.ts")], comment: true }),
      new HtmlWebpackPlugin({
        filename: "Sidebar.html",
        template: path.join(HERE, "sidebar/Sidebar.html"),
        // The Help tab: the same help page as the Excel add-in's (excel/taskpane/help.html), less its Excel-only
        // Functions section, so the two cannot drift.
        helpHtml: sharedHelp(),
        chunks: ["sidebar"],
        inject: "body",
        scriptLoading: "blocking",
        minify: false,
      }),
      // Apps Script serves one HTML file per sidebar: the script is inlined and sidebar.js is not emitted.
      new HtmlInlineScriptPlugin({ htmlMatchPattern: [/Sidebar\.html$/] }),
      // The demo's properties are not in Code.js: core/demo-source.ts gives way to gsheets/server/demo-source.ts, which
      // reads DemoData.html (core/demo-data.ts's JSON text, written here) when the demo is used.
      new webpack.NormalModuleReplacementPlugin(/^\.\/demo-source$/, (res) => {
        if (path.resolve(res.context) === path.join(ROOT, "core"))
          res.request = path.join(HERE, "server/demo-source.ts");
      }),
      new CopyWebpackPlugin({
        patterns: [
          { from: path.join(HERE, "appsscript.json"), to: "appsscript.json" },
          { from: path.join(ROOT, "core/demo-data.ts"), to: "DemoData.html", transform: demoDataHtml },
        ],
      }),
    ],
  };
};
