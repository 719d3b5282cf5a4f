/**
 * The core against servers that are NOT the sandbox: small node:http servers on loopback, each making a
 * different but reasonable choice where the spec says "not shown" (docs/service-contract.md, "Core accepts
 * also"). Real fetch, real sockets. Every test checks each row's outcome: same length and order as the
 * input, the right result on the right row, the right error kind on the right row, in bounded time.
 */
import { RUN_POLICY, createClient, outputHeaders, outputRow } from "../../../core";
import {
  MISSING,
  U,
  checkResult,
  closeServers,
  errorOf,
  jobStore,
  serve,
  timed,
  uprns,
  words,
  type Job,
  type Prop,
  type Reply,
  type Served,
} from "../../helpers/interop-server";
import { testClock, type TestClock } from "../../helpers/clock";

afterAll(closeServers);

// ---------------------------------------------------------------- a small world of properties

const BY_POSTCODE: Record<string, { uprn: string; address: string }> = {
  SW1A2AA: { uprn: "200000000001", address: "10 Downing Street, London, SW1A 2AA" },
  EC1A1BB: { uprn: "200000000002", address: "1 Example Road, London, EC1A 1BB" },
  M11AE: { uprn: "200000000003", address: "5 Piccadilly, Manchester, M1 1AE" },
};

function resolve(p: Prop): { uprn: string; address: string } | null {
  if (p.uprn)
    return p.uprn === MISSING
      ? null
      : { uprn: p.uprn, address: `${Number(p.uprn) % 1000} High Street, Leeds, LS1 4AP` };
  return BY_POSTCODE[(p.postcode ?? "").replace(/\s/g, "").toUpperCase()] ?? null;
}

/** The spec's item shape (our sandbox's), used by servers that do not vary it. */
function indexedItem(p: Prop, index: number): Record<string, unknown> {
  const r = resolve(p);
  return r
    ? { index, input: p, status: "completed", result: checkResult(r.uprn, r.address) }
    : { index, input: p, status: "error", error: { code: "property_not_found", message: "No such property." } };
}

/** `ms` after `now()` (the server's clock) as an ISO date. */
const soon = (ms = 150, now = () => Date.now()) => new Date(now() + ms).toISOString();
const spec202 = (job: Job, now?: () => number): Reply => ({
  status: 202,
  body: {
    job_id: job.id,
    status: "processing",
    total_properties: job.props.length,
    estimated_completion: soon(150, now),
    results_url: `/api/check/bulk/${job.id}/results`,
  },
});

// ---------------------------------------------------------------- outcome helpers

function shuffle<T>(xs: T[]): T[] {
  // a fixed derangement-ish order: reversed, then odd positions first
  const r = [...xs].reverse();
  return [...r.filter((_, i) => i % 2), ...r.filter((_, i) => i % 2 === 0)];
}

/**
 * The client's transport on a test clock: its `now`, its `sleep` (which moves the clock on instead of waiting) and its
 * fetch (so the clock knows when a request is in flight). A server given `clock.now` keeps its windows on the same clock.
 */
const on = (clock: TestClock) => ({ fetch: clock.fetch(fetch), sleep: clock.sleep, now: clock.now });

// ================================================================ (1) rate limits

