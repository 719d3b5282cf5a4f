/**
 * The page tests' guard: without Chromium a developer's run skips them, loudly and with the apt command; under CI it
 * fails them, so that CI cannot pass by skipping them.
 */
import * as os from "os";
import * as path from "path";

type Guard = typeof import("../helpers/chromium");

// The guard only looks for the browser's file; Playwright, loaded afresh for each case, would cost 2 s a case.
jest.mock("playwright-core", () => ({ chromium: {} }));

const NOWHERE = path.join(os.tmpdir(), "no-chromium-here");

/**
 * What `call` did with the guard loaded afresh under CHROMIUM_PATH and CI as given (undefined: CI not set): its
 * answer or its error, and what it warned.
 */
function outcome(
  env: { chromium: string; ci: string | undefined },
  call: (guard: Guard) => unknown,
): { value?: unknown; error?: string; warned: string } {
  const saved = { CHROMIUM_PATH: process.env.CHROMIUM_PATH, CI: process.env.CI };
  const set = (vars: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(vars))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  };
  const warn = jest.spyOn(console, "warn").mockImplementation(() => {});
  const warned = () => warn.mock.calls.flat().join("\n");
  set({ CHROMIUM_PATH: env.chromium, CI: env.ci });
  try {
    let guard!: Guard;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy, so that it reads CHROMIUM_PATH as set here
      guard = require("../helpers/chromium");
    });
    return { value: call(guard), warned: warned() };
  } catch (e) {
    return { error: (e as Error).message, warned: warned() };
  } finally {
    set(saved);
    warn.mockRestore();
  }
}

test("CI=true and no Chromium: the browser tests fail (describe, test), saying how to install it", () => {
  for (const call of [
    (g: Guard) => g.describeWithChromium("pane tests"),
    (g: Guard) => g.testWithChromium("pane tests"),
  ]) {
    const r = outcome({ chromium: NOWHERE, ci: "true" }, call);
    expect(r.value).toBeUndefined();
    expect(r.error).toContain("CI is set, so the pane tests fail rather than skip.");
    expect(r.error).toContain(`No Chromium at ${NOWHERE}.`);
    expect(r.error).toContain("apt-get install -y chromium");
  }
});

test("no CI and no Chromium: the browser tests are skipped, with a warning that gives the apt command", () => {
  for (const ci of [undefined, "false", "0", ""]) {
    const block = outcome({ chromium: NOWHERE, ci }, (g) => g.describeWithChromium("pane tests"));
    expect({ ci, skipped: block.value === describe.skip, error: block.error }).toEqual({
      ci,
      skipped: true,
      error: undefined,
    });
    expect(block.warned).toContain("SKIPPING the pane tests.");
    expect(block.warned).toContain("apt-get install -y chromium");
    expect(outcome({ chromium: NOWHERE, ci }, (g) => g.testWithChromium()).value).toBe(test.skip);
  }
});

test("with Chromium where CHROMIUM_PATH says, the browser tests run, under CI or not", () => {
  for (const ci of ["true", undefined]) {
    // Any file that exists stands for the browser here: the guard only looks for it.
    const r = outcome({ chromium: process.execPath, ci }, (g) => [g.describeWithChromium(), g.testWithChromium()]);
    expect({ ci, value: r.value, warned: r.warned }).toEqual({ ci, value: [describe, test], warned: "" });
  }
});
