/**
 * The built Excel add-in (dist/excel) for tests: `npm test` builds first; a lone `npx jest test/excel` builds here
 * when dist/excel is missing or older than the sources, so tests always exercise the real bundles.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

export const ROOT = path.resolve(__dirname, "../../..");
export const DIST = path.join(ROOT, "dist/excel");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

export function ensureExcelBuild(): string {
  const marker = path.join(DIST, "taskpane.html");
  const sources = Math.max(
    newestMtime(path.join(ROOT, "excel")),
    newestMtime(path.join(ROOT, "core")),
    fs.statSync(path.join(ROOT, "manifest.xml")).mtimeMs,
  );
  if (!fs.existsSync(marker) || fs.statSync(marker).mtimeMs < sources) {
    execFileSync(
      process.execPath,
      [require.resolve("webpack-cli/bin/cli.js"), "--mode", "production", "--env", "target=excel"],
      {
        cwd: ROOT,
        stdio: "pipe",
      },
    );
  }
  return DIST;
}
