/**
 * The sandbox's clock: its day can be set (SANDBOX_TODAY / the `today`
 * option) and moved over HTTP; the register's dates stay put, so certificates expire and statuses change as it moves;
 * its Date header follows it.
 */
import { startTestSandbox } from "../helpers/sandbox";
import { buildDatasetFor, daysUntil, WARNING_WINDOW_DAYS } from "../../sandbox/dataset";

const KEY = { authorization: "Bearer sandbox-professional", connection: "close" };

test("set, move and reset the day over HTTP; answers change exactly where a date crossed a threshold", async () => {
  const sb = await startTestSandbox({ today: "2027-01-31" });
  try {
    const json = async (path: string, init?: RequestInit) =>
      (
        await fetch(`${sb.url}${path}`, {
          ...init,
          headers: { ...KEY, "content-type": "application/json", ...(init?.headers ?? {}) },
        })
      ).json();
    expect(await json("/__sandbox/clock")).toEqual({ today: "2027-01-31", anchor: "2027-01-31" });
    const anchor = buildDatasetFor(new Date("2027-01-31T12:00:00Z"));
    expect(sb.dataset().properties.map((p) => p.uprn)).toEqual(anchor.properties.map((p) => p.uprn));

    // A gas certificate due in 20 days: a warning today, a fail 60 days on, its expiry unchanged.
    const gas = anchor.properties.find(
      (p) => p.facts.gas_safety === "certificate" && daysUntil(anchor, p.checks.gas_safety.expiry!) === 20,
    )!;
    const before = await json(`/v1/api/check?uprn=${gas.uprn}`);
    expect(before.checks.gas_safety).toMatchObject({ status: "warning", expiry: gas.checks.gas_safety.expiry });
    expect(await json("/__sandbox/clock", { method: "POST", body: JSON.stringify({ advance_days: 60 }) })).toEqual({
      today: "2027-04-01",
      anchor: "2027-01-31",
    });
    const after = await json(`/v1/api/check?uprn=${gas.uprn}`);
    expect(after.checks.gas_safety).toEqual({ ...before.checks.gas_safety, status: "fail" });

    // Every property: only the date-driven statuses change, and each as its own date says.
    // Collected, then asserted once: 100,000 checks through expect() one by one cost most of this test's time.
    const moved = sb.dataset();
    let changed = 0;
    const expiryMoved: string[] = [];
    const wrongStatus: { uprn: string; check: string; status: string; expected: string }[] = [];
    for (const p of anchor.properties) {
      const q = moved.byUprn.get(p.uprn)!;
      for (const check of ["epc", "gas_safety", "eicr", "licensing", "deposit_protection"] as const) {
        const a = p.checks[check] as { status: string; expiry?: string | null };
        const b = q.checks[check] as { status: string; expiry?: string | null };
        if ((b.expiry ?? null) !== (a.expiry ?? null))
          expiryMoved.push(`${p.uprn} ${check}: ${a.expiry} -> ${b.expiry}`);
        if (a.status === b.status) continue;
        changed++;
        const d = daysUntil(moved, b.expiry!);
        const expected = d < 0 ? "fail" : d <= WARNING_WINDOW_DAYS ? "warning" : "pass";
        if (b.status !== expected) wrongStatus.push({ uprn: p.uprn, check, status: b.status, expected });
      }
    }
    expect(expiryMoved).toEqual([]);
    expect(wrongStatus).toEqual([]);
    expect(changed).toBeGreaterThan(1000);

    expect(
      await json("/__sandbox/clock", { method: "POST", body: JSON.stringify({ today: "31/01/2027" }) }),
    ).toMatchObject({ error: { code: "invalid_request" } });
    expect(await json("/__sandbox/clock", { method: "DELETE" })).toEqual({ today: "2027-01-31", anchor: "2027-01-31" });
    expect((await json(`/v1/api/check?uprn=${gas.uprn}`)).checks.gas_safety.status).toBe("warning");
  } finally {
    await sb.close();
  }
});

test("the Date header is the sandbox's own clock, as its timestamps are, so a client reads the skew from it", async () => {
  const at = new Date("2027-03-01T12:34:56Z");
  const sb = await startTestSandbox({ now: () => at });
  try {
    const res = await fetch(`${sb.url}/v1/api/check?uprn=1`, { headers: KEY });
    expect(res.headers.get("date")).toBe("Mon, 01 Mar 2027 12:34:56 GMT");
  } finally {
    await sb.close();
  }
});
