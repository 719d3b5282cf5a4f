/** `npm run sandbox`: prints the base URL and keys, serves, and exits cleanly on SIGTERM and SIGINT. */
import { type ChildProcess, spawn } from "child_process";
import * as path from "path";

const root = path.resolve(__dirname, "../..");

function launch(): { child: ChildProcess; baseUrl: Promise<string>; output: () => string } {
  // As package.json's "sandbox" script starts it: one process (tsx as Node's loader), so a signal reaches the sandbox's
  // own handler, which closes it and exits 0.
  const child = spawn(process.execPath, ["--import", "tsx", "sandbox/main.ts"], {
    cwd: root,
    env: { ...process.env, PORT: "0", SANDBOX_MS_PER_PROPERTY: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, signalled whole below as a terminal's Ctrl+C or a service manager does.
    detached: true,
  });
  let out = "";
  const baseUrl = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr!.on("data", (d) => (out += d));
    child.on("exit", () => reject(new Error("sandbox exited early: " + out)));
  });
  return { child, baseUrl, output: () => out };
}

const exited = (child: ChildProcess) => new Promise<number | null>((r) => child.on("exit", (code) => r(code)));

test.each(["SIGTERM", "SIGINT"] as const)("serves, then exits 0 on %s", async (signal) => {
  const { child, baseUrl, output } = launch();
  try {
    const base = await baseUrl;
    const res = await fetch(`${base}/api/check?uprn=100023336956`, {
      headers: { Authorization: "Bearer sandbox-professional" },
    });
    expect(res.status).toBe(200);
    for (const key of ["sandbox-professional", "sandbox-enterprise", "sandbox-no-api"]) expect(output()).toContain(key);
    const done = exited(child);
    process.kill(-child.pid!, signal);
    expect(await done).toBe(0);
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
  }
});
