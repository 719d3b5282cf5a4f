/**
 * Webpack configuration of the Excel add-in, laid out like Microsoft's Excel-Custom-Functions-Shared template:
 * one shared page (taskpane.html) whose one bundle holds the task pane, the functions and the commands; assets and
 * manifests copied to dist/excel.
 */
const path = require("path");
const webpack = require("webpack");
const HtmlWebpackPlugin = require("html-webpack-plugin");
const CopyWebpackPlugin = require("copy-webpack-plugin");
const CustomFunctionsMetadataPlugin = require("custom-functions-metadata-plugin");
const MinimizerPlugin = require("minimizer-webpack-plugin");
const fs = require("fs");
const { unifiedManifest } = require("./unified-manifest");

const ROOT = path.resolve(__dirname, "..");
/** The origin written in manifest.xml and functions.ts's help links; builds rewrite it to the origin they serve from. */
const DEV_ORIGIN = "https://localhost:3000";
/** Where `npm start`'s dev server listens: DEV_SERVER_PORT moves it, and every URL in the manifests and functions.json with it. */
const localOrigin = () => `https://localhost:${Number(process.env.DEV_SERVER_PORT || 3000)}`;
/** The production add-in's Id; manifest.xml (the development manifest) has its own, so both can be installed side by side. */
const PRODUCTION_ID = "3b0d5f7e-6c41-4a8e-9d25-7f1c0e2a9b64";

/**
 * Where the built add-in will be hosted. The manifest in the repo names the dev server; a production build
 * rewrites it to `--env origin=https://addin.example.com` or ADDIN_ORIGIN (unset: left on localhost, which is
 * what a local sideload wants).
 */
function productionOrigin(env) {
  const origin = String(env.origin || process.env.ADDIN_ORIGIN || localOrigin()).replace(/\/+$/, "");
  if (!/^https:\/\/[^/]+$/.test(origin)) throw new Error(`Add-in origin must be https://host[:port], got "${origin}"`);
  return origin;
}

/**
 * The service base URL the add-in uses until the user sets one in Settings: `--env serviceUrl=https://api.example.com/v1`
 * or SERVICE_BASE_URL. Unset, the add-in uses its own origin + /v1, which is right for `npm start` (the dev server proxies
 * /v1 to the sandbox) but not for a build served from a static host, whose /v1 is nothing. The same rule as Settings:
 * https, or http for localhost only. A URL, never a key: the bundle is public.
 */
