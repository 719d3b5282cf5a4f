/** Sheet values to properties: header detection, UPRN and postcode rules, per-row errors, duplicates. */
import {
  detectColumns,
  detectColumnsInSelection,
  fanOut,
  wholeTableSelected,
  planScreening,
  readPropertyRows,
  rowsOfWholeTable,
  serviceError,
} from "../../../core";

describe("readPropertyRows", () => {
  test("finds columns by header in any order and case", () => {
    expect(detectColumns(["Tenant", "Post code", "UPRN", "Address line 1"])).toEqual({
      postcode: 1,
      uprn: 2,
      address: 3,
    });
    expect(detectColumns(["Property reference", "Postal code"])).toEqual({ uprn: 0, postcode: 1 });
    expect(detectColumns(["Name", "Rent"])).toBeNull();
  });

  test("reports a missing UPRN/Postcode column instead of guessing", () => {
    const r = readPropertyRows([
      ["Name", "Rent"],
      ["a", 1],
    ]);
    expect(r.rows).toEqual([]);
    expect(r.problem).toMatch(/No UPRN or Postcode column/);
  });

  test("explicit mapping without a header row", () => {
    const r = readPropertyRows(
      [
        ["x", "100023336956"],
        ["y", "12"],
      ],
      { mapping: { uprn: 1 } },
    );
    expect(r.headerRow).toBeNull();
    expect(r.rows.map((x) => x.property)).toEqual([{ uprn: "100023336956" }, { uprn: "12" }]);
  });

  test("every row gets a property or an error of its own", () => {
    const values = [
      ["UPRN", "Postcode", "Address"],
      [100023336956, "", ""], // number typed in a cell
      ["0012345678", "", ""], // leading zeros kept as text
      ["1234567890123", "", ""], // 13 digits
      ["12-34", "", ""],
      ["", "m1 1ae", ""],
      ["", "SW1A2AA", "  Flat 2,   10 Downing St "],
      ["", "NOT A CODE", ""],
      ["", "", ""],
      ["", "", "1 High Street"],
      [12.5, "", ""],
      [true, "", ""],
    ];
    const r = readPropertyRows(values);
    expect(r.rows).toHaveLength(values.length - 1);
    expect(r.rows.map((x) => x.index)).toEqual(values.slice(1).map((_v, i) => i + 1));
    const summary = r.rows.map((x) => x.error?.code ?? x.property);
    expect(summary).toEqual([
      { uprn: "100023336956" },
      { uprn: "0012345678" },
      "invalid_uprn",
      "invalid_uprn",
      { postcode: "M1 1AE" },
      { postcode: "SW1A 2AA", address: "Flat 2, 10 Downing St" },
      "invalid_postcode",
      "empty_row",
      "missing_postcode",
      "invalid_uprn",
      "invalid_uprn",
    ]);
    expect(r.rows[2].error!.message).toMatch(/13 digits/);
    expect(r.rows[6].error!.message).toContain('"NOT A CODE"');
  });

  test("corrects a common postcode slip and says so", () => {
    const r = readPropertyRows([["Postcode"], ["SWIA 2AA"]]);
    expect(r.rows[0].property).toEqual({ postcode: "SW1A 2AA" });
    expect(r.rows[0].note).toMatch(/read as SW1A 2AA/);
  });
});

describe("planScreening and fanOut", () => {
  const values = [["UPRN"], ...Array.from({ length: 25 }, (_v, i) => [String(1000 + (i % 10))]), ["bad"]];
  const { rows } = readPropertyRows(values);

  test("sends each distinct property once, in jobs no larger than the cap", () => {
    const plan = planScreening(rows, { plan: 4 });
    expect(plan.properties).toHaveLength(10);
    expect(plan.jobs).toEqual([
      { start: 0, end: 4 },
      { start: 4, end: 8 },
      { start: 8, end: 10 },
    ]);
    expect(planScreening(rows, { plan: "enterprise" }).batchCap).toBe(10000);
    expect(planScreening(rows, { plan: 50000 }).batchCap).toBe(10000);
  });

  test("a run someone waits for starts with two probe jobs; a re-check nobody waits for keeps to the plan's job size", () => {
    const many = readPropertyRows([["UPRN"], ...Array.from({ length: 2500 }, (_v, i) => [String(100000 + i)])]).rows;
    const waited = planScreening(many, { plan: "enterprise" });
    expect(waited.jobs.filter((j) => j.probe)).toHaveLength(2);
    expect(waited.jobs.filter((j) => j.held).length).toBeGreaterThan(0);
    const unattended = planScreening(many, { plan: "enterprise", spread: false });
    expect(unattended.jobs).toEqual([{ start: 0, end: 2500 }]);
    expect(unattended.splitSize).toBeUndefined();
    // A split of jobs of 500 would run at most twice the Professional plan's jobs of 1,000: not worth a probe.
    expect(planScreening(many, { plan: "professional" }).jobs).toEqual([
      { start: 0, end: 1000 },
      { start: 1000, end: 2000 },
      { start: 2000, end: 2500 },
    ]);
  });

  test("leading zeros do not make a UPRN distinct", () => {
    const r = readPropertyRows([["UPRN"], ["00123"], ["123"]]);
    expect(planScreening(r.rows).properties).toEqual([{ uprn: "00123" }]);
  });

  test("fans each outcome out to every row that asked, keeping row order", () => {
    const plan = planScreening(rows, { plan: "professional" });
    const outcomes = plan.properties.map((p) => ({
      error: serviceError("not_found", "property_not_found", `no ${p.uprn}`),
    }));
    const perRow = fanOut(plan, rows, outcomes);
    expect(perRow).toHaveLength(rows.length);
    perRow.slice(0, 25).forEach((o, i) => expect(o && "error" in o && o.error.message).toBe(`no ${1000 + (i % 10)}`));
    expect(perRow[25]).toMatchObject({ error: { code: "invalid_uprn" } });
  });
});

