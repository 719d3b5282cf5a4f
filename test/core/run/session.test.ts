/**
 * The run session's rules in core (core/run/session.ts, the phase table in core/run/state.ts, the run tags of
 * core/run/rows.ts, core/sheet/input-shift.ts at rest), without HTTP: what both add-ins ask before, during and after a run.
 */
import {
  RUN_TRANSITIONS,
  adoptStoredPhase,
  describeError,
  normaliseProperty,
  startRow,
  createRun,
  endRun,
  inputShiftAtRest,
  interruptedRun,
  leftMidRun,
  isCheckingMessage,
  keepForResume,
  markTag,
  markWritten,
  matchRows,
  moveRun,
  newRunId,
  readPropertyRows,
  resumeFirstQuestion,
  resumeRun,
  runCounts,
  runSummary,
  runTag,
  serviceError,
  setAside,
  setAsideRefusal,
  shownPhase,
  storedState,
  loadRunState,
  MAX_SET_ASIDE,
  stopRun,
  takeOut,
  waitingRow,
  checkingRow,
  wholeRunFailure,
  OUTPUT_COLUMNS,
  type RunState,
} from "../../../core";

const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");
const rowsOf = (uprns: string[]) =>
  readPropertyRows(
    uprns.map((u) => [u]),
    { mapping: { uprn: 0 }, hasHeader: false },
  ).rows;
const run = (uprns: string[], runId: string) => createRun(rowsOf(uprns), { nowMs: 0, runId });

test("every phase move is in the one table, and a move that is not there is refused", () => {
  expect(Object.keys(RUN_TRANSITIONS).sort()).toEqual(["ended", "paused", "running", "stopped"]);
  const s = run(["100023336956"], "run_a");
  moveRun(s, "pause");
  expect(s.phase).toBe("paused");
  expect(() => moveRun(s, "collected")).toThrow(/A paused run cannot collected/);
  moveRun(s, "resume");
  expect(s.phase).toBe("running");
  // Stop is pressed again on a stopped run (a host stopping when its sheet changed): still a move, not an error.
  moveRun(s, "stop");
  moveRun(s, "stop");
  expect(s.phase).toBe("stopped");
});

test("a waiting row says why in core's words (describeError), and an invalid row at a run's start its reason and note", () => {
  const a = newRunId(1_000, 0.1);
  const at = "2026-11-25T00:00:00Z";
  const failed = serviceError("server", "internal_error", "The service failed");
  expect(String(waitingRow(undefined, at, failed, a)[MESSAGE])).toBe(
    `Checking… (run ${runTag(a)}) ${describeError(failed).replace(/[\s.]+$/, "")}.`,
  );
  // The service's bare words are not what a user reads: core adds what to do next.
  expect(describeError(failed)).not.toBe(failed.message);
  const invalid = { ...normaliseProperty("12x", "", ""), note: 'Postcode "sw1a2aa" read as SW1A 2AA.' };
  expect(invalid.error).toBeDefined();
  const message = String(startRow(invalid, undefined, at, a)[MESSAGE]);
  expect(message).toContain(invalid.error!.message.replace(/\.$/, ""));
  expect(message).toContain(invalid.note);
  expect(isCheckingMessage(startRow(normaliseProperty("100023336956", "", ""), undefined, at, a)[MESSAGE], a)).toBe(
    true,
  );
});

test("Checking… marks carry their run's tag: a run takes its own and untagged marks, never another run's", () => {
  const a = newRunId(1_000, 0.1);
  const b = newRunId(1_000, 0.2);
  expect(a).not.toBe(b);
  expect(runTag(a)).toMatch(/^[0-9a-z]{5}$/);
  const mark = String(checkingRow(undefined, "2026-11-25T00:00:00Z", a)[MESSAGE]);
  const waiting = String(
    waitingRow(
      undefined,
      "2026-11-25T00:00:00Z",
      serviceError("cancelled", "stopped", "Stopped before this row's result arrived"),
      a,
    )[MESSAGE],
  );
  for (const m of [mark, waiting]) {
    expect(markTag(m)).toBe(runTag(a));
    expect(isCheckingMessage(m, a)).toBe(true);
    expect(isCheckingMessage(m, b)).toBe(false);
    expect(isCheckingMessage(m)).toBe(true);
  }
  expect(isCheckingMessage("Checking… (the result is written here when it arrives)", b)).toBe(true);
  // A row of another run holding a property this run does not check is not "changed" for this run: the host does
  // not pass it as checking, so matchRows leaves it alone.
  const s = run(["100023336956"], b);
  const rowsNow = [mark, waiting].map((m) => (isCheckingMessage(m, b) ? { checking: true } : {}));
  expect(matchRows(s, rowsNow, []).changed).toEqual([]);
});

