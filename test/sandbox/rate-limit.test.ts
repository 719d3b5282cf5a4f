/** Per-key minute and day windows (fixed, from the first request), 429 with Retry-After, IP limits without a key. */
import { ENT, NO_API, PRO, expectError, start } from "../helpers/sandbox";

const CHECK = "/api/check?uprn=100023336956";

test("professional: 60 requests a minute, then 429 rate_limited with Retry-After; other keys unaffected", async () => {
  const { sb, call } = await start();
  try {
    for (let i = 1; i <= 60; i++) {
      const res = await call(CHECK, { key: PRO });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(60 - i));
    }
    const res = await call(CHECK, { key: PRO });
    const error = expectError(res, 429, "rate_limited");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(error.details).toEqual({ scope: "minute", retry_after: retryAfter });
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(res.headers.get("x-ratelimit-reset")).toBe(String(retryAfter));
    // Polls count too, and a refused key does not touch the other plan's window.
    expectError(await call("/api/check/bulk/bulk_x/results", { key: PRO }), 429, "rate_limited");
    expect((await call(CHECK, { key: ENT })).status).toBe(200);
  } finally {
    await sb.close();
  }
});

describe("with a controllable clock and small limits", () => {
  let t = Date.UTC(2026, 10, 22, 9, 0, 0);
  const setup = () =>
    start({
      now: () => new Date(t),
      limits: { professional: { perMinute: 3, perDay: 5 }, enterprise: { perMinute: 4, perDay: 100 } },
    });

  test("the minute window resets 60 s after its first request; the day window does not", async () => {
    const { sb, call } = await setup();
    try {
      for (let i = 0; i < 3; i++) expect((await call(CHECK, { key: PRO })).status).toBe(200);
      t += 20_000;
      const limited = await call(CHECK, { key: PRO });
      expectError(limited, 429, "rate_limited");
      expect(limited.headers.get("retry-after")).toBe("40");
      expect(limited.headers.get("x-ratelimit-reset")).toBe("40");
      t += 40_000;
      // New minute: 2 more requests reach the day's 5; the headers now report the day window.
      const fourth = await call(CHECK, { key: PRO });
      expect(fourth.status).toBe(200);
      expect(fourth.headers.get("x-ratelimit-limit")).toBe("5");
      expect(fourth.headers.get("x-ratelimit-remaining")).toBe("1");
      expect(fourth.headers.get("x-ratelimit-reset")).toBe(String(86_400 - 60));
      expect((await call(CHECK, { key: PRO })).status).toBe(200);
      t += 60_000;
      const dayLimited = await call(CHECK, { key: PRO });
      const error = expectError(dayLimited, 429, "rate_limited");
      expect(error.details.scope).toBe("day");
      expect(dayLimited.headers.get("retry-after")).toBe(String(86_400 - 120));
      expect(dayLimited.headers.get("x-ratelimit-limit")).toBe("5");
      expect(dayLimited.headers.get("x-ratelimit-remaining")).toBe("0");
      t += 86_400_000;
      expect((await call(CHECK, { key: PRO })).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  test("without a valid key the caller's IP is limited with the professional numbers", async () => {
    const { sb, call } = await setup();
    try {
      expectError(await call(CHECK, { key: null }), 401, "missing_api_key");
      expectError(await call(CHECK, { key: "wrong" }), 401, "invalid_api_key");
      const third = await call(CHECK, { key: NO_API });
      expectError(third, 403, "plan_not_permitted");
      expect(third.headers.get("x-ratelimit-limit")).toBe("3");
      expect(third.headers.get("x-ratelimit-remaining")).toBe("0");
      expectError(await call(CHECK, { key: null }), 429, "rate_limited");
      expectError(await call("/unknown", { key: null }), 429, "rate_limited");
      // Valid keys have windows of their own.
      expect((await call(CHECK, { key: ENT })).headers.get("x-ratelimit-limit")).toBe("4");
    } finally {
      await sb.close();
    }
  });

  test("concurrent requests never pass a spent window; undecodable URLs are counted and refused like any other", async () => {
    const { sb, call } = await setup();
    try {
      const burst = async () => Promise.all(Array.from({ length: 8 }, () => call(CHECK, { key: PRO })));
      const minute = await burst();
      expect(minute.filter((r) => r.status === 200)).toHaveLength(3);
      for (const r of minute.filter((r) => r.status !== 200))
        expect(expectError(r, 429, "rate_limited").details.scope).toBe("minute");
      t += 60_000;
      // The five refused requests were not counted: two more reach the day's 5.
      const day = await burst();
      expect(day.filter((r) => r.status === 200)).toHaveLength(2);
      for (const r of day.filter((r) => r.status !== 200))
        expect(expectError(r, 429, "rate_limited").details.scope).toBe("day");
      const badUrl = await call("/api/check/bulk/%ZZ/results", { key: PRO });
      expect(expectError(badUrl, 429, "rate_limited").details.scope).toBe("day");
      expect(badUrl.headers.get("x-ratelimit-limit")).toBe("5");
      expect(badUrl.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(badUrl.headers.get("retry-after")).toBe(badUrl.headers.get("x-ratelimit-reset"));
    } finally {
      await sb.close();
    }
  });

  test("reset clears the counters", async () => {
    const { sb, call } = await setup();
    try {
      for (let i = 0; i < 3; i++) await call(CHECK, { key: PRO });
      expectError(await call(CHECK, { key: PRO }), 429, "rate_limited");
      sb.reset();
      expect((await call(CHECK, { key: PRO })).status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});
