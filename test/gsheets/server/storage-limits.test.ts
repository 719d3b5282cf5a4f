/**
 * Google's storage limits as they are: the cache may drop anything at any time, and properties and cache values are
 * measured in UTF-8 bytes. A large run keeps what Resume needs on the spreadsheet's hidden sheet, the cache only in
 * front of it; a check begun beside another spreadsheet's unfinished run keeps that run.
 */
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import { passTime, sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, seedTable } from "../harness/table";

const sandbox = sandboxForFile(
  {
    msPerProperty: 1,
    limits: { professional: { perMinute: 100000, perDay: 1000000 } },
  },
  { resetEach: true },
);
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(10000);
});

const RUN_DATA = "Compliance run data";

function bytesOf(entries: Iterable<[string, string]>): number[] {
  return [...entries].map(([k, v]) => Buffer.byteLength(k) + Buffer.byteLength(v));
}

test("a 10,000-row run whose cache is emptied mid-run finishes: every row has its result, no job is sent twice", async () => {
  const first = createGasEnvironment();
  configure(first, sandbox);
  const { firstRow, lastRow } = seedTable(
    first.sheet,
    ["UPRN", "Postcode"],
    props.map((p) => [p.uprn, p.postcode]),
  );
  first.sheet.select(`A${firstRow}:B${lastRow}`);
  const start = first.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.jobIds).toHaveLength(10);
  // The list is on the hidden sheet, which the person's sheet stays in front of.
  const data = first.spreadsheet.getSheetByName(RUN_DATA)!;
  expect(data).not.toBeNull();
  expect(data.isSheetHidden()).toBe(true);
  expect(first.spreadsheet.active).toBe(first.sheet);
  expect(first.run("pollBulkCheck").phase).toBe("running");

  // Google drops the cache; the sidebar closes and opens again (a new execution), and the cache keeps being dropped.
  first.userCache.evictAll();
  await passTime(first, 2000);
  const second = createGasEnvironment({ from: first });
  second.userCache.evictEvery = 3;
  const state = second.run("getSidebarState");
  expect(state.run.runId).toBe(start.progress.runId);
  expect(state.run.properties).toBe(10000);
  const polls = await pollToEnd(second);
  const last = polls[polls.length - 1];
  expect(second.userCache.evictions).toBeGreaterThan(1);
  expect(last.phase).toBe("done");
  expect(last.message).not.toMatch(/expired/);
  expect(last.propertiesDone).toBe(10000);
  expect(last.properties).toBe(10000);
  expect((await sandbox.stats()).bulk_submit).toBe(10);
  const uprn = outputCol(second.sheet, "matched_uprn");
  const got = second.sheet.peek(firstRow, uprn, lastRow - firstRow + 1, 1).map((r) => String(r[0]));
  expect(got).toEqual(props.map((p) => p.uprn));
  // Checking again is a new run: the last one is done, so nothing of it is sent again.
  second.sheet.select(`A${firstRow}:B${lastRow}`);
  const again = second.run("startBulkCheck", {});
  expect(again.ok).toBe(true);
  expect(again.progress.runId).not.toBe(start.progress.runId);
  // The finished run's list was removed from the hidden sheet when the new run replaced it.
  const ids = data.peek(1, 1, data.getLastRow(), 1).map((r) => String(r[0]));
  expect(ids).not.toContain(start.progress.runId);
  expect(ids).toContain(again.progress.runId);
  expect(second.run("cancelBulkCheck").phase).toBe("stopped");
}, 300_000);

