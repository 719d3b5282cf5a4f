/**
 * Rules both add-ins share through core: invisible characters in input, base URLs refused with a reason, error
 * texts that never repeat themselves, and the positional fallback that never gives a row another property.
 */
import {
  acceptReply,
  acceptResultsPage,
  createRun,
  describeError,
  dueRequests,
  interpretBulkSubmitResponse,
  interpretCheckResponse,
  interpretResultsResponse,
  isJobDone,
  loadRunState,
  markWritten,
  normaliseProperty,
  outcomesToWrite,
  parseResultsPage,
  resumeRun,
  startJob,
  storedState,
  validateApiKey,
  validateBaseUrl,
  type HttpRequest,
  type JobState,
  type Outcome,
  type PropertyQuery,
  type Reply,
  type RunState,
  type ServiceError,
} from "../../../core";
import { MIN_POLL_MS } from "../../../core/service/jobs";

const FORMAT_CHARS = [
  "\u00ad",
  "\u200e",
  "\u200f",
  "\u202a",
  "\u202b",
  "\u202c",
  "\u202d",
  "\u202e",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
  "\u2063",
  "\u180e",
  "\ufeff",
  "\u200b",
  "\u2060",
];
const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

describe("format characters (Unicode Cf) are stripped from every input", () => {
  test.each(FORMAT_CHARS.map((c) => [hex(c), c]))("%s in a UPRN, a postcode, an address and a key", (_name, c) => {
    expect(normaliseProperty(`1000${c}23336956`, "", "")).toMatchObject({ property: { uprn: "100023336956" } });
    expect(normaliseProperty("", `SW1A${c} 2AA`, `10 Downing${c} Street`)).toMatchObject({
      property: { postcode: "SW1A 2AA", address: "10 Downing Street" },
    });
    expect(validateApiKey(`${c}sandbox-professional${c}`)).toEqual({ ok: true, apiKey: "sandbox-professional" });
  });
});

describe("base URLs", () => {
  test.each([
    "https://user@api.example.com/v1",
    "https://user:secret@api.example.com/v1",
    "http://me@localhost:3001/v1",
  ])("%s: refused, user name or password", (url) => {
    const r = validateBaseUrl(url);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/user name or password/);
  });
  test.each(["https://api.example.com:0/v1", "https://api.example.com:65536/v1", "http://localhost:99999/v1"])(
    "%s: refused, not a port",
    (url) => {
      const r = validateBaseUrl(url);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.message).toMatch(/not a port \(1 to 65535\)/);
    },
  );
  test.each(["https://api.example.com:443/v1", "http://localhost:1/v1", "https://api.example.com:65535/v1"])(
    "%s: accepted",
    (url) => {
      expect(validateBaseUrl(url).ok).toBe(true);
    },
  );
});

