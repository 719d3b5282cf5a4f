/**
 * Exploratory tests of the Excel add-in as a new user would try it, on workbooks and inputs the other tests do not use:
 * the task pane's logic (prepareCheck / runCheck / resumeRun) against the real sandbox over loopback, with the Excel
 * stand-in as the workbook, and the custom functions with odd arguments.
 */
import { OUTPUT_COLUMNS, createClient, outputHeaders, type PlanName } from "../../core";
import { memoryStore } from "../../excel/settings";
import { createRuntime, installRuntime } from "../../excel/runtime";
import { prepareCheck, runCheck, type ExcelRun, type RunDeps } from "../../excel/taskpane/check-run";
import { findExamples } from "../../sandbox/dataset";
import { knownUprns, sandbox, type Sandbox } from "../helpers/sandbox";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Excel stand-in is plain JavaScript that the built pane's page also loads as a script, so it has no ES exports
const { createStandIn, colLetters } = require("./standin/excel-standin.js");

const W = OUTPUT_COLUMNS.length;
const col = (header: string) => OUTPUT_COLUMNS.findIndex((c) => c.header === header);
const MATCHED = col("Matched UPRN");
const MESSAGE = col("Message");
const EPC = col("EPC status");

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandbox(0);
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

function workbook() {
  const s = createStandIn();
  const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
  return { s, excelRun, api: s.api };
}
function client(base = sb.baseUrl) {
  return createClient({
    baseUrl: base,
    apiKey: "sandbox-professional",
    fetch: (u, i) => fetch(u, i as RequestInit) as never,
  });
}
async function prepared(
  excelRun: ExcelRun,
  opts: { plan: PlanName; mapping?: any; hasHeader?: boolean } = { plan: "professional" },
) {
  const prep = await prepareCheck(excelRun, opts);
  if (!prep.ok) throw new Error(prep.message);
  return prep.check;
}
function deps(excelRun: ExcelRun, extra: Partial<RunDeps> = {}): RunDeps {
  return { excelRun, client: client(), plan: "professional", actionSheets: false, ...extra };
}
/** Output block rows [first, last] (1-based sheet rows) starting at a 0-based column. */
function block(api: any, sheet: string, startCol: number, first: number, last: number) {
  return api.read(sheet, `${colLetters(startCol)}${first}:${colLetters(startCol + W - 1)}${last}`);
}