describe("(1) rate limits announced other ways", () => {
  test("limit 5 per fixed second window, X-RateLimit-Reset as Unix seconds: no request is ever sent into an exhausted window", async () => {
    const LIMIT = 5;
    let windowSec = -1;
    let used = 0;
    let violations = 0;
    let answered = 0;
    const store = jobStore();
    const clock = testClock();
    const s = await serve((req) => {
      const sec = Math.floor(req.at / 1000);
      if (sec !== windowSec) {
        windowSec = sec;
        used = 0;
      }
      if (used >= LIMIT) {
        violations++;
        return {
          status: 429,
          headers: {
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": String(sec + 1),
            "Retry-After": new Date((sec + 1) * 1000).toUTCString(),
          },
          body: { message: "slow down" },
        };
      }
      used++;
      answered++;
      const headers = {
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": String(LIMIT - used),
        "X-RateLimit-Reset": String(sec + 1),
      };
      if (req.method === "POST") return { ...spec202(store.submit(req.body), clock.now), headers };
      if (req.path.endsWith("/api/check")) {
        const r = resolve({ uprn: req.query.get("uprn") ?? undefined });
        return r
          ? { headers, body: checkResult(r.uprn, r.address) }
          : { status: 404, headers, body: { error: { code: "property_not_found", message: "no" } } };
      }
      if (req.path.endsWith("/api/addresses"))
        return { headers, body: { results: [{ uprn: U(1), address: "1 High Street, Leeds, LS1 4AP" }], total: 1 } };
      const job = store.poll(req.path)!;
      const done = job.polls >= 2;
      return {
        headers,
        body: {
          job_id: job.id,
          status: done ? "completed" : "processing",
          results: done ? job.props.map(indexedItem) : [],
        },
      };
    }, clock);
    const client = createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) });
    const props = [...uprns(1, 5), { uprn: MISSING }, ...uprns(6, 6)];
    const { value: outcomes, ms } = await timed(() => client.screen(props, { plan: 4 }), clock.now);
    expect(words(outcomes)).toEqual(props.map((p) => (p.uprn === MISSING ? "!not_found" : p.uprn)));
    const checked = [];
    for (const u of [U(20), U(21), U(22)]) checked.push((await client.check({ uprn: u })).uprn);
    expect(checked).toEqual([U(20), U(21), U(22)]);
    for (let i = 0; i < 2; i++) expect((await client.lookupAddresses({ postcode: "LS1 4AP" }))[0].uprn).toBe(U(1));
    expect(violations).toBe(0);
    expect(s.count("POST")).toBe(3);
    expect(answered).toBeGreaterThan(LIMIT * 2); // it really had to wait for windows to reset
    expect(ms).toBeLessThan(10000);
  });

  test("a 429 storm with Retry-After as an HTTP date (no X-RateLimit headers): the client waits each date out, re-POSTs only refused submits", async () => {
    let refusals = 3;
    let notBefore = 0;
    let early = 0;
    const store = jobStore();
    const clock = testClock();
    const s = await serve((req) => {
      if (req.at < notBefore) early++;
      if (refusals > 0) {
        refusals--;
        const at = Math.ceil((req.at + 400) / 1000) * 1000; // an HTTP date has whole seconds
        notBefore = at;
        return {
          status: 429,
          headers: { "Retry-After": new Date(at).toUTCString(), "content-type": "application/problem+json" },
          text: JSON.stringify({
            type: "https://example.org/problems/too-many",
            title: "Too Many Requests",
            status: 429,
            detail: "Quota exceeded.",
          }),
        };
      }
      if (req.method === "POST") return spec202(store.submit(req.body), clock.now);
      if (req.path.endsWith("/api/check")) return { body: checkResult(req.query.get("uprn")!, "x") };
      const job = store.poll(req.path)!;
      return { body: { status: "completed", results: job.props.map(indexedItem) } };
    }, clock);
    const client = createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) });
    const { value: outcomes, ms } = await timed(() => client.screen(uprns(1, 3)), clock.now);
    expect(words(outcomes)).toEqual([U(1), U(2), U(3)]);
    expect(s.count("POST")).toBe(4); // three refused (429: no job made), one accepted
    refusals = 1;
    expect((await client.check({ uprn: U(7) })).uprn).toBe(U(7));
    expect(early).toBe(0);
    expect(ms).toBeLessThan(8000);
  });
});

// ================================================================ (2) results not paginated

