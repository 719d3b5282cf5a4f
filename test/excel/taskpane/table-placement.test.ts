/**
 * Which table the pane checks and where its results go: sheets holding more than one table, a title row, a header
 * lower down or in words of the user's own, whole rows or a cell of our results selected, and a table checked again
 * (in place, never a second block). The task pane's prepareCheck / runCheck against the sandbox over loopback, with the
 * Excel stand-in as the workbook. Core's core/sheet decides; test/parity (tables, rows) holds the same sheets in
 * Google Sheets too.
 */
import { OUTPUT_COLUMNS, outputHeaders } from "../../../core";
import { prepareCheck, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { findExamples } from "../../../sandbox/dataset";
import {
  EPC,
  MATCHED,
  OUTPUT_WIDTH as W,
  block,
  colLetters,
  deps as depsWith,
  prepared,
  proClient,
  workbook,
} from "../../helpers/excel-workbook";
import { knownUprns, sandbox, type Sandbox } from "../../helpers/sandbox";

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandbox(0);
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const deps = (excelRun: ExcelRun) => depsWith(excelRun, proClient(sb));

describe("tables side by side, and a title row above the header", () => {
  test("side by side, the LEFT table checked first, then the right one: each table keeps its own results block", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 6);
    api.seed("Sheet1", "A1", [
      ["UPRN", "Postcode", "", "UPRN", "Postcode"],
      [u[0], "", "", u[3], ""],
      [u[1], "", "", u[4], ""],
      [u[2], "", "", u[5], ""],
    ]);
    api.select("Sheet1", "A2:B4");
    const left = await prepared(excelRun);
    expect(left.rows.map((r) => r.property?.uprn)).toEqual(u.slice(0, 3));
    await runCheck(left, deps(excelRun));
    const leftAt = left.origin.columnIndex;
    expect(leftAt).toBeGreaterThanOrEqual(5); // not over the right table
    expect(block(api, "Sheet1", leftAt, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(u.slice(0, 3));

    api.select("Sheet1", "D2:E4");
    const right = await prepared(excelRun);
    expect(right.rows.map((r) => r.property?.uprn)).toEqual(u.slice(3, 6));
    await runCheck(right, deps(excelRun));
    expect(block(api, "Sheet1", leftAt, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(u.slice(0, 3));
    expect(right.origin.columnIndex).not.toBe(leftAt);
    expect(block(api, "Sheet1", right.origin.columnIndex, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(
      u.slice(3, 6),
    );
  });

  test("side by side with no gap column, rows of the right table selected: the right table's UPRNs are checked, its results beside it", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 6);
    api.seed("Sheet1", "A1", [
      ["UPRN", "Postcode", "UPRN", "Postcode"],
      ...[0, 1, 2].map((i) => [u[i], "", u[3 + i], ""]),
    ]);
    api.select("Sheet1", "C2:D4");
    const check = await prepared(excelRun);
    expect(check.mapping).toEqual({ uprn: 0, postcode: 1 });
    expect(check.region.columnIndex).toBe(2);
    expect(check.rows.map((r) => r.property?.uprn)).toEqual(u.slice(3, 6));
    expect(check.origin.columnIndex).toBe(4);
  });

  test("a title row mentioning UPRN above the real header: the header row (Ref | UPRN | Postcode) is used, every row checked", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 4);
    api.seed("Sheet1", "A1", [
      ["UPRN checks - March 2026", "", ""],
      ["Ref", "UPRN", "Postcode"],
      ...u.map((x, i) => [`P${i}`, x, ""]),
    ]);
    api.select("Sheet1", "B3:B6");
    const check = await prepared(excelRun);
    expect(check.mapping).toMatchObject({ uprn: 1, postcode: 2 });
    expect(check.problems).toEqual([]);
    expect(check.rows.map((r) => r.property?.uprn)).toEqual(u);
    await runCheck(check, deps(excelRun));
    expect(api.read("Sheet1", "D2").values[0][0]).toBe(OUTPUT_COLUMNS[0].header);
    expect(api.read("Sheet1", "A1:D1").values[0]).toEqual(["UPRN checks - March 2026", "", "", ""]);
  });

  test("side by side with a blank column between (A:B and D:E), D2:E6 selected: the right table's UPRNs are checked, the tables untouched", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 10);
    const tables = [
      ["UPRN", "Postcode", "", "UPRN", "Postcode"],
      ...[0, 1, 2, 3, 4].map((i) => [u[i], "", "", u[5 + i], ""]),
    ];
    api.seed("Sheet1", "A1", tables);
    api.select("Sheet1", "D2:E6");
    const check = await prepared(excelRun);
    expect(check.rows.map((r) => r.property?.uprn)).toEqual(u.slice(5));
    await runCheck(check, deps(excelRun));
    const at = check.origin.columnIndex;
    expect(at).toBeGreaterThanOrEqual(5);
    expect(block(api, "Sheet1", at, 2, 6).values.map((r: unknown[]) => r[MATCHED])).toEqual(u.slice(5));
    expect(api.read("Sheet1", "A1:E6").values).toEqual(tables);
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

  test.each([["whole column A:A"], ["A2:A11"]])(
    "both tables checked, then %s selected: the lower table's results header is never overwritten, and no error rows are written beside the blank rows",
    async (sel) => {
      const { excelRun, api } = workbook();
      const u = knownUprns(sb, 6);
      stacked(api, u);
      api.select("Sheet1", "A1");
      await runCheck(await prepared(excelRun), deps(excelRun));
      api.select("Sheet1", "A8");
      await runCheck(await prepared(excelRun), deps(excelRun));
      api.select("Sheet1", sel === "whole column A:A" ? "A:A" : "A2:A11");
      const prep = await prepareCheck(excelRun, { plan: "professional" });
      if (prep.ok) await runCheck(prep.check, deps(excelRun));
      expect(block(api, "Sheet1", 2, 8, 8).values[0]).toEqual(outputHeaders());
      const gap = block(api, "Sheet1", 2, 5, 7).values as unknown[][];
      expect(gap.flat().every((v) => v === "")).toBe(true);
      api.select("Sheet1", "A9");
      const lower = await prepared(excelRun);
      expect(lower.inPlace).toBe(true);
      expect(lower.origin.columnIndex).toBe(2);
    },
  );

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
      ...u.slice(0, 3),
      "",
      "",
      "",
      "Matched UPRN",
      ...u.slice(3),
    ]);
  });

  test("the upper table's header row selected before either was checked: only the upper table is checked, nothing written beside the blank rows or the lower table", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 6);
    stacked(api, u);
    api.select("Sheet1", "A1:B1");
    const check = await prepared(excelRun);
    expect(check.rows.map((r) => r.property?.uprn)).toEqual(u.slice(0, 3));
    await runCheck(check, deps(excelRun));
    const out = block(api, "Sheet1", 2, 1, 11).values as unknown[][];
    expect(out.map((r) => r[MATCHED])).toEqual(["Matched UPRN", ...u.slice(0, 3), "", "", "", "", "", "", ""]);
    expect(
      out
        .slice(4)
        .flat()
        .every((v) => v === ""),
    ).toBe(true);
  });
});

