/**
 * Sheets as users really lay them out, and what they do around a check: whole-column
 * selections, title rows, odd cell values, their own columns beside the data, no header row, a results
 * block they edited, tiny and degenerate inputs, two sidebars, a sheet renamed or deleted mid-run, and
 * settings pasted the way people paste them. The BUILT Code.js in a vm, real HTTP to the sandbox.
 */
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { API_KEY, cellValue, headerRow, outputCol, pollToEnd } from "../harness/table";
import { columnLetter } from "../../helpers/columns";
import { configuredEnv } from "../../helpers/gsheets-results";
import { OUTPUT_COLUMNS, outputHeaders } from "../../../core";

const W = OUTPUT_COLUMNS.length;
const letters = columnLetter;
// 20 ms a property: a small job outlasts the start call even on a busy machine (polls pass the time on the test clock).
const sandbox = sandboxForFile({ msPerProperty: 20 }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(400);
});

/** Every cell of a row, as the user sees it. */
function rowValues(env: GasEnvironment, row: number): unknown[] {
  return env.sheet.peek(row, 1, 1, env.sheet.maxCols)[0];
}

function countOf(values: unknown[], v: unknown): number {
  return values.filter((x) => x === v).length;
}

describe("whole-column selection", () => {
  test("A:C on a 1,000-row sheet with 50 data rows: the blank tail is left out, a blank row in the middle gets its own message", async () => {
    const env = configuredEnv(sandbox);
    expect(env.sheet.maxRows).toBe(1000);
    const rows: unknown[][] = props.slice(0, 50).map((p) => [p.uprn, p.postcode, p.address]);
    rows[19] = ["", "", ""]; // sheet row 21 is blank
    env.sheet.seed(1, 1, [["UPRN", "Postcode", "Address"], ...rows]);
    env.sheet.seed(1, 4, [["Notes"]]);
    // getLastRow() is 60, the table ends at 51. A note outside the table's columns does not make its row a row of the
    // selection (one in column D, a column of the table, would: core's rule, in both add-ins).
    env.sheet.seed(60, 6, [["a note far below the table"]]);
    env.sheet.select("A:C");
    expect(env.sheet.activeRange!.getNumRows()).toBe(1000);

    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(50);
    expect(start.progress.invalidRows).toBe(1);
    expect(start.progress.rangeA1).toBe("A2:C51");
    expect(start.progress.notes.join(" ")).toMatch(/below 51 are empty and were left out/);
    const last = (await pollToEnd(env)).pop();
    expect(last.phase).toBe("done");

    const msg = outputCol(env.sheet, "message");
    const uprn = outputCol(env.sheet, "matched_uprn");
    expect(String(cellValue(env.sheet, 21, msg))).toMatch(/No UPRN or postcode/);
    expect(String(cellValue(env.sheet, 2, uprn))).toBe(props[0].uprn);
    expect(String(cellValue(env.sheet, 51, uprn))).toBe(props[49].uprn);
    // Nothing at all below the data in our block: no wall of "empty row" errors.
    const blockStart = outputCol(env.sheet, "compliance_score");
    for (const r of [52, 53, 60, 100, 1000])
      expect(env.sheet.peek(r, blockStart, 1, W)[0].every((v) => v === "")).toBe(true);
    expect(cellValue(env.sheet, 60, 6)).toBe("a note far below the table");
  });

  test("a selection with only blank rows says so instead of writing errors", () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"], [props[0].uprn]]);
    env.sheet.select("A10:A40");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(false);
    // The cells the person selected, not the table rows they fall in; and what to select instead.
    expect(start.message).toMatch(
      /^Nothing to check in A10:A40, the cells you selected: no UPRN, postcode or address there\. Select rows of your table \(with its header row or the rows under it\)/,
    );
    expect(env.log.calls.filter((c) => c.write)).toEqual([]);
  });
});