describe("(2) all results in one JSON, items without index, job words queued -> running -> done", () => {
  const props: Prop[] = [
    { uprn: U(1) },
    { postcode: "SW1A 2AA", address: "10 Downing Street" },
    { uprn: MISSING },
    { uprn: U(4) },
    { postcode: "EC1A 1BB" },
    { uprn: U(6) },
  ];
  const expected = [U(1), "200000000001", "!not_found", U(4), "200000000002", U(6)];

  function allInOne(item: (p: Prop) => Record<string, unknown>) {
    const store = jobStore();
    return serve((req) => {
      if (req.method === "POST") return { status: 202, body: { job_id: store.submit(req.body).id, status: "queued" } };
      const job = store.poll(req.path)!;
      const word = job.polls === 1 ? "queued" : job.polls === 2 ? "running" : "done";
      const finished = word === "queued" ? [] : word === "running" ? job.props.slice(0, 3) : job.props;
      return { body: { id: job.id, state: word, items: shuffle(finished.map(item)) } };
    });
  }

  test("items echo their input (normalised by the server), in completion order", async () => {
    const s = await allInOne((p) => {
      const r = resolve(p);
      const input = p.postcode
        ? { postcode: p.postcode.replace(/\s/g, "").toLowerCase(), address: p.address?.toUpperCase() }
        : { uprn: Number(p.uprn) };
      return r
        ? { input, result: checkResult(r.uprn, r.address) }
        : { input, error: { code: "not_found", message: "No property." } };
    });
    const { value, ms } = await timed(() => createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props));
    expect(words(value)).toEqual(expected);
    expect(ms).toBeLessThan(6000);
  });

  test("items are bare check results carrying only the result's uprn (postcode queries too), in completion order", async () => {
    const s = await allInOne((p) => {
      const r = resolve(p);
      return r ? checkResult(r.uprn, r.address) : { uprn: p.uprn, error: "property_not_found" };
    });
    const { value, ms } = await timed(() => createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props));
    expect(words(value)).toEqual(expected);
    expect(ms).toBeLessThan(6000);
  });
});

// ================================================================ (3) cursor pagination

describe("(3) pagination by cursor tokens, not page numbers", () => {
  const props: Prop[] = [...uprns(1, 4), { postcode: "M1 1AE" }, ...uprns(6, 3), { uprn: MISSING }, U(10)].map((p) =>
    typeof p === "string" ? { uprn: p } : p,
  );
  const expected = props.map((p) => (p.uprn === MISSING ? "!not_found" : (resolve(p)?.uprn ?? "?")));
  const SIZE = 3;
  const token = (i: number) => Buffer.from(`after:${i}`).toString("base64url");
  const untoken = (t: string | null) => (t ? Number(Buffer.from(t, "base64url").toString().split(":")[1]) : 0);

  function cursorServer(
    link: (job: Job, cursor: string, s: Served) => Record<string, unknown>,
    item: (p: Prop, i: number) => Record<string, unknown>,
    doneWord = "completed",
  ) {
    const store = jobStore();
    let served: Served;
    return serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      const job = store.poll(req.path);
      if (!job) return { status: 404, body: { error: { code: "not_found", message: req.path } } };
      const from = untoken(req.query.get("cursor"));
      const running = job.polls === 1;
      const slice = running ? [] : job.props.slice(from, from + SIZE).map((p, k) => item(p, from + k));
      const more = !running && from + SIZE < job.props.length;
      return {
        body: {
          status: running ? "processing" : doneWord,
          results: slice,
          ...(more ? link(job, token(from + SIZE), served) : {}),
        },
      };
    }).then((s) => (served = s));
  }

  test("links.next as an absolute URL, items with index, job word 'succeeded'", async () => {
    const s = await cursorServer(
      (job, c, sv) => ({ links: { next: `${sv.baseUrl}/api/check/bulk/${job.id}/results?cursor=${c}` } }),
      indexedItem,
      "succeeded",
    );
    const { value } = await timed(() => createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props));
    expect(words(value)).toEqual(expected);
    expect(s.count("GET")).toBe(1 + Math.ceil(props.length / SIZE));
  });

  test("next as a root-relative path with a cursor, items without index (bare results, input echo for errors)", async () => {
    const s = await cursorServer(
      (job, c) => ({ next: `/api/check/bulk/${job.id}/results?cursor=${c}` }),
      (p) => {
        const r = resolve(p);
        // a postcode query's result names another uprn and has no postcode in its address: only its place tells
        return r
          ? checkResult(r.uprn, p.postcode ? "5 Piccadilly, Manchester" : r.address)
          : { input: p, status: "not_found" };
      },
    );
    const { value } = await timed(() => createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props));
    expect(words(value)).toEqual(expected);
  });

  test("next as a query-only relative reference ('?cursor=…', RFC 3986: relative to the page it came from)", async () => {
    const s = await cursorServer((_job, c) => ({ next: `?cursor=${c}` }), indexedItem);
    const { value } = await timed(() => createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props));
    expect(words(value)).toEqual(expected);
    expect(
      s.log.filter((r) => r.method === "GET").every((r) => /^\/v1\/api\/check\/bulk\/[^/]+\/results$/.test(r.path)),
    ).toBe(true);
  });
});

