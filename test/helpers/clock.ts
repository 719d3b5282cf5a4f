/**
 * A test clock shared by the client and the sandbox, so that a test never waits in real time for a poll interval, a
 * retry back-off or a job's processing: `now()` is the real clock plus an offset, and `sleep(ms)` moves the offset on
 * instead of waiting, as soon as nothing else is going on. "Nothing else" means no request of the client's is in
 * flight (requests go through `clock.fetch`): a request timeout raced against a slow answer is then still decided by
 * the answer, and the sandbox's jobs (given `clock.date` as their clock) progress exactly as far as the waits say.
 *
 *   const clock = testClock();
 *   const sb = await startTestSandbox({ msPerProperty: 400, now: clock.date });
 *   const client = createClient({ baseUrl: sb.baseUrl, apiKey, fetch: clock.fetch(fetch), sleep: clock.sleep, now: clock.now });
 *
 * Tests that race the run against a real-time event (a setTimeout that cancels it) keep the real clock.
 */
import type { FetchLike, Sleep } from "../../core/service/client";

interface Timer {
  at: number;
  done: () => void;
}

export interface TestClock {
  /** Milliseconds on the test's clock. */
  now(): number;
  /** The same as a Date, for the sandbox's `now` option. */
  date(): Date;
  /** Waits `ms` on the test's clock: at once in real time, once no request is in flight and no earlier wait is due. */
  sleep: Sleep;
  /** Wraps a fetch so the clock knows when requests are in flight (the body is read before the request counts as done). */
  fetch(inner: FetchLike): FetchLike;
  /** Moves the clock on by hand. */
  advance(ms: number): void;
  /** How far the clock has moved ahead of real time. */
  readonly skippedMs: number;
}

/**
 * `startMs`: where the clock starts (it then runs on with real time, and jumps over waits); the machine's time when
 * absent. A suite that compares a day taken at its start with one taken at its end starts at a fixed instant, so that
 * the suite itself never runs across a midnight.
 */
export function testClock(startMs?: number): TestClock {
  const startOffset = startMs === undefined ? 0 : startMs - Date.now();
  let offset = startOffset;
  let inFlight = 0;
  let armed = false;
  const timers: Timer[] = [];
  const now = () => Date.now() + offset;

  // After real work settles (a macrotask later), jump to the earliest wait and end every wait that is then due.
  const arm = () => {
    if (armed) return;
    armed = true;
    setTimeout(tick, 0);
  };
  const tick = () => {
    armed = false;
    if (inFlight > 0 || timers.length === 0) return;
    timers.sort((a, b) => a.at - b.at);
    const gap = timers[0].at - now();
    if (gap > 0) offset += gap;
    const t = now();
    for (const due of timers.filter((x) => x.at <= t)) {
      timers.splice(timers.indexOf(due), 1);
      due.done();
    }
    if (timers.length) arm();
  };

  const sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer: Timer = { at: now() + Math.max(0, ms), done: resolve };
      timers.push(timer);
      signal?.addEventListener?.(
        "abort",
        () => {
          const i = timers.indexOf(timer);
          if (i >= 0) timers.splice(i, 1);
          resolve();
        },
        { once: true },
      );
      arm();
    });

  return {
    now,
    date: () => new Date(now()),
    sleep,
    fetch(inner) {
      return (async (url: string, init: unknown) => {
        inFlight++;
        try {
          const res = await inner(url, init as Parameters<FetchLike>[1]);
          const text = await res.text();
          return new Response([101, 204, 205, 304].includes(res.status) ? null : text, {
            status: res.status,
            headers: res.headers as HeadersInit,
          });
        } finally {
          inFlight--;
          arm();
        }
      }) as unknown as FetchLike;
    },
    advance(ms) {
      offset += Math.max(0, ms);
    },
    get skippedMs() {
      return offset - startOffset;
    },
  };
}

/**
 * The day a suite that counts days runs on (a due date, Days left, an expiry): a fixed day, not the machine's, so the
 * suite gives the same days at any hour and in any zone, and never runs across a midnight. Give it to the sandbox as
 * its `today` too, so that the register is made for it.
 */
export const TEST_DAY = "2026-05-02";

/**
 * Noon on `day` in the computer's zone, or in `zone` (a spreadsheet's): the Excel add-in counts days from the
 * computer's own day (localDay), the Sheets add-in from the spreadsheet's, which is then `day` in every zone from UTC-12
 * to UTC+14, so a suite compares the days it expects as written.
 */
export function noonOn(day: string = TEST_DAY, zone?: string): number {
  const [y, m, d] = day.split("-").map(Number);
  if (!zone) return new Date(y, m - 1, d, 12).getTime();
  // `zone`'s noon: noon UTC less what the zone's clocks show then over UTC (no zone changes its offset at noon).
  const utcNoon = Date.UTC(y, m - 1, d, 12);
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
  }).formatToParts(utcNoon);
  const n = (type: string) => Number(parts.find((x) => x.type === type)!.value);
  return 2 * utcNoon - Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"));
}

/** Noon UTC on `day`: for what counts in UTC days (the demo's answers count their dates from the UTC day). */
export const noonUtc = (day: string = TEST_DAY): number => Date.parse(`${day}T12:00:00Z`);

/** A test clock from noon on `day` (noonOn), for the sandbox (`now: clock.date`), the client and the pane alike. */
export const dayClock = (day: string = TEST_DAY): TestClock => testClock(noonOn(day));

/**
 * Sets an Apps Script vm's clock (the harness's `env.clock`, running on from there) to noon of `day` in its
 * spreadsheet's zone: set the zone first. Returns the environment.
 */
export function vmAtNoon<E extends { clock: { offsetMs: number }; spreadsheet: { timeZone: string } }>(
  env: E,
  day: string = TEST_DAY,
): E {
  env.clock.offsetMs = noonOn(day, env.spreadsheet.timeZone) - Date.now();
  return env;
}