function serviceBaseUrl(env) {
  const raw = String(env.serviceUrl || process.env.SERVICE_BASE_URL || "")
    .trim()
    .replace(/\/+$/, "");
  if (!raw) return "";
  const m = /^(https?):\/\/(\[[^\]]+\]|[^/:?#\s@]+)(:\d{1,5})?(\/[^?#\s]*)?$/i.exec(raw);
  const local = m && ["localhost", "127.0.0.1", "[::1]"].includes(m[2].toLowerCase());
  if (!m || (m[1].toLowerCase() !== "https" && !local)) {
    throw new Error(`Service URL must be https://host[:port]/path (http for localhost only), got "${raw}"`);
  }
  return raw;
}

/** functions.json is generated, so its help URLs are rewritten after generation rather than at copy time. */
class RewriteOriginPlugin {
  constructor(origin) {
    this.origin = origin;
  }
  /** The text with every dev-server URL moved to this build's origin. */
  rewrite(text) {
    return text.split(DEV_ORIGIN).join(this.origin);
  }
  apply(compiler) {
    if (this.origin === DEV_ORIGIN) return;
    compiler.hooks.thisCompilation.tap("RewriteOriginPlugin", (compilation) => {
      compilation.hooks.processAssets.tap(
        { name: "RewriteOriginPlugin", stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_SUMMARIZE },
        (assets) => {
          for (const name of ["functions.json"]) {
            if (!assets[name]) continue;
            const text = this.rewrite(assets[name].source().toString());
            compilation.updateAsset(name, new compiler.webpack.sources.RawSource(text));
          }
        },
      );
    });
  }
}

function withVersion(text) {
  const version = `${require(path.join(ROOT, "package.json")).version}.0`;
  return text.replace(/<Version>[^<]*<\/Version>/, `<Version>${version}</Version>`);
}

/**
 * functions.json's top-level allowCustomDataForDataTypeAny: COMPLIANCE.DUE and EXPIRY return formatted number values
 * (dates) where the platform supports data types; the metadata generator has no tag for it, so it is set here.
 */
class AllowDataTypesPlugin {
  apply(compiler) {
    compiler.hooks.thisCompilation.tap("AllowDataTypesPlugin", (compilation) => {
      compilation.hooks.processAssets.tap(
        { name: "AllowDataTypesPlugin", stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_SUMMARIZE },
        (assets) => {
          if (!assets["functions.json"]) return;
          const json = JSON.parse(assets["functions.json"].source().toString());
          json.allowCustomDataForDataTypeAny = true;
          compilation.updateAsset(
            "functions.json",
            new compiler.webpack.sources.RawSource(JSON.stringify(json, null, 2)),
          );
        },
      );
    });
  }
}

/**
 * manifest.json, the Microsoft 365 unified app manifest, made from the manifest.xml and functions.json of this same
 * build (excel/unified-manifest.js), with the two icons its app package names beside it.
 */
class UnifiedManifestPlugin {
  apply(compiler) {
    const { RawSource } = compiler.webpack.sources;
    compiler.hooks.thisCompilation.tap("UnifiedManifestPlugin", (compilation) => {
      compilation.hooks.processAssets.tap(
        { name: "UnifiedManifestPlugin", stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_REPORT },
        (assets) => {
          if (!assets["manifest.xml"] || !assets["functions.json"]) return;
          const json = unifiedManifest(
            assets["manifest.xml"].source().toString(),
            JSON.parse(assets["functions.json"].source().toString()),
          );
          compilation.emitAsset("manifest.json", new RawSource(JSON.stringify(json, null, 2)));
          compilation.emitAsset(
            "icon-color.png",
            new RawSource(fs.readFileSync(path.join(ROOT, "assets/icon-192.png"))),
          );
          compilation.emitAsset(
            "icon-outline.png",
            new RawSource(fs.readFileSync(path.join(ROOT, "assets/icon-32.png"))),
          );
        },
      );
    });
  }
}

/** Whether webpack has put `module` in the chunk of that name (the lazy chunks are named where they are imported). */
const inChunk = (chunkGraph, module, name) =>
  Array.from(chunkGraph.getModuleChunksIterable(module)).some((c) => c.name === name);

/**
 * No chunks of webpack's own making, only the lazy ones the code names, and two rules so that no flow fetches a second
 * copy of a module or a chunk it does not use:
 * - service.js: the service client (excel/service-client.ts imports it as the chunk "client") with the run engine and
 *   zod, which the check chunk drives too; the check chunk fetches it beside itself rather than carry a copy;
 * - sheet.js: the sheet reading that the check chunk and the Action list builders (action-sheets.js) share; the digest
 *   and Action list cards fetch it with the builders and never the service client.
 */
function splitChunks() {
  return {
    chunks: "async",
    cacheGroups: {
      default: false,
      defaultVendors: false,
      service: {
        name: "service",
        chunks: (chunk) => chunk.name === "client" || chunk.name === "check",
        test: (module, { chunkGraph }) => inChunk(chunkGraph, module, "client"),
        enforce: true,
        priority: 2,
      },
      sheet: {
        name: "sheet",
        chunks: (chunk) => chunk.name === "check" || chunk.name === "action-sheets",
        minChunks: 2,
        enforce: true,
        priority: 1,
      },
    },
  };
}

function optimization() {
  return {
    splitChunks: splitChunks(),
    // JavaScript goes through SWC's minifier (Rust): a smaller bundle than terser's with the same options, in a
    // fraction of its time. webpack's own minimizer ("...") still minifies the pages and the style sheet.
    minimizeOptions: { javascript: false },
    minimizer: [
      "...",
      new MinimizerPlugin({
        // In webpack's own process: a worker would start node and @swc/core again to minify one bundle.
        parallel: false,
        minify: { implementation: MinimizerPlugin.swcMinify, options: { ecma: 2020, compress: { passes: 3 } } },
      }),
    ],
  };
}

/** TypeScript through ts-loader. */
function tsRule() {
  return {
    test: /\.ts$/,
    exclude: /node_modules/,
    use: {
      loader: "ts-loader",
      // Type errors are reported by `npm run typecheck`; transpile-only keeps builds fast.
      options: {
        transpileOnly: true,
        configFile: path.join(ROOT, "tsconfig.json"),
        compilerOptions: { module: "esnext", target: "ES2020", sourceMap: true },
      },
    },
  };
}

/**
 * Two manifests from the one source, each with package.json's version (four parts, as Office wants): manifest.dev.xml as
 * the source is (development Id, "(dev)", localhost on DEV_SERVER_PORT), and manifest.xml for production (its own Id,
 * the plain name, the build's origin); and the icons, the style sheet and the help page as they are.
 */
function copiedFiles(origin) {
  return new CopyWebpackPlugin({
    patterns: [
      { from: "assets/*.png", to: "assets/[name][ext]" },
      { from: "excel/taskpane/taskpane.css", to: "taskpane.css" },
      { from: "excel/taskpane/help.html", to: "help.html" },
      {
        from: "manifest.xml",
        to: "manifest.dev.xml",
        transform: (content) => withVersion(content.toString()).split(DEV_ORIGIN).join(localOrigin()),
      },
      {
        from: "manifest.xml",
        to: "manifest.xml",
        transform(content) {
          const text = withVersion(content.toString())
            .replace(/<Id>[^<]*<\/Id>/, `<Id>${PRODUCTION_ID}</Id>`)
            .split(" (dev)")
            .join("");
          return origin === DEV_ORIGIN ? text : text.split(DEV_ORIGIN).join(origin);
        },
      },
    ],
  });
}

function plugins({ origin, functionsEntry, serviceUrl }) {
  return [
    // Read by excel/settings.ts defaultBaseUrl(); "" keeps the same-origin default.
    new webpack.DefinePlugin({ __SERVICE_BASE_URL__: JSON.stringify(serviceUrl) }),
    // functions.json is generated from the JSDoc of functions.ts; the plugin also appends CustomFunctions.associate calls.
    new CustomFunctionsMetadataPlugin({ output: "functions.json", input: functionsEntry }),
    new AllowDataTypesPlugin(),
    new HtmlWebpackPlugin({
      filename: "taskpane.html",
      template: path.join(ROOT, "excel/taskpane/taskpane.html"),
      // The shared runtime loads this one page; its bundle registers the functions and the commands too.
      chunks: ["taskpane"],
      scriptLoading: "blocking",
      inject: "body",
    }),
    new RewriteOriginPlugin(origin),
    new UnifiedManifestPlugin(),
    copiedFiles(origin),
  ];
}

module.exports = (env = {}, argv = {}) => {
  const dev = argv.mode === "development";
  const origin = dev ? localOrigin() : productionOrigin(env);
  const functionsEntry = path.join(ROOT, "excel/functions/functions.ts");
  const serviceUrl = serviceBaseUrl(env);
  return {
    name: "excel",
    mode: dev ? "development" : "production",
    context: ROOT,
    devtool: "source-map",
    // ES2020 keeps ?. and ?? as written (lowered to ES2019 they cost about 4% of the bundle). Every Office that runs
    // the add-in has it: Office 2021 and later on Windows run add-ins in WebView2 (Chromium), Office on the Mac and iPad
    // in WKWebView (Safari 14+), Office on the web in the user's browser; Office 2016/2019 (EdgeHTML, IE) lack ExcelApi 1.9.
    target: ["web", "es2020"],
    // One bundle for the shared runtime's one page: the task pane, the custom functions and the ribbon commands, so
    // every module (core, zod/mini, settings) is on the page once, as one instance. The Action list and summary
    // builders are a chunk of their own (action-sheets.js), fetched when first used.
    entry: {
      taskpane: [
        path.join(ROOT, "excel/taskpane/taskpane.ts"),
        functionsEntry,
        path.join(ROOT, "excel/commands/commands.ts"),
      ],
    },
    output: {
      path: path.join(ROOT, "dist/excel"),
      filename: "[name].js",
      clean: true,
      // Write every file on every build, even one whose bytes did not change, so that its time says when it was built:
      // the tests rebuild dist/excel only when it is older than the sources.
      compareBeforeEmit: false,
    },
    resolve: { extensions: [".ts", ".js"] },
    optimization: optimization(),
    module: { rules: [tsRule()] },
    // office.js comes from Microsoft's CDN (an AppSource rule) and is a global, never bundled.
    externals: { "office-js": "Office" },
    performance: { hints: false },
    plugins: plugins({ origin, functionsEntry, serviceUrl }),
  };
};