// ================================================================ (4) results_url forms

describe("(4) results_url absolute, or including the version segment", () => {
  for (const form of ["absolute", "versioned"] as const) {
    test(`results_url ${form}`, async () => {
      const store = jobStore();
      let origin = "";
      const s = await serve((req) => {
        if (req.method === "POST") {
          const job = store.submit(req.body);
          const path = `/v1/api/check/bulk/${job.id}/results`;
          return {
            status: 202,
            body: { job_id: job.id, status: "processing", results_url: form === "absolute" ? origin + path : path },
          };
        }
        if (!req.path.startsWith("/v1/api/check/bulk/"))
          return { status: 404, body: { error: { code: "not_found", message: req.path } } };
        const job = store.poll(req.path)!;
        return { body: { status: "completed", results: job.props.map(indexedItem) } };
      });
      origin = s.origin;
      const outcomes = await createClient({ baseUrl: s.baseUrl + "/", apiKey: "k", fetch }).screen(uprns(1, 3));
      expect(words(outcomes)).toEqual([U(1), U(2), U(3)]);
      expect(s.log.every((r) => r.path.startsWith("/v1/api/"))).toBe(true);
    });
  }
});

// ================================================================ (5) error bodies

describe("(5) error bodies in other shapes", () => {
  let s: Served;
  const store = jobStore();
  let proxyHiccups = 0;
  beforeAll(async () => {
    s = await serve((req) => {
      const uprn = req.query.get("uprn") ?? "";
      if (req.method === "POST") {
        const props = JSON.parse(req.body).properties as Prop[];
        if (props[0].uprn === U(50))
          return {
            status: 401,
            headers: { "content-type": "application/problem+json" },
            text: JSON.stringify({
              type: "about:blank",
              title: "Unauthorized",
              status: 401,
              detail: "API key revoked.",
            }),
          };
        if (props[0].uprn === U(60))
          return {
            status: 502,
            headers: { "content-type": "text/html" },
            text: "<html><body><h1>502 Bad Gateway</h1>nginx</body></html>",
          };
        return spec202(store.submit(req.body));
      }
      if (req.path.includes("/bulk/")) {
        if (proxyHiccups-- > 0)
          return {
            status: 503,
            headers: { "content-type": "text/html", "Retry-After": "0" },
            text: "<!DOCTYPE html><title>Service Unavailable</title>",
          };
        const job = store.poll(req.path)!;
        return { body: { status: "completed", results: job.props.map(indexedItem) } };
      }
      switch (uprn) {
        case U(1):
          return { status: 404, body: { message: "Property 1 not found" } };
        case U(2):
          return {
            status: 404,
            body: { errors: [{ code: "property_not_found", message: "No property with that UPRN." }] },
          };
        case U(3):
          return {
            status: 404,
            headers: { "content-type": "application/problem+json" },
            text: JSON.stringify({
              type: "https://example.org/problems/property-not-found",
              title: "Not Found",
              status: 404,
              detail: "UPRN 3 is unknown.",
            }),
          };
        case U(4):
          return { status: 400, headers: { "content-type": "text/plain" }, text: "uprn must be digits" };
        case U(5):
          return {
            status: 502,
            headers: { "content-type": "text/html" },
            text: "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>",
          };
        case U(6):
          return { status: 404, text: "" };
        case U(7):
          return { status: 204 };
        case U(8):
          return { status: 200, text: "" };
        case U(9):
          return { status: 403, body: { error: "plan_not_permitted", message: "Upgrade your plan." } };
        default:
          return { body: checkResult(uprn, "x") };
      }
    });
  });

  const attempt = async (uprn: string) => {
    try {
      await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch, maxRetries: 0 }).check({ uprn });
      return undefined;
    } catch (e) {
      return e as { kind: string; code: string; message: string; status?: number };
    }
  };

  test("check(): each shape gives the right kind, the server's code where it has one, and a readable message", async () => {
    const got = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => attempt(U(i))));
    const brief = got.map((e) => e && { kind: e.kind, code: e.code, status: e.status });
    expect(brief).toEqual([
      { kind: "not_found", code: "http_404", status: 404 },
      { kind: "not_found", code: "property_not_found", status: 404 },
      { kind: "not_found", code: "http_404", status: 404 },
      { kind: "invalid_input", code: "http_400", status: 400 },
      { kind: "server", code: "http_502", status: 502 },
      { kind: "not_found", code: "http_404", status: 404 },
      { kind: "malformed_response", code: "malformed_json", status: 204 },
      { kind: "malformed_response", code: "malformed_json", status: 200 },
      { kind: "forbidden", code: "plan_not_permitted", status: 403 },
    ]);
    const messages = got.map((e) => e!.message);
    expect(messages[0]).toBe("Property 1 not found");
    expect(messages[1]).toBe("No property with that UPRN.");
    expect(messages[2]).toBe("UPRN 3 is unknown.");
    expect(messages[3]).toBe("uprn must be digits");
    expect(messages[8]).toBe("Upgrade your plan.");
    for (const m of messages) {
      expect(m).not.toMatch(/[<>]/);
      expect(m.length).toBeGreaterThan(3);
    }
  });

  test("screen(): a problem+json 401 on submit fails every row as auth without further submits; an HTML 502 on submit is a server error on its rows only", async () => {
    const before = s.count("POST");
    const props = [{ uprn: U(50) }, ...uprns(51, 3), { uprn: U(55) }];
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props, { plan: 2 });
    expect(words(out)).toEqual(Array(5).fill("!auth"));
    expect(errorOf(out[4])!.message).toBe("API key revoked.");
    expect(s.count("POST") - before).toBe(1);

    const out2 = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(
      [{ uprn: U(60) }, { uprn: U(61) }, { uprn: U(62) }],
      { plan: 2 },
    );
    expect(words(out2)).toEqual(["!server", "!server", U(62)]);
    expect(errorOf(out2[0])!.message).not.toMatch(/</);
  });

  test("screen(): an HTML 503 from a proxy on a poll is retried", async () => {
    proxyHiccups = 2;
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(testClock()) }).screen(uprns(70, 3));
    expect(words(out)).toEqual([U(70), U(71), U(72)]);
  });
});