describe("error texts never repeat themselves", () => {
  const bodies = [
    "",
    '{"error":{"code":"x_error","message":"Something broke."}}',
    "<html><body><h1>Bad things</h1></body></html>",
    '{"message":"The service had a problem"}',
    '{"error":{"code":"internal_error","message":"The compliance service had a problem (HTTP 500)"}}',
    '{"error":{"code":"service_unavailable","message":"The service is unavailable (HTTP 503). Try again later."}}',
    '{"error":{"code":"gateway","message":"Upstream (billing) timed out. Retry in a minute."}}',
    '{"message":"The service timed out"}',
    "Internal Server Error",
  ];
  const statuses = [400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504];
  const errors: ServiceError[] = [];
  for (const status of statuses)
    for (const body of bodies)
      for (const interpret of [interpretCheckResponse, interpretBulkSubmitResponse, interpretResultsResponse]) {
        const r = interpret(status, {}, body, 0);
        if (!r.ok) errors.push(r.error);
      }

  test(`${errors.length} errors from every status and body shape: no nested brackets, no sentence said twice`, () => {
    for (const e of errors) {
      const text = describeError(e);
      expect([text, text.includes("((")]).toEqual([text, false]);
      expect([text, /had a problem.*had a problem/i.test(text)]).toEqual([text, false]);
      const sentences = text
        .split(/(?<=\.)\s+/)
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
      expect([text, new Set(sentences).size]).toEqual([text, sentences.length]);
      const inner = /\(([^()]+)\)/.exec(text)?.[1];
      if (inner)
        expect([text, text.replace(`(${inner})`, "").toLowerCase().includes(inner.toLowerCase())]).toEqual([
          text,
          false,
        ]);
      // every parenthesised phrase once, advice once, one HTTP status, sentences closed once
      const brackets = (text.match(/\([^()]*\)/g) ?? []).map((b) => b.toLowerCase());
      expect([text, new Set(brackets).size]).toEqual([text, brackets.length]);
      for (const phrase of [/try again|retry/gi, /HTTP \d{3}/g, /check the connection/gi])
        expect([text, (text.match(phrase) ?? []).length <= 1]).toEqual([text, true]);
      expect([text, /[.!?]\.$|\.\.$/.test(text)]).toEqual([text, false]);
    }
  });

  test("a service message that gives its own advice is not followed by ours", () => {
    const r = interpretResultsResponse(
      503,
      {},
      '{"error":{"code":"service_unavailable","message":"The service is unavailable (HTTP 503). Try again later."}}',
      0,
    );
    expect(!r.ok && describeError(r.error)).toBe("The service is unavailable (HTTP 503). Try again later.");
  });

  test("a message that ends with ! or ? is not given a full stop as well", () => {
    expect(describeError({ kind: "invalid_input", code: "x", message: "Bad request!" })).toBe(
      "Bad request! Correct this row's UPRN, postcode or address and run the check again.",
    );
    expect(describeError({ kind: "invalid_input", code: "x", message: "Wrong? Give the UPRN." })).toBe(
      "Wrong? Give the UPRN.",
    );
    expect(describeError({ kind: "server", code: "x", message: "Database (eu-west) down. Sorry!", status: 502 })).toBe(
      "The compliance service had a problem (HTTP 502): Database (eu-west) down. Sorry! Try again shortly.",
    );
  });

  test("a 500 with no body reads once: the compliance service had a problem (HTTP 500)", () => {
    const r = interpretBulkSubmitResponse(500, {}, "", 0);
    expect(!r.ok && describeError(r.error)).toBe("The compliance service had a problem (HTTP 500). Try again shortly.");
  });
});

describe("the positional fallback never gives a row another property", () => {
  const page = (result: Record<string, unknown>) => ({
    status: "completed" as const,
    rawStatus: "completed",
    next: null,
    items: [{ result }],
  });
  const result = (address: string, postcode?: string) => ({
    uprn: "100000000042",
    address,
    ...(postcode ? { postcode } : {}),
    compliance_score: 50,
    risk_level: "low",
    checks: {},
  });
  const job = () => startJob({ job_id: "j1", results_url: "/r" }, { offset: 0, count: 1, nowMs: 0 });

  test("an unindexed item whose first line contradicts the row's is not placed", () => {
    const step = acceptResultsPage(job(), page(result("42 Jubilee Road, Bath", "BA1 1AA")), 1, [
      { postcode: "BA1 1AA", address: "2 Jubilee Road" },
    ]);
    expect(step.items.map((i) => "error" in i.outcome && i.outcome.error.code)).toEqual(["missing_result"]);
  });
  test("one whose postcode contradicts the row's is not placed", () => {
    const step = acceptResultsPage(job(), page(result("2 Jubilee Road, Bath", "BA2 9ZZ")), 1, [
      { postcode: "BA1 1AA" },
    ]);
    expect(step.items.map((i) => "error" in i.outcome && i.outcome.error.code)).toEqual(["missing_result"]);
  });
  test("one that fits, or says nothing against the row, is placed by position", () => {
    const fits = acceptResultsPage(job(), page(result("2 Jubilee Road, Bath", "BA1 1AA")), 1, [
      { postcode: "BA1 1AA", address: "2 Jubilee Road" },
    ]);
    expect(fits.items.map((i) => "result" in i.outcome)).toEqual([true]);
  });
});

