/**
 * The Apps Script stand-in has one clock, as Apps Script has: time a test lets pass (a sleep, a trigger's delay, a
 * clock set to a fixed day) is what Date.now(), new Date() and Date() all read inside the built Code.js. A stand-in
 * that moved only Date.now() would let code reading new Date() decide its day from the machine's wall clock.
 */
import vm from "vm";
import { createGasEnvironment } from "./harness/gas";

const inVm = <T>(env: ReturnType<typeof createGasEnvironment>, code: string): T => vm.runInContext(code, env.context);

test("Date.now(), new Date() and Date() read the same clock in the vm, and dates stay real Dates", () => {
  const env = createGasEnvironment();
  const threeDays = 3 * 86_400_000;
  env.clock.offsetMs += threeDays;
  const r = inVm<{ now: number; made: number; called: number; fixed: number; isDate: boolean; utc: number }>(
    env,
    `({ now: Date.now(), made: new Date().getTime(), called: Date.parse(Date()), fixed: new Date(0).getTime(),
        isDate: new Date() instanceof Date && Object.prototype.toString.call(new Date()) === "[object Date]",
        utc: Date.UTC(2026, 4, 2) })`,
  );
  const wall = Date.now();
  expect(Math.abs(r.now - (wall + threeDays))).toBeLessThan(5_000);
  expect(Math.abs(r.made - r.now)).toBeLessThan(1_000);
  // Date() has whole seconds only.
  expect(Math.abs(r.called - r.now)).toBeLessThan(2_000);
  expect(r.fixed).toBe(0);
  expect(r.isDate).toBe(true);
  expect(new Date(r.utc).toISOString().slice(0, 10)).toBe("2026-05-02");
});
