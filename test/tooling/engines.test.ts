/**
 * The engines field is true: every installed package (dependencies, dev and optional, at every depth) accepts the
 * oldest Node this project says it runs on, so `npm install` on that Node prints no EBADENGINE warning.
 */
import fs from "fs";
import path from "path";
import semver from "semver";

const ROOT = path.resolve(__dirname, "../..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));

function installed(dir: string, out: { name: string; version: string; node?: string }[] = []): typeof out {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir)) {
    if (entry.startsWith(".")) continue;
    const at = path.join(dir, entry);
    if (entry.startsWith("@")) {
      installed(at, out);
      continue;
    }
    const file = path.join(at, "package.json");
    if (!fs.existsSync(file)) continue;
    const j = JSON.parse(fs.readFileSync(file, "utf8"));
    out.push({
      name: j.name,
      version: j.version,
      node: typeof j.engines?.node === "string" ? j.engines.node : undefined,
    });
    installed(path.join(at, "node_modules"), out);
  }
  return out;
}

test("the oldest Node we claim (engines) is at least 20.19 and the Node running the tests meets it", () => {
  const min = semver.minVersion(pkg.engines.node)!.version;
  expect(semver.gte(min, "20.19.0")).toBe(true);
  expect(semver.satisfies(process.version, pkg.engines.node)).toBe(true);
});

test("every installed package accepts that Node", () => {
  const min = semver.minVersion(pkg.engines.node)!.version;
  const all = installed(path.join(ROOT, "node_modules"));
  expect(all.length).toBeGreaterThan(300);
  const refusing = all
    .filter((p) => p.node && semver.validRange(p.node) && !semver.satisfies(min, p.node))
    .map((p) => `${p.name}@${p.version} wants node ${p.node}`);
  expect(refusing).toEqual([]);
});