// ------------------------------------------------------------------ polling cannot run away

const RESULTS = "/api/check/bulk/j1/results";
const checkResult = (i: number) => ({
  uprn: String(100000000000 + i),
  address: `${i} Test Street, Bath, BA1 1AA`,
  compliance_score: 80,
  risk_level: "low",
  checks: {},
});
const indexed = (i: number) => ({ index: i, status: "completed", result: checkResult(i) });
const codeOf = (o: Outcome | undefined) => (!o ? "-" : "result" in o ? "ok" : o.error.code);

/**
 * A job polled the way the run engine does (each request when the state says, results pages simulated by
 * `server` from the URL asked), until the job ends or 200 requests were made.
 */
function pollJob(
  server: (url: string, n: number) => unknown,
  count: number,
  opts: { props?: PropertyQuery[]; jobTimeoutMs?: number; estimatedMs?: number } = {},
) {
  let s: JobState = startJob(
    {
      job_id: "j1",
      results_url: RESULTS,
      ...(opts.estimatedMs !== undefined ? { estimated_completion: new Date(opts.estimatedMs).toISOString() } : {}),
    },
    { offset: 0, count, nowMs: 0, jobTimeoutMs: opts.jobTimeoutMs },
  );
  let now = 0;
  const asked: { url: string; at: number }[] = [];
  const got = new Map<number, Outcome>();
  while (!isJobDone(s) && asked.length < 200) {
    now = Math.max(now, s.nextPollAtMs);
    asked.push({ url: s.cursor, at: now });
    const r = interpretResultsResponse(200, {}, JSON.stringify(server(s.cursor, asked.length)), now);
    if (!r.ok) throw new Error(r.error.message);
    const step = acceptResultsPage(s, r.value, now, opts.props);
    for (const it of step.items) got.set(it.index, it.outcome);
    s = step.state;
    now += step.waitMs;
  }
  return { state: s, asked, got, codes: Array.from({ length: count }, (_v, i) => codeOf(got.get(i))) };
}