describe("a selection that is not rows of the table", () => {
  test("one empty cell beside the table: refused with core's words (as in Excel), the table's row untouched", () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [
      ["UPRN", "Postcode", "Address"],
      ...props.slice(0, 5).map((p) => [p.uprn, p.postcode, p.address]),
    ]);
    env.sheet.select("F20");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(false);
    // F20 stands alone (its data region is itself): no table there, so no column to check.
    expect(start.message).toBe(
      "No UPRN or Postcode column found. Select rows with a header row naming a UPRN or Postcode column, or choose the columns by hand.",
    );
    expect(start.message).not.toContain("A20");
    expect(
      env.sheet
        .peek(1, 4, 6, W)
        .flat()
        .every((v) => v === ""),
    ).toBe(true);
  });

  test("the header row alone: the whole table is checked and the notes say so; the status is core's line of the run, as in Excel", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN", "Postcode"], ...props.slice(0, 12).map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("A1:B1");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rangeA1).toBe("A2:B13");
    expect(start.progress.message).toBe(
      "Checking 12 rows (12 distinct properties) in 1 bulk job: 0 of 12 rows checked.",
    );
    expect(start.progress.notes[0]).toBe("You selected the header row, so the whole table is checked: rows 2–13.");
    expect((await pollToEnd(env)).pop().message).toBe("Done. 12 rows checked.");
  });
});

describe("header row not at the top of the selection", () => {
  test("a title row above the header, rows 5–20 selected: only those rows are checked, headers go on the header row", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["Lettings portfolio, March"], ["UPRN", "Postcode"]]);
    env.sheet.seed(
      3,
      1,
      props.slice(0, 28).map((p) => [p.uprn, p.postcode]),
    );
    env.sheet.select("A5:B20");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(16);
    await pollToEnd(env);
    expect(rowValues(env, 1)[0]).toBe("Lettings portfolio, March");
    const uprn = outputCol(env.sheet, "matched_uprn", 2);
    expect(cellValue(env.sheet, 3, uprn)).toBe(""); // above the selection: untouched
    expect(cellValue(env.sheet, 4, uprn)).toBe("");
    expect(String(cellValue(env.sheet, 5, uprn))).toBe(props[2].uprn);
    expect(String(cellValue(env.sheet, 20, uprn))).toBe(props[17].uprn);
    expect(cellValue(env.sheet, 21, uprn)).toBe("");
    expect(countOf(rowValues(env, 1), "Compliance score")).toBe(0);
  });

  test("a header below the first ten rows (a long preamble) is still found from the selection", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(
      1,
      1,
      Array.from({ length: 11 }, (_, i) => [`Preamble line ${i + 1}`]),
    );
    env.sheet.seed(12, 1, [["Property ref", "Post code"], ...props.slice(0, 8).map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("A14:B18");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(5);
    await pollToEnd(env);
    expect(String(cellValue(env.sheet, 14, outputCol(env.sheet, "matched_uprn", 12)))).toBe(props[1].uprn);
  });
});

