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

function homePage() {
  const link = (href, text) => `<li><a href="${href}">${text}</a></li>`;
  return [
    '<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><title>Property Compliance Check: dev server</title></head><body>',
    "<h1>Property Compliance Check: Excel add-in dev server</h1>",
    "<p>This server hosts the Excel add-in for development (<code>npm start</code>). Open the add-in from Excel after sideloading <code>manifest.xml</code>; see docs/excel.md.</p>",
    "<ul>",
    link("/taskpane.html", "Task pane page (says it is outside Excel when opened here)"),
    link("/help.html", "Help: the functions and what their answers mean"),
    link("/manifest.dev.xml", "The manifest for this server"),
    link("/v1", `The service API, proxied to the sandbox on port ${sandboxPort}`),
    "</ul></body></html>",
  ].join("\n");
}

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
      // office.js from the @microsoft/office-js package at /office-js/: taskpane.html falls back to it when Microsoft's
      // CDN cannot be reached (offline, a locked-down network).
      static: [
        {
          directory: path.join(ROOT, "node_modules/@microsoft/office-js/dist"),
          publicPath: "/office-js",
          watch: false,
          serveIndex: false,
        },
      ],
      // The bare origin says what it is instead of "Cannot GET /".
      setupMiddlewares: (middlewares, devServer) => {
        devServer.app.get("/", (_req, res) => res.type("html").send(homePage()));
        return middlewares;
      },
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