describe("tables and headers a new user has", () => {
  test("a Postcode + Address table (no UPRN column) checked twice: the second run updates the same block in place, by postcode, and never reads 'Matched UPRN' as the input", async () => {
    const ex = findExamples(sb.dataset());
    const { excelRun, api } = workbook();
    const one = ex.singlePropertyPostcode;
    const shared = ex.sharedPostcode.properties.slice(0, 2);
    api.seed("Sheet1", "A1", [
      ["Postcode", "Address"],
      [one.postcode, ""],
      [shared[0].postcode, shared[0].address_line_1],
      [shared[1].postcode, shared[1].address_line_1],
    ]);
    api.select("Sheet1", "A2:B4");
    const first = await prepared(excelRun);
    expect(first.mapping).toEqual({ postcode: 0, address: 1 });
    expect(first.origin.columnIndex).toBe(2);
    const s1 = await runCheck(first, deps(excelRun));
    expect(s1.errors).toBe(0);
    const out1 = block(api, "Sheet1", 2, 1, 4);
    expect(out1.values[0]).toEqual(outputHeaders());
    expect(out1.values.slice(1).map((r: unknown[]) => r[MATCHED])).toEqual([
      one.property.uprn,
      shared[0].uprn,
      shared[1].uprn,
    ]);

    // Second run, from the table's header row (one cell of it).
    api.select("Sheet1", "A1");
    const again = await prepared(excelRun);
    expect(again.mapping).toEqual({ postcode: 0, address: 1 });
    expect(again.inPlace).toBe(true);
    expect(again.origin.columnIndex).toBe(2);
    expect(again.rows.map((r) => r.property)).toEqual([
      { postcode: one.postcode },
      { postcode: shared[0].postcode, address: shared[0].address_line_1 },
      { postcode: shared[1].postcode, address: shared[1].address_line_1 },
    ]);
    const s2 = await runCheck(again, deps(excelRun));
    expect(s2.errors).toBe(0);
    const wide = api.read("Sheet1", `A1:${colLetters(2 + 2 * W)}4`).values as unknown[][];
    expect(wide.every((r) => r.slice(2 + W).every((v) => v === ""))).toBe(true);
    expect(wide.map((r) => r[2 + MATCHED])).toEqual([
      "Matched UPRN",
      one.property.uprn,
      shared[0].uprn,
      shared[1].uprn,
    ]);
  });

  test("a header on row 5 (nothing above), odd spellings 'U.P.R.N. (12 digits)' / 'Post code' / 'First line of address': found, results from row 5", async () => {
    const ex = findExamples(sb.dataset());
    const { excelRun, api } = workbook();
    const [u1, u2] = knownUprns(sb, 2);
    api.seed("Sheet1", "B5", [
      ["U.P.R.N. (12 digits)", " Post code ", "First line of address"],
      [u1, "", ""],
      ["", ex.singlePropertyPostcode.postcode.toLowerCase(), ""],
      [u2, "", ""],
    ]);
    api.select("Sheet1", "C5");
    const check = await prepared(excelRun);
    expect(check.mapping).toEqual({ uprn: 0, postcode: 1, address: 2 });
    expect(check.headerRow).toBe(0);
    expect(check.origin).toEqual({ sheet: "Sheet1", rowIndex: 4, columnIndex: 4 });
    await runCheck(check, deps(excelRun));
    expect(api.read("Sheet1", "E5").values[0][0]).toBe(OUTPUT_COLUMNS[0].header);
    expect(block(api, "Sheet1", 4, 6, 8).values.map((r: unknown[]) => r[MATCHED])).toEqual([
      u1,
      ex.singlePropertyPostcode.property.uprn,
      u2,
    ]);
    expect(
      api
        .read("Sheet1", "A1:Z4")
        .values.flat()
        .every((v: unknown) => v === ""),
    ).toBe(true);
  });

  test("'100023336956.0' as text, 'TBC' beside a valid postcode, '1.00023E+11', #N/A: each row gets its result or its own reason", async () => {
    const ex = findExamples(sb.dataset());
    const { excelRun, api } = workbook();
    const [u1] = knownUprns(sb, 1);
    const pc = ex.singlePropertyPostcode;
    api.seed("Sheet1", "A1", [
      ["UPRN", "Postcode", "Address"],
      [`${u1}.0`, "", ""],
      ["TBC", pc.postcode, ""],
      ["1.00023E+11", "", ""],
      ["#N/A", pc.postcode, ""],
      ["tbc", "", ""],
    ]);
    api.select("Sheet1", "A2:C6");
    const check = await prepared(excelRun);
    await runCheck(check, deps(excelRun));
    const out = block(api, "Sheet1", 3, 2, 6).values as unknown[][];
    expect(out[0][MATCHED]).toBe(u1);
    expect(out[1][MATCHED]).toBe(pc.property.uprn);
    expect(String(out[1][MESSAGE])).toMatch(/TBC.*postcode/);
    expect(String(out[2][MESSAGE])).toMatch(/scientific notation/);
    expect(String(out[3][MESSAGE])).toMatch(/#N\/A/);
    expect(String(out[4][MESSAGE])).toMatch(/\S/);
    expect(out[4][EPC]).toBe("error");
  });

  test("whole rows (3:5) selected after a first run: rows 3-5 are re-checked in place, nothing else written", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 6);
    api.seed("Sheet1", "A1", [["UPRN", "Notes"], ...u.map((x, i) => [x, `n${i}`])]);
    api.select("Sheet1", "A1");
    await runCheck(await prepared(excelRun), deps(excelRun));
    api.select("Sheet1", "3:5");
    const again = await prepared(excelRun);
    expect(again.inPlace).toBe(true);
    expect(again.origin.columnIndex).toBe(2);
    expect(again.rows.map((r) => r.property?.uprn)).toEqual(u.slice(1, 4));
    await runCheck(again, deps(excelRun));
    const wide = api.read("Sheet1", `A1:${colLetters(2 + 2 * W)}7`).values as unknown[][];
    expect(wide.every((r) => r.slice(2 + W).every((v) => v === ""))).toBe(true);
    expect(wide.slice(1).map((r) => r[2 + MATCHED])).toEqual(u);
    expect(wide.slice(1).map((r) => r[1])).toEqual(u.map((_x, i) => `n${i}`));
  });

  test("'Property ID' header, the UPRN column chosen by hand, checked twice: in place, headers on the header row", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 3);
    api.seed("Sheet1", "A1", [["Property ID", "Town"], ...u.map((x) => [x, "Leeds"])]);
    api.select("Sheet1", "A2:A4");
    const auto = await prepareCheck(excelRun, { plan: "professional" });
    expect(auto.ok).toBe(false);
    if (!auto.ok) expect(auto.hasHeader).toBe(true);
    const opts = { plan: "professional" as const, mapping: { uprn: 0 }, hasHeader: true };
    const first = await prepared(excelRun, opts);
    await runCheck(first, deps(excelRun));
    expect(api.read("Sheet1", "C1").values[0][0]).toBe(OUTPUT_COLUMNS[0].header);
    const again = await prepared(excelRun, opts);
    expect(again.inPlace).toBe(true);
    expect(again.origin.columnIndex).toBe(2);
    await runCheck(again, deps(excelRun));
    expect(block(api, "Sheet1", 2, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(u);
  });

  test("a selection inside our own results block (the user clicks a result cell): the table's rows are checked in place, no block over the block", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 4);
    api.seed("Sheet1", "A1", [["UPRN"], ...u.map((x) => [x])]);
    api.select("Sheet1", "A1");
    await runCheck(await prepared(excelRun), deps(excelRun));
    api.select("Sheet1", `${colLetters(1 + EPC)}3:${colLetters(1 + EPC)}4`);
    const again = await prepared(excelRun);
    expect(again.inPlace).toBe(true);
    expect(again.origin.columnIndex).toBe(1);
    expect(again.rows.map((r) => r.property?.uprn)).toEqual(u.slice(1, 3));
  });
});

