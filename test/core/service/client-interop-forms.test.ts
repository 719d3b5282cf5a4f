/**
 * The core against servers that are NOT the sandbox, answering where the spec says "not shown" in the other forms a
 * reasonable server uses (rate-limit headers, bodies and statuses, submit answers, value forms, result envelopes, job
 * words); test/core/service/client-interop.test.ts holds the other choices. Small node:http servers on loopback, driven
 * through core's real client and run engine over real HTTP. A comment above a test says what the user gets and why;
 * every test asserts it.
 */
import { createClient, interpretCheckResponse, outputHeaders, outputRow, type FetchLike } from "../../../core";
import { MAX_ESTIMATE_MS, MIN_POLL_MS, startJob } from "../../../core/service/jobs";
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
  type Req,
  type Served,
} from "../../helpers/interop-server";
import { testClock, type TestClock } from "../../helpers/clock";

afterAll(closeServers);

/** The spec's item shape (the sandbox's). */
function indexedItem(p: Prop, index: number): Record<string, unknown> {
  return p.uprn === MISSING
    ? {
        index,
        input: p,
        status: "error",
        error: { code: "property_not_found", message: `No property with UPRN ${p.uprn}.` },
      }
    : { index, input: p, status: "completed", result: checkResult(p.uprn!) };
}

const spec202 = (job: Job): Reply => ({
  status: 202,
  body: {
    job_id: job.id,
    status: "processing",
    total_properties: job.props.length,
    results_url: `/api/check/bulk/${job.id}/results`,
  },
});

// ---------------------------------------------------------------- outcome helpers

const expectedWords = (props: Prop[]) => props.map((p) => (p.uprn === MISSING ? "!not_found" : p.uprn!));
const col = (name: string) => outputHeaders().indexOf(name);

/**
 * The client's transport on a test clock: its `now`, its `sleep` (which moves the clock on instead of waiting) and its
 * fetch (so the clock knows when a request is in flight). A server given `clock.now` keeps its windows on the same clock.
 */
const on = (clock: TestClock) => ({ fetch: clock.fetch(fetch), sleep: clock.sleep, now: clock.now });

/** An abort signal that fires after `ms` on the test clock. */
function abortAt(clock: TestClock, ms: number): AbortSignal {
  const c = new AbortController();
  void clock.sleep(ms).then(() => c.abort());
  return c.signal;
}

// ================================================================ (A) rate limits announced other ways

