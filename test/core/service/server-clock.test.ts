/**
 * A job's estimated_completion is the server's time. When our clock and the server's disagree (a page whose clock is
 * days behind, a server whose clock drifted), the estimate is read on the server's clock, from its Date header.
 */
import { serverClockOffsetMs, startJob, type BulkJob } from "../../../core";

const SERVER_NOW = Date.parse("2026-11-25T09:00:00Z");
const job = (estimate: string): BulkJob =>
  ({ job_id: "job-1", status: "processing", total_properties: 3, estimated_completion: estimate }) as BulkJob;

describe("the server's clock", () => {
  test("a Date header within 2 s of our clock counts as agreeing (the header has one-second resolution)", () => {
    expect(serverClockOffsetMs({ Date: new Date(SERVER_NOW).toUTCString() }, SERVER_NOW + 1500)).toBe(0);
    expect(serverClockOffsetMs(undefined, SERVER_NOW)).toBe(0);
    expect(serverClockOffsetMs({ date: "not a date" }, SERVER_NOW)).toBe(0);
  });

  test("a client five days behind the server looks at a one-second job within a second, not after the longest wait", () => {
    const ourNow = SERVER_NOW - 5 * 86_400_000;
    const offset = serverClockOffsetMs({ Date: new Date(SERVER_NOW).toUTCString() }, ourNow);
    expect(offset).toBe(5 * 86_400_000);
    const state = startJob(job(new Date(SERVER_NOW + 1000).toISOString()), {
      offset: 0,
      count: 3,
      nowMs: ourNow,
      clockOffsetMs: offset,
    });
    expect(state.estimatedCompletionMs).toBe(ourNow + 1000);
    expect(state.nextPollAtMs - ourNow).toBeLessThanOrEqual(1000);
    // Without the server's clock the same estimate reads as five days away, and the first look waits the longest.
    const naive = startJob(job(new Date(SERVER_NOW + 1000).toISOString()), { offset: 0, count: 3, nowMs: ourNow });
    expect(naive.nextPollAtMs - ourNow).toBeGreaterThan(10_000);
  });

  test("a client ahead of the server does not take a running job's estimate for one already passed", () => {
    const ourNow = SERVER_NOW + 3 * 3_600_000;
    const offset = serverClockOffsetMs({ Date: new Date(SERVER_NOW).toUTCString() }, ourNow);
    const state = startJob(job(new Date(SERVER_NOW + 20_000).toISOString()), {
      offset: 0,
      count: 3,
      nowMs: ourNow,
      clockOffsetMs: offset,
    });
    expect(state.estimatedCompletionMs).toBe(ourNow + 20_000);
    expect(state.nextPollAtMs - ourNow).toBeGreaterThanOrEqual(15_000);
  });
});