// ================================================================ (6) jobs that end badly or never

describe("(6) failed, cancelled and never-ending jobs", () => {
  test("'failed' with partial results: finished rows keep their results, the rest get job_failed with the server's reason", async () => {
    const store = jobStore();
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      const job = store.poll(req.path)!;
      const finished = job.props.slice(0, 3).map(indexedItem);
      return job.polls === 1
        ? { body: { status: "processing", processed_properties: 2, results: finished.slice(0, 2) } }
        : {
            body: {
              status: "failed",
              error: { code: "worker_crashed", message: "The worker crashed." },
              results: finished,
            },
          };
    });
    const props = [...uprns(1, 2), { uprn: MISSING }, ...uprns(4, 3)];
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
    expect(words(out)).toEqual([U(1), U(2), "!not_found", "!job_failed", "!job_failed", "!job_failed"]);
    expect(errorOf(out[5])).toMatchObject({ code: "worker_crashed", message: "The worker crashed." });
  });

  test("'cancelled' (results: null, error: null): every row a job_failed error, nothing dropped", async () => {
    const store = jobStore();
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      store.poll(req.path);
      return { body: { status: "cancelled", results: null, error: null, next_page_url: null, completed_at: null } };
    });
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch, maxRetries: 1 }).screen(uprns(1, 4));
    expect(words(out)).toEqual(Array(4).fill("!job_failed"));
    expect(errorOf(out[0])!.message).toMatch(/cancelled/);
  });

  test("the results URL answers 404 (job gone): rows get job_failed, never 'property not found'", async () => {
    const store = jobStore();
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      return { status: 404, body: { errors: [{ code: "job_not_found", message: "No such job." }] } };
    });
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(uprns(1, 2));
    expect(words(out)).toEqual(["!job_failed", "!job_failed"]);
    expect(errorOf(out[0])).toMatchObject({ code: "job_not_found", status: 404 });
    expect(s.count("GET")).toBe(1); // a 404 is not retried
  });

  test("a status word never seen ('paused') that never resolves: rows end with a timeout within jobTimeoutMs", async () => {
    const store = jobStore();
    const clock = testClock();
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body), clock.now);
      const job = store.poll(req.path)!;
      return { body: { status: "paused", results: [indexedItem(job.props[0], 0)] } };
    }, clock);
    const jobTimeoutMs = 2000;
    const { value: out, ms } = await timed(
      () => createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(uprns(1, 3), { jobTimeoutMs }),
      clock.now,
    );
    expect(words(out)).toEqual([U(1), "!timeout", "!timeout"]);
    expect(ms).toBeGreaterThanOrEqual(jobTimeoutMs);
    // The deadline is confirmed by a poll, and polls of a job are at least RUN_POLICY.minGetSpacingMs apart.
    expect(ms).toBeLessThan(jobTimeoutMs + RUN_POLICY.minGetSpacingMs + 700);
  });
});