describe("(A) rate limits announced other ways", () => {
  type Style = (limit: number, remaining: number, resetAtMs: number) => Record<string, string>;

  /**
   * A fixed window of LIMIT requests per WINDOW ms (starting at the first request), announced in `style`. A request
   * into an exhausted window is a violation, answered 429 with the same headers and no Retry-After.
   */
  async function limited(clock: TestClock, style: Style, LIMIT: number, WINDOW: number) {
    let windowStart = -Infinity;
    let used = 0;
    const stats = { violations: 0 };
    const store = jobStore();
    const s = await serve((req) => {
      const now = req.at;
      if (now - windowStart >= WINDOW) {
        windowStart = now;
        used = 0;
      }
      const resetAt = windowStart + WINDOW;
      if (used >= LIMIT) {
        stats.violations++;
        return {
          status: 429,
          headers: style(LIMIT, 0, resetAt),
          body: { error: { code: "rate_limited", message: "Too many requests." } },
        };
      }
      used++;
      const headers = style(LIMIT, LIMIT - used, resetAt);
      if (req.method === "POST") return { ...spec202(store.submit(req.body)), headers };
      if (req.path.endsWith("/api/check")) return { headers, body: checkResult(req.query.get("uprn")!) };
      const job = store.poll(req.path)!;
      return { headers, body: { status: "completed", results: job.props.map(indexedItem) } };
    }, clock);
    return { s, stats };
  }

  async function sequentialChecks(clock: TestClock, s: Served, n: number) {
    const client = createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock), maxRetries: 8 });
    const got: string[] = [];
    for (let i = 1; i <= n; i++) got.push((await client.check({ uprn: U(i) })).uprn);
    return got;
  }

  const deltaSeconds = (clock: TestClock, resetAtMs: number) =>
    String(Math.max(0, Math.ceil((resetAtMs - clock.now()) / 1000)));

  // The IETF draft's unprefixed RateLimit-Limit / -Remaining / -Reset are read like X-RateLimit-*, so the client never
  // sends into a window the server says is spent.
  test("IETF draft headers RateLimit-Limit / -Remaining / -Reset (no X- prefix): nothing sent into an exhausted window", async () => {
    const clock = testClock();
    const { s, stats } = await limited(
      clock,
      (l, r, at) => ({
        "RateLimit-Limit": String(l),
        "RateLimit-Remaining": String(r),
        "RateLimit-Reset": deltaSeconds(clock, at),
      }),
      3,
      1000,
    );
    expect(await sequentialChecks(clock, s, 7)).toEqual(uprns(1, 7).map((p) => p.uprn));
    expect(stats.violations).toBe(0);
  });

  // The draft's single structured header (draft-ietf-httpapi-ratelimit-headers) is read the same way.
  test("IETF draft single header `RateLimit: limit=3, remaining=0, reset=1`: nothing sent into an exhausted window", async () => {
    const clock = testClock();
    const { s, stats } = await limited(
      clock,
      (l, r, at) => ({ RateLimit: `limit=${l}, remaining=${r}, reset=${deltaSeconds(clock, at)}` }),
      3,
      1000,
    );
    expect(await sequentialChecks(clock, s, 7)).toEqual(uprns(1, 7).map((p) => p.uprn));
    expect(stats.violations).toBe(0);
  });

  // A reset given as a date is waited for to that date; a flat one-second fallback would hit a window that resets later.
  test("X-RateLimit-Reset as an ISO 8601 date: the client waits until that date, not a flat second", async () => {
    const clock = testClock();
    const { s, stats } = await limited(
      clock,
      (l, r, at) => ({
        "X-RateLimit-Limit": String(l),
        "X-RateLimit-Remaining": String(r),
        "X-RateLimit-Reset": new Date(at).toISOString(),
      }),
      2,
      2500,
    );
    expect(await sequentialChecks(clock, s, 4)).toEqual(uprns(1, 4).map((p) => p.uprn));
    expect(stats.violations).toBe(0);
  });

  test("X-RateLimit-Reset as Unix epoch milliseconds: no request into an exhausted window (check and screen)", async () => {
    const clock = testClock();
    const { s, stats } = await limited(
      clock,
      (l, r, at) => ({
        "X-RateLimit-Limit": String(l),
        "X-RateLimit-Remaining": String(r),
        "X-RateLimit-Reset": String(at),
      }),
      3,
      1200,
    );
    expect(await sequentialChecks(clock, s, 5)).toEqual(uprns(1, 5).map((p) => p.uprn));
    const props = uprns(10, 4);
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props, { plan: 2 });
    expect(words(out)).toEqual(expectedWords(props));
    expect(stats.violations).toBe(0);
  });

  test("429s with a fractional Retry-After ('0.7') and nothing else: each wait is kept, only refused submits are re-sent", async () => {
    let refusals = 3;
    let notBefore = 0;
    let early = 0;
    const store = jobStore();
    const clock = testClock();
    const s = await serve((req) => {
      if (req.at < notBefore) early++;
      if (refusals > 0) {
        refusals--;
        notBefore = req.at + 700;
        return { status: 429, headers: { "Retry-After": "0.7" }, body: { message: "slow down" } };
      }
      if (req.method === "POST") return spec202(store.submit(req.body));
      if (req.path.endsWith("/api/check")) return { body: checkResult(req.query.get("uprn")!) };
      const job = store.poll(req.path)!;
      return { body: { status: "completed", results: job.props.map(indexedItem) } };
    }, clock);
    const client = createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) });
    const props = [...uprns(1, 2), { uprn: MISSING }];
    const { value, ms } = await timed(() => client.screen(props), clock.now);
    expect(words(value)).toEqual(expectedWords(props));
    expect(s.count("POST")).toBe(4);
    refusals = 1;
    expect((await client.check({ uprn: U(7) })).uprn).toBe(U(7));
    expect(early).toBe(0);
    expect(ms).toBeLessThan(5000);
  });

  test("every submit refused 429 with no headers at all: re-sent a bounded number of times, then each row says rate_limited", async () => {
    const clock = testClock();
    const s = await serve(() => ({ status: 429, body: { message: "Too many requests" } }), clock);
    const props = uprns(1, 3);
    const { value, ms } = await timed(
      () => createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props),
      clock.now,
    );
    expect(words(value)).toEqual(Array(3).fill("!rate_limited"));
    expect(s.count("POST")).toBeGreaterThan(1);
    expect(s.count("POST")).toBeLessThanOrEqual(6);
    expect(ms).toBeLessThan(80_000);
  });

  // A poll refused 429 forever (a quota the server never resets for this job) counts as a failed poll, and the job's
  // deadline still ends it: the rows end with a reason instead of polling once a second with no end.
  test("every poll answered 429 with no headers: the rows end (rate_limited or timeout) within the job timeout, not never", async () => {
    const store = jobStore();
    const s = await serve((req) =>
      req.method === "POST" ? spec202(store.submit(req.body)) : { status: 429, body: { message: "Too many requests" } },
    );
    // A 3 s job timeout; stopped (Cancel) after 25 s on the test clock, if it were still polling then.
    const clock = testClock();
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(uprns(1, 2), {
      jobTimeoutMs: 3000,
      signal: abortAt(clock, 25_000),
    });
    expect(words(out).every((w) => w === "!rate_limited" || w === "!timeout")).toBe(true);
  });
});

