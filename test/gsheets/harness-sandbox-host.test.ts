/**
 * The sandbox host process runs every sandbox of a jest worker's Sheets suites: each must stay what a process of its
 * own was, its own port, day, limits, clock, faults and counts, and closing one must leave the others answering.
 */
import { startSandboxProcess } from "./harness/sandbox";

async function get(url: string): Promise<{ status: number; body: any }> {
  const r = await fetch(url, { headers: { authorization: "Bearer sandbox-professional" } });
  return { status: r.status, body: await r.json().catch(() => null) };
}

test("two sandboxes of one host keep their own day, faults, counts and clock; closing one leaves the other", async () => {
  const a = await startSandboxProcess({ msPerProperty: 1, today: "2027-01-31" });
  const b = await startSandboxProcess({
    msPerProperty: 1,
    today: "2027-06-30",
    limits: { professional: { perDay: 1 } },
  });
  try {
    expect(a.url).not.toBe(b.url);
    const [pa] = await a.properties(1);
    const [pb] = await b.properties(1);
    // One dataset, as processes of their own gave.
    expect(pa.uprn).toBe(pb.uprn);

    await b.setFaults([{ kind: "error_503", route: "check", count: 1 }]);
    const fromA = await get(`${a.baseUrl}/api/check?uprn=${pa.uprn}`);
    expect(fromA.status).toBe(200);
    const fromB = await get(`${b.baseUrl}/api/check?uprn=${pb.uprn}`);
    expect(fromB.status).toBe(503);
    expect((await a.stats()).check).toBe(1);
    expect((await b.stats()).check).toBe(1);
    await b.clearFaults();

    // b's plan allows one request a day, and the faulted one was it: the next is refused, while a goes on answering.
    expect((await get(`${b.baseUrl}/api/check?uprn=${pb.uprn}`)).status).toBe(429);
    expect((await get(`${a.baseUrl}/api/check?uprn=${pa.uprn}`)).status).toBe(200);

    // A day on for b alone: its quota is back, and a's counts are untouched.
    await b.advanceClock(24 * 60 * 60 * 1000);
    expect((await get(`${b.baseUrl}/api/check?uprn=${pb.uprn}`)).status).toBe(200);
    expect((await a.stats()).check).toBe(2);

    await a.close();
    await expect(fetch(`${a.baseUrl}/api/check?uprn=${pa.uprn}`)).rejects.toThrow();
    expect((await get(`${b.baseUrl}/api/check?uprn=${pb.uprn}`)).status).toBe(429);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
