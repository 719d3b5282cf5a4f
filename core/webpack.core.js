/**
 * Bundles core/ alone into dist/core/core.js (a `var ComplianceCore` library, ES2019), the artefact the
 * host-free test runs in a bare vm context with no fetch, timers, URL or DOM.
 */
const path = require("path");
const webpack = require("webpack");

module.exports = (_env, argv = {}) => ({
  name: "core",
  mode: argv.mode || "production",
  target: ["web", "es2019"],
  entry: { core: path.resolve(__dirname, "index.ts") },
  output: {
    path: path.resolve(__dirname, "..", "dist", "core"),
    filename: "[name].js",
    library: { name: "ComplianceCore", type: "var" },
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
          options: { transpileOnly: true, compilerOptions: { target: "ES2019", module: "esnext", sourceMap: false } },
        },
      },
    ],
  },
  optimization: { minimize: false },
  // One file: the demo core loads on demand in the Excel add-in (a chunk there) is inlined here.
  plugins: [new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 })],
  devtool: false,
  performance: { hints: false },
});