// ================================================================ (B) bodies and statuses

describe("(B) bodies and statuses", () => {
  test("JSON with a UTF-8 BOM, Content-Type text/plain or none at all: read as JSON (check, submit and results)", async () => {
    const store = jobStore();
    const bom = (v: unknown) => "\uFEFF" + JSON.stringify(v);
    const s = await serve((req): Reply => {
      if (req.method === "POST") {
        const job = store.submit(req.body);
        return { status: 202, headers: { "content-type": "text/plain; charset=utf-8" }, text: bom(spec202(job).body) };
      }
      if (req.path.endsWith("/api/check")) return { headers: {}, text: bom(checkResult(req.query.get("uprn")!)) };
      const job = store.poll(req.path)!;
      return {
        headers: { "content-type": "application/octet-stream" },
        text: bom({ status: "completed", results: job.props.map(indexedItem) }),
      };
    });
    const client = createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch });
    expect((await client.check({ uprn: U(5) })).uprn).toBe(U(5));
    const props = [...uprns(1, 2), { uprn: MISSING }];
    expect(words(await client.screen(props))).toEqual(expectedWords(props));
  });

  // fetch's text() drops a UTF-8 BOM but Apps Script's getContentText() keeps it: the body is read as JSON either way, so
  // a server that writes a BOM is understood in Google Sheets too. Shown with a fetch whose text() keeps the BOM.
  test("JSON with a UTF-8 BOM through a transport that keeps the BOM (as UrlFetchApp.getContentText does)", async () => {
    const s = await serve((req) => ({
      headers: { "content-type": "application/json" },
      text: "\uFEFF" + JSON.stringify(checkResult(req.query.get("uprn")!)),
    }));
    const keepBom: FetchLike = async (url, init) => {
      const res = await fetch(url, init);
      const bytes = new Uint8Array(await res.arrayBuffer());
      return {
        status: res.status,
        headers: res.headers,
        text: async () => new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes),
      };
    };
    expect(
      (await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch: keepBom, maxRetries: 0 }).check({ uprn: U(3) }))
        .uprn,
    ).toBe(U(3));
    // the same at the interpreter, as the Apps Script host calls it
    expect(interpretCheckResponse(200, {}, "\uFEFF" + JSON.stringify(checkResult(U(3))), Date.now()).ok).toBe(true);
  });

  // A 200 whose body is an error ({ error: { code, message } }) is the server's own error (here not found, in its
  // words), not a malformed result retried four times.
  test("check(): 200 with an error body { error: { code, message } } gives the server's error, not 'malformed'", async () => {
    const s = await serve((req) => ({
      body: { error: { code: "property_not_found", message: `No property with UPRN ${req.query.get("uprn")}.` } },
    }));
    const e = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch, maxRetries: 0 })
      .check({ uprn: MISSING })
      .then(
        () => undefined,
        (err) => err as { kind: string; code: string; message: string },
      );
    expect(e).toMatchObject({
      kind: "not_found",
      code: "property_not_found",
      message: `No property with UPRN ${MISSING}.`,
    });
  });

  // A poll answered 200 with an error body and no status word ends the job with the server's reason on every row,
  // not "finished without a result for this property".
  test("results poll answered 200 with an error body: rows get job_failed with the server's reason, not 'finished without a result'", async () => {
    const store = jobStore();
    const s = await serve((req) =>
      req.method === "POST"
        ? spec202(store.submit(req.body))
        : { body: { error: { code: "job_not_found", message: "No such job: it expired." } } },
    );
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(uprns(1, 2));
    expect(words(out)).toEqual(["!job_failed", "!job_failed"]);
    expect(errorOf(out[0])!.message).toMatch(/expired/);
  });

  // A 2xx with an empty body while a job processes (202 Accepted, 204 No Content) means "nothing yet": polled again
  // until the results come, never counted toward the failures that end a job.
  test("results poll answered 202 with an empty body while processing (6 times), then the results: every row gets its result", async () => {
    const store = jobStore();
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      const job = store.poll(req.path)!;
      return job.polls <= 6
        ? { status: 202, text: "" }
        : { body: { status: "completed", results: job.props.map(indexedItem) } };
    });
    const clock = testClock();
    const props = [...uprns(1, 2), { uprn: MISSING }];
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
    expect(s.count("POST")).toBe(1);
  });

  test("results poll answered 204 No Content twice while processing, then the results: every row gets its result", async () => {
    const store = jobStore();
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      const job = store.poll(req.path)!;
      return job.polls <= 2 ? { status: 204 } : { body: { status: "completed", results: job.props.map(indexedItem) } };
    });
    const clock = testClock();
    const props = [...uprns(1, 2), { uprn: MISSING }];
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
    expect(s.count("POST")).toBe(1);
  });

  // 409 Conflict and 425 Too Early from a results URL mean "not ready yet": polled again, not taken as a final
  // ambiguous or invalid answer for every row.
  for (const [status, code] of [
    [409, "job_not_ready"],
    [425, "too_early"],
  ] as const) {
    test(`results poll answered ${status} '${code}' before the job finishes: polled again, every row gets its result`, async () => {
      const store = jobStore();
      const clock = testClock();
      const s = await serve((req) => {
        if (req.method === "POST") return spec202(store.submit(req.body));
        const job = store.poll(req.path)!;
        return job.polls <= 1
          ? { status, body: { error: { code, message: "The job is still processing; try again shortly." } } }
          : { body: { status: "completed", results: job.props.map(indexedItem) } };
      }, clock);
      const props = [...uprns(1, 2), { uprn: MISSING }];
      const { value, ms } = await timed(
        () => createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props),
        clock.now,
      );
      expect(words(value)).toEqual(expectedWords(props));
      expect(s.count("POST")).toBe(1);
      expect(ms).toBeLessThan(4000);
    });
  }
});