describe("the values people really have in UPRN and postcode columns", () => {
  test("numbers, apostrophe text, spaces, lowercase postcodes; dates, booleans, #N/A and scientific notation get a message that says what to fix", async () => {
    const env = configuredEnv(sandbox);
    const [a, b, c, d, e] = props.slice(20, 25);
    const rows: unknown[][] = [
      [Number(a.uprn), "", ""], // a number (Sheets may display 1.00023E+11)
      [`'${b.uprn}`, "", ""], // typed with a leading apostrophe: text
      [` ${c.uprn.slice(0, 4)} ${c.uprn.slice(4)} `, "", ""], // spaces
      ["", d.postcode.toLowerCase().replace(/\s/g, ""), d.address], // lowercase, no space
      [new Date(Date.UTC(2024, 0, 15)), "", ""],
      [true, "", ""],
      ["#N/A", "", ""],
      ["1.00023E+11", "", ""],
      ["", "#REF!", "1 High Street"],
      [e.uprn, "", ""],
    ];
    env.sheet.seed(1, 1, [["UPRN", "Postcode", "Address"], ...rows]);
    env.sheet.select("A2:C11");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.invalidRows).toBe(5);
    await pollToEnd(env);
    const uprn = outputCol(env.sheet, "matched_uprn");
    const msg = outputCol(env.sheet, "message");
    expect(String(cellValue(env.sheet, 2, uprn))).toBe(a.uprn);
    expect(String(cellValue(env.sheet, 3, uprn))).toBe(b.uprn);
    expect(String(cellValue(env.sheet, 4, uprn))).toBe(c.uprn);
    expect(String(cellValue(env.sheet, 5, uprn))).toBe(d.uprn);
    expect(String(cellValue(env.sheet, 6, msg))).toMatch(/holds a date \(2024-01-15\).*plain text/);
    expect(String(cellValue(env.sheet, 7, msg))).toMatch(/TRUE/);
    expect(String(cellValue(env.sheet, 8, msg))).toMatch(/shows the error #N\/A; fix the formula/);
    expect(String(cellValue(env.sheet, 9, msg))).toMatch(/scientific notation/);
    expect(String(cellValue(env.sheet, 10, msg))).toMatch(/postcode cell shows the error #REF!/);
    expect(String(cellValue(env.sheet, 11, uprn))).toBe(e.uprn);
    // The matched UPRN is written as text: no 1.00023E+11 in our block.
    expect(typeof cellValue(env.sheet, 2, uprn)).toBe("string");
  });
});

describe("the user's own columns beside the data", () => {
  test("Notes right of the data and more data further right: never overwritten, placement explained, re-run in place", async () => {
    const env = configuredEnv(sandbox);
    const rows = props.slice(30, 40).map((p, i) => [p.uprn, `note ${i}`, "", "", `owner ${i}`]);
    env.sheet.seed(1, 1, [["UPRN", "Notes", "", "", "Owner"], ...rows]);
    env.sheet.seed(15, 7, [["stray value in G15"]]);
    env.sheet.select("A2:A11");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    // One blank column after the last column in use in the table's rows, as in Excel (core's planTable): the stray
    // value in G15 stands below them, so the results' rows never reach it.
    expect(start.progress.notes.join(" ")).toMatch(
      /Results go in columns G:.*after the last column in use \(E\), so none of your columns is overwritten/,
    );
    await pollToEnd(env);
    const blockCol = outputCol(env.sheet, "compliance_score");
    expect(blockCol).toBe(7);
    expect(cellValue(env.sheet, 15, 7)).toBe("stray value in G15");
    const before = env.sheet.peek(1, 1, 15, 7);

    const again = env.run("startBulkCheck", {});
    expect(again.ok).toBe(true);
    expect(again.progress.notes.join(" ")).toMatch(/updated in place in columns G:/);
    await pollToEnd(env);
    expect(outputCol(env.sheet, "compliance_score")).toBe(blockCol);
    expect(env.sheet.peek(1, 1, 15, 7)).toEqual(before);
    expect(countOf(rowValues(env, 1), "Compliance score")).toBe(1);
    expect(env.sheet.peek(1, blockCol, 1, W)[0]).toEqual(outputHeaders());
  });
});

describe("no header row, columns chosen by letter", () => {
  test("a re-run updates the same block in place instead of adding a second one", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(
      1,
      1,
      props.slice(40, 46).map((p) => [p.uprn]),
    );
    env.sheet.select("A1:A6");
    const first = env.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(first.ok).toBe(true);
    expect(first.progress.notes.join(" ")).toMatch(/No header row/);
    await pollToEnd(env);
    expect(String(cellValue(env.sheet, 1, 2 + OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn")))).toBe(
      props[40].uprn,
    );

    // A second execution (another day, the sidebar reopened) re-runs the same selection.
    const later = createGasEnvironment({ from: env });
    const second = later.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(second.ok).toBe(true);
    expect(second.progress.outputA1.startsWith("B1:")).toBe(true);
    await pollToEnd(later);
    // Nothing right of the one block.
    expect(
      env.sheet
        .peek(1, 2 + W, 6, 5)
        .flat()
        .every((v) => v === ""),
    ).toBe(true);
  });
});

describe("the user changed our results block", () => {
  // As in Excel (core's findHeaderBlock and newBlockColumn): a block of ours the user changed is left exactly as it
  // is, and fresh results go in a new block after everything, with a note saying why.
  test("a column inserted inside the block: the re-run leaves the changed block alone and writes a new block after it", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"], ...props.slice(50, 55).map((p) => [p.uprn])]);
    env.sheet.select("A2:A6");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const epc = outputCol(env.sheet, "epc_status");
    env.sheet.insertColumnBefore(epc);
    env.sheet.seed(1, epc, [["My flag"], ["keep me"], ["keep me too"]]);
    const old = env.sheet.peek(1, 2, 6, W + 1);

    const again = env.run("startBulkCheck", {});
    expect(again.ok).toBe(true);
    expect(again.progress.notes.join(" ")).toMatch(
      new RegExp(
        `results columns from an earlier check \\(B:${letters(1 + W)}\\) were changed .* left as they are and fresh results go in a new block`,
      ),
    );
    await pollToEnd(env);
    expect(env.sheet.peek(1, 2, 6, W + 1)).toEqual(old);
    expect(cellValue(env.sheet, 2, epc)).toBe("keep me");
    expect(headerRow(env.sheet).slice(W + 3, 2 * W + 3)).toEqual(outputHeaders());
  });

  test("one of our headers renamed: the renamed column kept, fresh results in a new block", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"], ...props.slice(55, 58).map((p) => [p.uprn])]);
    env.sheet.select("A2:A4");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const msg = outputCol(env.sheet, "message");
    env.sheet.seed(1, msg, [["My comments"], ["call the agent"]]);
    const again = env.run("startBulkCheck", {});
    expect(again.ok).toBe(true);
    await pollToEnd(env);
    expect(cellValue(env.sheet, 2, msg)).toBe("call the agent");
    expect(cellValue(env.sheet, 1, msg)).toBe("My comments");
  });

  test("no header row: a column with data inserted inside the block is never written over; a new block goes after it", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(
      1,
      1,
      props.slice(60, 64).map((p) => [p.uprn]),
    );
    env.sheet.select("A1:A4");
    expect(env.run("startBulkCheck", { mapping: { uprn: "A" } }).ok).toBe(true);
    await pollToEnd(env);
    env.sheet.insertColumnBefore(3);
    env.sheet.seed(1, 3, [["mine"], ["mine"], ["mine"], ["mine"]]);
    // As in Excel: the changed block is left as it is, and fresh results go in a new block after it.
    const fresh2 = env.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(fresh2.ok).toBe(true);
    expect(fresh2.progress.notes.join(" ")).toMatch(
      /were changed since .*left as they are and fresh results go in a new block after them/,
    );
    expect(env.sheet.peek(1, 3, 4, 1).flat()).toEqual(["mine", "mine", "mine", "mine"]);
    // Right of the whole old block (B, plus the inserted column, plus its W columns), one column apart, not over it.
    expect(fresh2.progress.outputA1.startsWith(`${letters(2 + 1 + W + 1)}1:`)).toBe(true);
    await pollToEnd(env);
    expect(env.sheet.peek(1, 3, 4, 1).flat()).toEqual(["mine", "mine", "mine", "mine"]);
    expect(env.sheet.peek(1, 25, 4, 1).flat()).toEqual(["", "", "", ""]); // the old block's Message column
  });

  test("no header row: where an earlier version remembered its block (document properties) is not read, and is deleted: the results go where the rows say", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(
      1,
      1,
      props.slice(66, 68).map((p) => [p.uprn]),
    );
    // What that version kept: a block at E, and a refused one ending at column 40, right of which it wrote.
    env.documentProperties.setProperty(`compliance.block.${env.sheet.id}`, "5");
    env.documentProperties.setProperty(`compliance.retiredBlockEnd.${env.sheet.id}`, "40");
    env.sheet.select("A1:A2");
    const start = env.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(start.ok).toBe(true);
    expect(start.progress.outputA1.startsWith("B1:")).toBe(true);
    await pollToEnd(env);
    expect(String(cellValue(env.sheet, 1, 2 + OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn")))).toBe(
      props[66].uprn,
    );
    expect(env.documentProperties.getProperty(`compliance.block.${env.sheet.id}`)).toBeNull();
    expect(env.documentProperties.getProperty(`compliance.retiredBlockEnd.${env.sheet.id}`)).toBeNull();
  });

  test("no header row: after the user deleted the old results, a re-run starts a fresh block", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(
      1,
      1,
      props.slice(64, 66).map((p) => [p.uprn]),
    );
    env.sheet.select("A1:A2");
    expect(env.run("startBulkCheck", { mapping: { uprn: "A" } }).ok).toBe(true);
    await pollToEnd(env);
    env.sheet.seed(
      1,
      2,
      Array.from({ length: 2 }, () => Array.from({ length: W }, () => "")),
    );
    const again = env.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(again.ok).toBe(true);
    await pollToEnd(env);
    expect(String(cellValue(env.sheet, 2, 2 + OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn")))).toBe(
      props[65].uprn,
    );
  });
});

describe("tiny and degenerate inputs", () => {
  test("one row", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"], [props[70].uprn]]);
    env.sheet.select("A2");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(1);
    const last = (await pollToEnd(env)).pop();
    expect(last.message).toMatch(/^Done\. 1 row checked\./);
    expect(String(cellValue(env.sheet, 2, outputCol(env.sheet, "matched_uprn")))).toBe(props[70].uprn);
  });

  test("zero valid rows: nothing is sent, every row says what to fix, the summary says nothing was sent", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [
      ["UPRN", "Postcode"],
      ["abc", ""],
      ["", "not a postcode"],
      ["#N/A", ""],
    ]);
    env.sheet.select("A2:B4");
    const before = env.fetches.length;
    const sent = (await sandbox.stats()).total; // Save tried the key once
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(env.fetches.length).toBe(before);
    expect(start.progress.phase).toBe("done");
    expect(start.progress.message).toMatch(/Nothing was sent: none of the 3 rows has a valid UPRN or postcode/);
    const msg = outputCol(env.sheet, "message");
    for (const r of [2, 3, 4]) expect(String(cellValue(env.sheet, r, msg))).not.toBe("");
    expect((await sandbox.stats()).total).toBe(sent);
  });

  test("ten rows of the same UPRN: checked once, every row filled, the copies point at the first", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"], ...Array.from({ length: 10 }, () => [props[71].uprn])]);
    env.sheet.select("A2:A11");
    const start = env.run("startBulkCheck", {});
    expect(start.progress.properties).toBe(1);
    expect(start.progress.duplicateRows).toBe(9);
    await pollToEnd(env);
    const uprn = outputCol(env.sheet, "matched_uprn");
    const msg = outputCol(env.sheet, "message");
    for (let r = 2; r <= 11; r++) expect(String(cellValue(env.sheet, r, uprn))).toBe(props[71].uprn);
    expect(String(cellValue(env.sheet, 11, msg))).toMatch(/Same property as row 2/);
    expect((await sandbox.stats()).bulk_submit).toBe(1);
  });
});

