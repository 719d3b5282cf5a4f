/**
 * How a run begins, in the one order both add-ins keep (core/run/begin.ts), over real HTTP to the sandbox: the
 * unfinished run set aside, the rows marked, the run stored for Resume, then the first submit alone.
 */
import {
  BEGIN_ORDER,
  beginRunSession,
  createRun,
  readPropertyRows,
  sendRequest,
  type HttpRequest,
} from "../../../core";
import { type Sandbox, knownUprns, startTestSandbox } from "../../helpers/sandbox";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const NOW = Date.parse("2026-11-25T09:00:00Z");

/** The sandbox counts a request once its response has gone, which can be just after the client read it. */
async function served(n: number) {
  for (let i = 0; i < 100 && sb.stats().total < n; i++) await new Promise((r) => setTimeout(r, 5));
  return sb.stats();
}

function begin(apiKey: string, inputs: string[]) {
  const rows = readPropertyRows(
    inputs.map((u) => [u]),
    { mapping: { uprn: 0 }, hasHeader: false },
  ).rows;
  const state = createRun(rows, { plan: "professional", nowMs: NOW, runId: "run_begin" });
  const steps: string[] = [];
  const sent = beginRunSession(state, {
    cfg: { baseUrl: sb.baseUrl, apiKey },
    now: () => NOW,
    setAside: () => void steps.push("setAside"),
    writeMarks: () => void steps.push("writeMarks"),
    save: (s) => void steps.push(`save (${s.jobs.filter((j) => j.poll).length} jobs accepted)`),
    // The request's timeout never comes: the sandbox answers at once.
    send: async (requests: HttpRequest[]) => {
      steps.push(...requests.map((r) => `send ${r.method} ${new URL(r.url).pathname}`));
      return Promise.all(
        requests.map((r) => sendRequest({ fetch, sleep: () => new Promise<void>(() => undefined) }, r)),
      );
    },
  });
  return { state, steps, sent };
}

test("a run is set aside, marked and stored before its first submit leaves, and the first submit goes alone", async () => {
  expect(BEGIN_ORDER).toEqual(["setAside", "writeMarks", "save", "send"]);
  const r = begin("sandbox-professional", knownUprns(sb, 30));
  expect(await r.sent).toBe(1);
  expect(r.steps).toEqual(["setAside", "writeMarks", "save (0 jobs accepted)", "send POST /v1/api/check/bulk"]);
  expect((await served(1)).bulk_submit).toBe(1);
  expect(r.state.jobs.filter((j) => j.poll)).toHaveLength(1);
});

test("a key the service refuses costs one request, after the marks; the run ends with the reason for every row", async () => {
  const r = begin("not-a-real-key", knownUprns(sb, 30));
  expect(await r.sent).toBe(1);
  expect(r.steps).toEqual(["setAside", "writeMarks", "save (0 jobs accepted)", "send POST /v1/api/check/bulk"]);
  expect((await served(1)).by_status["401"]).toBe(1);
  expect(r.state.fatal?.message).toMatch(/API key/);
  expect(r.state.phase).not.toBe("running");
});

test("nothing valid to send: the rows get their input errors, nothing is stored and no request goes", async () => {
  const r = begin("sandbox-professional", ["not a uprn", ""]);
  expect(await r.sent).toBe(0);
  expect(r.steps).toEqual(["setAside", "writeMarks"]);
  expect(sb.stats().total).toBe(0);
});
