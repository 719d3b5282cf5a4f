/**
 * Which rows a selection checks in Google Sheets and where their results go: two tables on one sheet (side by side or
 * stacked), the header row, whole rows or part of a table selected, a table checked again, and the sheets the add-on
 * builds itself refused. The BUILT Code.js in a vm, real HTTP to the sandbox. test/excel/taskpane/table-placement.test.ts holds
 * the same sheets in Excel.
 */
import { OUTPUT_COLUMNS, STATUS_COLOURS } from "../../../core";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, pollToEnd } from "../harness/table";
import { columnLetter, columnNumber } from "../../helpers/columns";
import { EPC, OUTPUT_WIDTH as W, blockColumn, configuredEnv, resultAt } from "../../helpers/gsheets-results";

const sandbox = sandboxForFile({ msPerProperty: 5 }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(250);
});

const fillOf = (status: string) => STATUS_COLOURS[status as keyof typeof STATUS_COLOURS].fill;

describe("two tables on one sheet", () => {
  // The selected columns choose the table (core's detectColumnsInSelection, as Excel's surrounding region does), not
  // the leftmost "UPRN" header of the row.
  test("side by side (A:B and D:E, both headed UPRN / Postcode): rows selected in the right table check the right table's UPRNs", async () => {
    const env = configuredEnv(sandbox);
    const left = props.slice(10, 15);
    const right = props.slice(20, 25);
    env.sheet.seed(1, 1, [
      ["UPRN", "Postcode", "", "UPRN", "Postcode"],
      ...left.map((p, i) => [p.uprn, p.postcode, "", right[i].uprn, right[i].postcode]),
    ]);
    env.sheet.select("D2:E6");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rangeA1).toBe("D2:E6");
    await pollToEnd(env);
    const col = blockColumn(env, 1);
    right.forEach((p, i) => expect(resultAt(env, 2 + i, col).matched).toBe(p.uprn));
  });

  // Each table has its own results block (core's findHeaderBlockOfTable), found again nearest to where it was: one
  // table's results never go over the other's.
  test("side by side, the right table checked first, then the left, then both again: each keeps its own results", async () => {
    const env = configuredEnv(sandbox);
    const left = props.slice(10, 15);
    const right = props.slice(20, 25);
    env.sheet.seed(1, 1, [
      ["UPRN", "Postcode", "", "UPRN", "Postcode"],
      ...left.map((p, i) => [p.uprn, p.postcode, "", right[i].uprn, right[i].postcode]),
    ]);
    const blocks: Record<string, string> = {};
    for (const sel of ["D2:E6", "A2:B6", "D2:E6", "A2:B6"]) {
      env.sheet.select(sel);
      const start = env.run("startBulkCheck", {});
      expect(start.ok).toBe(true);
      expect(start.progress.rangeA1).toBe(sel);
      blocks[sel] ??= start.progress.outputA1;
      expect(start.progress.outputA1).toBe(blocks[sel]);
      expect((await pollToEnd(env)).pop().message).toMatch(/^Done\. 5 rows checked/);
    }
    expect(blocks).toEqual({
      "D2:E6": `F1:${blocks["D2:E6"].split(":")[1]}`,
      "A2:B6": expect.not.stringMatching(/^F1:/),
    });
    const col = (a1: string) => columnNumber(/^[A-Z]+/.exec(a1)![0]);
    right.forEach((p, i) => expect(resultAt(env, 2 + i, col(blocks["D2:E6"])).matched).toBe(p.uprn));
    left.forEach((p, i) => expect(resultAt(env, 2 + i, col(blocks["A2:B6"])).matched).toBe(p.uprn));
  });

  // Our colour rules cover each block's own rows: a second table's block in the same columns adds its rules beside
  // the first's, it does not replace them.
  test("stacked, checked one after the other: the first table's statuses keep their colours", async () => {
    const env = configuredEnv(sandbox);
    const t1 = props.slice(30, 34);
    const t2 = props.slice(40, 44);
    env.sheet.seed(1, 1, [["UPRN", "Postcode"], ...t1.map((p) => [p.uprn, p.postcode])]);
    env.sheet.seed(8, 1, [["UPRN", "Postcode"], ...t2.map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("A2:B5");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const col1 = blockColumn(env, 1);
    const epc1 = resultAt(env, 2, col1).epc;
    expect(env.sheet.effectiveFill(2, col1 + EPC)).toBe(fillOf(epc1));

    env.sheet.select("A9:B12");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const col2 = blockColumn(env, 8);
    t2.forEach((p, i) => expect(resultAt(env, 9 + i, col2).matched).toBe(p.uprn));
    expect(env.sheet.effectiveFill(9, col2 + EPC)).toBe(fillOf(resultAt(env, 9, col2).epc));
    t1.forEach((p, i) => expect(resultAt(env, 2 + i, col1).matched).toBe(p.uprn));
    expect(env.sheet.effectiveFill(2, col1 + EPC)).toBe(fillOf(epc1));
  });

  test("stacked: rows of the lower table (header on row 8) are checked with that table's header and columns", async () => {
    const env = configuredEnv(sandbox);
    const t1 = props.slice(30, 34);
    const t2 = props.slice(40, 44);
    env.sheet.seed(1, 1, [["UPRN", "Postcode"], ...t1.map((p) => [p.uprn, p.postcode])]);
    env.sheet.seed(8, 1, [["Postcode", "UPRN"], ...t2.map((p) => [p.postcode, p.uprn])]);
    env.sheet.select("A9:B12");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(4);
    await pollToEnd(env);
    const col = blockColumn(env, 8);
    t2.forEach((p, i) => expect(resultAt(env, 9 + i, col).matched).toBe(p.uprn));
    expect(cellValue(env.sheet, 1, col)).toBe(""); // nothing on the upper table's header row
  });

  // "The whole table" ends at its first fully blank row, not at the sheet's last row: the blank rows and the table
  // below are not read with this table's columns.
  test("stacked: selecting the first table's header row checks that table only, not the blank rows and the table below", async () => {
    const env = configuredEnv(sandbox);
    const t1 = props.slice(50, 54);
    const t2 = props.slice(60, 64);
    env.sheet.seed(1, 1, [["UPRN", "Postcode"], ...t1.map((p) => [p.uprn, p.postcode])]);
    env.sheet.seed(8, 1, [["Postcode", "UPRN"], ...t2.map((p) => [p.postcode, p.uprn])]);
    env.sheet.select("A1:B1");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(4);
    await pollToEnd(env);
    const col = blockColumn(env, 1);
    t1.forEach((p, i) => expect(resultAt(env, 2 + i, col).matched).toBe(p.uprn));
    for (let r = 6; r <= 12; r++) expect(env.sheet.peek(r, col, 1, W)[0].every((v) => v === "")).toBe(true);
  });

  // A row holding only a note is the table's (it gets "No UPRN or postcode in this row"), as in Excel's surrounding
  // region; a scheduled re-check ends the table at the same row.
  test("selecting the header row: a row with only a note in it does not end the table; a fully blank row does", async () => {
    const env = configuredEnv(sandbox);
    const t1 = props.slice(70, 75);
    const t2 = props.slice(80, 82);
    env.sheet.seed(1, 1, [
      ["UPRN", "Postcode", "Notes"],
      ...t1.slice(0, 2).map((p) => [p.uprn, p.postcode, ""]),
      ["", "", "sold in May"],
      ...t1.slice(2).map((p) => [p.uprn, p.postcode, ""]),
    ]);
    env.sheet.seed(9, 1, [["UPRN", "Postcode"], ...t2.map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("A1:C1");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rangeA1).toBe("A2:B7");
    expect(start.progress.rows).toBe(6);
    expect(start.progress.invalidRows).toBe(1);
    await pollToEnd(env);
    const col = blockColumn(env, 1);
    [2, 3, 5, 6, 7].forEach((r, i) => expect(resultAt(env, r, col).matched).toBe(t1[i].uprn));
    expect(resultAt(env, 4, col).message).toMatch(/No UPRN or postcode/);
    for (let r = 8; r <= 11; r++) expect(env.sheet.peek(r, col, 1, W)[0].every((v) => v === "")).toBe(true);
  });
});

describe("selections", () => {
  test("whole rows (3:6) selected: rows 3–6 are checked, nothing else", async () => {
    const env = configuredEnv(sandbox);
    const ps = props.slice(230, 240);
    env.sheet.seed(1, 1, [["UPRN", "Postcode"], ...ps.map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("3:6");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(4);
    await pollToEnd(env);
    const col = blockColumn(env, 1);
    expect(resultAt(env, 2, col).matched).toBe("");
    for (let r = 3; r <= 6; r++) expect(resultAt(env, r, col).matched).toBe(ps[r - 2].uprn);
    expect(resultAt(env, 7, col).matched).toBe("");
  });

  test("a selection starting on the header and ending mid-table: header skipped, only the selected rows", async () => {
    const env = configuredEnv(sandbox);
    const ps = props.slice(240, 250);
    env.sheet.seed(1, 1, [["UPRN"], ...ps.map((p) => [p.uprn])]);
    env.sheet.select("A1:A4");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(3);
    await pollToEnd(env);
    const col = blockColumn(env, 1);
    for (let r = 2; r <= 4; r++) expect(resultAt(env, r, col).matched).toBe(ps[r - 2].uprn);
    expect(resultAt(env, 5, col).all.every((v) => v === "")).toBe(true);
  });
});

describe("re-running", () => {
  // Our own "Matched UPRN" header is never read as the table's UPRN column, so a table with no UPRN column can be
  // checked again, in place, without choosing columns.
  test("a Postcode + Address table (no UPRN column) can be checked a second time, in place", async () => {
    const env = configuredEnv(sandbox);
    const ps = props.slice(0, 6);
    env.sheet.seed(1, 1, [["Postcode", "Address"], ...ps.map((p) => [p.postcode, p.address])]);
    env.sheet.select("A2:B7");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    expect((await pollToEnd(env)).pop().phase).toBe("done");
    const col = blockColumn(env, 1);
    const again = env.run("startBulkCheck", {});
    expect(again.message).toBeUndefined();
    expect(again.ok).toBe(true);
    expect(again.progress.notes.join(" ")).toMatch(/updated in place/);
    await pollToEnd(env);
    expect(blockColumn(env, 1)).toBe(col);
    ps.forEach((p, i) => expect(resultAt(env, 2 + i, col).matched).toBe(p.uprn));
  });

  test("a UPRN table re-run after the first: one block, updated in place", async () => {
    const env = configuredEnv(sandbox);
    const ps = props.slice(6, 10);
    env.sheet.seed(1, 1, [["U.P.R.N.", "Post Code"], ...ps.map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("A2:B5");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const again = env.run("startBulkCheck", {});
    expect(again.ok).toBe(true);
    await pollToEnd(env);
    const header = env.sheet.peek(1, 1, 1, env.sheet.maxCols)[0];
    expect(header.filter((h) => h === "Compliance score")).toHaveLength(1);
  });
});

describe("the add-on's own sheets", () => {
  // Every sheet the add-ins build refuses a check (core's ownSheetProblem): results written on the Action list would
  // be wiped when it is rebuilt at the end of the run.
  test("rows selected on the Action list: refused at once with a message naming the sheet and what to do; nothing sent", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"], ...props.slice(0, 30).map((p) => [p.uprn])]);
    env.sheet.select("A2:A31");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const list = env.spreadsheet.getSheetByName("Action list")!;
    expect(list).toBeTruthy();
    const before = list.peek(1, 1, 4, 11);
    env.spreadsheet.active = list;
    list.select("A2:K4");
    const r = env.run("startBulkCheck", {});
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(
      /^"Action list" is a sheet the add-in builds itself .* Select rows of your own table of properties/,
    );
    expect(list.peek(1, 1, 4, 11)).toEqual(before);
  });
});

test("input columns chosen inside our results block are refused and the columns asked for again (core's words, as in Excel): the results would be written over them", async () => {
  const env = configuredEnv(sandbox);
  const rows = props.slice(30, 33);
  env.sheet.seed(1, 1, [["UPRN", "Town"], ...rows.map((p) => [p.uprn, "Leeds"])]);
  env.sheet.select("A1:B1");
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  await pollToEnd(env);
  const col = blockColumn(env, 1);
  expect(col).toBe(3);
  // The block's Matched UPRN column (its own UPRNs) chosen as the UPRN column.
  const matched = columnLetter(col + OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn"));
  env.sheet.select("A2:A4");
  const r = env.run("startBulkCheck", { mapping: { uprn: matched } });
  expect(r.ok).toBe(false);
  expect(r.message).toBe("The chosen input columns overlap the results block at C; choose other columns.");
  rows.forEach((p, i) => expect(resultAt(env, 2 + i, col).matched).toBe(p.uprn));
});
