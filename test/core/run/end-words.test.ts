/**
 * The end of a run in words, the same in both add-ins (core/run/end-words.ts): a headline on what happened, the rest
 * under Details in a fixed order, and the flag the sidebar reads instead of the words. Real engine states on a virtual
 * clock; the words compared whole.
 */
import {
  acceptReply,
  countStatuses,
  createRun,
  dueRequests,
  markWritten,
  normaliseProperty,
  outcomesToWrite,
  runCaption,
  runEndWords,
  stopRun,
  type HttpRequest,
  type Reply,
  type RunState,
} from "../../../core";
import { getDataset } from "../../../sandbox/dataset";

const cfg = { baseUrl: "https://svc.test/v1", apiKey: "k" };
const ds = getDataset(new Date("2026-11-24T12:00:00Z"));
const UPRNS = ds.properties.slice(0, 3).map((p) => p.uprn);
const T0 = Date.parse("2026-11-24T23:59:00Z");
const rowsOf = (uprns: string[]) => uprns.map((u, i) => ({ ...normaliseProperty(u, "", ""), index: i }));

const json = (status: number, body: unknown): Reply => ({
  status,
  headers: { "content-type": "application/json" },
  text: JSON.stringify(body),
});
const accepted = (req: HttpRequest): Reply => {
  const n = (JSON.parse(req.body!) as { properties: unknown[] }).properties.length;
  return json(202, { job_id: "job1", status: "processing", total_properties: n, results_url: "/x" });
};

/** Sends the first submit and stops the run, as Stop does with a job out: its rows wait for Resume. */
function stoppedWithJobOut(): RunState {
  const state = createRun(rowsOf([...UPRNS, "not a uprn"]), { plan: "professional", nowMs: T0 });
  for (const r of dueRequests(state, cfg, T0).requests) acceptReply(state, r.id, accepted(r.request), T0);
  stopRun(state);
  return state;
}

test("a run stopped with its job out: 'Stopped.' and the count as the headline; what Resume collects, then the host's facts, under Details", () => {
  const state = stoppedWithJobOut();
  expect(
    runEndWords(state, {
      kept: 1,
      unreadDateRows: 2,
      statuses: { pass: 3 },
      notes: ["A host's own fact."],
      actionSheets: "The Action list line.",
      runLog: "The Run log line.",
    }),
  ).toEqual({
    phase: "stopped",
    complete: false,
    headline: "Stopped. 1 of 4 rows checked.",
    details: [
      "3 rows are in jobs already sent: choose Resume to collect them (no new job is sent).",
      "The earlier values of 1 of them are kept; the others say why in the Message column.",
      "2 rows have a date in your own columns that could not be read: the Message column names the column and the value; correct it and check again.",
      "A host's own fact.",
      "The Action list line.",
      "The Run log line.",
    ],
  });
  expect(runCaption(state, T0, T0)).toBe("1 of 4 rows checked");
});

test("Stop that could not write says why in the headline, the counts under Details", () => {
  const words = runEndWords(stoppedWithJobOut(), {
    notWritten: 'The results columns (B:AC) on "Sheet1" were deleted.',
  });
  expect(words.headline).toBe('Stopped. Nothing was written: The results columns (B:AC) on "Sheet1" were deleted.');
  expect(words.details[0]).toBe(
    "1 of 4 rows checked. 3 rows are in jobs already sent: choose Resume to collect them (no new job is sent).",
  );
});

test("a run stopped before its job was sent ends with problems, never 'Done', and the bar's words count the rows not sent", () => {
  const state = createRun(rowsOf(UPRNS), { plan: "professional", nowMs: T0 });
  stopRun(state);
  // The host writes each row's reason (not sent), as both add-ins do.
  markWritten(
    state,
    outcomesToWrite(state).map((o) => ({ property: o.property, present: true })),
  );
  const words = runEndWords(state, { kept: 3 });
  expect(words).toMatchObject({ complete: false, headline: "Finished with problems. 0 of 3 rows checked." });
  expect(words.details).toEqual(["3 rows not sent; run the check again for them.", "The earlier values are kept."]);
  expect(runCaption(state, T0, T0)).toBe("0 of 3 rows checked, 3 not refreshed");
});

test("the statuses of refreshed rows are counted by word, a status the service may add as 'unknown', a row's 'error' not at all", () => {
  const into: Record<string, number> = {};
  countStatuses(into, ["pass", "fail", "", "error", "pass"]);
  countStatuses(into, ["Not Required", "something new", null]);
  expect(into).toEqual({ pass: 2, fail: 1, "Not Required": 1, unknown: 1 });
});
