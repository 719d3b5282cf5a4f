/**
 * Exploratory QA of the Sheets add-on on sheets and inputs the other tests have not used: two tables on one sheet,
 * odd header spellings, odd UPRN / postcode values, whole-row selections, the sheet changing mid-run (a column
 * inserted left of the data, rows inserted above the header, a result cell typed into). BUILT Code.js in a vm,
 * real HTTP to the sandbox. Every test asserts what a user should get; the comments "Was a bug" name what was wrong
 * before the fix.
 */
import { OUTPUT_COLUMNS, STATUS_COLOURS, outputHeaders } from "../../core";
import { createGasEnvironment, type GasEnvironment } from "./harness/gas";
import { startSandboxProcess, type SandboxProcess, type SandboxProperty } from "./harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd } from "./harness/table";

const W = OUTPUT_COLUMNS.length;
const idx = (key: string) => OUTPUT_COLUMNS.findIndex((c) => c.key === key);
const MATCHED = idx("matched_uprn");
const MESSAGE = idx("message");
const EPC = idx("epc_status");

let sandbox: SandboxProcess;
let props: SandboxProperty[];

beforeAll(async () => {
  sandbox = await startSandboxProcess({ msPerProperty: 5 });
  props = await sandbox.properties(300);
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(async () => {
  await sandbox.reset();
});

function fresh(): GasEnvironment {
  const env = createGasEnvironment();
  configure(env, sandbox);
  return env;
}

/** The block's row at blockCol: matched UPRN, message, EPC status. */
function out(env: GasEnvironment, row: number, blockCol: number) {
  const r = env.sheet.peek(row, blockCol, 1, W)[0];
  return { matched: String(r[MATCHED] ?? ""), message: String(r[MESSAGE] ?? ""), epc: String(r[EPC] ?? ""), all: r };
}

function blockColIn(env: GasEnvironment, row: number): number {
  return outputCol(env.sheet, "compliance_score", row);
}

describe("header spellings", () => {
  test.each([
    ["U.P.R.N.", "Post Code"],
    ["UPRN ", "POSTCODE "],
    ["uprn", "post-code"],
    ["Property UPRN", "Property postcode"],
  ])("headers %j / %j are recognised and every row is checked", async (h1, h2) => {
    const env = fresh();
    const ps = props.slice(0, 4);
    env.sheet.seed(1, 1, [[h1, h2], ...ps.map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("A2:B5");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect((await pollToEnd(env)).pop().phase).toBe("done");
    const col = blockColIn(env, 1);
    ps.forEach((p, i) => expect(out(env, 2 + i, col).matched).toBe(p.uprn));
  });
});

const fillOf = (status: string) => STATUS_COLOURS[status as keyof typeof STATUS_COLOURS].fill;

describe("the values people have in UPRN and postcode cells", () => {
  test("numbers, spaces, quotes, lowercase and non-breaking-space postcodes are read; bad values get their own message at their row", async () => {
    const env = fresh();
    const p = props.slice(0, 20);
    const rows: unknown[][] = [
      [Number(p[0].uprn), "", ""], // a number cell (Sheets may show 1.00023E+11)
      [Number(p[1].uprn + "0"), "", ""], // 13 digits
      [-Number(p[2].uprn), "", ""], // negative
      [Number(p[3].uprn) + 0.5, "", ""], // not whole
      [`${p[4].uprn.slice(0, 6)}\u00a0${p[4].uprn.slice(6)}`, "", ""], // non-breaking space inside
      ["", p[5].postcode.toLowerCase().replace(/ /g, ""), p[5].address], // "e159ud"
      ["", `${p[6].postcode.replace(" ", "\u00a0")}\u00a0`, p[6].address], // non-breaking spaces
      ["", "BFPO 1234", ""],
      ["", "BT1 1AA", ""], // Northern Ireland: valid, not in the data set
      ["", "12345", ""],
      ["\u200b", "", ""], // looks empty
      [`${p[11].uprn} `, "", ""],
      [`"${p[12].uprn}"`, "", ""],
      [p[13].uprn, "", ""],
      [Number(p[13].uprn), "", ""], // the same property as a number
      [`'${p[13].uprn}`, "", ""], // ...and as apostrophe text
    ];
    env.sheet.seed(1, 1, [["UPRN", "Postcode", "Address"], ...rows]);
    env.sheet.select(`A2:C${rows.length + 1}`);
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.duplicateRows).toBe(2);
    const last = (await pollToEnd(env)).pop();
    expect(last.phase).toBe("done");
    const col = blockColIn(env, 1);
    const o = (i: number) => out(env, 2 + i, col);
    expect(o(0).matched).toBe(p[0].uprn);
    expect(o(1).message).toMatch(/not a whole number of up to 12 digits/);
    expect(o(2).message).toMatch(/not a whole number of up to 12 digits/);
    expect(o(3).message).toMatch(/not a whole number of up to 12 digits/);
    expect(o(4).matched).toBe(p[4].uprn);
    expect(o(5).matched).toBe(p[5].uprn);
    expect(o(6).matched).toBe(p[6].uprn);
    expect(o(7).message).toMatch(/"BFPO 1234" is not a valid UK postcode/);
    expect(o(8).message).toMatch(/No property at postcode BT1 1AA/);
    expect(o(9).message).toMatch(/"12345" is not a valid UK postcode/);
    expect(o(10).message).toMatch(/No UPRN or postcode in this row/);
    expect(o(11).matched).toBe(p[11].uprn);
    expect(o(12).matched).toBe(p[12].uprn);
    for (const i of [13, 14, 15]) expect(o(i).matched).toBe(p[13].uprn);
    expect(o(15).message).toMatch(/Same property as row 15; checked once/);
    // Nothing dropped: every row has its UPRN or its own message.
    rows.forEach((_r, i) => expect(o(i).matched !== "" || o(i).message !== "").toBe(true));
  });

  test("a 13-digit UPRN typed as text says how many digits it has", async () => {
    const env = fresh();
    env.sheet.seed(1, 1, [["UPRN"]]);
    env.sheet.getRange("A2:A2").setNumberFormat("@");
    env.sheet.seed(2, 1, [["1000233369561"]]);
    env.sheet.select("A2");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    expect(out(env, 2, blockColIn(env, 1)).message).toMatch(/has 13 digits; a UPRN has at most 12/);
  });

  // Was a bug (minor, core/rows.ts normaliseUprn): a UPRN imported as text with a ".0" suffix (a CSV written from a float
  // column: "100023336956.0") is refused as "not valid" although it names exactly one 12-digit UPRN.
  test("a text UPRN with a '.0' suffix (CSV from a float column) is read as that UPRN", async () => {
    const env = fresh();
    env.sheet.seed(1, 1, [["UPRN"]]);
    env.sheet.getRange("A2:A2").setNumberFormat("@");
    env.sheet.seed(2, 1, [[`${props[0].uprn}.0`]]);
    expect(cellValue(env.sheet, 2, 1)).toBe(`${props[0].uprn}.0`);
    env.sheet.select("A2");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    expect(out(env, 2, blockColIn(env, 1)).matched).toBe(props[0].uprn);
  });

  // Was a bug (minor, core/rows.ts normaliseProperty): a placeholder in the UPRN cell ("TBC") beside a valid postcode and
  // address fails the row with "clear it and give the postcode", though the postcode is right there; the row should be
  // checked by its postcode and address, with a note that the UPRN was not used.
  test("a placeholder UPRN ('TBC') beside a valid postcode and address: the row is checked by postcode, with a note", async () => {
    const env = fresh();
    const p = props[19];
    env.sheet.seed(1, 1, [
      ["UPRN", "Postcode", "Address"],
      ["TBC", p.postcode, p.address],
    ]);
    env.sheet.select("A2:C2");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const o = out(env, 2, blockColIn(env, 1));
    expect(o.message).not.toMatch(/give the postcode/);
    expect(o.matched).toBe(p.uprn);
  });
});

describe("two tables on one sheet", () => {
  // Was a bug (gsheets/server/sheet.ts locateTable + core detectColumns): the selection's columns were ignored; the
  // leftmost "UPRN" header of the header row won, so rows selected in the right-hand table were checked with the LEFT
  // table's UPRNs (the sidebar showed rangeA1 "A2:B6" for a D2:E6 selection). Core's detectColumnsInSelection now lets
  // the selected columns choose the table, as Excel's surrounding region does.
  test("side by side (A:B and D:E, both headed UPRN / Postcode): rows selected in the right table check the right table's UPRNs", async () => {
    const env = fresh();
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
    const col = blockColIn(env, 1);
    right.forEach((p, i) => expect(out(env, 2 + i, col).matched).toBe(p.uprn));
  });

  // Found while fixing the one above (gsheets/server/sheet.ts locateTable, sheetrun.ts relocate; Excel's prepare.ts the
  // same): the left table took the first results block in the header row, the right table's, and wrote its results over
  // the right table's. Core's findHeaderBlockOfTable gives each table its own block; a run finds its block again nearest
  // to where it was.
  test("side by side, the right table checked first, then the left, then both again: each keeps its own results", async () => {
    const env = fresh();
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
      expect((await pollToEnd(env)).pop().message).toMatch(/^Done: 5 rows checked/);
    }
    expect(blocks).toEqual({
      "D2:E6": `F1:${blocks["D2:E6"].split(":")[1]}`,
      "A2:B6": expect.not.stringMatching(/^F1:/),
    });
    const col = (a1: string) => [.../^[A-Z]+/.exec(a1)![0]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
    right.forEach((p, i) => expect(out(env, 2 + i, col(blocks["D2:E6"])).matched).toBe(p.uprn));
    left.forEach((p, i) => expect(out(env, 2 + i, col(blocks["A2:B6"])).matched).toBe(p.uprn));
  });

  // Was a bug (gsheets/server/sheet.ts ensureStatusRules / ruleIsOurs): our colour rules are recognised by column only, so
  // checking a second table whose block lands in the same columns (rows 9+) REPLACES the first table's rules
  // (rows 2+ -> rows 9+): the first table's statuses lose their colours (effective fill null).
  test("stacked, checked one after the other: the first table's statuses keep their colours", async () => {
    const env = fresh();
    const t1 = props.slice(30, 34);
    const t2 = props.slice(40, 44);
    env.sheet.seed(1, 1, [["UPRN", "Postcode"], ...t1.map((p) => [p.uprn, p.postcode])]);
    env.sheet.seed(8, 1, [["UPRN", "Postcode"], ...t2.map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("A2:B5");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const col1 = blockColIn(env, 1);
    const epc1 = out(env, 2, col1).epc;
    expect(env.sheet.effectiveFill(2, col1 + EPC)).toBe(fillOf(epc1));

    env.sheet.select("A9:B12");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const col2 = blockColIn(env, 8);
    t2.forEach((p, i) => expect(out(env, 9 + i, col2).matched).toBe(p.uprn));
    expect(env.sheet.effectiveFill(9, col2 + EPC)).toBe(fillOf(out(env, 9, col2).epc));
    t1.forEach((p, i) => expect(out(env, 2 + i, col1).matched).toBe(p.uprn));
    expect(env.sheet.effectiveFill(2, col1 + EPC)).toBe(fillOf(epc1));
  });

  test("stacked: rows of the lower table (header on row 8) are checked with that table's header and columns", async () => {
    const env = fresh();
    const t1 = props.slice(30, 34);
    const t2 = props.slice(40, 44);
    env.sheet.seed(1, 1, [["UPRN", "Postcode"], ...t1.map((p) => [p.uprn, p.postcode])]);
    env.sheet.seed(8, 1, [["Postcode", "UPRN"], ...t2.map((p) => [p.postcode, p.uprn])]);
    env.sheet.select("A9:B12");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(4);
    await pollToEnd(env);
    const col = blockColIn(env, 8);
    t2.forEach((p, i) => expect(out(env, 9 + i, col).matched).toBe(p.uprn));
    expect(cellValue(env.sheet, 1, col)).toBe(""); // nothing on the upper table's header row
  });

  // Was a bug (gsheets/server/bulk.ts startUnlocked: "A selection on or above the header means the whole table", endRow =
  // sheet.getLastRow()): "the whole table" runs to the sheet's last row, across the blank rows and the table below:
  // the blank rows get "No UPRN or postcode in this row", the lower table's header row gets 'UPRN "Postcode" is not
  // valid', and its rows are read with the upper table's columns (a postcode read as a UPRN), 11 rows instead of 4.
  test("stacked: selecting the first table's header row checks that table only, not the blank rows and the table below", async () => {
    const env = fresh();
    const t1 = props.slice(50, 54);
    const t2 = props.slice(60, 64);
    env.sheet.seed(1, 1, [["UPRN", "Postcode"], ...t1.map((p) => [p.uprn, p.postcode])]);
    env.sheet.seed(8, 1, [["Postcode", "UPRN"], ...t2.map((p) => [p.postcode, p.uprn])]);
    env.sheet.select("A1:B1");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(4);
    await pollToEnd(env);
    const col = blockColIn(env, 1);
    t1.forEach((p, i) => expect(out(env, 2 + i, col).matched).toBe(p.uprn));
    for (let r = 6; r <= 12; r++) expect(env.sheet.peek(r, col, 1, W)[0].every((v) => v === "")).toBe(true);
  });

  // Found with the fix above: "blank" was judged on the input columns only, so a row holding only a note ended the
  // table and the rows after it were left out; Excel's surrounding region runs on over it. Both now take the row as the
  // table's (it gets "No UPRN or postcode in this row"), and a scheduled re-check ends the table at the same row.
  test("selecting the header row: a row with only a note in it does not end the table; a fully blank row does", async () => {
    const env = fresh();
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
    const col = blockColIn(env, 1);
    [2, 3, 5, 6, 7].forEach((r, i) => expect(out(env, r, col).matched).toBe(t1[i].uprn));
    expect(out(env, 4, col).message).toMatch(/No UPRN or postcode/);
    for (let r = 8; r <= 11; r++) expect(env.sheet.peek(r, col, 1, W)[0].every((v) => v === "")).toBe(true);
  });
});

describe("re-running", () => {
  // Was a bug (core/rows.ts detectColumns, used by gsheets/server/sheet.ts locateTable without leaving out our block): a
  // table with Postcode and Address but no UPRN column is checked once; the re-run then reads OUR "Matched UPRN"
  // header as the table's UPRN column (rank "contains the word uprn") and is refused: "The chosen input columns
  // overlap the results block at C; choose other columns." The user chose nothing; the table can never be re-checked.
  test("a Postcode + Address table (no UPRN column) can be checked a second time, in place", async () => {
    const env = fresh();
    const ps = props.slice(0, 6);
    env.sheet.seed(1, 1, [["Postcode", "Address"], ...ps.map((p) => [p.postcode, p.address])]);
    env.sheet.select("A2:B7");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    expect((await pollToEnd(env)).pop().phase).toBe("done");
    const col = blockColIn(env, 1);
    const again = env.run("startBulkCheck", {});
    expect(again.message).toBeUndefined();
    expect(again.ok).toBe(true);
    expect(again.progress.notes.join(" ")).toMatch(/updated in place/);
    await pollToEnd(env);
    expect(blockColIn(env, 1)).toBe(col);
    ps.forEach((p, i) => expect(out(env, 2 + i, col).matched).toBe(p.uprn));
  });

  test("a UPRN table re-run after the first: one block, updated in place", async () => {
    const env = fresh();
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

describe("headers the add-on does not know", () => {
  test("a 'Property ID' header is not taken for a UPRN: the user is asked to choose the columns", () => {
    const env = fresh();
    env.sheet.seed(1, 1, [["Property ID", "Town"], ...props.slice(30, 34).map((p) => [p.uprn, "London"])]);
    env.sheet.select("A2:B5");
    const r = env.run("startBulkCheck", {});
    expect(r.ok).toBe(false);
    expect(r.needsMapping).toBe(true);
    expect(r.message).toMatch(/No UPRN or Postcode column found/);
  });

  // Was a bug (gsheets/server/sheet.ts locateTable found a header row only through detectColumns): once the columns
  // were chosen by letter under a "Property ID" header, the add-on said "No header row" and wrote a block with no
  // headers. Core's looksLikeHeaderRow (Excel's rule, moved to core) now keeps that row as the header in both add-ins.
  test("'Property ID' with the UPRN column chosen by letter: the results block still gets its headers on the header row", async () => {
    const env = fresh();
    env.sheet.seed(1, 1, [["Property ID", "Town"], ...props.slice(30, 34).map((p) => [p.uprn, "London"])]);
    env.sheet.select("A2:B5");
    const r = env.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(r.ok).toBe(true);
    await pollToEnd(env);
    expect(r.progress.notes.join(" ")).not.toMatch(/No header row/);
    expect(env.sheet.peek(1, 3, 1, W)[0]).toEqual(outputHeaders());
  });

  // Found with the fix above: only the selection's first row and the row above it were looked at, so rows selected
  // mid-table (A4:B5) under "Property ID" still wrote a block without headers; Excel's region starts at the table's
  // top whatever rows are selected.
  test("'Property ID', columns chosen by letter, rows selected mid-table: the header row is still found", async () => {
    const env = fresh();
    const ps = props.slice(30, 36);
    env.sheet.seed(1, 1, [
      ["Properties"],
      ["Portfolio: North"],
      ["Property ID", "Town"],
      ...ps.map((p) => [p.uprn, "London"]),
    ]);
    env.sheet.select("A6:B8");
    const r = env.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(r.ok).toBe(true);
    expect(r.progress.rows).toBe(3);
    await pollToEnd(env);
    const col = blockColIn(env, 3);
    expect(env.sheet.peek(3, col, 1, W)[0]).toEqual(outputHeaders());
    [6, 7, 8].forEach((row) => expect(out(env, row, col).matched).toBe(ps[row - 4].uprn));
    expect(
      env.sheet
        .peek(1, col, 2, W)
        .flat()
        .every((v) => v === ""),
    ).toBe(true);
  });
});

describe("the add-on's own sheets", () => {
  // Was a bug: rows selected on the "Action list" (it has a UPRN column) were checked, the run said "Done: 3 rows
  // checked.", and the rebuild of the Action list at the end of the run wiped the results it had just written. Core's
  // ownSheetProblem now refuses every sheet the add-ins build, in both add-ins.
  test("rows selected on the Action list: refused at once with a message naming the sheet and what to do; nothing sent", async () => {
    const env = fresh();
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

describe("the sheet changing during a run", () => {
  // Was a bug (gsheets/server/sheetrun.ts step: run.blockCol = at.blockCol is set BEFORE readTableNow, so its
  // `shift = at.blockCol - run.blockCol` is always 0 and run.mapping is never moved): a column inserted (or deleted) left
  // of the input columns mid-run makes every row read the wrong column: "Finished with problems: 0 of 60 rows checked.
  // 60 rows changed or deleted while the check ran", every row "This row changed while the check ran".
  test.each([
    ["inserted at A", false],
    ["deleted at A", true],
  ])("a column %s (left of the data) mid-run: every row still gets its own result", async (_what, del) => {
    const env = fresh();
    const ps = props.slice(70, 130);
    env.sheet.seed(1, 1, [["Ref", "UPRN"], ...ps.map((p, i) => [`r${i}`, p.uprn])]);
    env.sheet.select("A2:B61");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    if (del) env.sheet.deleteColumns(1, 1);
    else env.sheet.insertColumnBefore(1);
    const uprnCol = del ? 1 : 3;
    const last = (await pollToEnd(env)).pop();
    const col = blockColIn(env, 1);
    const rows = ps.map((_p, i) => ({ uprn: String(cellValue(env.sheet, 2 + i, uprnCol)), ...out(env, 2 + i, col) }));
    expect(rows.filter((r) => r.matched === r.uprn)).toHaveLength(60);
    expect(last.message).toMatch(/^Done: 60 rows checked/);
  });

  test("rows inserted above the header mid-run: results go to the moved rows, the title row is untouched", async () => {
    const env = fresh();
    const ps = props.slice(130, 170);
    env.sheet.seed(1, 1, [["UPRN"], ...ps.map((p) => [p.uprn])]);
    env.sheet.select("A2:A41");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.sheet.insertRowsAfter(0, 2);
    env.sheet.seed(1, 1, [["My portfolio"]]);
    const last = (await pollToEnd(env)).pop();
    expect(last.phase).toBe("done");
    const col = blockColIn(env, 3);
    ps.forEach((p, i) => expect(out(env, 4 + i, col).matched).toBe(p.uprn));
    expect(cellValue(env.sheet, 1, 1)).toBe("My portfolio");
  });

  test("three rows deleted mid-run: the others get their results, the summary counts the three", async () => {
    const env = fresh();
    const ps = props.slice(130, 190);
    env.sheet.seed(1, 1, [["UPRN"], ...ps.map((p) => [p.uprn])]);
    env.sheet.select("A2:A61");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    env.sheet.deleteRows(10, 3);
    const last = (await pollToEnd(env)).pop();
    expect(last.message).toMatch(/57 of 60 rows checked\. 3 rows changed or deleted while the check ran/);
    const col = blockColIn(env, 1);
    for (let r = 2; r <= 58; r++) expect(out(env, r, col).matched).toBe(String(cellValue(env.sheet, r, 1)));
    expect(out(env, 59, col).all.every((v) => v === "")).toBe(true);
  });

  test("the user types into a row's Message cell while it is still checking: their text is kept, the run does not say all rows were checked", async () => {
    const env = fresh();
    const ps = props.slice(170, 230);
    env.sheet.seed(1, 1, [["UPRN"], ...ps.map((p) => [p.uprn])]);
    env.sheet.select("A2:A61");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    const col = blockColIn(env, 1);
    expect(out(env, 61, col).message).toMatch(/^Checking/);
    env.sheet.seed(61, col + MESSAGE, [["call the agent first"]]);
    const last = (await pollToEnd(env)).pop();
    expect(cellValue(env.sheet, 61, col + MESSAGE)).toBe("call the agent first");
    expect(last.message).toMatch(/59 of 60 rows checked\. 1 row changed or deleted/);
  });
});

describe("selections", () => {
  test("whole rows (3:6) selected: rows 3–6 are checked, nothing else", async () => {
    const env = fresh();
    const ps = props.slice(230, 240);
    env.sheet.seed(1, 1, [["UPRN", "Postcode"], ...ps.map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("3:6");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(4);
    await pollToEnd(env);
    const col = blockColIn(env, 1);
    expect(out(env, 2, col).matched).toBe("");
    for (let r = 3; r <= 6; r++) expect(out(env, r, col).matched).toBe(ps[r - 2].uprn);
    expect(out(env, 7, col).matched).toBe("");
  });

  test("a selection starting on the header and ending mid-table: header skipped, only the selected rows", async () => {
    const env = fresh();
    const ps = props.slice(240, 250);
    env.sheet.seed(1, 1, [["UPRN"], ...ps.map((p) => [p.uprn])]);
    env.sheet.select("A1:A4");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect(start.progress.rows).toBe(3);
    await pollToEnd(env);
    const col = blockColIn(env, 1);
    for (let r = 2; r <= 4; r++) expect(out(env, r, col).matched).toBe(ps[r - 2].uprn);
    expect(out(env, 5, col).all.every((v) => v === "")).toBe(true);
  });
});