describe("a table checked again", () => {
  test("a Postcode + Address table (no UPRN column) checked twice: the second run, from one cell, updates the same block in place by postcode and never reads 'Matched UPRN' as the input", async () => {
    const ex = findExamples(sb.dataset());
    const { excelRun, api } = workbook();
    const one = ex.singlePropertyPostcode;
    const shared = ex.sharedPostcode.properties.slice(0, 2);
    const table = [
      ["Postcode", "Address"],
      [one.postcode, ""],
      [shared[0].postcode, shared[0].address_line_1],
      [shared[1].postcode, shared[1].address_line_1],
    ];
    api.seed("Sheet1", "A1", table);
    api.select("Sheet1", "A2:B4");
    const first = await prepared(excelRun);
    expect(first.mapping).toEqual({ postcode: 0, address: 1 });
    expect(first.inPlace).toBe(false);
    expect(first.origin.columnIndex).toBe(2);
    expect((await runCheck(first, deps(excelRun))).errors).toBe(0);
    expect(block(api, "Sheet1", 2, 1, 1).values[0]).toEqual(outputHeaders());

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
    expect((await runCheck(again, deps(excelRun))).errors).toBe(0);
    const wide = api.read("Sheet1", `A1:${colLetters(2 + 2 * W)}4`).values as unknown[][];
    expect(wide.map((r) => r.slice(0, 2))).toEqual(table);
    expect(wide.map((r) => r[2 + MATCHED])).toEqual([
      "Matched UPRN",
      one.property.uprn,
      shared[0].uprn,
      shared[1].uprn,
    ]);
    expect(wide.every((r) => r.slice(2 + W).every((v) => v === ""))).toBe(true); // no second block
  });

  test("whole rows (3:5) selected after a first run: rows 3-5 are re-checked in place, the Notes and nothing else written", async () => {
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

  test("a cell of our own results block selected: the table's rows are checked in place, no block over the block", async () => {
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

describe("the header row", () => {
  test("a header on row 5 (nothing above) in the user's spellings 'U.P.R.N. (12 digits)' / ' Post code ' / 'First line of address': found, results from row 5, nothing written above", async () => {
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

  test("input columns chosen inside our results block are refused, with the chooser offered again (as in Sheets): the results would be written over them", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 3);
    api.seed("Sheet1", "A1", [["UPRN", "Town"], ...u.map((x) => [x, "Leeds"])]);
    api.select("Sheet1", "A1:B1");
    await runCheck(await prepared(excelRun, { plan: "professional" }), deps(excelRun));
    // The block stands at C; its Matched UPRN column chosen as the UPRN.
    api.select("Sheet1", "A2:A4");
    const refused = await prepareCheck(excelRun, {
      plan: "professional",
      mapping: { uprn: 2 + MATCHED },
      hasHeader: true,
    });
    if (refused.ok) throw new Error("expected a refusal");
    expect(refused.message).toBe("The chosen input columns overlap the results block at C; choose other columns.");
    expect(refused.headers[0]).toBe("A (UPRN)");
    expect(block(api, "Sheet1", 2, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(u);
  });

  test("a 'Property ID' header, the UPRN column chosen by hand as the pane's chooser sends it: the block's headers go on the header row, and a second check is in place", async () => {
    const { excelRun, api } = workbook();
    const u = knownUprns(sb, 3);
    api.seed("Sheet1", "A1", [["Property ID", "Town"], ...u.map((x) => [x, "Leeds"])]);
    api.select("Sheet1", "A2:A4");
    const auto = await prepareCheck(excelRun, { plan: "professional" });
    if (auto.ok) throw new Error("expected the column chooser");
    expect(auto.headers).toEqual(["A (Property ID)", "B (Town)"]);
    expect(auto.hasHeader).toBe(true);
    // The pane sends the chooser's mapping and its "First row is a header" box, preset from auto.hasHeader.
    const opts = { plan: "professional" as const, mapping: { uprn: 0 }, hasHeader: auto.hasHeader };
    const first = await prepared(excelRun, opts);
    expect(first.headerRow).toBe(0);
    expect(first.rows.map((r) => r.property?.uprn)).toEqual(u);
    await runCheck(first, deps(excelRun));
    expect(block(api, "Sheet1", 2, 1, 1).values[0]).toEqual(outputHeaders());
    const again = await prepared(excelRun, opts);
    expect(again.inPlace).toBe(true);
    expect(again.origin.columnIndex).toBe(2);
    await runCheck(again, deps(excelRun));
    expect(block(api, "Sheet1", 2, 2, 4).values.map((r: unknown[]) => r[MATCHED])).toEqual(u);
    expect(api.read("Sheet1", "A1:B1").values[0]).toEqual(["Property ID", "Town"]);
  });
});
