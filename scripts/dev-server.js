/**
 * The Excel add-in's HTTPS dev server on https://localhost:3000 (webpack-dev-server, development build of excel/), with
 * /v1 proxied to the sandbox so the add-in's default base URL is same-origin. Started by scripts/start.js.
 */
const fs = require("fs");
const path = require("path");
const webpack = require("webpack");
const WebpackDevServer = require("webpack-dev-server");
const certs = require("office-addin-dev-certs/lib/defaults");

const ROOT = path.resolve(__dirname, "..");
const port = Number(process.env.DEV_SERVER_PORT || 3000);
const sandboxPort = Number(process.env.SANDBOX_PORT || 3001);

async function main() {
  const config = require(path.join(ROOT, "excel/webpack.excel.js"))({}, { mode: "development" });
  config.devtool = "source-map"; // no eval: the page must also run where eval is blocked by policy
  const compiler = webpack(config);
  const server = new WebpackDevServer(
    {
      port,
      host: "localhost",
      server: {
        type: "https",
        options: {
          key: fs.readFileSync(certs.localhostKeyPath),
          cert: fs.readFileSync(certs.localhostCertificatePath),
          ca: fs.readFileSync(certs.caCertificatePath),
        },
      },
      headers: { "Access-Control-Allow-Origin": "*" },
      static: false,
      hot: false,
      liveReload: true,
      client: { overlay: false },
      // Same origin for the API: no CORS preflight and no mixed content for the add-in.
      proxy: [{ context: ["/v1", "/__sandbox"], target: `http://127.0.0.1:${sandboxPort}`, changeOrigin: true }],
    },
    compiler,
  );
  await server.start();
  console.log(`Excel add-in dev server on https://localhost:${port} (proxying /v1 to http://127.0.0.1:${sandboxPort})`);
  const stop = () => server.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