describe("stacked tables (two tables one above the other, blank rows between)", () => {
  function stacked(api: any, u: string[]) {
    api.seed("Sheet1", "A1", [
      ["UPRN", "Notes"],
      [u[0], "a"],
      [u[1], "b"],
      [u[2], "c"],
    ]);
    api.seed("Sheet1", "A8", [
      ["UPRN", "Notes"],
      [u[3], "d"],
      [u[4], "e"],
      [u[5], "f"],
    ]);
  }

  test("each table checked from a cell of its header row, then the upper one again: each keeps its own block and results", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 6);
    stacked(api, u);
    api.select("Sheet1", "B1");
    await runCheck(await prepared(excelRun), deps(excelRun));
    api.select("Sheet1", "A8");
    const lower = await prepared(excelRun);
    expect(lower.origin).toEqual({ sheet: "Sheet1", rowIndex: 7, columnIndex: 2 });
    await runCheck(lower, deps(excelRun));
    api.select("Sheet1", "A1:B1");
    const upper = await prepared(excelRun);
    expect(upper.inPlace).toBe(true);
    expect(upper.rows.map((r) => r.property?.uprn)).toEqual(u.slice(0, 3));
    await runCheck(upper, deps(excelRun));
    const all = block(api, "Sheet1", 2, 1, 11).values as unknown[][];
    expect(all.map((r) => r[MATCHED])).toEqual([
      "Matched UPRN",
      u[0],
      u[1],
      u[2],
      "",
      "",
      "",
      "Matched UPRN",
      u[3],
      u[4],
      u[5],
    ]);
  });
});

