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
  loadRunState,
  markWritten,
  normaliseProperty,
  noteEarlierValues,
  outcomesToWrite,
  runCaption,
  runEndWords,
  stopRun,
  storedState,
  type HttpRequest,
  type Reply,
  type RunState,
} from "../../../core";
import { sandboxDataset } from "../../helpers/sandbox";

const cfg = { baseUrl: "https://svc.test/v1", apiKey: "k" };
const ds = sandboxDataset(new Date("2026-11-24T12:00:00Z"));
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

/** What each row of the run showed before its mark: `shown` rows values of an earlier check, the others none. */
const before = (uprns: string[], shown: number) =>
  rowsOf(uprns).map((r, i) => ({ ...r, previous: i < shown ? ["2026-01-01T09:00:00Z", 90] : undefined }));

test("a run stopped with its job out: 'Stopped.' and the count as the headline; what Resume collects, the earlier values its waiting rows show, then the host's facts, under Details", () => {
  const state = stoppedWithJobOut();
  // One of the three rows waiting for Resume showed values of an earlier check: its mark keeps them.
  noteEarlierValues(state, before(UPRNS, 1));
  expect(
    runEndWords(state, {
      unreadDateRows: 2,
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
  noteEarlierValues(state, before(UPRNS, 3));
  stopRun(state);
  // The host writes each row's reason (not sent), as both add-ins do.
  markWritten(
    state,
    outcomesToWrite(state).map((o) => ({ property: o.property, present: true })),
  );
  const words = runEndWords(state);
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

test("earlier values are counted by row, once each, from what the rows showed as the run began: a property on two rows of which one had values counts one", () => {
  // UPRN 0 on two rows (the first with earlier values, the second new), UPRN 1 on one row with earlier values.
  const uprns = [UPRNS[0], UPRNS[0], UPRNS[1]];
  const state = createRun(rowsOf(uprns), { plan: "professional", nowMs: T0 });
  noteEarlierValues(
    state,
    rowsOf(uprns).map((r, i) => ({ ...r, previous: i === 1 ? undefined : ["2026-01-01T09:00:00Z", 90] })),
  );
  expect({ earlier: state.earlier, some: state.earlierSome }).toEqual({ earlier: [[1, 2]], some: { 0: 1 } });
  // Stored for Resume and read back, the count is the same.
  const again = loadRunState(JSON.stringify(storedState(state)))!;
  stopRun(again);
  markWritten(
    again,
    outcomesToWrite(again).map((o) => ({ property: o.property, present: true })),
  );
  expect(runEndWords(again).details).toContain(
    "The earlier values of 2 of them are kept; the others say why in the Message column.",
  );
});

test("a result's statuses are counted when it is written, once for each row it went to, and kept with the state for Resume", () => {
  const state = createRun(rowsOf([UPRNS[0], UPRNS[0]]), { plan: "professional", nowMs: T0 });
  const result = { checks: { epc: { status: "pass" }, gas_safety: { status: "fail" } } };
  state.received[0] = { result } as never;
  markWritten(state, [{ property: 0, present: true, rows: 2 }]);
  expect(loadRunState(JSON.stringify(storedState(state)))!.statuses).toEqual({ pass: 2, fail: 2 });
});