describe("cells people's sheets hold, read in core so Excel and Google Sheets read them alike", () => {
  test("a text UPRN ending in .0 (a CSV from a number column) is that UPRN; 12.5 is not", () => {
    const r = readPropertyRows([["UPRN"], ["100023336956.0"], ["100023336956.00"], ["12.5"]]);
    expect(r.rows.map((x) => x.property?.uprn ?? x.error?.code)).toEqual([
      "100023336956",
      "100023336956",
      "invalid_uprn",
    ]);
  });

  test("a placeholder in the UPRN column beside a postcode: checked by the postcode, with a note; without one, the row's own message", () => {
    const r = readPropertyRows([
      ["UPRN", "Postcode", "Address"],
      ["TBC", "sw1a 2aa", "10 Downing Street"],
      ["N/A", "E15 9UD", ""],
      ["-", "", ""],
      ["TBC", "", ""],
    ]);
    expect(r.rows[0].property).toEqual({ postcode: "SW1A 2AA", address: "10 Downing Street" });
    expect(r.rows[0].note).toMatch(/UPRN cell "TBC" is not a UPRN, so the row was checked by its postcode/);
    expect(r.rows[1].property).toEqual({ postcode: "E15 9UD" });
    expect(r.rows[2].error?.message).toMatch(/UPRN "-" is not valid/);
    expect(r.rows[3].error?.message).toMatch(/clear it and give the postcode/);
  });

  test("the add-ins' own Matched UPRN column is never taken for the input", () => {
    expect(detectColumns(["Postcode", "Address", "Compliance score", "Matched UPRN"])).toEqual({
      postcode: 0,
      address: 1,
    });
    expect(detectColumns(["UPRN", "Matched UPRN"])).toEqual({ uprn: 0 });
  });
});

test("rowsOfWholeTable: the whole table ends at its first row blank in every cell (a second table below is not taken in)", () => {
  expect(
    rowsOfWholeTable([
      ["1", "a"],
      ["2", ""],
      ["", " "],
      ["Postcode", "UPRN"],
      ["E15 9UD", "3"],
    ]),
  ).toBe(2);
  expect(rowsOfWholeTable([["1"], ["2"]])).toBe(2);
  expect(rowsOfWholeTable([[""], ["2"]])).toBe(0);
});

describe("detectColumnsInSelection: tables side by side in one header row (Sheets asks; Excel's surrounding region agrees)", () => {
  const row = ["UPRN", "Postcode", "", "UPRN", "Postcode", "Address"];
  test("the selected columns choose the table; a column of it outside the selection is found too", () => {
    expect(detectColumnsInSelection(row, { first: 3, last: 4 })).toEqual({
      mapping: { uprn: 3, postcode: 4, address: 5 },
      first: 3,
      last: 5,
    });
    expect(detectColumnsInSelection(row, { first: 4, last: 4 })).toEqual({
      mapping: { uprn: 3, postcode: 4, address: 5 },
      first: 3,
      last: 5,
    });
    expect(detectColumnsInSelection(row, { first: 0, last: 1 })).toEqual({
      mapping: { uprn: 0, postcode: 1 },
      first: 0,
      last: 1,
    });
  });
  test("one table (even with a blank header cell inside), a selection over both tables or naming no input column: null, the whole row decides", () => {
    expect(detectColumnsInSelection(["UPRN", "", "Postcode"], { first: 0, last: 0 })).toBeNull();
    expect(detectColumnsInSelection(row, { first: 0, last: 5 })).toBeNull();
    expect(detectColumnsInSelection(row, { first: 2, last: 2 })).toBeNull();
    expect(detectColumnsInSelection(["Name", "UPRN", "", "Notes"], { first: 3, last: 3 })).toBeNull();
  });
});

test("wholeTableSelected: rows ending on or above the header row mean the whole table; a table without a header never", () => {
  expect(wholeTableSelected(1, 1)).toBe(true);
  expect(wholeTableSelected(0, 2)).toBe(true);
  expect(wholeTableSelected(2, 1)).toBe(false);
  expect(wholeTableSelected(0, null)).toBe(false);
});