describe("polling cannot run away", () => {
  test("a results link cycle A -> B -> A ends the job with results_loop within 20 requests", () => {
    const run = pollJob((url) => {
      if (url.endsWith("cursor=A")) return { status: "completed", results: [indexed(1)], next: `${RESULTS}?cursor=B` };
      if (url.endsWith("cursor=B")) return { status: "completed", results: [indexed(2)], next: `${RESULTS}?cursor=A` };
      return { status: "completed", results: [indexed(0)], next: `${RESULTS}?cursor=A` };
    }, 5);
    expect(run.asked.length).toBeLessThanOrEqual(20);
    expect(run.asked.map((a) => a.url.replace(RESULTS, ""))).toEqual(["", "?cursor=A", "?cursor=B"]);
    expect(run.codes).toEqual(["ok", "ok", "ok", "results_loop", "results_loop"]);
    const error = run.state.error!;
    expect(error).toMatchObject({ kind: "job_failed", code: "results_loop" });
    expect(error.message).toBe(
      "The service kept sending the same page of results for bulk job j1, so 2 of its 5 rows were not checked; run the check again for them.",
    );
    expect(describeError(error)).toBe(error.message);
  });

  test("a link back to the first page (A -> B -> first page) is a loop too", () => {
    const run = pollJob(
      (url) =>
        url.endsWith("cursor=B")
          ? { status: "completed", results: [indexed(1)], next: RESULTS }
          : { status: "completed", results: [indexed(0)], next: "?cursor=B" },
      3,
    );
    expect(run.asked.length).toBe(2);
    expect(run.codes).toEqual(["ok", "ok", "results_loop"]);
  });

  test("a server that ignores the page parameter (the same items on every page) ends within 20 requests", () => {
    const run = pollJob((url) => {
      const asked = Number(/page=(\d+)/.exec(url)?.[1] ?? 1);
      return {
        status: "completed",
        page: asked,
        per_page: 2,
        total_pages: 5,
        next_page_url: `${RESULTS}?page=${asked + 1}&per_page=2`,
        results: [indexed(0), indexed(1)],
      };
    }, 10);
    expect(run.asked.length).toBeLessThanOrEqual(20);
    expect(run.asked.length).toBe(2);
    expect(run.codes).toEqual(["ok", "ok", ...Array(8).fill("results_loop")]);
  });

  test("a server that ignores the cursor (unindexed results, a new cursor each time) ends within 20 requests", () => {
    const props = [0, 1, 2, 3].map((i) => ({ uprn: String(100000000000 + i) }));
    const run = pollJob(
      (_url, n) => ({ status: "completed", results: [checkResult(0), checkResult(1)], next: `?cursor=c${n}` }),
      4,
      { props },
    );
    expect(run.asked.length).toBe(2);
    expect(run.codes).toEqual(["ok", "ok", "results_loop", "results_loop"]);
  });

  test("links that lead on and on to empty pages end within 20 requests", () => {
    const run = pollJob(
      (url, n) => ({ status: "completed", results: url === RESULTS ? [indexed(0)] : [], next: `?cursor=c${n}` }),
      3,
    );
    expect(run.asked.length).toBeLessThanOrEqual(20);
    expect(run.codes).toEqual(["ok", "results_loop", "results_loop"]);
  });

  test("a long cycle of pages whose results were all taken already ends within 20 requests", () => {
    // first page -> p1 -> ... -> p30 -> p1, each page unlike the one before it, the results going round
    const run = pollJob((url) => {
      const k = Number(/cursor=p(\d+)/.exec(url)?.[1] ?? 0);
      return { status: "completed", results: [indexed(k % 4)], next: `?cursor=p${(k % 30) + 1}` };
    }, 8);
    expect(run.asked.length).toBeLessThanOrEqual(20);
    expect(run.codes).toEqual(["ok", "ok", "ok", "ok", ...Array(4).fill("results_loop")]);
  });

  test("polling the same cursor again while the job runs is not a loop, however often the page is the same", () => {
    const run = pollJob(
      (_url, n) =>
        n <= 30
          ? { status: "processing", results: [indexed(0)] }
          : { status: "completed", results: [0, 1, 2].map(indexed) },
      3,
      { jobTimeoutMs: 3_600_000 },
    );
    expect(run.asked.length).toBe(31);
    expect(run.codes).toEqual(["ok", "ok", "ok"]);
    expect(run.state.status).toBe("completed");
  });

  test("polls of one job back off from an early first look, never closer than MIN_POLL_MS, a bounded number before the deadline", () => {
    const run = pollJob(() => ({ status: "processing", results: [] }), 1, { estimatedMs: 10, jobTimeoutMs: 20_500 });
    expect(run.asked[0].at).toBeGreaterThanOrEqual(MIN_POLL_MS); // the estimate was 10 ms away: looked at early
    expect(run.asked[0].at).toBeLessThan(100);
    const gaps = run.asked.slice(1).map((a, i) => a.at - run.asked[i].at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(MIN_POLL_MS);
    // Each wait is about the job's age (doubling), so 20 s of a job that never moves cost about a dozen polls.
    expect(run.asked.length).toBeLessThanOrEqual(15);
    for (let i = 1; i < gaps.length - 1; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1]);
    expect(run.codes).toEqual(["job_timeout"]);
  });

  test("a stored state rewound to the first page (results not yet written) fetches it again without a loop error", () => {
    const cfg = { baseUrl: "https://svc.test/v1", apiKey: "k" };
    const uprns = [0, 1, 2, 3].map((i) => String(100000000000 + i));
    const reply = (req: HttpRequest): Reply => {
      if (req.method === "POST")
        return {
          status: 202,
          headers: {},
          text: JSON.stringify({ job_id: "j1", status: "processing", results_url: RESULTS }),
        };
      const two = /page=2/.test(req.url);
      const body = {
        status: "completed",
        page: two ? 2 : 1,
        per_page: 2,
        total_pages: 2,
        next_page_url: two ? null : `${RESULTS}?page=2&per_page=2`,
        results: (two ? [2, 3] : [0, 1]).map(indexed),
      };
      return { status: 200, headers: {}, text: JSON.stringify(body) };
    };
    const step = (state: RunState, now: number) => {
      for (const r of dueRequests(state, cfg, now).requests) acceptReply(state, r.id, reply(r.request), now);
    };
    const state = createRun(
      uprns.map((u, i) => ({ ...normaliseProperty(u, "", ""), index: i })),
      { plan: 10, nowMs: 0 },
    );
    step(state, 0); // submit
    step(state, 1000); // page 1: two results, not written yet; the job now points at page 2
    expect(outcomesToWrite(state)).toHaveLength(2);
    const back = loadRunState(JSON.stringify(storedState(state)))!; // the pane closes: page 1 is fetched again
    resumeRun(back, 5000);
    const written = new Map<number, Outcome>();
    for (let now = 5000; now < 60_000 && back.phase === "running"; now += 1000) {
      step(back, now);
      const items = outcomesToWrite(back).filter((i) => i.final);
      for (const i of items) written.set(i.property, i.outcome);
      markWritten(
        back,
        items.map((i) => ({ property: i.property, present: true })),
      );
    }
    expect([0, 1, 2, 3].map((p) => codeOf(written.get(p)))).toEqual(["ok", "ok", "ok", "ok"]);
  });
});