test("a stopped run with jobs sent is kept and asked about; runs set aside are kept once each, the newest last", () => {
  const s = run(["100023336956", "10033544614"], "run_s");
  s.jobs[0].phase = "polling";
  s.jobs[0].poll = { jobId: "j1" } as RunState["jobs"][number]["poll"];
  stopRun(s);
  expect(s.phase).toBe("stopped");
  expect(keepForResume(s)).toBe(true);
  expect(resumeFirstQuestion(s, { sheet: "Sheet1", startedAtMs: Date.UTC(2026, 10, 25, 9, 30) })).toBe(
    `A check of 2 rows on Sheet1 (started 2026-11-25 09:30 UTC, run ${runTag("run_s")}) is unfinished: 2 rows wait for results already paid for. Resume it first? If you check these rows now instead, it stays ready to Resume and its rows are left as they are.`,
  );
  const done = run(["100023336956"], "run_d");
  endRun(done, serviceError("cancelled", "x", "x"));
  // Its last outcome not on the sheet yet: still kept (a write refused); once written, nothing is left to ask about.
  expect(keepForResume(done)).toBe(true);
  markWritten(done, [{ property: 0, present: true }]);
  expect(resumeFirstQuestion(done, { sheet: "Sheet1", startedAtMs: 0 })).toBe("");
  const where = { sheet: "Sheet1", startedAtMs: Date.UTC(2026, 10, 25, 9, 30) };
  const st = (h: { state: RunState }) => h.state;
  const at = () => where;
  const held = setAside(setAside([], { state: s }, st, at), { state: done }, st, at);
  expect(held.map((h) => h.state.runId)).toEqual(["run_s"]);
  expect(setAside(held, { state: s }, st, at)).toHaveLength(1);
  expect(takeOut(held, "run_s", st)).toEqual([]);
});

test("the phase both add-ins show is the engine's: ended is done, or stopped when a Stop ended it; Resume clears it; an old stored phase is read once", () => {
  const going = run(["100023336956"], "run_p");
  expect(shownPhase(going)).toBe("running");
  // Stopped with a job sent: the engine's own "stopped".
  going.jobs[0].phase = "polling";
  going.jobs[0].poll = { jobId: "j1" } as RunState["jobs"][number]["poll"];
  stopRun(going);
  expect([going.phase, shownPhase(going)]).toEqual(["stopped", "stopped"]);
  // Stopped before anything was sent: nothing to collect, so the engine ended, and the run still shows as stopped,
  // through storing and loading.
  const early = run(["100023336956"], "run_e");
  stopRun(early);
  expect([early.phase, shownPhase(early)]).toEqual(["ended", "stopped"]);
  expect(shownPhase(loadRunState(JSON.stringify(storedState(early)))!)).toBe("stopped");
  // Resume takes the stopped run up again: running, no longer stopped.
  resumeRun(going, 0);
  expect(shownPhase(going)).toBe("running");
  // Ended by its last result: done.
  const done = run(["100023336956"], "run_d2");
  endRun(done, serviceError("cancelled", "x", "x"));
  expect(shownPhase(done)).toBe("done");
  // A run stored with the Sheets add-in's own phase beside the engine's reads as it did.
  expect(shownPhase(adoptStoredPhase(loadRunState(JSON.stringify(done))!, "stopped"))).toBe("stopped");
  expect(shownPhase(adoptStoredPhase(loadRunState(JSON.stringify(done))!, "done"))).toBe("done");
  const paused = run(["100023336956"], "run_pp");
  moveRun(paused, "pause");
  expect(shownPhase(adoptStoredPhase(paused, "stopped"))).toBe("paused");
});

