/**
 * Keeps the functions that count from today (NEXTACTION, DUE, CHECK, PROPERTY) current in a workbook left open past
 * midnight: when the local day changes, the shared runtime asks Excel for one full recalculation.
 *
 * Why not @volatile: a volatile function re-runs in every cell on every edit anywhere in the workbook, and once the
 * cached answers are ten minutes old each such edit would send the whole column's UPRNs to the service again. A day
 * argument (a cell passing TODAY()) costs the same, since TODAY() is volatile. One recalculation a day re-runs
 * each cell once, from the cache where its answer is fresh.
 */

export interface DayWatchOptions {
  /** The workbook's day now (the runtime's `today`: the computer's local day). */
  today: () => string;
  now: () => number;
  /** One full recalculation (Application.calculate(full)); a rejection is tried again a minute later. */
  recalculate: () => Promise<void>;
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/**
 * The longest a wait is left to run: a computer that sleeps through midnight holds its timers back by the time it
 * slept, so the day is looked at again at least hourly (a comparison of two strings; Excel is asked only on a change).
 */
export const DAY_CHECK_MAX_MS = 60 * 60_000;
const RETRY_MS = 60_000;

/** Milliseconds from `ms` to the next local midnight, a second past it so the new day has begun. */
export function msToNextLocalDay(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime() - ms + 1000;
}

/** Starts watching; `stop()` ends it. */
export function watchDayChange(o: DayWatchOptions): { stop(): void } {
  const setTimer = o.setTimer ?? ((run, ms) => setTimeout(run, ms));
  const clearTimer = o.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  let shown = o.today();
  let timer: unknown;
  let stopped = false;
  const schedule = (ms: number) => {
    if (!stopped) timer = setTimer(tick, Math.min(ms, DAY_CHECK_MAX_MS));
  };
  const tick = () => {
    const day = o.today();
    if (day === shown) return schedule(msToNextLocalDay(o.now()));
    o.recalculate().then(
      () => {
        shown = day;
        schedule(msToNextLocalDay(o.now()));
      },
      // Excel refuses while a cell is being edited: ask again shortly rather than leave yesterday's days standing.
      () => schedule(RETRY_MS),
    );
  };
  schedule(msToNextLocalDay(o.now()));
  return {
    stop() {
      stopped = true;
      clearTimer(timer);
    },
  };
}
