/** Time-driven triggers firing as Apps Script fires them, within the user's daily trigger run time. */
import {
  createGasEnvironment,
  TRIGGER_RUNTIME_ERROR,
  TRIGGER_RUNTIME_PER_DAY_MS,
  type FakeTrigger,
  type GasEnvironment,
} from "./gas";

const runtimeKey = (env: GasEnvironment) =>
  `${env.script.user}|${new Date(Date.now() + env.clock.offsetMs).toISOString().slice(0, 10)}`;

/** Trigger run time the user has used today (the vm clock's UTC day). */
export function triggerRuntimeToday(env: GasEnvironment): number {
  return (env.script.runtimeMs ?? {})[runtimeKey(env)] ?? 0;
}

/**
 * A time-driven trigger fires as Apps Script fires it: a fresh execution over `env`'s stores, its run time counted
 * against the user's day. Past the day's 90 minutes it does not run: the execution fails with Google's error, and a
 * one-off trigger is spent all the same (it is gone from the list); a recurring one waits for its next time. A disabled
 * trigger does not run at all (null).
 */
export function fireTrigger(env: GasEnvironment, t: FakeTrigger): GasEnvironment | null {
  if (t.disabled) return null;
  const spend = () => {
    if (t.afterMs !== undefined) env.script.triggers = env.script.triggers.filter((x) => x.id !== t.id);
  };
  if (triggerRuntimeToday(env) >= TRIGGER_RUNTIME_PER_DAY_MS) {
    spend();
    throw new Error(TRIGGER_RUNTIME_ERROR);
  }
  const exec = createGasEnvironment({ from: env });
  const key = runtimeKey(exec);
  const before = Date.now() + env.clock.offsetMs;
  spend();
  try {
    exec.run(t.handler, { authMode: "FULL", triggerUid: t.id });
  } finally {
    const runtime = env.script.runtimeMs ?? (env.script.runtimeMs = {});
    runtime[key] = (runtime[key] ?? 0) + (Date.now() + env.clock.offsetMs - before);
  }
  return exec;
}