// ================================================================ (7) results with surprises

describe("(7) check results with unknown words, extra and missing fields, other number and time forms", () => {
  const odd = (uprn: string) => ({
    uprn: Number(uprn),
    address: "7 Odd Lane, York, YO1 7HH",
    compliance_score: 72.5,
    risk_level: "elevated",
    region: "Yorkshire",
    checks: {
      epc: { status: "pending_review", rating: null, expiry: null, certificate_id: "X-1" },
      gas_safety: { status: "pass", last_certificate: "2025-12-01T00:00:00+00:00", expiry: "2026-12-01" },
      eicr: { status: "warning", detail: null, expiry: null, inspector: { name: "A" } },
      deposit_protection: { status: "not_required", scheme: null, protected_date: null },
      smoke_alarms: { status: "pass" },
    },
    last_updated: "2026-11-20T09:12:44.123456+00:00",
    source: { provider: "x" },
  });

  test("bulk and single: parsed, on the right row, unknown word shown as unknown, missing licensing a warning", async () => {
    const store = jobStore();
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      if (req.path.endsWith("/api/check")) return { body: odd(req.query.get("uprn")!) };
      const job = store.poll(req.path)!;
      return {
        body: {
          status: "completed",
          results: job.props.map((p, i) =>
            i === 1 ? { index: i, input: p, status: "completed", result: odd(p.uprn!) } : indexedItem(p, i),
          ),
        },
      };
    });
    const client = createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch });
    const out = await client.screen(uprns(1, 3));
    expect(words(out)).toEqual([U(1), U(2), U(3)]);
    const o = out[1] as { result: Record<string, any>; warnings?: string[] };
    expect(o.result.compliance_score).toBe(72.5);
    expect(o.warnings?.join(" ")).toMatch(/licensing/);
    const headers = outputHeaders();
    const row = outputRow(out[1], "2026-11-20T10:00:00Z");
    expect(row[headers.indexOf("EPC status")]).toBe("unknown");
    expect(row[headers.indexOf("Gas safety status")]).toBe("pass");
    expect(String(row[headers.indexOf("Message")])).toMatch(/pending_review/);

    const single = await client.check({ uprn: U(9) });
    expect(single.uprn).toBe(U(9));
    expect(single.checks.licensing).toBeUndefined();
  });

  test("a check member given as null (not run) is read as missing, not as a malformed result", async () => {
    const s = await serve((req) => {
      const r = checkResult(req.query.get("uprn")!, "x") as { checks: Record<string, unknown> };
      r.checks.licensing = null;
      return { body: r };
    });
    const r = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch, maxRetries: 0 }).check({ uprn: U(3) });
    expect(r.uprn).toBe(U(3));
  });
});

