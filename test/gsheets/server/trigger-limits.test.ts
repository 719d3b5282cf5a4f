/**
 * Google's trigger limits, modelled by the stand-in: 20 triggers per person for the add-on across all their
 * spreadsheets, and 90 minutes of trigger run time a day. The Schedule section says both before they are reached, a
 * schedule that cannot be saved says why and what to do, and a trigger Google spent or disabled is set again.
 */
import {
  createGasEnvironment,
  TRIGGER_RUNTIME_ERROR,
  TRIGGER_RUNTIME_PER_DAY_MS,
  type GasEnvironment,
} from "../harness/gas";
import { fireTrigger } from "../harness/triggers";
import { sandboxForFile } from "../harness/sandbox";
import { configure } from "../harness/table";
import { vmAtNoon } from "../../helpers/clock";

const sandbox = sandboxForFile();

function scheduled(from: GasEnvironment | null, name: string): GasEnvironment {
  // A first spreadsheet's clock from noon of a fixed day (the others share it): the day's trigger time is that day's.
  const env = from ? createGasEnvironment({ from, otherSpreadsheet: true }) : vmAtNoon(createGasEnvironment());
  if (!from) configure(env, sandbox);
  env.spreadsheet.name = name;
  const r = env.run("saveSchedule", { mode: "daily", hour: 7 });
  if (!r.ok) throw new Error(r.message);
  return env;
}

test("the 21st schedule is refused with Google's limit, the spreadsheets holding the 20, and what to do", () => {
  const first = scheduled(null, "Lettings 1");
  const files = [first];
  for (let i = 2; i <= 20; i++) files.push(scheduled(first, `Lettings ${i}`));
  expect(first.script.triggers).toHaveLength(20);
  // Said before it is reached.
  expect(files[19].run("getSidebarState").schedule.limits).toMatch(
    /Google allows each person 20 schedules in all their spreadsheets \(you have 20\), and 90 minutes of scheduled run time a day/,
  );
  const extra = createGasEnvironment({ from: first, otherSpreadsheet: true });
  extra.spreadsheet.name = "Lettings 21";
  const refused = extra.run("saveSchedule", { mode: "daily", hour: 7 });
  expect(refused.ok).toBe(false);
  expect(refused.message).toMatch(/Google allows each person 20 schedules across all their spreadsheets/);
  expect(refused.message).toMatch(/"Lettings 1", "Lettings 2"/);
  expect(refused.message).toMatch(/set its schedule to Off, then save this one again/);
  expect(refused.message).not.toMatch(/too many triggers/);
  expect(first.script.triggers).toHaveLength(20);
  // One turned off elsewhere: this one saves.
  expect(files[4].run("saveSchedule", { mode: "off" }).ok).toBe(true);
  expect(extra.run("saveSchedule", { mode: "daily", hour: 7 }).ok).toBe(true);
  expect(first.script.triggers).toHaveLength(20);
});

test("the stand-in: triggers stop firing after the day's 90 minutes, a one-off trigger is spent by it", () => {
  const env = scheduled(null, "Portfolio");
  const t = env.script.triggers[0];
  // The day's trigger time is used up (other schedules' re-checks), and the trigger is a follow-up (one-off).
  const day = new Date(Date.now() + env.clock.offsetMs).toISOString().slice(0, 10);
  env.script.runtimeMs = { [`${env.script.user}|${day}`]: TRIGGER_RUNTIME_PER_DAY_MS };
  t.every = undefined;
  t.afterMs = 60 * 60 * 1000;
  expect(() => fireTrigger(env, t)).toThrow(TRIGGER_RUNTIME_ERROR);
  expect(env.script.triggers).toHaveLength(0);

  // The next time the sidebar opens, the schedule's trigger is set again and the sidebar says what happened.
  env.clock.offsetMs += 24 * 60 * 60 * 1000;
  const view = createGasEnvironment({ from: env }).run("getSidebarState").schedule;
  expect(view.warning).toMatch(/The schedule's trigger had stopped .* it is set again/);
  expect(env.script.triggers).toHaveLength(1);
  expect(env.script.triggers[0].every).toMatchObject({ days: 1, hour: 7 });
  // And it fires again, its run time counted.
  fireTrigger(env, env.script.triggers[0]);
  expect(env.script.triggers).toHaveLength(1);
});

test("a re-check stops short of the day's trigger time, says so in the Run log, and goes on the next day", () => {
  const env = scheduled(null, "Portfolio");
  // A recorded table, as a check from the sidebar leaves it.
  env.documentProperties.setProperty(
    "compliance.watch.0",
    JSON.stringify({
      sheetId: 0,
      sheetName: "Sheet1",
      headerRow: 1,
      firstRow: 2,
      lastRow: 2,
      mapping: { uprn: 0 },
      manualMapping: false,
      inputCols: 1,
      recordedAtMs: 0,
    }),
  );
  env.sheet.seed(1, 1, [["UPRN"], ["100023336956"]]);
  const day = new Date(Date.now() + env.clock.offsetMs).toISOString().slice(0, 10);
  env.userProperties.setProperty("compliance.triggerMs", `${day}:${85 * 60 * 1000}`);
  const exec = fireTrigger(env, env.script.triggers[0])!;
  const log = exec.spreadsheet.getSheetByName("Run log")!;
  const text = JSON.stringify(log.peek(1, 1, log.getLastRow(), log.getLastColumn()));
  expect(text).toMatch(/Paused: scheduled re-checks used 84 of the 90 minutes of trigger run time Google gives a day/);
  // The follow-up waits for the next UTC day.
  const follow = env.script.triggers[0];
  const firesAt = follow.createdAtMs + follow.afterMs!;
  expect(new Date(firesAt).toISOString().slice(0, 10) > day).toBe(true);
});

test("a trigger Google disabled (listed, never firing) is made again once it has been silent longer than its period", () => {
  const env = scheduled(null, "Portfolio");
  const old = env.script.triggers[0];
  old.disabled = true;
  // Within the day nothing is said: a daily trigger may not have fired yet.
  env.clock.offsetMs += 20 * 60 * 60 * 1000;
  expect(createGasEnvironment({ from: env }).run("getSidebarState").schedule.warning).toBe("");
  expect(fireTrigger(env, old)).toBeNull();
  env.clock.offsetMs += 9 * 60 * 60 * 1000;
  const view = createGasEnvironment({ from: env }).run("getSidebarState").schedule;
  expect(view.warning).toMatch(/The schedule's trigger had stopped .* it is set again/);
  expect(env.script.triggers).toHaveLength(1);
  expect(env.script.triggers[0].id).not.toBe(old.id);
  expect(env.script.triggers[0].disabled).toBeFalsy();
  // A trigger that fires keeps it quiet: nothing said a day later.
  fireTrigger(env, env.script.triggers[0]);
  env.clock.offsetMs += 24 * 60 * 60 * 1000;
  expect(createGasEnvironment({ from: env }).run("getSidebarState").schedule.warning).toBe("");
});
