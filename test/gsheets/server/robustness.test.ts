/**
 * Runs that must always be able to end, through the BUILT Code.js: results columns deleted or protected
 * mid-run, Stop pressed while a poll holds the lock, requests that hang past Apps Script's 6-minute limit,
 * multi-area selections and over-long lookups.
 */
import fs from "node:fs";
import path from "node:path";
import { columnLetter } from "../../helpers/columns";
import { OUTPUT_COLUMNS, blockNotFound, sentence } from "../../../core";
import { DIST } from "../harness/gas";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, outputCol, pollToEnd, seedTable, runWords } from "../harness/table";
import { configuredEnv, selectedUprnTable } from "../../helpers/gsheets-results";

const W = OUTPUT_COLUMNS.length;
/** The last column letter of a block starting at B. */
const LAST = columnLetter(1 + W);
const SIX_MINUTES = 6 * 60 * 1000;

// Slow enough that a run is still going when the test interferes with it.
const sandbox = sandboxForFile({ msPerProperty: 10 }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(2200);
});

const table = (n: number) => selectedUprnTable(sandbox, props.slice(0, n));

describe("a run whose results columns cannot be written always ends", () => {
  test("results columns deleted mid-run: the next poll ends the run with a message, Stop works, a new check starts", async () => {
    const { env } = table(200);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.sheet.deleteColumns(2, W); // the user deletes the whole block, as the docs suggest for "start afresh"
    const before = await sandbox.stats();

    const p = env.run("pollBulkCheck");
    expect(p.phase).toBe("stopped");
    // Core's words for a block that is gone, as the Excel pane says them.
    expect(p.message).toContain(`${sentence(blockNotFound("Sheet1", 1))}, so the check stopped`);
    expect(p.message).toContain(`The results columns (B:${LAST}) on "Sheet1" were deleted or moved`);
    // Nothing more is asked of the service, and nothing is written into the columns that took the block's place.
    expect((await sandbox.stats()).total).toBe(before.total);
    expect(env.sheet.getLastColumn()).toBe(1);
    expect(env.run("cancelBulkCheck").phase).toBe("stopped");
    // The stopped run's jobs are paid for: the sidebar asks to resume it first; checking anyway sets it aside.
    expect(env.run("startBulkCheck", {}).askResume).toBe(true);
    expect(env.run("startBulkCheck", { anyway: true }).ok).toBe(true);
    await pollToEnd(env);
    expect(String(cellValue(env.sheet, 201, outputCol(env.sheet, "matched_uprn")))).toBe(props[199].uprn);
  });

  test("Stop right after the columns were deleted: the run is saved as stopped and the answer says nothing was written", () => {
    const { env } = table(200);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.sheet.deleteColumns(2, W);
    const stopped = env.run("cancelBulkCheck");
    expect(stopped.phase).toBe("stopped");
    expect(runWords(stopped)).toMatch(
      new RegExp(
        `^Stopped\\. Nothing was written: The results columns \\(B:${LAST}\\) on "Sheet1" were deleted or moved`,
      ),
    );
    expect(env.run("getSidebarState").run.phase).toBe("stopped");
    expect(env.run("startBulkCheck", {}).askResume).toBe(true);
    expect(env.run("startBulkCheck", { anyway: true }).ok).toBe(true);
  });

  test("writes refused (a protected sheet): Stop still ends the run and says what could not be written", () => {
    const { env } = table(200);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.sheet.writeError = "Exception: You are trying to edit a protected cell or object.";
    const stopped = env.run("cancelBulkCheck");
    expect(stopped.phase).toBe("stopped");
    expect(runWords(stopped)).toMatch(
      /^Stopped\. .*the rows could not be updated \(Exception: You are trying to edit a protected cell/,
    );
    expect(env.run("pollBulkCheck").phase).toBe("stopped");
  });

  test("writes refused while results come in: the poll ends the run with a clear message instead of failing every poll", async () => {
    const { env } = table(30);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.sheet.writeError = "Exception: You are trying to edit a protected cell or object.";
    const polls = await pollToEnd(env);
    const last = polls[polls.length - 1];
    expect(last.phase).toBe("stopped");
    expect(last.message).toMatch(
      /results? could not be written to the sheet \(Exception: You are trying to edit a protected cell/,
    );
    env.sheet.writeError = null;
    // Its results are not on the sheet yet: asked to resume it first, or checked anyway (it stays resumable).
    expect(env.run("startBulkCheck", {}).askResume).toBe(true);
    expect(env.run("startBulkCheck", { anyway: true }).ok).toBe(true);
  });
});

describe("Stop while a poll holds the lock", () => {
  test("the answer says busy and the run keeps going; asked again once the lock is free, it stops", () => {
    const { env } = table(50);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.userLock.busy = true; // a poll in flight (a slow fetchAll) holds the user lock
    const busy = env.run("cancelBulkCheck");
    expect(busy).not.toBeNull();
    expect(busy.busy).toBe(true);
    expect(busy.phase).toBe("running");
    expect(busy.message).toMatch(/stopping as soon as/);
    expect(env.run("getSidebarState").run.phase).toBe("running");

    env.userLock.busy = false;
    const stopped = env.run("cancelBulkCheck");
    expect(stopped.busy).toBeUndefined();
    expect(stopped.phase).toBe("stopped");
  });
});

describe("Apps Script's 6-minute limit", () => {
  test("fetchAll fails and the requests hang: a poll stops sending after a minute, saves, and the run finishes later", async () => {
    const { env, firstRow, lastRow } = table(2100); // 3 jobs on a Professional key
    const start = env.run("startBulkCheck", {});
    expect(start.jobIds).toHaveLength(3);
    env.clock.offsetMs += 30000; // every job is due for its results

    // Each request hangs 100 s before failing as a whole: one more would pass 6 minutes.
    env.network.fetchAllThrows = "Exception: Address unavailable: http://127.0.0.1/";
    env.network.hangMs = 100000;
    const before = env.fetches.length;
    const p = env.run("pollBulkCheck");
    expect(env.vmDurations[env.vmDurations.length - 1].ms).toBeLessThan(SIX_MINUTES);
    expect(env.fetches.length).toBe(before); // no request was started after the first minute
    expect(p.phase).toBe("running");
    expect(p.message).toMatch(/slow to answer; 3 requests wait/);
    expect(p.jobs.every((j: { status: string }) => j.status === "running")).toBe(true);

    // Requests that hang 25 s: sent one by one until the minute is up, the rest wait for the next poll.
    env.network.hangMs = 25000;
    const mark = env.fetches.length;
    const q = env.run("pollBulkCheck");
    expect(env.fetches.length - mark).toBe(2);
    expect(env.vmDurations[env.vmDurations.length - 1].ms).toBeLessThan(2 * 60 * 1000);
    expect(q.phase).toBe("running");

    env.network.fetchAllThrows = undefined;
    env.network.hangMs = 0;
    const polls = await pollToEnd(env);
    expect(polls[polls.length - 1].phase).toBe("done");
    const uprn = outputCol(env.sheet, "matched_uprn");
    expect(String(cellValue(env.sheet, firstRow, uprn))).toBe(props[0].uprn);
    expect(String(cellValue(env.sheet, lastRow, uprn))).toBe(props[2099].uprn);
  }, 120000);
});

describe("selections and lookups Apps Script cannot take as they are", () => {
  test("a selection of several areas is refused with a message, nothing sent or written", () => {
    const env = configuredEnv(sandbox);
    seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(0, 12).map((p) => [p.uprn]),
    );
    env.sheet.select("A2:A5,A8:A10");
    expect(env.run("getSidebarState").selection).toBe("Sheet1!A2:A5, A8:A10");
    const mark = env.log.mark();
    const fetches = env.fetches.length;
    const r = env.run("startBulkCheck", {});
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/You selected 2 separate areas \(A2:A5, A8:A10\)\. Select one block of rows/);
    expect(env.fetches.length).toBe(fetches);
    expect(env.log.writesSince(mark)).toEqual([]);
  });

  test("an address search too long for a 2 KB URL is refused before sending; the sidebar's inputs have a maxlength", () => {
    const env = configuredEnv(sandbox);
    const fetches = env.fetches.length;
    const r = env.run("lookupAddresses", { query: "Flat 1 ".repeat(400) });
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/too long to send/);
    expect(env.fetches.length).toBe(fetches);
    const html = fs.readFileSync(path.join(DIST, "Sidebar.html"), "utf8");
    expect(html).toMatch(/<input id="lookup-postcode"[^>]*maxlength="\d+"/);
    expect(html).toMatch(/<input id="lookup-query"[^>]*maxlength="\d+"/);
  });

  test("a search with more matches than it shows says so, with the total the service gave", () => {
    const env = configuredEnv(sandbox);
    const r = env.run("lookupAddresses", { query: "road" });
    expect(r.ok).toBe(true);
    expect(r.addresses.length).toBe(50);
    expect(r.message).toMatch(/^The first 50 of [\d,]+ addresses for "road": add words/);
    const one = env.run("lookupAddresses", { query: "10 Downing Street" });
    expect(one.message).toBe('1 address for "10 Downing Street".');
  });
});
