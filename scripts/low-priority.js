/**
 * Runs a command at the lowest CPU priority: `node scripts/low-priority.js run-p typecheck lint`. `npm test` runs its
 * type-check, lint and format check this way beside the tests, so they mostly use the CPU time the tests leave idle
 * (while they wait on a browser or a sandbox). The command's children inherit the priority, on Linux, macOS and
 * Windows alike. Exits with the command's exit code.
 */
const os = require("os");
const { spawn } = require("child_process");

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node scripts/low-priority.js <command> [args...]");
  process.exit(2);
}
try {
  os.setPriority(os.constants.priority.PRIORITY_LOW);
} catch (e) {
  // Not allowed here (a restricted container): run at the usual priority rather than not at all.
  console.warn(`low-priority: could not lower the priority (${e.message}); running at the usual one`);
}
const child = spawn(command, args, { stdio: "inherit", shell: process.platform === "win32" });
child.on("exit", (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
