/**
 * Sheets as users really lay them out: whole-column and multi-area selections, a title row above the
 * header, numbers and odd text in the UPRN column, a Notes column of their own, data without a header, an edited
 * results block, one row / no valid row / one property ten times, the service failing half way, and odd arguments to
 * the functions. The task pane's logic and sheet writes against the real sandbox, with the Excel stand-in as workbook.
 */
import {
  OUTPUT_COLUMNS,
  STATUS_COLOURS,
  createClient,
  outputHeaders,
  statusColour,
  statusColumnIndexes,
} from "../../../core";
import { prepareCheck, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { createRuntime, installRuntime } from "../../../excel/runtime";
import { memoryStore } from "../../../excel/settings";
import { testClock } from "../../helpers/clock";
import { knownUprns, sandbox, scaledSleep, startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { colLetters, createStandIn } from "../../helpers/excel-standin";

let sb: Sandbox;
let examples: Record<string, any>;
beforeAll(async () => {
  sb = await sandbox(0);
  examples = await (await fetch(`${sb.url}/__sandbox/examples`)).json();
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const W = OUTPUT_COLUMNS.length;
const col = (header: string) => OUTPUT_COLUMNS.findIndex((c) => c.header === header);
const MESSAGE = col("Message");
const EPC = col("EPC status");
const MATCHED = col("Matched UPRN");

function workbook() {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  return { s, excelRun, api: s.api };
}
function client(base = sb.baseUrl, apiKey = "sandbox-professional") {
  return createClient({
    baseUrl: base,
    apiKey,
    fetch: (u, i) => fetch(u, i as RequestInit) as never,
    sleep: scaledSleep(50) as never,
  });
}
/** The output block of rows [first, last] (1-based) starting at a 0-based column. */
function block(api: any, startCol: number, first: number, last: number) {
  return api.read("Sheet1", `${colLetters(startCol)}${first}:${colLetters(startCol + W - 1)}${last}`);
}
async function prepared(excelRun: ExcelRun, opts: Parameters<typeof prepareCheck>[1] = { plan: "professional" }) {
  const prep = await prepareCheck(excelRun, opts);
  if (!prep.ok) throw new Error(prep.message);
  return prep.check;
}

test("whole columns (A:C) on a 50-row sheet: only the used rows are read and checked; blank rows at the end are counted, not errors", async () => {
  const { excelRun, api, s } = workbook();
  const uprns = knownUprns(sb, 50);
  api.seed("Sheet1", "A1", [["UPRN", "Postcode", "Address"], ...uprns.map((u) => [u, "", ""])]);
  api.select("Sheet1", "A:C");
  // Reading a million-row column is what Excel on the web refuses (the stand-in too): the pane must not.
  await expect(
    s.Excel.run(async (ctx: any) => {
      const r = ctx.workbook.getSelectedRange();
      r.load("values");
      await ctx.sync();
    }),
  ).rejects.toThrow(/ResponsePayloadSizeLimitExceeded/);
  const check = await prepared(excelRun);
  expect(check.region.rowCount).toBe(51);
  expect(check.rows).toHaveLength(50);
  expect(check.problems).toEqual([]);
  expect(check.blankRowsSkipped).toBe(0);
  const summary = await runCheck(check, { excelRun, client: client(), plan: "professional" });
  expect(summary.rowsWritten).toBe(50);
  expect(summary.errors).toBe(0);
  expect(block(api, 3, 52, 52).values[0].every((v: unknown) => v === "")).toBe(true); // nothing below the data

  // Cells holding only spaces below the data (used to Excel, blank to us) and a blank row in the middle.
  const { excelRun: run2, api: api2 } = workbook();
  api2.seed("Sheet1", "A1", [["UPRN", "Postcode", "Notes"], ...uprns.slice(0, 10).map((u) => [u, "", ""])]);
  api2.seed("Sheet1", "A6", [["", "", "moved out"]]);
  api2.seed(
    "Sheet1",
    "A12",
    Array.from({ length: 20 }, () => [" ", "", ""]),
  );
  api2.select("Sheet1", "A1:C40");
  const c2 = await prepared(run2);
  expect(c2.rows).toHaveLength(10);
  expect(c2.blankRowsSkipped).toBe(20);
  expect(c2.problems).toEqual([
    { row: 6, message: "No UPRN or postcode in this row: add one, or leave the row out of the selection." },
  ]);
});

test("the header is found above a selection of rows 5-20, and under a title row", async () => {
  const { excelRun, api } = workbook();
  const uprns = knownUprns(sb, 30);
  api.seed("Sheet1", "A1", [["UPRN", "Landlord"], ...uprns.map((u) => [u, "me"])]);
  api.select("Sheet1", "A5:B20");
  const check = await prepared(excelRun);
  expect(check.rows.map((r) => r.index)).toEqual(Array.from({ length: 16 }, (_, i) => i + 4));
  await runCheck(check, { excelRun, client: client(), plan: "professional" });
  const out = block(api, 2, 1, 21);
  expect(out.values[0]).toEqual(outputHeaders());
  expect(out.values[3].every((v: unknown) => v === "")).toBe(true); // row 4: not selected, not written
  expect(out.values.slice(4, 20).map((r: unknown[]) => r[MATCHED])).toEqual(uprns.slice(3, 19));

  // A title row directly above the header (so inside Excel's current region).
  const t = workbook();
  t.api.seed("Sheet1", "A1", [
    ["Portfolio, March 2026", ""],
    ["Property ref", "UPRN"],
    ...uprns.slice(0, 5).map((u, i) => [`P${i}`, u]),
  ]);
  t.api.select("Sheet1", "B3:B7");
  const tc = await prepared(t.excelRun);
  expect(tc.headerRow).toBe(0);
  expect(tc.origin).toEqual({ sheet: "Sheet1", rowIndex: 1, columnIndex: 2 });
  await runCheck(tc, { excelRun: t.excelRun, client: client(), plan: "professional" });
  expect(t.api.read("Sheet1", "A1:C1").values[0]).toEqual(["Portfolio, March 2026", "", ""]);
  expect(t.api.read("Sheet1", "C2").values[0][0]).toBe(OUTPUT_COLUMNS[0].header);
  expect(block(t.api, 2, 3, 7).values.map((r: unknown[]) => r[MATCHED])).toEqual(uprns.slice(0, 5));
});

test("a selection of two areas gets a clear message and nothing is read or written", async () => {
  const { excelRun, api } = workbook();
  api.seed("Sheet1", "A1", [["UPRN"], ...knownUprns(sb, 6).map((u) => [u])]);
  api.select("Sheet1", "A2:A3,A5:A6");
  const prep = await prepareCheck(excelRun, { plan: "professional" });
  expect(prep.ok).toBe(false);
  expect((prep as { message: string }).message).toBe(
    "You selected 2 separate areas (A2:A3, A5:A6). Select one block of rows (click the first row, Shift+click the last), or the table's header row to check all of it, and check again.",
  );
  expect(sb.stats().total).toBe(0);
});

test("UPRNs as numbers, as text with an apostrophe or spaces; lowercase postcodes; formula results; Excel error values", async () => {
  const { excelRun, api } = workbook();
  const [u1, u2, u3] = knownUprns(sb, 3);
  const pc = examples.single_property_postcode as string;
  api.seed("Sheet1", "A1", [
    ["UPRN", "Postcode", "Address"],
    [Number(u1), "", ""], // a number: Excel shows 1.00023E+11, values hold every digit
    [`'${u2}`, "", ""], // imported text that kept its apostrophe
    [`  ${u3} `, "", ""],
    ["", pc.toLowerCase().replace(" ", ""), ""],
    ["", pc, "=A1"], // never read as a formula: values hold the formula's result, here that text
    ["#N/A", "", ""], // a VLOOKUP that found nothing
    ["", pc, "#REF!"],
    ["1.00023E+11", "", ""], // a CSV that saved the shortened number as text
  ]);
  api.select("Sheet1", "A1");
  const check = await prepared(excelRun);
  expect(check.rows.slice(0, 4).map((r) => r.property)).toEqual([
    { uprn: u1 },
    { uprn: u2 },
    { uprn: u3 },
    { postcode: pc },
  ]);
  expect(check.problems.map((p) => p.row)).toEqual([7, 8, 9]);
  expect(check.problems[0].message).toMatch(/#N\/A/);
  expect(check.problems[1].message).toMatch(/Address cell shows the error #REF!/);
  expect(check.problems[2].message).toMatch(/scientific notation/);
  await runCheck(check, { excelRun, client: client(), plan: "professional" });
  const out = block(api, 3, 2, 9);
  expect(out.values.slice(0, 4).map((r: unknown[]) => r[MATCHED])).toEqual([
    u1,
    u2,
    u3,
    examples.single_property_postcode_uprn ?? out.values[3][MATCHED],
  ]);
  expect(out.values[3][MESSAGE]).toBe("");
  expect(out.values[5][MESSAGE]).toMatch(/#N\/A/);
  expect(out.values[5][EPC]).toBe("error");
});

test("the user's Notes column directly right of the data is never overwritten; the pane says where results go; a re-run updates in place", async () => {
  const { excelRun, api } = workbook();
  const uprns = knownUprns(sb, 3);
  api.seed("Sheet1", "A1", [["UPRN", "Notes"], ...uprns.map((u, i) => [u, `note ${i}`])]);
  api.select("Sheet1", "A2:A4");
  const first = await prepared(excelRun);
  expect(first.placement).toBe(`Results go in columns C:${colLetters(2 + W - 1)}, right of your data in A:B.`);
  await runCheck(first, { excelRun, client: client(), plan: "professional" });
  expect(api.read("Sheet1", "B1:B4").values.flat()).toEqual(["Notes", "note 0", "note 1", "note 2"]);
  const again = await prepared(excelRun);
  expect(again.inPlace).toBe(true);
  expect(again.placement).toBe(`Results are updated in place in columns C:${colLetters(2 + W - 1)}.`);
  await runCheck(again, { excelRun, client: client(), plan: "professional" });
  expect(
    api
      .read("Sheet1", `${colLetters(2 + W)}1:${colLetters(2 + 2 * W)}4`)
      .values.flat()
      .every((v: unknown) => v === ""),
  ).toBe(true);
});

test("data without a header, mapped by hand: no header is written, and a second run updates the same block", async () => {
  const { excelRun, api } = workbook();
  const uprns = knownUprns(sb, 4);
  api.seed(
    "Sheet1",
    "A1",
    uprns.map((u) => ["x", u]),
  );
  api.select("Sheet1", "B1:B4");
  const opts = { plan: "professional" as const, mapping: { uprn: 1 }, hasHeader: false };
  const first = await prepared(excelRun, opts);
  expect(first.headerRow).toBeNull();
  expect(first.origin.columnIndex).toBe(2);
  await runCheck(first, { excelRun, client: client(), plan: "professional" });
  expect(block(api, 2, 1, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(uprns);
  const again = await prepared(excelRun, opts);
  expect(again.inPlace).toBe(true);
  expect(again.origin.columnIndex).toBe(2);
  const summary = await runCheck(again, { excelRun, client: client(), plan: "professional" });
  expect(summary.errors).toBe(0);
  expect(
    api
      .read("Sheet1", `${colLetters(2 + W)}1:${colLetters(2 + 2 * W)}4`)
      .values.flat()
      .every((v: unknown) => v === ""),
  ).toBe(true);
});

test("a column inserted into our block, or one of our headers renamed: the user's work stays, a fresh block is written and the pane says so", async () => {
  const { excelRun, api } = workbook();
  const uprns = knownUprns(sb, 3);
  api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
  api.select("Sheet1", "A1");
  await runCheck(await prepared(excelRun), { excelRun, client: client(), plan: "professional" });
  // The user inserts a column after "EPC status" (D) and types their own notes there.
  api.insertColumns("Sheet1", 4, 1);
  api.seed("Sheet1", "E1", [["My EPC notes"], ["book assessor"], ["ok"], ["?"]]);
  const after = await prepared(excelRun);
  expect(after.inPlace).toBe(false);
  expect(after.placement).toBe(
    `You selected the header row, so the whole table is checked: rows 2–4.\nThe results columns from an earlier check (B:${colLetters(W)}) were changed (a column inserted or a header renamed), so they are left as they are and fresh results go in a new block.\nResults go in columns ${colLetters(W + 3)}:${colLetters(2 * W + 2)}, after the last column in use (${colLetters(W + 1)}), so none of your columns is overwritten.`,
  );
  await runCheck(after, { excelRun, client: client(), plan: "professional" });
  expect(api.read("Sheet1", "E1:E4").values.flat()).toEqual(["My EPC notes", "book assessor", "ok", "?"]);
  expect(block(api, W + 3, 1, 4).values[0]).toEqual(outputHeaders());
  // A third run finds the fresh block and updates it in place.
  const third = await prepared(excelRun);
  expect(third.inPlace).toBe(true);
  expect(third.origin.columnIndex).toBe(W + 3);

  // A renamed header: same rule.
  const r = workbook();
  r.api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
  r.api.select("Sheet1", "A1");
  await runCheck(await prepared(r.excelRun), { excelRun: r.excelRun, client: client(), plan: "professional" });
  r.api.seed("Sheet1", "C1", [["Risk (my words)"]]);
  const renamed = await prepared(r.excelRun);
  expect(
    renamed.placement.startsWith(
      `You selected the header row, so the whole table is checked: rows 2–4.\nThe results columns from an earlier check (B:${colLetters(W)}) were changed (a column inserted or a header renamed), so they are left as they are and fresh results go in a new block.\nResults go in columns ${colLetters(W + 2)}:${colLetters(2 * W + 1)},`,
    ),
  ).toBe(true);
  await runCheck(renamed, { excelRun: r.excelRun, client: client(), plan: "professional" });
  expect(r.api.read("Sheet1", "C1").values[0][0]).toBe("Risk (my words)");
});

test("one row; no valid row (nothing sent, every row told why); ten rows of one UPRN (one property sent)", async () => {
  const [u] = knownUprns(sb, 1);
  const one = workbook();
  one.api.seed("Sheet1", "A1", [["UPRN"], [u]]);
  one.api.select("Sheet1", "A2");
  const c1 = await prepared(one.excelRun);
  expect(c1.rows).toHaveLength(1);
  expect((await runCheck(c1, { excelRun: one.excelRun, client: client(), plan: "professional" })).rowsWritten).toBe(1);
  expect(block(one.api, 1, 2, 2).values[0][MATCHED]).toBe(u);

  sb.reset();
  const bad = workbook();
  bad.api.seed("Sheet1", "A1", [
    ["UPRN", "Postcode"],
    ["12ab", ""],
    ["", "ZZ"],
    ["1234567890123", ""],
  ]);
  bad.api.select("Sheet1", "A1");
  const c2 = await prepared(bad.excelRun);
  expect(c2.problems).toHaveLength(3);
  const s2 = await runCheck(c2, { excelRun: bad.excelRun, client: client(), plan: "professional" });
  expect(sb.stats().total).toBe(0);
  expect(s2.errors).toBe(3);
  expect(block(bad.api, 2, 2, 4).values.map((r: unknown[]) => r[MESSAGE])).toEqual(c2.problems.map((p) => p.message));

  sb.reset();
  const dup = workbook();
  dup.api.seed("Sheet1", "A1", [["UPRN"], ...Array.from({ length: 10 }, () => [u])]);
  dup.api.select("Sheet1", "A1");
  const c3 = await prepared(dup.excelRun);
  expect(c3.distinct).toBe(1);
  await runCheck(c3, { excelRun: dup.excelRun, client: client(), plan: "professional" });
  expect(sb.stats().bulk_submit + sb.stats().check).toBe(1);
  expect(new Set(block(dup.api, 1, 2, 11).values.map((r: unknown[]) => r[MATCHED]))).toEqual(new Set([u]));
});

test("the service failing half way: rows already written stay, the others say why, colours match the statuses", async () => {
  // The sandbox's job and the client's polls, retries and job deadline on one test clock: kept, in test time.
  const clock = testClock();
  const slow = await startTestSandbox({ msPerProperty: 5, now: clock.date });
  const client = () =>
    createClient({
      baseUrl: slow.baseUrl,
      apiKey: "sandbox-professional",
      fetch: clock.fetch((u, i) => fetch(u, i as RequestInit) as never),
      sleep: clock.sleep,
      now: clock.now,
    });
  try {
    const { excelRun, api } = workbook();
    const uprns = knownUprns(slow, 40);
    api.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
    api.select("Sheet1", "A1");
    slow.setFaults([{ kind: "job_fail", count: 1 }]);
    const summary = await runCheck(await prepared(excelRun), {
      excelRun,
      client: client(),
      plan: "professional",
    });
    const out = block(api, 1, 2, 41);
    const ok = out.values.filter((r: unknown[]) => r[MATCHED] !== "");
    const failed = out.values.filter((r: unknown[]) => r[MATCHED] === "");
    expect(ok.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    expect(summary.errors).toBe(failed.length);
    for (const r of failed) expect(r[MESSAGE]).toMatch(/\S/);
    const statusCols = statusColumnIndexes();
    out.values.forEach((r: unknown[], i: number) => {
      for (const c of statusCols) expect(out.fills[i][c]).toBe(statusColour(r[c])?.fill ?? "#FFFFFF");
    });
    expect(failed.every((r: unknown[]) => statusCols.every((c) => r[c] === "error"))).toBe(true);

    // A run of 500s on every poll after results were written: values stay, Message says they were not refreshed.
    slow.setFaults([{ kind: "error_500", route: "bulk_results" }]);
    await runCheck(await prepared(excelRun), { excelRun, client: client(), plan: "professional" });
    const again = block(api, 1, 2, 41);
    again.values.forEach((r: unknown[], i: number) => {
      expect(r[MESSAGE]).toMatch(/\S/);
      if (out.values[i][MATCHED] !== "") {
        expect(r[MATCHED]).toBe(out.values[i][MATCHED]);
        expect(r[MESSAGE]).toMatch(/^Not refreshed at/);
      }
      for (const c of statusCols) expect(again.fills[i][c]).toBe(statusColour(r[c])?.fill ?? "#FFFFFF");
    });
    expect(again.fills[0][EPC]).toBe(STATUS_COLOURS[out.values[0][EPC] as keyof typeof STATUS_COLOURS].fill);
  } finally {
    await slow.close();
  }
}, 30_000);

test("the functions given odd arguments give #VALUE! or #N/A with a message, never a pending cell", async () => {
  const s = createStandIn();
  (globalThis as any).CustomFunctions = s.CustomFunctions;
  const rt = createRuntime({ store: memoryStore(), fallbackBaseUrl: sb.baseUrl, fetch: (u, i) => fetch(u, i) });
  await rt.settings.setApiKey("sandbox-professional");
  installRuntime(rt);
  try {
    const f = await import("../../../excel/functions/functions");
    const timers: ReturnType<typeof setTimeout>[] = [];
    const settle = (p: Promise<unknown>) =>
      Promise.race([
        p.then(
          (v) => ({ v }),
          (e) => ({ code: e.code, message: e.message }),
        ),
        new Promise((r) => timers.push(setTimeout(() => r("#BUSY!"), 10_000))),
      ]);
    const [good] = knownUprns(sb, 1);
    const res = await Promise.all(
      [
        f.score(null), // an empty cell
        f.score(""),
        f.score([[good], [good]]), // a range
        f.score([[good]]), // a one-cell range is that cell
        f.score(true),
        f.score(1234567890123),
        f.score(`000${good}`.slice(-12)), // leading zeros as text
        f.status(good, true as never),
        f.risk(undefined),
      ].map(settle),
    );
    expect(res[0]).toEqual({ code: "#VALUE!", message: "invalid UPRN: the cell is empty" });
    expect(res[1]).toEqual({ code: "#VALUE!", message: "invalid UPRN: the cell is empty" });
    expect(res[2]).toEqual({ code: "#VALUE!", message: "invalid UPRN: give one cell, not a range of 2 cells" });
    expect(res[3]).toHaveProperty("v");
    expect(res[4]).toEqual({ code: "#VALUE!", message: "invalid UPRN: TRUE is a logical value, not a UPRN" });
    expect(res[5]).toEqual({ code: "#VALUE!", message: "invalid UPRN: 13 digits; a UPRN has at most 12" });
    // Leading zeros are not significant to the service: the same property, or a clear not found.
    expect(res[6]).toEqual(good.length < 12 ? res[3] : expect.anything());
    expect(res[7]).toMatchObject({ code: "#VALUE!", message: expect.stringMatching(/Unknown check "true"/) });
    expect(res[8]).toEqual({ code: "#VALUE!", message: "invalid UPRN: the cell is empty" });
    timers.forEach(clearTimeout);
  } finally {
    installRuntime(undefined);
  }
});

test("a compliance sheet's own columns named like ours (EPC rating, Gas expiry, Risk level) are the user's: read, never taken for our block", async () => {
  const ds = sb.dataset().properties.slice(0, 3);
  const cell = (h: string, p: (typeof ds)[number], i: number) =>
    h === "UPRN" ? p.uprn : h === "Postcode" ? p.postcode : h === "Address" ? p.address_line_1 : `${h} ${i}`;
  // UPRN after three headers of ours: it used to be cut off as part of "our changed block" (no UPRN column found).
  const a = workbook();
  const ha = ["Address", "EPC rating", "Gas expiry", "EICR expiry", "UPRN"];
  a.api.seed("Sheet1", "A1", [ha, ...ds.map((p, i) => ha.map((h) => cell(h, p, i)))]);
  a.api.select("Sheet1", "A1");
  const ca = await prepared(a.excelRun);
  expect(ca.mapping).toMatchObject({ uprn: 4, address: 0 });
  expect(ca.rows.map((r) => r.property?.uprn)).toEqual(ds.map((p) => p.uprn));
  expect(ca.placement).toBe(
    `You selected the header row, so the whole table is checked: rows 2–4.\nResults go in columns F:${colLetters(5 + W - 1)}, right of your data in A:E.`,
  );
  await runCheck(ca, { excelRun: a.excelRun, client: client(), plan: "professional" });
  expect(block(a.api, 5, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(ds.map((p) => p.uprn));
  expect(a.api.read("Sheet1", "B2:D2").values[0]).toEqual(["EPC rating 0", "Gas expiry 0", "EICR expiry 0"]);
  // The re-run finds our block beside the user's look-alike columns and updates it in place.
  const again = await prepared(a.excelRun);
  expect(again.inPlace).toBe(true);
  expect(again.origin.columnIndex).toBe(5);

  // UPRN last, after Risk level / EPC rating / Gas expiry: it used to be silently ignored (postcode + address sent).
  const b = workbook();
  const hb = ["Postcode", "Address", "Risk level", "EPC rating", "Gas expiry", "UPRN"];
  b.api.seed("Sheet1", "A1", [hb, ...ds.map((p, i) => hb.map((h) => cell(h, p, i)))]);
  b.api.select("Sheet1", "A1");
  const cb = await prepared(b.excelRun);
  expect(cb.mapping).toEqual({ postcode: 0, address: 1, uprn: 5 });
  expect(cb.rows[0].property).toEqual({ uprn: ds[0].uprn });

  // Headers nobody recognises: every column is offered for the manual mapping, also those past look-alike headers.
  const c = workbook();
  c.api.seed("Sheet1", "A1", [
    ["Ref", "Risk level", "EPC rating", "Gas expiry", "Property id"],
    ...ds.map((p, i) => ["r" + i, "low", "C", "2027-01-01", p.uprn]),
  ]);
  c.api.select("Sheet1", "A1");
  const cc = await prepareCheck(c.excelRun, { plan: "professional" });
  expect(cc.ok).toBe(false);
  expect((cc as { headers: string[] }).headers).toEqual([
    "A (Ref)",
    "B (Risk level)",
    "C (EPC rating)",
    "D (Gas expiry)",
    "E (Property id)",
  ]);
  const manual = await prepared(c.excelRun, { plan: "professional", mapping: { uprn: 4 }, hasHeader: true });
  expect(manual.rows.map((r) => r.property?.uprn)).toEqual(ds.map((p) => p.uprn));
});