describe("items with a pending-like status are not final", () => {
  const page = (items: unknown[], status = "completed") => {
    const r = parseResultsPage({ status, results: items });
    if (!r.ok) throw new Error(r.message);
    return r.value;
  };

  test.each(["pending", "queued", "processing", "in_progress", "In Progress", "running", "thinking"])(
    "an item %s without a result is pending, its word kept",
    (word) => {
      const [item] = page([{ index: 0, status: word }]).items;
      expect(item).toEqual({ index: 0, status: word.toLowerCase().replace(" ", "_"), pending: true });
    },
  );

  test.each(["pending", "processing", "in_progress"])("an item %s with a (partial) result is still pending", (word) => {
    expect(page([{ index: 0, status: word, result: checkResult(0) }]).items[0]).toMatchObject({ pending: true });
  });

  test("final words, and items with a result or an error object and no status, are final", () => {
    const items = page([
      { index: 0, status: "completed", result: checkResult(0) },
      { index: 1, status: "Succeeded", result: checkResult(1) },
      { index: 2, result: checkResult(2) },
      { index: 3, error: { code: "property_not_found", message: "None." } },
      { index: 4, status: "not_found" },
      { index: 5, status: "warning", result: checkResult(5) }, // an unknown word with its result: final
    ]).items;
    expect(items.map((i) => !!i.pending)).toEqual([false, false, false, false, false, false]);
    expect(items.map((i) => i.status)).toEqual([
      "completed",
      "succeeded",
      undefined,
      undefined,
      "not_found",
      "warning",
    ]);
    expect(items.map((i) => (i.error ? i.error.kind : "result"))).toEqual([
      "result",
      "result",
      "result",
      "not_found",
      "not_found",
      "result",
    ]);
  });

  test("a completed job with pending items is polled again and their real results are taken", () => {
    const run = pollJob(
      (_url, n) => ({
        status: "completed",
        results: [
          indexed(0),
          n < 4 ? { index: 1, status: "pending" } : indexed(1),
          n < 6 ? { index: 2, status: "queued" } : indexed(2),
        ],
      }),
      3,
    );
    expect(run.asked.length).toBe(6);
    expect(run.codes).toEqual(["ok", "ok", "ok"]);
    expect(run.state.status).toBe("completed");
  });

  test("pending items that never finish end with the job's deadline, not as results", () => {
    const run = pollJob(() => ({ status: "completed", results: [indexed(0), { index: 1, status: "processing" }] }), 2, {
      jobTimeoutMs: 30_000,
    });
    expect(run.codes).toEqual(["ok", "job_timeout"]);
    expect(run.asked.length).toBeLessThan(30);
  });
});
