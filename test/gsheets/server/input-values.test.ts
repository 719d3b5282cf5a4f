/**
 * How the Sheets add-on reads a table: the header spellings people use, headers it does not know (the user then chooses
 * the columns), and the values people have in UPRN and postcode cells. Every row ends with its result or its own
 * message at that row. The BUILT Code.js in a vm, real HTTP to the sandbox.
 */
import { outputHeaders } from "../../../core";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, pollToEnd } from "../harness/table";
import { OUTPUT_WIDTH as W, blockColumn, configuredEnv, resultAt } from "../../helpers/gsheets-results";

const sandbox = sandboxForFile({ msPerProperty: 5 }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(40);
});

describe("header spellings", () => {
  test.each([
    ["U.P.R.N.", "Post Code"],
    ["UPRN ", "POSTCODE "],
    ["uprn", "post-code"],
    ["Property UPRN", "Property postcode"],
  ])("headers %j / %j are recognised and every row is checked", async (h1, h2) => {
    const env = configuredEnv(sandbox);
    const ps = props.slice(0, 4);
    env.sheet.seed(1, 1, [[h1, h2], ...ps.map((p) => [p.uprn, p.postcode])]);
    env.sheet.select("A2:B5");
    const start = env.run("startBulkCheck", {});
    expect(start.ok).toBe(true);
    expect((await pollToEnd(env)).pop().phase).toBe("done");
    const col = blockColumn(env, 1);
    ps.forEach((p, i) => expect(resultAt(env, 2 + i, col).matched).toBe(p.uprn));
  });
});

describe("headers the add-on does not know", () => {
  test("a 'Property ID' header is not taken for a UPRN: the user is asked to choose the columns", () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["Property ID", "Town"], ...props.slice(30, 34).map((p) => [p.uprn, "London"])]);
    env.sheet.select("A2:B5");
    const r = env.run("startBulkCheck", {});
    expect(r.ok).toBe(false);
    expect(r.needsMapping).toBe(true);
    expect(r.message).toMatch(/No UPRN or Postcode column found/);
  });

  // A row of words above the data stays the header row when the columns are chosen by letter (core's
  // looksLikeHeaderRow, the rule Excel uses too).
  test("'Property ID' with the UPRN column chosen by letter: the results block still gets its headers on the header row", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["Property ID", "Town"], ...props.slice(30, 34).map((p) => [p.uprn, "London"])]);
    env.sheet.select("A2:B5");
    const r = env.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(r.ok).toBe(true);
    await pollToEnd(env);
    expect(r.progress.notes.join(" ")).not.toMatch(/No header row/);
    expect(env.sheet.peek(1, 3, 1, W)[0]).toEqual(outputHeaders());
  });

  // The header row is looked for from the table's top whatever rows are selected, as Excel's region starts there.
  test("'Property ID', columns chosen by letter, rows selected mid-table: the header row is still found", async () => {
    const env = configuredEnv(sandbox);
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
    const col = blockColumn(env, 3);
    expect(env.sheet.peek(3, col, 1, W)[0]).toEqual(outputHeaders());
    [6, 7, 8].forEach((row) => expect(resultAt(env, row, col).matched).toBe(ps[row - 4].uprn));
    expect(
      env.sheet
        .peek(1, col, 2, W)
        .flat()
        .every((v) => v === ""),
    ).toBe(true);
  });
});

describe("the values people have in UPRN and postcode cells", () => {
  test("numbers, spaces, quotes, lowercase and non-breaking-space postcodes are read; bad values get their own message at their row", async () => {
    const env = configuredEnv(sandbox);
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
    const col = blockColumn(env, 1);
    const o = (i: number) => resultAt(env, 2 + i, col);
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
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"]]);
    env.sheet.getRange("A2:A2").setNumberFormat("@");
    env.sheet.seed(2, 1, [["1000233369561"]]);
    env.sheet.select("A2");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    expect(resultAt(env, 2, blockColumn(env, 1)).message).toMatch(/has 13 digits; a UPRN has at most 12/);
  });

  // A CSV written from a float column holds "100023336956.0": that names exactly one 12-digit UPRN.
  test("a text UPRN with a '.0' suffix (CSV from a float column) is read as that UPRN", async () => {
    const env = configuredEnv(sandbox);
    env.sheet.seed(1, 1, [["UPRN"]]);
    env.sheet.getRange("A2:A2").setNumberFormat("@");
    env.sheet.seed(2, 1, [[`${props[0].uprn}.0`]]);
    expect(cellValue(env.sheet, 2, 1)).toBe(`${props[0].uprn}.0`);
    env.sheet.select("A2");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    expect(resultAt(env, 2, blockColumn(env, 1)).matched).toBe(props[0].uprn);
  });

  // A placeholder in the UPRN cell does not fail a row whose postcode and address are right there: the row is
  // checked by them, with a note that the UPRN was not used.
  test("a placeholder UPRN ('TBC') beside a valid postcode and address: the row is checked by postcode, with a note", async () => {
    const env = configuredEnv(sandbox);
    const p = props[19];
    env.sheet.seed(1, 1, [
      ["UPRN", "Postcode", "Address"],
      ["TBC", p.postcode, p.address],
    ]);
    env.sheet.select("A2:C2");
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const o = resultAt(env, 2, blockColumn(env, 1));
    expect(o.message).not.toMatch(/give the postcode/);
    expect(o.matched).toBe(p.uprn);
  });
});
