/**
 * Every error message a user can see, listed: from the service's answers (each status and the shapes a server may
 * send), from the rows a sheet may hold, from the settings a user may type, and from the run itself. Each must say
 * what to do next, in words for a person: no HTTP jargon, no "undefined", one closed sentence or more.
 */
import {
  describeError,
  interpretCheckResponse,
  NEXT_STEP,
  ownSheetProblem,
  parseWindowSettings,
  readPropertyRows,
  serviceError,
  validateApiKey,
  validateBaseUrl,
  type ErrorKind,
  type ServiceError,
} from "../../../core";

const NOW = Date.UTC(2026, 10, 25, 12);
const catalogue: { source: string; message: string }[] = [];
const add = (source: string, message: string) => catalogue.push({ source, message });

// 1. The service's answers, as the sandbox words them and as other servers may (empty, HTML, RFC 7807, bare strings).
const bodies: [number, string][] = [
  [
    400,
    JSON.stringify({
      error: { code: "invalid_uprn", message: 'UPRN must be 1 to 12 digits; got "12ab".', status: 400 },
    }),
  ],
  [
    400,
    JSON.stringify({ error: { code: "invalid_postcode", message: '"ZZ1" is not a valid UK postcode.', status: 400 } }),
  ],
  [401, JSON.stringify({ error: { code: "invalid_api_key", message: "The API key is not valid.", status: 401 } })],
  [
    401,
    JSON.stringify({
      error: { code: "missing_api_key", message: "Send the header Authorization: Bearer <API key>.", status: 401 },
    }),
  ],
  [403, JSON.stringify({ error: { code: "plan_not_allowed", message: "Your plan has no API access.", status: 403 } })],
  [404, JSON.stringify({ error: { code: "property_not_found", message: "No property with UPRN 1.", status: 404 } })],
  [404, "<html><body>Not Found</body></html>"],
  [
    409,
    JSON.stringify({
      error: { code: "ambiguous_property", message: "Postcode LS6 1AB matches 4 properties.", status: 409 },
    }),
  ],
  [410, ""],
  [
    413,
    JSON.stringify({
      error: {
        code: "batch_too_large",
        message: "The professional plan accepts at most 1000 properties per request; got 1001.",
        status: 413,
      },
    }),
  ],
  [422, JSON.stringify({ type: "about:blank", title: "Unprocessable Entity", detail: "uprn is required" })],
  [429, JSON.stringify({ error: { code: "rate_limited", message: "Rate limit exceeded.", status: 429 } })],
  [500, ""],
  [502, "<html>Bad gateway</html>"],
  [503, JSON.stringify({ message: "Service unavailable" })],
  [504, "upstream timed out"],
  [200, "{not json"],
  [200, JSON.stringify({ uprn: "1", checks: "none" })],
];
for (const [status, body] of bodies) {
  const r = interpretCheckResponse(
    status,
    { "content-type": body.startsWith("{") ? "application/json" : "text/html" },
    body,
    NOW,
  );
  if (r.ok) throw new Error(`HTTP ${status} should be an error`);
  add(`GET /api/check → HTTP ${status} ${body.slice(0, 40)}`, describeError(r.error));
}

// 2. Every kind of error the add-ins make themselves, with and without a message of the server's.
const kinds: ErrorKind[] = [
  "auth",
  "forbidden",
  "rate_limited",
  "not_found",
  "ambiguous",
  "invalid_input",
  "server",
  "network",
  "malformed_response",
  "timeout",
  "cancelled",
  "job_failed",
];
for (const kind of kinds) {
  for (const message of ["", "Something happened"]) {
    const e: ServiceError = serviceError(kind, `${kind}_code`, message);
    add(`${kind} (${message ? "with" : "without"} a message)`, describeError(e));
  }
}
add(
  "rate_limited with Retry-After",
  describeError(serviceError("rate_limited", "rate_limited", "", { retryAfterMs: 30_000 })),
);

// 3. The rows a sheet may hold.
const rows: unknown[][] = [
  ["UPRN", "Postcode", "Address"],
  ["12ab", "", ""],
  ["1234567890123", "", ""],
  [1.00023336956e11, "", ""],
  ["", "ZZ1 9ZZ9", ""],
  ["", "", "10 Downing Street"],
  ["", "", ""],
  ["#N/A", "", ""],
  ["", "SW1A 2AA", "#REF!"],
  ["", "SW1A 2AA", "x".repeat(201)],
  [new Date(2026, 0, 5), "", ""],
  ["1.2E+11", "", ""],
];
for (const r of readPropertyRows(rows).rows)
  if (r.error) add(`row ${JSON.stringify(rows[r.index]).slice(0, 40)}`, r.error.message);
add(
  "no header and no mapping",
  readPropertyRows([
    ["a", "b"],
    ["c", "d"],
  ]).problem!,
);
add("rows on a sheet the add-in builds", ownSheetProblem("Action list")!);

// 4. What a user may type in Settings.
for (const key of ["", "abc def", "ab\u2022\u2022\u2022\u2022cd", "kéy", "x".repeat(513)]) {
  const v = validateApiKey(key);
  if (!v.ok) add(`API key ${JSON.stringify(key.slice(0, 12))}`, v.message);
}
for (const url of [
  "",
  "ftp://x.example",
  "http://api.example.com/v1",
  "https://user:pw@api.example.com/v1",
  "https://api.example.com:99999/v1",
  "not a url",
  "https://api.example.com/v1?x=1",
]) {
  const v = validateBaseUrl(url);
  if (!v.ok) add(`base URL ${JSON.stringify(url)}`, v.message);
}
for (const w of [{ gas: {} }, { gas_safety: { plan: -1 } }, { gas_safety: { plan: 10, book: 30 } }, "x"]) {
  const v = parseWindowSettings(w as never);
  if (!v.ok) add(`windows ${JSON.stringify(w)}`, v.message);
}

test("the catalogue covers every source", () => {
  expect(catalogue.length).toBeGreaterThan(60);
  // Printed once, so the list can be read (and reviewed) with the test's output.
  console.log(catalogue.map((c) => `${c.source}\n    ${c.message}`).join("\n"));
});

test.each(catalogue.map((c) => [c.source, c.message]))("%s: says what to do next", (_source, message) => {
  expect(message.length).toBeGreaterThan(10);
  expect(message).toMatch(/[.!?)]$/);
  expect(message).toMatch(NEXT_STEP);
  expect(message).not.toMatch(
    /\b(undefined|null|NaN)\b|\[object |TypeError|ReferenceError|Authorization:|Bearer|<html|stack/i,
  );
});
