/**
 * The shared runtime's day watch on an injected clock and timers: one recalculation per new local day, a wait never
 * longer than an hour (a computer asleep at midnight), and a refused recalculation asked again a minute later.
 */
import { DAY_CHECK_MAX_MS, msToNextLocalDay, watchDayChange } from "../../../excel/functions/day-change";
import { localDay } from "../../../excel/taskpane/stored";

function harness(start: number, refuse = 0) {
  let t = start;
  const timers: { at: number; run: () => void }[] = [];
  const waits: number[] = [];
  let calculations = 0;
  let refusals = refuse;
  const watch = watchDayChange({
    now: () => t,
    today: () => localDay(t),
    recalculate: async () => {
      if (refusals-- > 0) throw new Error("InvalidOperation: a cell is being edited");
      calculations++;
    },
    setTimer: (run, ms) => {
      waits.push(ms);
      timers.push({ at: t + ms, run });
      return timers.length;
    },
    clearTimer: () => undefined,
  });
  /** Moves the clock to `to`, running each timer due on the way at its own time. */
  const advanceTo = async (to: number) => {
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const next = timers[0];
      if (!next || next.at > to) break;
      timers.shift();
      t = next.at;
      next.run();
      await new Promise((r) => setImmediate(r));
    }
    t = to;
  };
  return { advanceTo, waits, calculations: () => calculations, stop: () => watch.stop() };
}

const n = new Date(2026, 10, 27, 23, 0).getTime(); // a local 23:00
const minute = 60_000;

test("past local midnight: one full recalculation; the rest of the day, none", async () => {
  const h = harness(n);
  // Midnight is an hour and a second away: the first look is the hourly one, at midnight itself.
  expect(msToNextLocalDay(n)).toBe(60 * minute + 1000);
  expect(h.waits[0]).toBe(DAY_CHECK_MAX_MS);
  await h.advanceTo(n + 59 * minute);
  expect(h.calculations()).toBe(0);
  await h.advanceTo(n + 62 * minute);
  expect(localDay(n + 62 * minute)).toBe("2026-11-28");
  expect(h.calculations()).toBe(1);
  await h.advanceTo(n + 20 * 60 * minute);
  expect(h.calculations()).toBe(1);
  // Every wait after the first is at most an hour: a late timer still finds the new day within the hour.
  expect(Math.max(...h.waits)).toBeLessThanOrEqual(DAY_CHECK_MAX_MS);
  await h.advanceTo(n + 26 * 60 * minute);
  expect(h.calculations()).toBe(2);
  h.stop();
});

test("a recalculation Excel refuses is asked again a minute later, and the day is not taken as shown until it is done", async () => {
  const h = harness(n, 2);
  await h.advanceTo(n + 61 * minute + 1000);
  expect(h.calculations()).toBe(0);
  expect(h.waits.slice(-1)).toEqual([minute]);
  await h.advanceTo(n + 63 * minute + 1000);
  expect(h.calculations()).toBe(1);
  await h.advanceTo(n + 10 * 60 * minute);
  expect(h.calculations()).toBe(1);
  h.stop();
});