test("addresses with non-ASCII characters: saved state is cut by bytes, within every limit, and the check runs", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  // Welsh and accented addresses: each character of "ŵŷâêîôû" is two bytes, "✓" three.
  const rows = props
    .slice(0, 2500)
    .map((p, i) => [
      p.postcode,
      `Tŷ Ŵyn ${i}, Ffŵrdd yr Êglŵys, Llanfaîr-ŷm-Mûallt, Pôwŷs ✓✓✓ âêîôû ŵŷ café Pênrhŷndeûdraeth`,
    ]);
  const { firstRow, lastRow } = seedTable(env.sheet, ["Postcode", "Address"], rows);
  env.sheet.select(`A${firstRow}:B${lastRow}`);
  const start = env.run("startBulkCheck", {});
  expect(start.message ?? "").not.toMatch(/Argument too large/);
  expect(start.ok).toBe(true);
  // The list's pieces in the cache: one cut by characters (90,000 a piece) would be over 100 KB.
  const pieces = [...env.userCache.data].filter(([k]) => /\.list\.\d+$/.test(k));
  const text = pieces.map(([, v]) => v).join("");
  expect(text.length).toBeGreaterThan(90000);
  expect(Buffer.byteLength(text.slice(0, 90000))).toBeGreaterThan(100 * 1024);
  for (const [k, v] of pieces) {
    expect(Buffer.byteLength(v)).toBeLessThanOrEqual(100 * 1024);
    expect(k.length).toBeLessThanOrEqual(250);
  }
  for (const b of bytesOf(env.userProperties.data)) expect(b).toBeLessThanOrEqual(9 * 1024);
  expect(bytesOf(env.userProperties.data).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(500 * 1024);
  // Closed, cache dropped, opened again: the list read back from the sheet gives every row its own result.
  env.userCache.evictAll();
  const again = createGasEnvironment({ from: env });
  const last = (await pollToEnd(again)).pop();
  expect(last.phase).toBe("done");
  expect(last.properties).toBe(2500);
  expect((await sandbox.stats()).bulk_submit).toBe(start.jobIds.length);
  const msg = outputCol(again.sheet, "message");
  const status = again.sheet.peek(firstRow, msg, lastRow - firstRow + 1, 1).map((r) => String(r[0]));
  expect(status.filter((m) => /Checking/.test(m))).toEqual([]);
});

test("the stand-ins refuse what Google refuses, in bytes", () => {
  const env = createGasEnvironment();
  const welsh = "ŵ".repeat(5000); // 5,000 characters, 10,000 bytes
  expect(() => env.userProperties.setProperty("k", welsh)).toThrow(/Argument too large/);
  expect(() => env.userCache.put("k", "✓".repeat(40000))).toThrow(/Argument too large/);
  expect(() => env.userCache.put("k".repeat(251), "v")).toThrow(/Argument too large: key/);
  env.userCache.put("a", "b", 60);
  env.clock.offsetMs += 61_000;
  expect(env.userCache.get("a")).toBeNull();
  env.userCache.put("a", "b", 600);
  env.userCache.evictAll();
  expect(env.userCache.get("a")).toBeNull();
  expect(() => env.sheet.getRange(1, 1).setValues([["x".repeat(50001)]])).toThrow(/50000 characters/);
});

async function leftMidRun(a: GasEnvironment, from: number, n: number) {
  seedTable(
    a.sheet,
    ["UPRN"],
    props.slice(from, from + n).map((p) => [p.uprn]),
  );
  a.sheet.select(`A2:A${n + 1}`);
  const start = a.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  // The sidebar is closed mid-run and not opened again for a while.
  await passTime(a, 20 * 60 * 1000);
  return start;
}