// ================================================================ (C) submit answered in other ways

describe("(C) bulk submit answered in other ways", () => {
  function submitServer(answer: (job: Job, s: Served) => Reply) {
    const store = jobStore();
    let served: Served;
    return serve((req) => {
      if (req.method === "POST") return answer(store.submit(req.body), served);
      const job = store.poll(req.path);
      if (!job) return { status: 404, body: { error: { code: "job_not_found", message: req.path } } };
      // the job resource itself, and its results
      return { body: { job_id: job.id, status: "completed", results: job.props.map(indexedItem) } };
    }).then((s) => (served = s));
  }
  const props = [...uprns(1, 2), { uprn: MISSING }];

  // A 202 with an empty body and only a Location header names the job the server made: it is read there, never taken
  // for a malformed answer that leaves every row saying the job may have been created.
  test("202 with an empty body and only a Location header: the job is found there, one POST, every row answered", async () => {
    const s = await submitServer((job) => ({
      status: 202,
      headers: { Location: `/v1/api/check/bulk/${job.id}` },
      text: "",
    }));
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
    expect(s.count("POST")).toBe(1);
  });

  // A job id sent as `id` rather than `job_id` is the job's id.
  test("201 { id, status: 'queued' } (id, not job_id): the job is polled, every row answered", async () => {
    const s = await submitServer((job) => ({ status: 201, body: { id: job.id, status: "queued" } }));
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
    expect(s.count("POST")).toBe(1);
  });

  // A small batch answered at once (200 with the results inline, no job id) is read as it stands: no job to poll.
  test("200 with the results inline and no job id (a small batch done at once): every row answered, one POST, no poll", async () => {
    const s = await submitServer((job) => ({
      status: 200,
      body: { status: "completed", results: job.props.map(indexedItem) },
    }));
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
    expect(s.count("POST")).toBe(1);
  });
});

// ================================================================ (D) values in other forms