describe("a run the user interrupts", () => {
  let slow: Sandbox;
  beforeAll(async () => {
    slow = await sandbox(20);
  });
  afterAll(() => slow.close());
  beforeEach(() => slow.reset());

  test("a column inserted left of the INPUT column while the run is in progress (pane open): each row gets its own result, the new column is left alone", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(slow, 60);
    api.seed("Sheet1", "A1", [["UPRN", "Notes"], ...u.map((x, i) => [x, `n${i}`])]);
    api.select("Sheet1", "A1");
    const check = await prepared(excelRun);
    let gets = 0;
    let inserted = false;
    const c = createClient({
      baseUrl: slow.baseUrl,
      apiKey: "sandbox-professional",
      fetch: async (url, init) => {
        const res = await fetch(url, init as RequestInit);
        if (init.method !== "POST" && url.includes("/results") && ++gets === 1 && !inserted) {
          inserted = true;
          api.insertColumns("Sheet1", 0, 1);
          api.seed("Sheet1", "A1", [["Ref"], ...u.map((_x, i) => [`r${i}`])]);
        }
        return res as never;
      },
    });
    const summary = await runCheck(check, deps(excelRun, { client: c }));
    expect(inserted).toBe(true);
    expect(summary.title).toBe("Done");
    const rows = api.read("Sheet1", `A2:${colLetters(3 + W - 1)}61`).values as unknown[][];
    expect(rows.map((r) => r[0])).toEqual(u.map((_x, i) => `r${i}`));
    expect(rows.map((r) => r[2])).toEqual(u.map((_x, i) => `n${i}`));
    expect(rows.map((r) => r[3 + MATCHED])).toEqual(u);
  }, 60_000);

  test("the user types into a row's Message cell while it is still checking: their text is not lost silently, and the run does not claim every row was checked", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(slow, 60);
    api.seed("Sheet1", "A1", [["UPRN"], ...u.map((x) => [x])]);
    api.select("Sheet1", "A1");
    const check = await prepared(excelRun);
    let typed = false;
    const msgCell = `${colLetters(1 + MESSAGE)}61`;
    const c = createClient({
      baseUrl: slow.baseUrl,
      apiKey: "sandbox-professional",
      fetch: async (url, init) => {
        const res = await fetch(url, init as RequestInit);
        if (init.method === "POST" && !typed) {
          typed = true;
          api.seed("Sheet1", msgCell, [["call the agent"]]);
        }
        return res as never;
      },
    });
    const summary = await runCheck(check, deps(excelRun, { client: c }));
    expect(typed).toBe(true);
    const row = block(api, "Sheet1", 1, 61, 61).values[0] as unknown[];
    // The row's result is not written over the user's words, and the summary does not say Done.
    expect(row[MESSAGE]).toBe("call the agent");
    expect(summary.title).not.toBe("Done");
  }, 60_000);
});