test("a check begun beside another spreadsheet's run left mid-run keeps that run, says so, and its Resume sends nothing again", async () => {
  const a = createGasEnvironment();
  configure(a, sandbox);
  a.spreadsheet.name = "North lettings";
  const startA = await leftMidRun(a, 0, 1500);
  const submitsA = (await sandbox.stats()).bulk_submit;
  expect(submitsA).toBe(startA.jobIds.length);

  const b = createGasEnvironment({ from: a, otherSpreadsheet: true });
  b.spreadsheet.name = "South lettings";
  seedTable(
    b.sheet,
    ["UPRN"],
    props.slice(2000, 2010).map((p) => [p.uprn]),
  );
  b.sheet.select("A2:A11");
  const startB = b.run("startBulkCheck", {});
  expect(startB.ok).toBe(true);
  expect(startB.progress.notes.join(" ")).toMatch(
    /Your unfinished check of Sheet1!A2:A1501 in "North lettings" is kept: open that spreadsheet and choose Resume/,
  );
  const lastB = (await pollToEnd(b)).pop();
  expect(lastB.phase).toBe("done");

  // Back in the first spreadsheet: its run waits for Resume, which collects its jobs without sending one again.
  const a2 = createGasEnvironment({ from: a });
  const shown = a2.run("getSidebarState").run;
  expect(shown.runId).toBe(startA.progress.runId);
  expect(shown.resumable).toBe(true);
  const resumed = a2.run("resumeBulkCheck");
  expect(resumed.runId).toBe(startA.progress.runId);
  const lastA = (await pollToEnd(a2)).pop();
  expect(lastA.phase).toBe("done");
  expect(lastA.propertiesDone).toBe(1500);
  expect((await sandbox.stats()).bulk_submit).toBe(submitsA + startB.jobIds.length);
  const uprn = outputCol(a2.sheet, "matched_uprn");
  expect(String(cellValue(a2.sheet, 1501, uprn))).toBe(props[1499].uprn);
}, 120_000);

test("a third unfinished run is refused with the names of the two kept, not dropped", async () => {
  const a = createGasEnvironment();
  configure(a, sandbox);
  a.spreadsheet.name = "North lettings";
  await leftMidRun(a, 0, 1500);
  const b = createGasEnvironment({ from: a, otherSpreadsheet: true });
  b.spreadsheet.name = "South lettings";
  await leftMidRun(b, 3000, 1500);
  const c = createGasEnvironment({ from: a, otherSpreadsheet: true });
  seedTable(
    c.sheet,
    ["UPRN"],
    props.slice(6000, 6003).map((p) => [p.uprn]),
  );
  c.sheet.select("A2:A4");
  const refused = c.run("startBulkCheck", {});
  expect(refused.ok).toBe(false);
  expect(refused.message).toMatch(/in "North lettings"/);
  expect(refused.message).toMatch(/in "South lettings"/);
  expect(refused.message).toMatch(/Choose Resume to finish one first/);
  // Both are still there to resume, each in its own spreadsheet.
  expect(createGasEnvironment({ from: a }).run("getSidebarState").run.resumable).toBe(true);
}, 120_000);

test("the hidden sheet deleted while a large check is unfinished: the sidebar says what was lost and what to do; nothing is sent again", async () => {
  const env = createGasEnvironment();
  configure(env, sandbox);
  const rows = props.slice(0, 2500).map((p, i) => [p.postcode, `Flat ${i}, Harbour View, Aberystwyth`]);
  const { firstRow, lastRow } = seedTable(env.sheet, ["Postcode", "Address"], rows);
  env.sheet.select(`A${firstRow}:B${lastRow}`);
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  const sent = (await sandbox.stats()).bulk_submit;
  env.spreadsheet.deleteSheet(env.spreadsheet.getSheetByName(RUN_DATA)!);
  env.userCache.evictAll();
  const again = createGasEnvironment({ from: env });
  const shown = again.run("getSidebarState").run;
  // Not "190 of 0 properties checked": the counts are the run's, and nothing is offered to resume.
  expect(shown.phase).toBe("done");
  expect(shown.properties).toBe(2500);
  expect(shown.resumable).toBe(false);
  expect(shown.message).toMatch(/kept on the hidden sheet "Compliance run data", which was deleted or changed/);
  expect(shown.message).toMatch(/check the rows again/);
  expect(again.run("pollBulkCheck").phase).toBe("done");
  again.run("resumeBulkCheck");
  expect((await sandbox.stats()).bulk_submit).toBe(sent);
  // Checking again is a new run, not a question about the lost one.
  again.sheet.select(`A${firstRow}:B${lastRow}`);
  const next = again.run("startBulkCheck", {});
  expect(next.askResume).toBeUndefined();
  expect(next.ok).toBe(true);
  expect(next.progress.runId).not.toBe(start.progress.runId);
});