describe("(D) check results with values in other forms", () => {
  const withChecks = (uprn: string, f: (r: Record<string, any>) => void) => {
    const r = checkResult(uprn);
    f(r);
    return r;
  };
  const one = async (body: unknown) => {
    const s = await serve(() => ({ body }));
    return createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch, maxRetries: 0 }).check({ uprn: U(1) });
  };

  test("status words in other case ('PASS', 'Fail', ' Warning ', 'NOT_REQUIRED') are shown as the known words", async () => {
    const r = await one(
      withChecks(U(1), (r) => {
        r.checks.epc.status = "PASS";
        r.checks.eicr.status = "Fail";
        r.checks.gas_safety.status = " Warning ";
        r.checks.licensing.status = "NOT_REQUIRED";
      }),
    );
    const row = outputRow({ result: r }, "2026-11-20T10:00:00Z");
    expect([
      row[col("EPC status")],
      row[col("EICR status")],
      row[col("Gas safety status")],
      row[col("Licensing status")],
    ]).toEqual(["pass", "fail", "warning", "not_required"]);
  });

  // Status words are compared without case, spaces, hyphens or underscores mattering: "Not Required" is not_required,
  // never "unknown".
  test("'Not Required' and 'not-required' are shown as not_required, not unknown", async () => {
    const r = await one(
      withChecks(U(1), (r) => {
        r.checks.licensing.status = "Not Required";
        r.checks.gas_safety = { status: "not-required", last_certificate: null, expiry: null };
      }),
    );
    const row = outputRow({ result: r }, "2026-11-20T10:00:00Z");
    expect([row[col("Licensing status")], row[col("Gas safety status")]]).toEqual(["not_required", "not_required"]);
    expect(String(row[col("Message")])).not.toMatch(/not a status/);
  });

  test("'compliant' / 'non_compliant' (words the spec does not show) are shown as unknown with the word kept in Message", async () => {
    const r = await one(withChecks(U(1), (r) => (r.checks.epc.status = "compliant")));
    const row = outputRow({ result: r }, "2026-11-20T10:00:00Z");
    expect(row[col("EPC status")]).toBe("unknown");
    expect(String(row[col("Message")])).toMatch(/compliant/);
  });

  // A score sent as a numeric string is read as that number; one odd field never sinks the whole result.
  test("compliance_score as a numeric string '65': the result is read, score 65", async () => {
    const r = await one(withChecks(U(1), (r) => (r.compliance_score = "65")));
    expect(r.uprn).toBe(U(1));
    expect(outputRow({ result: r }, "2026-11-20T10:00:00Z")[col("Compliance score")]).toBe(65);
  });

  test("a float score 64.5, dates as timestamps with an offset, risk_level in capitals, uprn as a number: all read", async () => {
    const r = await one(
      withChecks(U(1), (r) => {
        r.uprn = Number(U(1));
        r.compliance_score = 64.5;
        r.risk_level = "HIGH";
        r.checks.epc.expiry = "2027-01-31T00:00:00+01:00";
        r.checks.gas_safety.expiry = "2026-12-01T23:30:00Z";
        r.last_updated = "2026-11-20T09:12:44+01:00";
      }),
    );
    expect(r.uprn).toBe(U(1));
    const row = outputRow({ result: r }, "2026-11-20T10:00:00Z");
    expect(row[col("Compliance score")]).toBe(64.5);
    expect(row[col("Risk level")]).toBe("HIGH");
    expect(row[col("EPC expiry")]).toBe("2027-01-31");
    expect(row[col("Gas expiry")]).toBe("2026-12-01");
    expect(row[col("Last updated (UTC)")]).toBe("2026-11-20 08:12:44");
  });

  // A space-separated timestamp (Python's str(datetime), many SQL drivers) is cut to its date like an ISO one.
  test("dates as 'YYYY-MM-DD HH:MM:SS' (space, not T): the result is read, the date kept", async () => {
    const r = await one(withChecks(U(1), (r) => (r.checks.epc.expiry = "2027-01-31 00:00:00")));
    expect(outputRow({ result: r }, "2026-11-20T10:00:00Z")[col("EPC expiry")]).toBe("2027-01-31");
  });

  // An informational field in another form (last_updated as Unix seconds) is passed over; the checks are still read.
  test("last_updated as Unix seconds (a number): the result is still read", async () => {
    const r = await one(withChecks(U(1), (r) => (r.last_updated = 1795597964)));
    expect(r.uprn).toBe(U(1));
  });

  // Checks sent as a list of named members are read as the five checks.
  test("checks as a list of named members [{ name, status, ... }]: read as the five checks", async () => {
    const base = checkResult(U(1));
    const r = await one({
      ...base,
      checks: Object.entries(base.checks).map(([name, m]) => ({ name, ...(m as object) })),
    });
    const row = outputRow({ result: r }, "2026-11-20T10:00:00Z");
    expect([row[col("EPC status")], row[col("EICR status")], row[col("Deposit status")]]).toEqual([
      "pass",
      "fail",
      "pass",
    ]);
  });

  // A result wrapped in an envelope ({ data: ... } in JSON:API style, or { result: ... }) is read from inside it.
  for (const key of ["data", "result"]) {
    test(`a check result wrapped in { ${key}: … }: read`, async () => {
      const r = await one({ [key]: checkResult(U(1)) });
      expect(r.uprn).toBe(U(1));
    });
  }
});

