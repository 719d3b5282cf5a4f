/**
 * The built-in demo (core/demo/demo.ts): its data is the sandbox's (generated, and held to the generator), it covers every
 * status, rating, window and per-row error, it answers in the service's shapes, and the demo key never reaches fetch.
 */
import * as fs from "fs";
import {
  createClient,
  nextObligation,
  outputHeaders,
  outputRow,
  parseCheckResult,
  readPropertyRows,
  type CheckResult,
} from "../../../core";
import { DEMO_DATA } from "../../../core/demo/demo-data";
import { DEMO_NOTE, demoProperties, demoReply, demoSampleTable, memoryJobStore } from "../../../core/demo/demo";
import { buildDatasetFor, checkResultFor } from "../../../sandbox/dataset";
import { TARGET, demoDataSource } from "../../../scripts/demo-data";
import { TEST_DAY, dayClock } from "../../helpers/clock";

/** The demo's day, and the client's clock from noon of it: the demo answers count their dates from the same day. */
const TODAY = TEST_DAY;
const clock = dayClock(TODAY);

test("core/demo/demo-data.ts is what scripts/demo-data.ts makes from the sandbox's register (npm run demo-data)", () => {
  expect(fs.readFileSync(TARGET, "utf8")).toBe(demoDataSource());
});

test("about 60 properties in at most 15 KB, answering as the sandbox does on the same day", () => {
  const props = demoProperties(TODAY);
  expect(props.length).toBeGreaterThanOrEqual(55);
  expect(props.length).toBeLessThanOrEqual(65);
  expect(DEMO_DATA.length).toBeLessThanOrEqual(15 * 1024);
  const ds = buildDatasetFor(new Date(`${TODAY}T12:00:00Z`));
  for (const p of props) {
    const sandbox = checkResultFor(ds.byUprn.get(p.uprn)!);
    const { demo, last_updated, ...ours } = p.result;
    expect(demo).toBe(true);
    expect(String(last_updated).slice(0, 10)).toBe(sandbox.last_updated.slice(0, 10));
    const { last_updated: _l, ...theirs } = sandbox;
    expect(ours).toEqual(theirs);
  }
});

test("every status of every check, every EPC rating and every window are in the demo", () => {
  const props = demoProperties(TODAY);
  const statuses = new Set(props.flatMap((p) => Object.entries(p.result.checks).map(([c, m]) => `${c}:${m.status}`)));
  for (const c of ["epc", "gas_safety", "eicr", "licensing", "deposit_protection"]) {
    for (const s of ["pass", "warning", "fail", "not_required"]) expect(statuses).toContain(`${c}:${s}`);
  }
  expect(new Set(props.map((p) => p.result.checks.epc.rating).filter(Boolean))).toEqual(
    new Set(["A", "B", "C", "D", "E", "F", "G"]),
  );
  const windows = new Set(props.map((p) => nextObligation(parseOk(p.result), { today: TODAY })?.window ?? "none"));
  for (const w of ["Overdue", "Urgent", "Book", "Plan", "OK"]) expect(windows).toContain(w);
});

function parseOk(v: unknown): CheckResult {
  const r = parseCheckResult(v);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

test("the sample table: every demo property, the user columns the rules read, and a row for each per-row error", () => {
  const table = demoSampleTable(TODAY);
  const [header, ...rows] = table;
  expect(header).toEqual(["UPRN", "Address", "Postcode", "Owner", "EICR date", "Licence expiry", "Deposit received"]);
  expect(rows.length).toBe(demoProperties(TODAY).length + 4);
  // Read as the add-ins read a selection: the header names the columns.
  const read = readPropertyRows(table);
  expect(read.mapping).toMatchObject({ uprn: 0, address: 1, postcode: 2 });
  // The malformed UPRN and the row with neither UPRN nor postcode are refused before anything is sent.
  expect(read.rows.filter((r) => "error" in r).length).toBe(2);
  for (const c of [4, 5, 6]) expect(rows.some((r) => /^\d{4}-\d{2}-\d{2}$/.test(String(r[c])))).toBe(true);
});

test("over the client: a bulk screen of the sample table, with fetch never called; results and errors say demo", async () => {
  const fetch = jest.fn(() => Promise.reject(new Error("the demo key must never reach the network")));
  // Waits shortened a hundredfold (the engine still paces its polls, the timeout still races the answer).
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms / 100));
  const client = createClient({ baseUrl: "https://api.example.com/v1", apiKey: "demo", fetch, sleep, now: clock.now });
  const read = readPropertyRows(demoSampleTable(TODAY));
  const props = read.rows.flatMap((r) => (r.property ? [r.property] : []));
  const outcomes = await client.screen(props, { plan: "professional" });
  expect(fetch).not.toHaveBeenCalled();
  expect(outcomes.length).toBe(props.length);
  const ok = outcomes.filter((o) => "result" in o);
  expect(ok.length).toBe(demoProperties(TODAY).length);
  const errors = outcomes.filter((o) => "error" in o).map((o) => ("error" in o ? o.error.code : ""));
  expect(errors.sort()).toEqual(["ambiguous_property", "property_not_found"]);
  const MESSAGE = outputHeaders().indexOf("Message");
  for (const o of outcomes) {
    const row = outputRow(o, clock.date().toISOString());
    expect(String(row[MESSAGE])).toContain(DEMO_NOTE);
  }
  // A single check and an address search go the same way.
  const one = await client.check({ uprn: "100023336956" });
  expect(one.uprn).toBe("100023336956");
  expect(fetch).not.toHaveBeenCalled();
});

test("the service's shapes: 202 job, paged results, 404/409/400 error bodies, addresses", () => {
  const jobs = memoryJobStore();
  const base = "https://x.example/v1";
  const sub = demoReply(
    {
      method: "POST",
      url: `${base}/api/check/bulk`,
      body: JSON.stringify({ properties: [{ uprn: "100023336956" }, { uprn: "1" }] }),
    },
    { jobs },
  );
  expect(sub.status).toBe(202);
  const job = JSON.parse(sub.text);
  const res = JSON.parse(
    demoReply({ method: "GET", url: `${base}/api/check/bulk/${job.job_id}/results?page=1&per_page=1` }, { jobs }).text,
  );
  expect(res).toMatchObject({
    status: "completed",
    total_properties: 2,
    total_pages: 2,
    results: [{ index: 0, status: "completed" }],
  });
  expect(res.next_page_url).toContain("page=2");
  const missing = demoReply({ method: "GET", url: `${base}/api/check/bulk/nope/results` }, { jobs });
  expect(missing.status).toBe(404);
  expect(JSON.parse(missing.text).error.code).toBe("job_not_found");
  expect(demoReply({ method: "GET", url: `${base}/api/check?uprn=12AB` }, { jobs }).status).toBe(400);
  const addresses = JSON.parse(
    demoReply({ method: "GET", url: `${base}/api/addresses?postcode=sw1a2aa` }, { jobs }).text,
  );
  expect(addresses.results[0]).toMatchObject({ uprn: "100023336956", postcode: "SW1A 2AA" });
});