describe("two sidebars, and a sheet renamed or deleted mid-run", () => {
  test("a second check while one runs is refused with the running check's progress; the first finishes untouched", async () => {
    const a = configuredEnv(sandbox);
    a.sheet.seed(1, 1, [["UPRN"], ...props.slice(100, 300).map((p) => [p.uprn])]);
    a.sheet.select("A2:A201");
    const first = a.run("startBulkCheck", {});
    expect(first.ok).toBe(true);
    // A second sidebar (another execution) tries to check other rows.
    const b = createGasEnvironment({ from: a });
    a.sheet.select("A2:A5");
    const second = b.run("startBulkCheck", {});
    expect(second.ok).toBe(false);
    expect(second.message).toMatch(/A check of Sheet1!A2:A201 is already running .*press Stop/);
    expect(second.progress.runId).toBe(first.progress.runId);
    const last = (await pollToEnd(b)).pop();
    expect(last.runId).toBe(first.progress.runId);
    expect(last.phase).toBe("done");
    expect(last.propertiesDone).toBe(200);
    expect((await sandbox.stats()).bulk_submit).toBe(1);
    // Once it has ended, a new check starts normally.
    expect(b.run("startBulkCheck", {}).ok).toBe(true);
  });

  test("a check running in another of the user's spreadsheets is not this sidebar's: not shown, polled, stopped or written here", async () => {
    const a = configuredEnv(sandbox);
    a.sheet.seed(1, 1, [["UPRN"], ...props.slice(320, 380).map((p) => [p.uprn])]);
    a.sheet.select("A2:A61");
    expect(a.run("startBulkCheck", {}).ok).toBe(true);
    // The same user opens the sidebar in another spreadsheet (user properties are shared; its first sheet is also id 0).
    const b = createGasEnvironment({ from: a, otherSpreadsheet: true });
    b.sheet.seed(1, 1, [["UPRN"], ...props.slice(0, 3).map((p) => [p.uprn])]);
    const before = JSON.stringify(b.sheet.getRange(1, 1, 10, 26).getValues());
    expect(b.run("getSidebarState").run).toBeNull();
    expect(b.run("pollBulkCheck")).toBeNull();
    expect(b.run("cancelBulkCheck")).toBeNull();
    expect(b.run("resumeBulkCheck")).toBeNull();
    b.sheet.select("A2:A4");
    const refused = b.run("startBulkCheck", {});
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(
      /running in another of your spreadsheets \("Properties"\).*Wait for it to finish there/,
    );
    expect(JSON.stringify(b.sheet.getRange(1, 1, 10, 26).getValues())).toBe(before);
    // The first spreadsheet's check goes on and ends there, untouched; then the other may check.
    const last = (await pollToEnd(a)).pop();
    expect(last.phase).toBe("done");
    expect(last.propertiesDone).toBe(60);
    expect(JSON.stringify(b.sheet.getRange(1, 1, 10, 26).getValues())).toBe(before);
    expect(b.run("startBulkCheck", {}).ok).toBe(true);
    expect(b.run("getSidebarState").run.rows).toBe(3);
  });

  test("the sheet renamed mid-run: results still land, the sidebar shows the new name", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"], ...props.slice(300, 320).map((p) => [p.uprn])]);
    env.sheet.select("A2:A21");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.sheet.setName("Portfolio");
    const last = (await pollToEnd(env)).pop();
    expect(last.phase).toBe("done");
    expect(last.sheetName).toBe("Portfolio");
    expect(String(cellValue(env.sheet, 21, outputCol(env.sheet, "matched_uprn")))).toBe(props[319].uprn);
  });

  test("the sheet deleted mid-run: the run stops with a message and nothing is written elsewhere", async () => {
    const env = configuredEnv(sandbox);
    const other = env.spreadsheet.addSheet("Other");
    env.sheet.seed(1, 1, [["UPRN"], ...props.slice(320, 330).map((p) => [p.uprn])]);
    env.sheet.select("A2:A11");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.spreadsheet.deleteSheet(env.sheet);
    env.spreadsheet.active = other;
    const mark = env.log.mark();
    const last = (await pollToEnd(env)).pop();
    expect(last.phase).toBe("stopped");
    expect(last.message).toMatch(/The sheet "Sheet1" was deleted, so the check stopped/);
    // Nothing is written anywhere but the Run log, whose row says why the run stopped.
    const writes = env.log.writesSince(mark);
    expect(writes.filter((w) => w.sheet !== "Run log" && w.method !== "insertSheet")).toEqual([]);
    expect(writes.filter((w) => w.method === "insertSheet")).toHaveLength(1);
    const runLog = env.spreadsheet.getSheetByName("Run log")!;
    expect(String(runLog.peek(2, 12, 1, 1)[0][0])).toMatch(/was deleted, so the check stopped/);
    expect(other.getLastRow()).toBe(0);
  });
});

