/**
 * The menu, the sidebar's HTML and the settings, on the BUILT Code.js: entry points are real top-level
 * functions, the sidebar is one self-contained file, and settings are validated before anything is stored.
 */
import fs from "node:fs";
import path from "node:path";
import * as acorn from "acorn";
import { DIST, createGasEnvironment } from "../harness/gas";
import { DEMO_DATA } from "../../../core/demo/demo-data";

test("Code.js declares every entry point as a top-level function, parses as ES2020 and has no module syntax left", () => {
  const code = fs.readFileSync(path.join(DIST, "Code.js"), "utf8");
  // Parsed as an ES2020 script (?. and ?? are allowed: see gsheets/webpack.gsheets.js for why Apps Script takes them):
  // class fields, private names or anything later fail here, and so does any import/export.
  const program = acorn.parse(code, { ecmaVersion: 2020, sourceType: "script" }) as unknown as {
    body: { type: string; id?: { name: string } }[];
  };
  const topLevel = new Set(program.body.filter((n) => n.type === "FunctionDeclaration").map((n) => n.id!.name));
  // Every name the menu, the sidebar (ServerApi) and the triggers call, read from the sources, not listed by hand.
  const src = (f: string) => fs.readFileSync(path.join(__dirname, "../../..", f), "utf8");
  const menu = [...src("gsheets/server/menu.ts").matchAll(/addItem\("[^"]+", "(\w+)"\)/g)].map((m) => m[1]);
  const sidebar = [...src("gsheets/sidebar/sidebar.ts").matchAll(/call\("(\w+)"/g)].map((m) => m[1]);
  const api = src("gsheets/shared/api.ts");
  const serverApi = [
    ...api
      .slice(api.indexOf("export interface ServerApi"))
      .split("\n}")[0]
      .matchAll(/^\s+(\w+)\(/gm),
  ].map((m) => m[1]);
  // The time-driven trigger's function, named where the schedule installs it.
  const triggers = [...src("gsheets/server/schedule-store.ts").matchAll(/export const HANDLER = "(\w+)"/g)].map(
    (m) => m[1],
  );
  expect(triggers).toEqual(["scheduledRecheck"]);
  const needed = [...new Set(["onOpen", "onInstall", ...menu, ...sidebar, ...serverApi, ...triggers])].sort();
  expect(menu.length).toBeGreaterThanOrEqual(3);
  expect(serverApi.length).toBeGreaterThanOrEqual(10);
  expect(needed.filter((n) => !topLevel.has(n))).toEqual([]);
  expect(code).not.toMatch(/^\s*(import|export)\s/m);
  const manifest = JSON.parse(fs.readFileSync(path.join(DIST, "appsscript.json"), "utf8"));
  expect(manifest.runtimeVersion).toBe("V8");
  // script.scriptapp: the schedule's time-driven trigger; userinfo.email: who that trigger runs as (and the Run log's
  // Run by); script.send_mail: the reminder digests (send only). Nothing that reads mail or other files.
  expect(manifest.oauthScopes.sort()).toEqual([
    "https://www.googleapis.com/auth/script.container.ui",
    "https://www.googleapis.com/auth/script.external_request",
    "https://www.googleapis.com/auth/script.scriptapp",
    "https://www.googleapis.com/auth/script.send_mail",
    "https://www.googleapis.com/auth/spreadsheets.currentonly",
    "https://www.googleapis.com/auth/userinfo.email",
  ]);
  expect(manifest.oauthScopes.filter((s: string) => /gmail|drive/.test(s))).toEqual([]);
  for (const u of manifest.urlFetchWhitelist) expect(u).toMatch(/^https:\/\/[^/]+\/.+/);
});

test("the demo's properties are in DemoData.html, not in Code.js (which Apps Script evaluates on every call)", () => {
  const code = fs.readFileSync(path.join(DIST, "Code.js"), "utf8");
  const data = fs.readFileSync(path.join(DIST, "DemoData.html"), "utf8");
  expect(data).toBe(DEMO_DATA);
  const first = (JSON.parse(data) as string[][])[0];
  expect(code).not.toContain(first[1]);
  expect(code).not.toContain(first[0]);
  expect(code).toContain('createHtmlOutputFromFile("DemoData")');
});

test("the sidebar is one HTML file: no external scripts or stylesheets", () => {
  const html = fs.readFileSync(path.join(DIST, "Sidebar.html"), "utf8");
  expect(html).not.toMatch(/<script[^>]+src=/i);
  expect(html).not.toMatch(/<link[^>]+stylesheet/i);
  expect(html).toMatch(/<script[^>]*>[\s\S]*pollBulkCheck[\s\S]*<\/script>/);
  expect(fs.existsSync(path.join(DIST, "sidebar.js"))).toBe(false);
});

test("onOpen builds the menu; its items open the sidebar, start a check or open settings", () => {
  const env = createGasEnvironment();
  env.run("onOpen", { authMode: "LIMITED" });
  expect(env.menus).toHaveLength(1);
  const fns = env.menus[0].items.map(([, fn]) => fn);
  expect(fns).toEqual(["showSidebar", "checkSelectedRows", "showSettings"]);
  for (const fn of fns) expect(typeof (env.context as any)[fn]).toBe("function");
  env.run("checkSelectedRows");
  expect(env.sidebars).toHaveLength(1);
  expect(env.run("getSidebarState").intent).toBe("check");
  // The intent is used once: a later open is a plain open.
  expect(env.run("getSidebarState").intent).toBe("");
  env.run("showSettings");
  expect(env.run("getSidebarState").intent).toBe("settings");
});

test("settings: validated before storing, key masked in every answer, removable", () => {
  const env = createGasEnvironment();
  const bad = env.run("saveSettings", { apiKey: "a new key", baseUrl: "http://evil.example/v1" });
  expect(bad.ok).toBe(false);
  expect(env.userProperties.data.size).toBe(0);
  const noHttps = env.run("saveSettings", { apiKey: "secret-key-123456", baseUrl: "http://api.example.com/v1" });
  expect(noHttps.ok).toBe(false);
  expect(noHttps.message).toMatch(/https/);
  expect(env.userProperties.data.size).toBe(0);
  const ok = env.run("saveSettings", {
    apiKey: "secret-key-123456",
    baseUrl: "https://api.property-compliance.example/v1",
    plan: "enterprise",
  });
  expect(ok.ok).toBe(true);
  expect(ok.settings).toMatchObject({
    hasKey: true,
    baseUrl: "https://api.property-compliance.example/v1",
    plan: "enterprise",
  });
  expect(JSON.stringify(ok)).not.toContain("secret-key-123456");
  expect(JSON.stringify(env.run("getSidebarState"))).not.toContain("secret-key-123456");
  expect(env.documentProperties.data.size + env.scriptProperties.data.size).toBe(0);
  const removed = env.run("removeApiKey");
  expect(removed.settings.hasKey).toBe(false);
  expect([...env.userProperties.data.values()]).not.toContain("secret-key-123456");
});

test("window settings: whole numbers of days only, the field named in the refusal; nothing is stored when one is refused", () => {
  const env = createGasEnvironment();
  const windowsStored = () => Object.keys(env.userProperties.getProperties()).filter((k) => /window/i.test(k));
  for (const [typed, said] of [
    [" ", "Gas safety urgent window is empty"],
    ["", "Gas safety urgent window is empty"],
    ["1e2", 'Gas safety urgent window: "1e2" is not a whole number of days'],
    ["0x1E", 'Gas safety urgent window: "0x1E" is not a whole number of days'],
    ["7.0", 'Gas safety urgent window: "7.0" is not a whole number of days'],
  ]) {
    const r = env.run("saveSettings", { windows: { gas_safety: { plan: "60", book: "30", urgent: typed } } });
    expect([typed, r.ok, r.message]).toEqual([typed, false, expect.stringContaining(said)]);
  }
  const unknown = env.run("saveSettings", { windows: { boiler: { plan: "60" } } });
  expect(unknown.message).toContain('"boiler" is not a check');
  expect(windowsStored()).toEqual([]);
  const ok = env.run("saveSettings", { windows: { gas_safety: { plan: "60", book: "30", urgent: "10" } } });
  expect(ok.ok).toBe(true);
  expect(ok.settings.windows.gas_safety).toEqual({ plan: 60, book: 30, urgent: 10 });
  expect(windowsStored()).toHaveLength(1);
});
