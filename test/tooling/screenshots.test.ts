/**
 * The screenshot scripts the docs tell readers to run: every one the docs name exists, loads (its imports resolve, so a
 * moved helper fails here rather than in a reader's terminal) without starting, and the quickest one makes its picture.
 * The others start a sandbox and a browser for a minute or more; loading them is what holds their imports.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { testWithChromium } from "../helpers/chromium";

const ROOT = path.resolve(__dirname, "../..");
const SCRIPTS = fs
  .readdirSync(path.join(ROOT, "scripts"))
  .filter((f) => /^screenshots-.*\.ts$/.test(f))
  .sort();
const DOCS = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith(".md"),
);

test("every screenshot script the README and docs name exists, and each script is named in them", () => {
  const named = new Set<string>();
  for (const rel of DOCS)
    for (const m of fs.readFileSync(path.join(ROOT, rel), "utf8").matchAll(/npx tsx scripts\/([a-z-]+\.ts)/g))
      named.add(m[1]);
  expect([...named].sort()).toEqual(SCRIPTS);
  expect(SCRIPTS.length).toBe(4);
});

// Loaded here, not inside a test: the Sheets harness some of them import registers its own afterAll hook.
const before = snapshot();
const loaded = SCRIPTS.map((file) => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- each script by its file name, and a failed load is recorded, not thrown
    return { file, main: typeof require(path.join(ROOT, "scripts", file)).main };
  } catch (e) {
    return { file, main: String(e) };
  }
});

test("every screenshot script loads, exports main, and does not run on import", () => {
  expect(loaded).toEqual(SCRIPTS.map((file) => ({ file, main: "function" })));
  expect(snapshot()).toEqual(before);
});

const chromium = testWithChromium("screenshot script test");
chromium("screenshots-property-card.ts writes its picture: a PNG as wide as its page (1180 px)", async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "shots-"));
  try {
    const { main } = await import("../../scripts/screenshots-property-card");
    await main(out);
    const png = fs.readFileSync(path.join(out, "excel-property-card.png"));
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(png.readUInt32BE(16)).toBe(1180);
    expect(png.readUInt32BE(20)).toBeGreaterThan(300);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});

/** Each committed picture and when it was last written: a script that ran on import would change one. */
function snapshot(): [string, number][] {
  const dir = path.join(ROOT, "assets/screenshots");
  return fs.readdirSync(dir).map((f) => [f, fs.statSync(path.join(dir, f)).mtimeMs]);
}

test("without Chromium, a screenshot script says how to install it, not Playwright's own error", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/screenshots-property-card.ts")], {
    cwd: ROOT,
    env: { ...process.env, CHROMIUM_PATH: path.join(os.tmpdir(), "no-chromium-here") },
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("sudo apt-get install -y chromium");
  expect(r.stderr).not.toMatch(/npx playwright install|Executable doesn't exist/);
});