// ================================================================ (E) results envelopes and items

describe("(E) results envelopes and items in other shapes", () => {
  function resultsServer(page: (job: Job, req: Req) => Reply) {
    const store = jobStore();
    return serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      return page(store.poll(req.path)!, req);
    });
  }
  const props: Prop[] = [...uprns(1, 3), { uprn: MISSING }, ...uprns(5, 3)];

  // Results sent as an object keyed by UPRN are read like a list.
  test("results as an object keyed by uprn: every row gets its result", async () => {
    const s = await resultsServer((job) => ({
      body: {
        status: "completed",
        results: Object.fromEntries(
          job.props.map((p, i) => [p.uprn, (({ index: _i, ...rest }) => rest)(indexedItem(p, i))]),
        ),
      },
    }));
    const clock = testClock();
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
  });

  test("numbered pages (page/per_page/total_pages) ending in an extra empty page with total_pages 0: every row answered", async () => {
    const SIZE = 3;
    const s = await resultsServer((job, req) => {
      const p = Number(req.query.get("page") ?? 1);
      const pages = Math.ceil(job.props.length / SIZE);
      if (p > pages)
        return {
          body: { status: "completed", page: p, per_page: SIZE, total_pages: 0, results: [], next_page_url: null },
        };
      const slice = job.props.slice((p - 1) * SIZE, p * SIZE).map((q, k) => indexedItem(q, (p - 1) * SIZE + k));
      return {
        body: {
          status: "completed",
          page: p,
          per_page: SIZE,
          total_pages: pages,
          results: slice,
          next_page_url: `/api/check/bulk/${job.id}/results?page=${p + 1}&per_page=${SIZE}`,
        },
      };
    });
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
  });

  // Pages numbered from 0 are pages too: a server that counts page 0 of 3 with no next link has every page fetched,
  // not its first page taken for the last.
  test("pages numbered from 0 (page, per_page, total_pages; no next link): every page fetched, every row answered", async () => {
    const SIZE = 3;
    const s = await resultsServer((job, req) => {
      const p = Number(req.query.get("page") ?? 0);
      const slice = job.props.slice(p * SIZE, (p + 1) * SIZE).map((q, k) => indexedItem(q, p * SIZE + k));
      return {
        body: {
          status: "completed",
          page: p,
          per_page: SIZE,
          total_pages: Math.ceil(job.props.length / SIZE),
          results: slice,
        },
      };
    });
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
  });

  test("cursor pages that overlap (an item sent again on the next page): no row dropped, none doubled", async () => {
    const s = await resultsServer((job, req) => {
      const from = Number(req.query.get("from") ?? 0);
      const slice = job.props
        .slice(Math.max(0, from - 1), from + 3)
        .map((q) =>
          q.uprn === MISSING
            ? { input: q, error: { code: "property_not_found", message: "no" } }
            : checkResult(q.uprn!),
        );
      const more = from + 3 < job.props.length;
      return {
        body: {
          status: "completed",
          results: slice,
          next: more ? `/api/check/bulk/${job.id}/results?from=${from + 3}` : null,
        },
      };
    });
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
  });

  test("the same uprn asked by UPRN and by postcode in one job, items unindexed: each row gets it", async () => {
    const ps: Prop[] = [{ uprn: U(1) }, { postcode: "LS1 4AP", address: "1 High Street" }, { uprn: U(2) }];
    const s = await resultsServer(() => ({
      body: { status: "completed", results: [checkResult(U(1)), checkResult(U(2)), checkResult(U(1))] },
    }));
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(ps);
    expect(words(out)).toEqual([U(1), U(1), U(2)]);
  });

  // An item's own input echo or UPRN outranks its index: a server that numbers items from 1 still has each result
  // placed on its own row, never silently on the next.
  test("items indexed from 1 (index 1..n) with their input echoed: each result on its own row, never the next one", async () => {
    const s = await resultsServer((job) => ({
      body: { status: "completed", results: job.props.map((p, i) => ({ ...indexedItem(p, i), index: i + 1 })) },
    }));
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
  });

  // An item error in any of the shapes servers use (a sentence, { type, detail }, flat error_code / error_message, an
  // errors list) says "not found" in the server's words, not a service failure that keeps stale values.
  const shapes: [string, (p: Prop, i: number) => Record<string, unknown>][] = [
    ["error as a sentence", (p, i) => ({ index: i, input: p, error: `Property ${p.uprn} not found` })],
    [
      "error { type, detail }",
      (p, i) => ({ index: i, input: p, error: { type: "not_found", detail: `Property ${p.uprn} not found` } }),
    ],
    [
      "flat error_code / error_message",
      (p, i) => ({
        index: i,
        input: p,
        status: "error",
        error_code: "property_not_found",
        error_message: `Property ${p.uprn} not found`,
      }),
    ],
    [
      "errors: [{ code, message }]",
      (p, i) => ({
        index: i,
        input: p,
        status: "failed",
        errors: [{ code: "property_not_found", message: `Property ${p.uprn} not found` }],
      }),
    ],
  ];
  for (const [name, errItem] of shapes) {
    test(`an item error as ${name}: the row says not found, in the server's words`, async () => {
      const s = await resultsServer((job) => ({
        body: {
          status: "completed",
          results: job.props.map((p, i) => (p.uprn === MISSING ? errItem(p, i) : indexedItem(p, i))),
        },
      }));
      const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
      expect(words(out)).toEqual(expectedWords(props));
      expect(errorOf(out[3])!.message).toContain(`Property ${MISSING} not found`);
    });
  }

  test("an item error { status: 404, title, message }: not found, with the server's message", async () => {
    const s = await resultsServer((job) => ({
      body: {
        status: "completed",
        results: job.props.map((p, i) =>
          p.uprn === MISSING
            ? { index: i, input: p, error: { status: 404, title: "Not Found", message: "Unknown UPRN." } }
            : indexedItem(p, i),
        ),
      },
    }));
    const out = await createClient({ baseUrl: s.baseUrl, apiKey: "k", fetch }).screen(props);
    expect(words(out)).toEqual(expectedWords(props));
    expect(errorOf(out[3])!.message).toBe("Unknown UPRN.");
  });
});