describe("settings as people paste them", () => {
  test("http is refused (localhost excepted); a URL outside urlFetchWhitelist is refused with a message naming it", () => {
    const env = createGasEnvironment();
    const http = env.run("saveSettings", { baseUrl: "http://example.com" });
    expect(http.ok).toBe(false);
    expect(http.message).toMatch(/must use https/);
    // The site rather than the API (no version in the path): saved, with the same warning as the Excel pane gives.
    const site = env.run("saveSettings", { baseUrl: "http://localhost:3001" });
    expect(site.ok).toBe(true);
    expect(site.message).toMatch(/^Settings saved\. Its path does not end in an API version such as \/v1/);
    const local = env.run("saveSettings", { baseUrl: "http://localhost:3001/v1" });
    expect(local.ok).toBe(true);
    expect(local.message).toBe("Settings saved.");
    const other = env.run("saveSettings", { baseUrl: "https://compliance.other-vendor.example/v1" });
    expect(other.ok).toBe(false);
    // Plain words for whoever is in Settings: the address allowed, and who can allow another; no manifest talk.
    expect(other.message).toBe(
      "This add-on may only call https://api.property-compliance.example/v1/, so it cannot use https://compliance.other-vendor.example/v1. " +
        "Use that address, or ask whoever installed the add-on to allow another address.",
    );
    expect(other.message).not.toMatch(/urlFetchWhitelist|appsscript|manifest/);
    // Only the version path missing: not "another address", but the one to use.
    const bare = env.run("saveSettings", { baseUrl: "https://api.property-compliance.example" });
    expect(bare.ok).toBe(false);
    expect(bare.message).toBe(
      "https://api.property-compliance.example is missing the end of the service's address: use https://api.property-compliance.example/v1.",
    );
    expect(other.settings.baseUrl).toBe("http://localhost:3001/v1");
    expect(env.run("saveSettings", { baseUrl: "https://api.property-compliance.example/v1/" }).ok).toBe(true);
  });

  test("a key pasted with spaces and a newline around it is trimmed and works; one broken by a line break is refused", async () => {
    const env = createGasEnvironment();
    const broken = env.run("saveSettings", { apiKey: "sandbox-\nprofessional", baseUrl: sandbox.baseUrl });
    expect(broken.ok).toBe(false);
    expect(broken.message).toMatch(/spaces or line breaks/);
    expect(env.userProperties.data.has("compliance.apiKey")).toBe(false);
    const ok = env.run("saveSettings", { apiKey: `  ${API_KEY}\n`, baseUrl: sandbox.baseUrl });
    expect(ok.ok).toBe(true);
    expect(env.userProperties.data.get("compliance.apiKey")).toBe(API_KEY);
    env.sheet.seed(1, 1, [["UPRN"], [props[80].uprn]]);
    env.sheet.select("A2");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    expect(String(cellValue(env.sheet, 2, outputCol(env.sheet, "matched_uprn")))).toBe(props[80].uprn);
  });

  test("Save tries a new key once: a refused key is not saved, a good one is 'accepted', an unreachable service saves with a warning", () => {
    const env = createGasEnvironment();
    const refused = env.run("saveSettings", {
      apiKey: "sandbox-revoked-key-42",
      baseUrl: sandbox.baseUrl,
      plan: "enterprise",
    });
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/^Not saved: The API key was not accepted by the service/);
    expect(JSON.stringify(refused)).not.toContain("sandbox-revoked-key-42");
    // Nothing of that save is kept: not the key, nor the URL and plan that came with it.
    expect(env.userProperties.data.size).toBe(0);
    const probe = env.fetches[env.fetches.length - 1];
    expect(probe.method.toLowerCase()).toBe("get");
    expect(probe.url).toBe(`${sandbox.baseUrl}/api/addresses?postcode=SW1A%202AA&limit=1`);
    expect(probe.status).toBe(401);

    const ok = env.run("saveSettings", { apiKey: API_KEY, baseUrl: sandbox.baseUrl });
    expect(ok).toMatchObject({ ok: true, message: "API key saved and accepted by the service." });
    expect(ok.warning).toBeFalsy();
    expect(env.userProperties.data.get("compliance.apiKey")).toBe(API_KEY);

    // A genuine key whose plan has no API access: kept (the plan can change), with the reason.
    const noApi = env.run("saveSettings", { apiKey: "sandbox-no-api" });
    expect(noApi).toMatchObject({ ok: true, warning: true });
    expect(noApi.message).toMatch(/^Saved, but the service did not confirm the key: .*no API access/);

    // Nobody answering (nothing listens on port 9): saved, and the answer says the key was not tried.
    const down = env.run("saveSettings", { apiKey: API_KEY, baseUrl: "http://127.0.0.1:9/v1" });
    expect(down).toMatchObject({ ok: true, warning: true });
    expect(down.message).toMatch(
      /^Saved, but the service did not confirm the key: Could not reach the compliance service/,
    );
    expect(env.userProperties.data.get("compliance.baseUrl")).toBe("http://127.0.0.1:9/v1");
    expect(JSON.stringify([refused, ok, noApi, down, env.consoleLines])).not.toContain(API_KEY);
  });

  test("an emptied base URL goes back to the default, and Save says so", () => {
    const env = createGasEnvironment();
    expect(env.run("saveSettings", { baseUrl: "http://localhost:3001/v1" }).settings.baseUrl).toBe(
      "http://localhost:3001/v1",
    );
    const reset = env.run("saveSettings", { baseUrl: "  " });
    expect(reset.ok).toBe(true);
    expect(reset.settings.baseUrl).toBe("https://api.property-compliance.example/v1");
    expect(reset.message).toBe(
      "Settings saved. The service address is back to the default, https://api.property-compliance.example/v1.",
    );
    expect(env.userProperties.data.has("compliance.baseUrl")).toBe(false);
  });

  test("the key removed mid-run: the run stops, rows not yet checked say so, nothing more is sent", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"], ...props.slice(200, 260).map((p) => [p.uprn])]);
    env.sheet.select("A2:A61");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.run("removeApiKey");
    const before = env.fetches.length;
    const last = (await pollToEnd(env)).pop();
    expect(last.phase).toBe("stopped");
    expect(last.message).toMatch(/API key was removed/);
    expect(env.fetches.length).toBe(before);
    // Its job was sent: the row waits for Resume (once a key is back), never loses what is there.
    expect(String(cellValue(env.sheet, 61, outputCol(env.sheet, "message")))).toMatch(
      /API key was removed|Choose Resume to collect it/,
    );
  });
});
