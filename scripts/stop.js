/**
 * `npm stop`: ends what `npm start` started (PIDs in .start-state.json) and removes a desktop sideload if there was one.
 */
const { spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const ROOT = path.resolve(__dirname, "..");
const STATE = path.join(ROOT, ".start-state.json");

function stopServer(name, pid) {
  // The servers were started detached, each leading its own process group: end the group (tsx and webpack children too).
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGTERM");
      console.log(`Stopped ${name} (pid ${pid}).`);
      return;
    } catch {
      // not running any more, or not a group leader
    }
  }
  console.log(`${name} (pid ${pid}) was not running.`);
}

if (!fs.existsSync(STATE)) {
  console.log("Nothing to stop (no .start-state.json).");
} else {
  const { pids } = JSON.parse(fs.readFileSync(STATE, "utf8"));
  for (const [name, pid] of Object.entries(pids || {})) stopServer(name, pid);
  fs.rmSync(STATE, { force: true });
}

try {
  const cli = require.resolve("office-addin-debugging/cli.js");
  if (process.platform === "win32" || process.platform === "darwin") {
    spawnSync(process.execPath, [cli, "stop", "manifest.xml"], { cwd: ROOT, stdio: "inherit" });
  }
} catch {
  // office-addin-debugging is optional; without it nothing was sideloaded.
}