// ================================================================ (8) submit answered otherwise

describe("(8) bulk submit answered 201 / 200, with extras, without results_url or estimated_completion", () => {
  const variants: [string, (job: Job) => Reply][] = [
    [
      "201 with extra fields",
      (job) => ({
        status: 201,
        headers: { Location: `/v1/api/check/bulk/${job.id}` },
        body: { ...(spec202(job).body as object), created_at: soon(0), links: { self: "x" }, priority: 3 },
      }),
    ],
    ["200 with job_id and status only", (job) => ({ status: 200, body: { job_id: job.id, status: "queued" } })],
    ["202 with job_id only", (job) => ({ status: 202, body: { job_id: job.id } })],
  ];
  for (const [name, answer] of variants) {
    test(name, async () => {
      const store = jobStore();
      const s = await serve((req) => {
        if (req.method === "POST") return answer(store.submit(req.body));
        if (!/^\/v1\/api\/check\/bulk\/[^/]+\/results$/.test(req.path))
          return { status: 404, body: { error: { code: "not_found", message: "no" } } };
        const job = store.poll(req.path)!;
        return { body: { status: "completed", results: job.props.map(indexedItem) } };
      });
      const { value, ms } = await timed(() =>
        createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen([...uprns(1, 2), { uprn: MISSING }]),
      );
      expect(words(value)).toEqual([U(1), U(2), "!not_found"]);
      expect(s.count("POST")).toBe(1);
      expect(ms).toBeLessThan(3000);
    });
  }
});

// ================================================================ (9) addresses

describe("(9) address lookups in other shapes", () => {
  const shapes: [string, unknown][] = [
    ["a bare array", [{ uprn: 200000000001, address: "10 Downing Street, London, SW1A 2AA" }]],
    [
      "under addresses, with full_address / line_1 / post_town",
      {
        addresses: [
          {
            uprn: 200000000001,
            full_address: "10 Downing Street, London, SW1A 2AA",
            line_1: "10 Downing Street",
            post_town: "London",
            postcode: "SW1A 2AA",
          },
        ],
        count: 1,
      },
    ],
    [
      "under data, parts only",
      { data: [{ uprn: "200000000001", line_1: "10 Downing Street", post_town: "London", postcode: "SW1A 2AA" }] },
    ],
  ];
  for (const [name, body] of shapes) {
    test(name, async () => {
      const s = await serve(() => ({ body }));
      const list = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).lookupAddresses({
        postcode: "SW1A 2AA",
      });
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ uprn: "200000000001", address: "10 Downing Street, London, SW1A 2AA" });
      expect(s.log[0].query.get("postcode")).toBe("SW1A 2AA");
    });
  }
  test("no match as an empty bare array", async () => {
    const s = await serve(() => ({ body: [] }));
    expect(
      await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).lookupAddresses({ query: "nowhere" }),
    ).toEqual([]);
  });
});

// ================================================================ (10, 11) the network