describe("custom functions with odd arguments", () => {
  let f: typeof import("../../excel/functions/functions");
  const timers: ReturnType<typeof setTimeout>[] = [];
  const settle = (p: Promise<unknown>) =>
    Promise.race([
      p.then(
        (v) => ({ v }),
        (e) => ({ code: e.code, message: e.message }),
      ),
      new Promise((r) => timers.push(setTimeout(() => r("#BUSY!"), 10_000))),
    ]);
  beforeAll(async () => {
    const s = createStandIn();
    (globalThis as any).CustomFunctions = s.CustomFunctions;
    const rt = createRuntime({ store: memoryStore(), fallbackBaseUrl: sb.baseUrl, fetch: (u, i) => fetch(u, i) });
    await rt.settings.setApiKey("sandbox-professional");
    installRuntime(rt);
    f = await import("../../excel/functions/functions");
  });
  afterAll(() => {
    timers.forEach(clearTimeout);
    installRuntime(undefined);
  });

  test("a UPRN typed as a number, with '.0', with spaces; a check name in capitals or with spaces; an empty check name", async () => {
    const ds = sb.dataset();
    const [good] = knownUprns(sb, 1);
    const expected = ds.byUprn.get(good)!;
    const res = await Promise.all(
      [
        f.score(Number(good)),
        f.score(`${good}.0`),
        f.score(` ${good} `),
        f.status(good, " EPC "),
        f.status(good, "Gas Safety"),
        f.status(good, ""),
        f.epc(good),
      ].map(settle),
    );
    expect(res[0]).toEqual(res[2]);
    expect(res[1]).toEqual(res[2]);
    expect((res[2] as { v: number }).v).toEqual(expect.any(Number));
    expect(res[3]).toEqual({ v: expected.checks.epc.status });
    expect(res[4]).toEqual({ v: expected.checks.gas_safety.status });
    expect(res[5]).toMatchObject({ code: "#VALUE!", message: expect.stringMatching(/epc, gas_safety/) });
    expect(res[6]).toEqual({ v: expected.checks.epc.rating });
  });

  test("UPRN() with a lower-case postcode without its space, with an address in capitals; an empty postcode; a postcode shared by several properties; ADDRESSES of nothing", async () => {
    const ex = findExamples(sb.dataset());
    const one = ex.singlePropertyPostcode;
    const shared = ex.sharedPostcode;
    const res = await Promise.all(
      [
        f.uprn(one.postcode.toLowerCase().replace(" ", "")),
        f.uprn(shared.postcode, shared.properties[0].address_line_1.toUpperCase()),
        f.uprn(""),
        f.uprn(shared.postcode),
        f.addresses(""),
        f.uprn(one.postcode, ""),
      ].map(settle),
    );
    expect(res[0]).toEqual({ v: one.property.uprn });
    expect(res[1]).toEqual({ v: shared.properties[0].uprn });
    expect(res[2]).toMatchObject({ code: "#VALUE!", message: expect.stringMatching(/\S/) });
    // Several properties at the postcode: #N/A saying to give the address, not a bare error.
    expect(res[3]).toMatchObject({
      code: expect.stringMatching(/#N\/A|#VALUE!/),
      message: expect.stringMatching(/address/i),
    });
    expect(res[4]).toMatchObject({
      code: expect.stringMatching(/#N\/A|#VALUE!/),
      message: expect.stringMatching(/\S/),
    });
    expect(res[5]).toEqual({ v: one.property.uprn });
  });
});

/**
 * Six scenarios, each as a new user meets it: every row asked for ends with its result or its own
 * reason at that row, and nothing of the user's is written over.
 */
describe("six new-user scenarios on the Excel engine", () => {
  let slow: Sandbox;
  beforeAll(async () => {
    slow = await sandbox(20);
  });
  afterAll(() => slow.close());
  beforeEach(() => slow.reset());
  /** A client on the slow sandbox that calls `hook` once, when the job has been submitted and is still processing. */
  let hookedWhile = "";
  const hookedClient = (hook: () => void) => {
    let done = false;
    return createClient({
      baseUrl: slow.baseUrl,
      apiKey: "sandbox-professional",
      fetch: async (url, init) => {
        const res = await fetch(url, init as RequestInit);
        if (!done && init?.method === "POST" && /\/api\/check\/bulk$/.test(url)) {
          done = true;
          hookedWhile = String(((await res.clone().json()) as { status?: string }).status);
          hook();
        }
        return res as never;
      },
    });
  };
  /** Delete whole columns, shifting the cells right of them left (Excel's Delete > Sheet Columns); the stand-in has none. */
  function deleteColumns(api: any, sheet: string, first: number, count: number) {
    const cells: Map<string, unknown> = api.state.sheets.get(sheet);
    const moved = new Map<string, unknown>();
    for (const [k, cell] of cells) {
      const [r, c] = k.split(",").map(Number);
      if (c >= first && c < first + count) continue;
      moved.set(`${r},${c >= first + count ? c - count : c}`, cell);
    }
    cells.clear();
    for (const [k, cell] of moved) cells.set(k, cell);
  }

  test("1. Postcode + Address (no UPRN column), the whole table checked twice: the second run updates the same block in place", async () => {
    const ex = findExamples(sb.dataset());
    const { excelRun, api } = workbook();
    const one = ex.singlePropertyPostcode;
    const shared = ex.sharedPostcode.properties.slice(0, 2);
    api.seed("Sheet1", "A1", [
      ["Postcode", "Address"],
      [one.postcode, ""],
      [shared[0].postcode, shared[0].address_line_1],
      [shared[1].postcode, shared[1].address_line_1],
    ]);
    const expected = ["Matched UPRN", one.property.uprn, shared[0].uprn, shared[1].uprn];
    for (const run of [1, 2]) {
      api.select("Sheet1", "A1:B4");
      const prep = await prepareCheck(excelRun, { plan: "professional" });
      if (!prep.ok) throw new Error(`run ${run} refused: ${prep.message}`);
      expect(prep.check.inPlace).toBe(run === 2);
      expect(prep.check.origin.columnIndex).toBe(2);
      const s = await runCheck(prep.check, deps(excelRun));
      expect(s.errors).toBe(0);
      const wide = api.read("Sheet1", `A1:${colLetters(2 + 2 * W)}4`).values as unknown[][];
      expect(wide.map((r) => r.slice(0, 2))).toEqual([
        ["Postcode", "Address"],
        [one.postcode, ""],
        [shared[0].postcode, shared[0].address_line_1],
        [shared[1].postcode, shared[1].address_line_1],
      ]);
      expect(wide.map((r) => r[2 + MATCHED])).toEqual(expected);
      expect(wide.every((r) => r.slice(2 + W).every((v) => v === ""))).toBe(true); // no second block
    }
  });

  for (const change of ["inserted", "deleted"] as const) {
    test(`2. a column ${change} at A while the run is in progress: every row still gets its own result, the user's columns untouched`, async () => {
      const { excelRun, api } = workbook();
      const u = knownUprns(slow, 40);
      // "Ref | UPRN | Notes": deleting A removes Ref; inserting at A adds a new Ref2 column.
      api.seed("Sheet1", "A1", [["Ref", "UPRN", "Notes"], ...u.map((x, i) => [`r${i}`, x, `n${i}`])]);
      api.select("Sheet1", "B1");
      const check = await prepared(excelRun);
      expect(check.origin.columnIndex).toBe(3);
      let hooked = false;
      const c = hookedClient(() => {
        hooked = true;
        if (change === "inserted") {
          api.insertColumns("Sheet1", 0, 1);
          api.seed("Sheet1", "A1", [["New"], ...u.map((_x, i) => [`new${i}`])]);
        } else deleteColumns(api, "Sheet1", 0, 1);
      });
      const summary = await runCheck(check, deps(excelRun, { client: c }));
      expect(hooked).toBe(true);
      expect(hookedWhile).toBe("processing"); // the sheet changed while the job was still running
      expect(summary.title).toBe("Done");
      const shift = change === "inserted" ? 1 : -1;
      const user =
        change === "inserted"
          ? [["New", "Ref", "UPRN", "Notes"], ...u.map((x, i) => [`new${i}`, `r${i}`, x, `n${i}`])]
          : [["UPRN", "Notes"], ...u.map((x, i) => [x, `n${i}`])];
      const width = user[0].length;
      const rows = api.read("Sheet1", `A1:${colLetters(width + W - 1)}41`).values as unknown[][];
      expect(rows.map((r) => r.slice(0, width))).toEqual(user);
      expect(rows.map((r) => r[3 + shift + MATCHED])).toEqual(["Matched UPRN", ...u]);
    }, 60_000);
  }

  test("3. two stacked tables (rows 1-5 and 8-12), the upper table's header row selected: only the upper table is checked", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 8);
    api.seed("Sheet1", "A1", [["UPRN", "Postcode"], ...u.slice(0, 4).map((x) => [x, ""])]);
    api.seed("Sheet1", "A8", [["UPRN", "Postcode"], ...u.slice(4).map((x) => [x, ""])]);
    api.select("Sheet1", "A1:B1");
    const check = await prepared(excelRun);
    expect(check.rows.map((r) => r.property?.uprn)).toEqual(u.slice(0, 4));
    await runCheck(check, deps(excelRun));
    const out = block(api, "Sheet1", 2, 1, 12).values as unknown[][];
    expect(out.map((r) => r[MATCHED])).toEqual(["Matched UPRN", ...u.slice(0, 4), "", "", "", "", "", "", ""]);
    expect(
      out
        .slice(5)
        .flat()
        .every((v) => v === ""),
    ).toBe(true);
  });

  test("4. a UPRN stored as text '100023336956.0', and 'TBC' in the UPRN column beside a valid postcode: both checked, the second by postcode with a note", async () => {
    const ex = findExamples(sb.dataset());
    const { excelRun, api } = workbook();
    const pc = ex.singlePropertyPostcode;
    expect(sb.dataset().byUprn.has("100023336956")).toBe(true);
    api.seed("Sheet1", "A1", [
      ["UPRN", "Postcode"],
      ["100023336956.0", ""],
      ["TBC", pc.postcode],
    ]);
    api.select("Sheet1", "A1:B3");
    const check = await prepared(excelRun);
    expect(check.problems).toEqual([]);
    const s = await runCheck(check, deps(excelRun));
    expect(s.errors).toBe(0);
    const out = block(api, "Sheet1", 2, 2, 3).values as unknown[][];
    expect(out[0][MATCHED]).toBe("100023336956");
    expect(out[0][EPC]).not.toBe("error");
    expect(out[1][MATCHED]).toBe(pc.property.uprn);
    expect(String(out[1][MESSAGE])).toMatch(/TBC/);
    expect(String(out[1][MESSAGE])).toMatch(/postcode/i);
    expect(api.read("Sheet1", "A2:A3").values.flat()).toEqual(["100023336956.0", "TBC"]);
  });

  test("5. header 'Property ID' / 'Town', the UPRN column chosen by hand (as the pane's chooser sends it): the results block gets its header row", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 3);
    api.seed("Sheet1", "A1", [["Property ID", "Town"], ...u.map((x) => [x, "Leeds"])]);
    api.select("Sheet1", "A1:B4");
    const auto = await prepareCheck(excelRun, { plan: "professional" });
    if (auto.ok) throw new Error("expected the column chooser");
    expect(auto.headers).toEqual(["A (Property ID)", "B (Town)"]);
    // The pane sends the chooser's mapping and its "First row is a header" box, preset from auto.hasHeader.
    const check = await prepared(excelRun, { plan: "professional", mapping: { uprn: 0 }, hasHeader: auto.hasHeader });
    expect(check.headerRow).toBe(0);
    expect(check.rows.map((r) => r.property?.uprn)).toEqual(u);
    await runCheck(check, deps(excelRun));
    expect(block(api, "Sheet1", 2, 1, 1).values[0]).toEqual(outputHeaders());
    expect(block(api, "Sheet1", 2, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(u);
    expect(api.read("Sheet1", "A1:B1").values[0]).toEqual(["Property ID", "Town"]);
  });

  test("6. two tables side by side (A:B and D:E, blank C, both UPRN / Postcode), D2:E6 selected: the right table's UPRNs are checked", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 10);
    api.seed("Sheet1", "A1", [
      ["UPRN", "Postcode", "", "UPRN", "Postcode"],
      ...[0, 1, 2, 3, 4].map((i) => [u[i], "", "", u[5 + i], ""]),
    ]);
    api.select("Sheet1", "D2:E6");
    const check = await prepared(excelRun);
    expect(check.rows.map((r) => r.property?.uprn)).toEqual(u.slice(5));
    await runCheck(check, deps(excelRun));
    const at = check.origin.columnIndex;
    expect(at).toBeGreaterThanOrEqual(5);
    expect(block(api, "Sheet1", at, 2, 6).values.map((r: unknown[]) => r[MATCHED])).toEqual(u.slice(5));
    expect(api.read("Sheet1", "A1:E6").values).toEqual([
      ["UPRN", "Postcode", "", "UPRN", "Postcode"],
      ...[0, 1, 2, 3, 4].map((i) => [u[i], "", "", u[5 + i], ""]),
    ]);
  });
});
