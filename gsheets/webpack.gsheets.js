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
 * test/gsheets/server/menu-settings.test.ts parses Code.js as ES2020, so nothing later (class fields, `#private`) gets in.
 * The sidebar is lowered alike: it runs in the browsers Google Sheets supports, which all take ES2020.
 * zod alone is left as published: it is written in ES2020 already (lowering its 92 files changed no byte of
 * Code.js, and took a sixth of the build's TypeScript time); the Code.js test above holds that a later zod stays so.
 */
const ES = 2020;
const tsRule = {
  test: /\.[cm]?[jt]s$/,
  exclude: /node_modules[\\/]zod/,
  use: {
    loader: "ts-loader",
    options: {
      transpileOnly: true,
      configFile: path.join(HERE, "tsconfig.json"),
      compilerOptions: { target: `ES${ES}`, module: "esnext", allowJs: true, sourceMap: false, importHelpers: false },
    },
  },
};

/**
 * The service's address, the one setting a deployment needs: `--env serviceUrl=https://api.example.com/v1` or
 * SERVICE_BASE_URL (the same names as the Excel build). From it the build writes the add-on's default base URL and
 * appsscript.json's urlFetchWhitelist, so the two cannot disagree. Unset: the placeholder in server/settings.ts, which
 * is what development and the tests use. `--env release` (a build for a versioned deployment) refuses the placeholder
 * and any other reserved example address, which no real service has.
 */
function serviceAddress(env) {
  const src = fs.readFileSync(path.join(HERE, "server/settings.ts"), "utf8");
  const m = /PLACEHOLDER_BASE_URL\s*=\s*"([^"]+)"/.exec(src);
  if (!m) throw new Error("gsheets/server/settings.ts must define PLACEHOLDER_BASE_URL");
  const given = String(env.serviceUrl || process.env.SERVICE_BASE_URL || "")
    .trim()
    .replace(/\/+$/, "");
  const url = given || m[1];
  // Apps Script fetches from Google's servers: https only, and never this machine.
  if (
    !/^https:\/\/[a-z0-9.-]+(:\d{1,5})?\/[^?#\s]*[^/?#\s]$/i.test(url) ||
    /^(localhost|127\.[\d.]+)$/i.test(new URL(url).hostname)
  )
    throw new Error(`Service URL must be https://host/path (e.g. https://api.example.com/v1), got "${url}"`);
  const host = new URL(url).hostname.toLowerCase();
  if (
    env.release &&
    (url === m[1] || /(^|\.)(example|test|invalid|localhost)$|(^|\.)example\.(com|net|org)$/.test(host))
  )
    throw new Error(
      `A release build needs the real service's address, not ${url}: set SERVICE_BASE_URL=https://<your service>/v1 ` +
        "(or --env serviceUrl=...). See docs/deploying.md.",
    );
  return { baseUrl: url, whitelist: [`${url}/`] };
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

/** DemoData.html: the JSON text of core/demo/demo-data.ts's DEMO_DATA (a JSON.stringify'd string there), checked to parse. */
function demoDataHtml(content) {
  const m = /export const DEMO_DATA = ("(?:[^"\\]|\\.)*");/.exec(content.toString("utf8"));
  if (!m) throw new Error("core/demo/demo-data.ts must define DEMO_DATA as one string literal");
  const text = JSON.parse(m[1]);
  if (!Array.isArray(JSON.parse(text)) || /[<>&]/.test(text))
    throw new Error("DEMO_DATA must be a JSON array with no < > &");
  return text;
}

function optimization() {
  return {
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
        // In webpack's own process: a worker would start node and @swc/core again to minify one bundle.
        parallel: false,
        minify: {
          implementation: MinimizerPlugin.swcMinify,
          options: { ecma: ES, compress: { passes: 3, unsafe_arrows: true } },
        },
      }),
    ],
    splitChunks: false,
    runtimeChunk: false,
  };
}

/** appsscript.json with the service's address allowed, and DemoData.html (see demoDataHtml). */
function copiedFiles(service) {
  return new CopyWebpackPlugin({
    patterns: [
      {
        from: path.join(HERE, "appsscript.json"),
        to: "appsscript.json",
        transform: (content) =>
          JSON.stringify({ ...JSON.parse(content.toString("utf8")), urlFetchWhitelist: service.whitelist }, null, 2),
      },
      { from: path.join(ROOT, "core/demo/demo-data.ts"), to: "DemoData.html", transform: demoDataHtml },
    ],
  });
}

function plugins(env, service) {
  return [
    // Apps Script loads one file: a dynamic import anywhere in core (the Excel add-in's demo chunk) is inlined.
    new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 }),
    new webpack.DefinePlugin({
      __SERVICE_BASE_URL__: JSON.stringify(service.baseUrl),
      __URL_FETCH_WHITELIST__: JSON.stringify(service.whitelist),
    }),
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
    // The demo's properties are not in Code.js: core/demo/demo-source.ts gives way to gsheets/server/demo-source.ts, which
    // reads DemoData.html (core/demo/demo-data.ts's JSON text, written here) when the demo is used.
    new webpack.NormalModuleReplacementPlugin(/^\.\/demo-source$/, (res) => {
      if (path.resolve(res.context) === path.join(ROOT, "core", "demo"))
        res.request = path.join(HERE, "server/demo-source.ts");
    }),
    copiedFiles(service),
  ];
}

module.exports = (env = {}, argv = {}) => {
  const service = serviceAddress(env);
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
    optimization: optimization(),
    plugins: plugins(env, service),
  };
};