describe("(10, 11) network failures", () => {
  test("(10) the socket is destroyed on one poll, then the server recovers: the poll is retried and every row gets its result", async () => {
    const store = jobStore();
    const clock = testClock();
    let destroyed = 0;
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body), clock.now);
      const job = store.poll(req.path)!;
      if (job.polls === 2) {
        destroyed++;
        return { destroy: true };
      }
      return {
        body: {
          status: job.polls >= 3 ? "completed" : "processing",
          results: job.polls >= 3 ? job.props.map(indexedItem) : [],
        },
      };
    }, clock);
    const { value, ms } = await timed(
      () => createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen([...uprns(1, 3), { uprn: MISSING }]),
      clock.now,
    );
    expect(words(value)).toEqual([U(1), U(2), U(3), "!not_found"]);
    expect(destroyed).toBe(1);
    expect(s.count("POST")).toBe(1);
    expect(ms).toBeLessThan(6000);
  });

  test("(11) the connection drops on a POST: it is NOT re-sent, that job's rows get a network error, the next job goes on", async () => {
    const store = jobStore();
    let posts = 0;
    const s = await serve((req) => {
      if (req.method === "POST") return ++posts === 1 ? { destroy: true } : spec202(store.submit(req.body));
      const job = store.poll(req.path)!;
      return { body: { status: "completed", results: job.props.map(indexedItem) } };
    });
    const { value, ms } = await timed(() =>
      createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(uprns(1, 5), { plan: 3 }),
    );
    expect(words(value)).toEqual(["!network", "!network", "!network", U(4), U(5)]);
    expect(s.count("POST")).toBe(2);
    expect(ms).toBeLessThan(3000);
  });
});

describe("(28) a 413 that names no cap, and links to another origin", () => {
  test("the refused job is halved until the server takes it; later slices go at that size at once", async () => {
    const sizes: number[] = [];
    const s = await serve((req) => {
      if (req.method === "POST") {
        const props = JSON.parse(req.body).properties as Prop[];
        sizes.push(props.length);
        if (props.length > 300)
          return {
            status: 413,
            text: "<html><body>413 Request Entity Too Large</body></html>",
            headers: { "content-type": "text/html" },
          };
        const id = `j${sizes.length}`;
        jobs413.set(id, props);
        return {
          status: 202,
          body: { job_id: id, status: "processing", results_url: `/api/check/bulk/${id}/results` },
        };
      }
      const id = req.path.split("/")[5]; // /v1/api/check/bulk/<id>/results
      return {
        body: {
          status: "completed",
          results: jobs413.get(id)!.map((p, index) => ({ index, result: checkResult(p.uprn!, "x") })),
        },
      };
    });
    const jobs413 = new Map<string, Prop[]>();
    const props = Array.from({ length: 1500 }, (_v, i) => ({ uprn: U(i) }));
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props, { plan: 1000 });
    expect(out.map((o) => ("result" in o ? o.result.uprn : JSON.stringify(o).slice(0, 80)))).toEqual(
      props.map((p) => p.uprn),
    );
    // 1000 refused, 500 refused, 250 taken; the rest go as 250s without being refused first.
    expect(sizes).toEqual([1000, 500, 250, 250, 250, 250, 250, 250]);
  });

  test("a results_url on another origin is fetched without the key", async () => {
    const seen: (string | undefined)[] = [];
    const storage = await serve((req) => {
      seen.push(req.headers.authorization);
      return { body: { status: "completed", results: [{ index: 0, result: checkResult(U(1), "x") }] } };
    });
    const other = `${storage.origin}/results/j1`;
    const api = await serve((req) =>
      req.method === "POST"
        ? { status: 202, body: { job_id: "j1", status: "processing", results_url: other } }
        : { status: 500 },
    );
    const out = await createClient({ baseUrl: api.baseUrl, apiKey: "secret-key", fetch }).screen([{ uprn: U(1) }]);
    expect(out[0]).toMatchObject({ result: { uprn: U(1) } });
    expect(seen).toEqual([undefined]);
    expect(api.count("GET")).toBe(0);
  });
});