test("a run stored mid-run (its pane closed) is kept, asked about and set aside as a stopped one: its sent job is collected, never sent again", () => {
  const s = run(["100023336956", "10033544614"], "run_m");
  // Its first job sent (paid for) and polling, its second not sent yet, when the pane closed.
  const job = s.jobs[0];
  s.jobs = [
    { ...job, start: 0, end: 1, phase: "polling", poll: { jobId: "j1" } as RunState["jobs"][number]["poll"] },
    { ...job, start: 1, end: 2, phase: "queued" },
  ];
  const stored = JSON.stringify(s);
  expect(leftMidRun(s)).toBe(true);
  expect(keepForResume(s)).toBe(true);
  const where = { sheet: "Sheet1", startedAtMs: Date.UTC(2026, 10, 25, 9, 30) };
  expect(resumeFirstQuestion(s, where)).toBe(
    `A check of 2 rows on Sheet1 (started 2026-11-25 09:30 UTC, run ${runTag("run_m")}) is unfinished: 2 rows wait for results already paid for. Resume it first? If you check these rows now instead, it stays ready to Resume and its rows are left as they are.`,
  );
  expect(
    setAside(
      [],
      { state: s, where },
      (h) => h.state,
      (h) => h.where,
    ).map((h) => h.state.runId),
  ).toEqual(["run_m"]);
  // Read as interrupted: a stopped copy (the stored state is left as it was); the job not sent ends "not sent".
  const i = interruptedRun(s);
  expect(JSON.stringify(s)).toBe(stored);
  expect(i.phase).toBe("stopped");
  expect(runSummary(i).title).toBe("Stopped");
  expect(runSummary(i).lines[0]).toBe(
    "0 of 2 rows checked. 1 row is in jobs already sent: choose Resume to collect them (no new job is sent).",
  );
  expect(i.jobs[1].phase).toBe("ended");
  expect(i.received[1]).toEqual({ error: expect.objectContaining({ kind: "cancelled" }) });
  expect(String((i.received[1] as { error: { message: string } }).error.message)).toMatch(
    /^Not sent: the check was interrupted \(its pane or sidebar closed\)/,
  );
  expect(runCounts(i).resumable).toBe(1);
  // Its Resume polls the job already sent; nothing is queued to send again.
  resumeRun(i, Date.UTC(2026, 10, 25, 10, 0));
  expect(i.phase).toBe("running");
  expect(i.jobs.map((j) => [j.phase, j.poll?.jobId])).toEqual([
    ["polling", "j1"],
    ["ended", undefined],
  ]);
  // Only a run left mid-run is read so: an ended run, or one whose every job ended, is as it was.
  const ended = run(["100023336956"], "run_e");
  endRun(ended, serviceError("cancelled", "x", "x"));
  expect(interruptedRun(ended)).toBe(ended);
  const spent = run(["100023336956"], "run_f");
  spent.jobs[0].phase = "ended";
  expect(leftMidRun(spent)).toBe(false);
  expect(interruptedRun(spent)).toBe(spent);
});

test("set aside: one unfinished run at most; a third check is refused naming both unfinished runs, and none is dropped", () => {
  const where = (sheet: string) => ({ sheet, startedAtMs: Date.UTC(2026, 10, 25, 9, 30) });
  const a = run(["100023336956", "10033544614"], "run_a");
  const b = run(["100023336956"], "run_b");
  stopRun(a);
  stopRun(b);
  expect(MAX_SET_ASIDE).toBe(1);
  // Nothing set aside yet: the first unfinished run may be.
  expect(setAsideRefusal([], { state: a, where: where("Lettings") })).toBe("");
  const held = [{ state: a, where: where("Lettings") }];
  // A second unfinished run would make two set aside: refused, naming both; setAside throws it rather than drop one.
  const refusal = setAsideRefusal(held, { state: b, where: where("Sheet2") });
  expect(refusal).toBe(
    `Two checks are unfinished already (2 rows on Lettings, started 2026-11-25 09:30 UTC, run ${runTag("run_a")}; and 1 row on Sheet2, started 2026-11-25 09:30 UTC, run ${runTag("run_b")}). Choose Resume to finish one first, so that no job already paid for is lost; then check these rows.`,
  );
  expect(() =>
    setAside(
      held,
      { state: b, where: where("Sheet2") },
      (h) => h.state,
      (h) => h.where,
    ),
  ).toThrow(refusal);
  // The same run set aside again, or a run with nothing left to resume, is no reason to refuse.
  expect(setAsideRefusal(held, { state: a, where: where("Lettings") })).toBe("");
  expect(setAsideRefusal(held, null)).toBe("");
});

test("the whole run failed: a fatal error, or the service failing every row sent; not when some rows were answered", () => {
  const s = run(["100023336956", "10033544614"], "run_w");
  const down = serviceError("server", "internal", "The service failed.");
  endRun(s, down);
  s.firstFailure = down;
  s.fates = "ff";
  expect(wholeRunFailure(s)).toEqual(down);
  s.fates = "af";
  expect(wholeRunFailure(s)).toBeUndefined();
  s.fatal = serviceError("auth", "invalid_api_key", "The API key was not accepted.");
  expect(wholeRunFailure(s)?.code).toBe("invalid_api_key");
});

test("input columns at rest: moved with the block when the moved column holds the header, else where they were", () => {
  const grid = [
    ["", "UPRN", "Notes"],
    ["", "1", "x"],
  ];
  expect(inputShiftAtRest(grid, { uprn: 0 }, 1, 0)).toBe(1);
  expect(inputShiftAtRest(grid, { uprn: 1 }, 1, 0)).toBe(1);
  expect(inputShiftAtRest([["UPRN", ""]], { uprn: 0 }, 1, 0)).toBe(0);
  expect(inputShiftAtRest([["", ""]], { uprn: 0 }, 1, 0)).toBeUndefined();
});