// ================================================================ (F) jobs

describe("(F) job status words, estimates and counts", () => {
  const props = [...uprns(1, 2), { uprn: MISSING }];
  for (const w of [
    "complete",
    "finished",
    "success",
    "COMPLETED",
    "Completed",
    "partially_completed",
    "partially-completed",
  ]) {
    test(`job word '${w}' ends the job with every row answered`, async () => {
      const store = jobStore();
      const clock = testClock();
      const s = await serve((req) => {
        if (req.method === "POST") return spec202(store.submit(req.body));
        const job = store.poll(req.path)!;
        return {
          body:
            job.polls === 1
              ? { status: "processing", results: [] }
              : { status: w, results: job.props.map(indexedItem) },
        };
      }, clock);
      const { value, ms } = await timed(
        () => createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props, { jobTimeoutMs: 20000 }),
        clock.now,
      );
      expect(words(value)).toEqual(expectedWords(props));
      expect(ms).toBeLessThan(4000);
    });
  }

  for (const w of ["error", "canceled", "Failed", "ERRORED"]) {
    test(`job word '${w}' with one result listed: that row keeps it, the rest job_failed, promptly`, async () => {
      const store = jobStore();
      const clock = testClock();
      const s = await serve((req) => {
        if (req.method === "POST") return spec202(store.submit(req.body));
        const job = store.poll(req.path)!;
        return {
          body: {
            status: w,
            error: { code: "worker_died", message: "Worker died." },
            results: [indexedItem(job.props[0], 0)],
          },
        };
      }, clock);
      const { value, ms } = await timed(
        () => createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props, { jobTimeoutMs: 20000 }),
        clock.now,
      );
      expect(words(value)).toEqual([U(1), "!job_failed", "!job_failed"]);
      expect(ms).toBeLessThan(3000);
    });
  }

  // A job whose every row has arrived is over, whatever its status word: an unknown word ("ready") does not keep the
  // run polling until the job timeout.
  test("unknown job word ('ready') with every row's result listed: the run ends at once, not at the job timeout", async () => {
    const store = jobStore();
    const clock = testClock();
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      const job = store.poll(req.path)!;
      return { body: { status: "ready", results: job.props.map(indexedItem) } };
    }, clock);
    const { value, ms } = await timed(
      () => createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props, { jobTimeoutMs: 2500 }),
      clock.now,
    );
    expect(words(value)).toEqual(expectedWords(props));
    expect(ms).toBeLessThan(1500);
    expect(s.count("GET")).toBe(1);
  });

  // An estimated_completion far off (a day, a year) is believed only up to MAX_ESTIMATE_MS (6 h) ahead, so a server's
  // wild estimate never keeps the rows waiting that long. Shown on startJob, as hours cannot pass in a test.
  test("estimated_completion a year ahead: the job's deadline is at most 6 h + jobTimeoutMs away; a near estimate is kept", () => {
    const now = Date.UTC(2026, 10, 25, 9);
    const far = startJob(
      { job_id: "j", estimated_completion: new Date(now + 365 * 86400_000).toISOString() },
      { offset: 0, count: 2, nowMs: now, jobTimeoutMs: 5000 },
    );
    expect(far.deadlineMs).toBe(now + MAX_ESTIMATE_MS + 5000);
    expect(MAX_ESTIMATE_MS).toBe(6 * 3600_000);
    const near = startJob(
      { job_id: "j", estimated_completion: new Date(now + 90_000).toISOString() },
      { offset: 0, count: 2, nowMs: now, jobTimeoutMs: 5000 },
    );
    expect(near.deadlineMs).toBe(now + 90_000 + 5000);
  });

  test("estimated_completion in the past: polls back off from an early first look, never closer than MIN_POLL_MS, every row answered", async () => {
    const store = jobStore();
    const clock = testClock();
    const s = await serve((req) => {
      if (req.method === "POST")
        return {
          status: 202,
          body: { ...(spec202(store.submit(req.body)).body as object), estimated_completion: "2001-01-01T00:00:00Z" },
        };
      const job = store.poll(req.path)!;
      return {
        body: {
          status: job.polls >= 3 ? "completed" : "processing",
          estimated_completion: "2001-01-01T00:00:00Z",
          results: job.polls >= 3 ? job.props.map(indexedItem) : [],
        },
      };
    }, clock);
    const { value, ms } = await timed(
      () => createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props),
      clock.now,
    );
    expect(words(value)).toEqual(expectedWords(props));
    const gets = s.log.filter((r) => r.method === "GET").map((r) => r.at);
    const gaps = gets.slice(1).map((at, i) => at - gets[i]);
    expect(gaps.length).toBeGreaterThanOrEqual(2);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(MIN_POLL_MS - 5);
    // Each look waits about the job's age: the gaps grow rather than hammer the service.
    expect(gaps[gaps.length - 1]).toBeGreaterThan(gaps[0]);
    expect(ms).toBeLessThan(6000);
  });

  test("processed counts that go backwards and items that arrive out of order: every row answered, progress never goes back", async () => {
    const store = jobStore();
    const clock = testClock();
    const s = await serve((req) => {
      if (req.method === "POST") return spec202(store.submit(req.body));
      const job = store.poll(req.path)!;
      const items = job.props.map(indexedItem);
      if (job.polls === 1)
        return { body: { status: "processing", processed_properties: 3, total_properties: 3, results: [items[2]] } };
      if (job.polls === 2)
        return {
          body: { status: "processing", processed_properties: 1, total_properties: 3, results: [items[2], items[0]] },
        };
      return { body: { status: "completed", processed_properties: 2, total_properties: 3, results: items } };
    }, clock);
    const done: number[] = [];
    const { value, ms } = await timed(
      () =>
        createClient({ baseUrl: s.baseUrl, apiKey: "k", ...on(clock) }).screen(props, {
          onProgress: (p) => done.push(p.propertiesDone),
        }),
      clock.now,
    );
    expect(words(value)).toEqual(expectedWords(props));
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(done[done.length - 1]).toBe(3);
    expect(ms).toBeLessThan(6000);
  });
});
