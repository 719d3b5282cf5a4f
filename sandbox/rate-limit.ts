/**
 * Fixed-window request counting per caller, a minute window and a day window at once, each starting
 * at the caller's first request; reports the window closest to running out, as the contract says.
 */

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the reported window resets (integer, at least 1 while a window is open). */
  reset: number;
  /** Set when this request was refused. */
  exceeded: null | { scope: "minute" | "day"; retryAfter: number };
}

interface Windows {
  minuteStart: number;
  minuteCount: number;
  dayStart: number;
  dayCount: number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export class RateLimiter {
  private callers = new Map<string, Windows>();

  constructor(private readonly clock: () => number) {}

  /** Counts one request of `caller` unless a window is already full (refused requests are not counted). */
  hit(caller: string, perMinute: number, perDay: number): RateLimitState {
    const now = this.clock();
    let w = this.callers.get(caller);
    if (!w) {
      w = { minuteStart: now, minuteCount: 0, dayStart: now, dayCount: 0 };
      this.callers.set(caller, w);
    }
    if (now - w.minuteStart >= MINUTE_MS) {
      w.minuteStart = now;
      w.minuteCount = 0;
    }
    if (now - w.dayStart >= DAY_MS) {
      w.dayStart = now;
      w.dayCount = 0;
    }
    const secondsLeft = (start: number, length: number) => Math.max(1, Math.ceil((start + length - now) / 1000));
    const minuteReset = secondsLeft(w.minuteStart, MINUTE_MS);
    const dayReset = secondsLeft(w.dayStart, DAY_MS);

    if (w.dayCount >= perDay) {
      return { limit: perDay, remaining: 0, reset: dayReset, exceeded: { scope: "day", retryAfter: dayReset } };
    }
    if (w.minuteCount >= perMinute) {
      return { limit: perMinute, remaining: 0, reset: minuteReset, exceeded: { scope: "minute", retryAfter: minuteReset } };
    }
    w.minuteCount++;
    w.dayCount++;
    const minuteLeft = perMinute - w.minuteCount;
    const dayLeft = perDay - w.dayCount;
    return dayLeft < minuteLeft
      ? { limit: perDay, remaining: dayLeft, reset: dayReset, exceeded: null }
      : { limit: perMinute, remaining: minuteLeft, reset: minuteReset, exceeded: null };
  }

  reset(): void {
    this.callers.clear();
  }
}
