/**
 * excel/taskpane/sheet.ts against office-addin-mock (Microsoft's Office.js mock): the calls it makes on the object model,
 * independent of our own stand-in.
 */
import { OfficeMockObject } from "office-addin-mock";
import {
  OUTPUT_COLUMNS,
  STATUS_COLOURS,
  hostRow,
  outputRow,
  statusColumnIndexes,
  windowColumnIndexes,
} from "../../../core";
import { insertAddress, readSelection, writeOutputRows, columnLetter, a1 } from "../../../excel/taskpane/sheet";

function regionMock(values: unknown[][]) {
  return {
    address: "Sheet1!A1:B3",
    rowIndex: 0,
    columnIndex: 0,
    rowCount: values.length,
    columnCount: values[0].length,
    values,
  };
}

test("readSelection: the region around a selection of data rows, with the selected rows as offsets", async () => {
  const values = [
    ["UPRN", "Postcode"],
    ["100023336956", ""],
    ["100065691929", ""],
  ];
  const region = regionMock(values);
  const at: number[][] = [];
  const mock = new OfficeMockObject({
    workbook: {
      areas: { areaCount: 1, address: "Sheet1!A3:B3" },
      selection: {
        address: "Sheet1!A3:B3",
        rowIndex: 2,
        columnIndex: 0,
        rowCount: 1,
        columnCount: 2,
        worksheet: {
          name: "Sheet1",
          // No Excel Table on the sheet: the region around the cell is the table.
          tables: { items: [] },
          getRangeByIndexes(r: number, c: number, rows: number, cols: number) {
            at.push([r, c, rows, cols]);
            return { getSurroundingRegion: () => (mock as any).workbook.region };
          },
        },
        getUsedRangeOrNullObject() {
          // isNullObject is set by sync without a load, which office-addin-mock does not model: a plain object here.
          return { isNullObject: false, rowIndex: 2, columnIndex: 0, rowCount: 1, columnCount: 2, load() {} };
        },
      },
      region,
      worksheets: {
        getItem() {
          return { getRangeByIndexes: () => (mock as any).workbook.regionValues };
        },
      },
      regionValues: { values },
      getSelectedRanges() {
        return (mock as any).workbook.areas;
      },
      getSelectedRange() {
        return (mock as any).workbook.selection;
      },
    },
  }) as any;
  const read = await readSelection(mock);
  if ("problem" in read) throw new Error(read.problem);
  expect(at[0]).toEqual([2, 0, 1, 1]); // the surrounding region of the top-left selected cell, as Excel defines it
  expect(read.region).toEqual({ sheet: "Sheet1", rowIndex: 0, columnIndex: 0, rowCount: 3, columnCount: 2 });
  expect(read.values[1][0]).toBe("100023336956");
  expect(read.selectedOffsets).toEqual([2, 2]);
});

test("writeOutputRows: one values + numberFormat assignment per run, status colours set by range", async () => {
  const ranges: { args: number[]; range: any }[] = [];
  const mock = new OfficeMockObject({
    workbook: {
      worksheets: {
        getItem() {
          return {
            getRangeByIndexes(r: number, c: number, rows: number, cols: number) {
              const range: any = {
                values: null,
                numberFormat: null,
                props: null,
                setCellProperties(p: unknown) {
                  range.props = p;
                },
              };
              ranges.push({ args: [r, c, rows, cols], range });
              return range;
            },
          };
        },
      },
    },
  }) as any;
  const result = {
    uprn: "1",
    compliance_score: 40,
    risk_level: "high",
    checks: { epc: { status: "fail", rating: "F" }, gas_safety: { status: "pass" } },
  };
  const block = [
    outputRow({ result } as never, "2026-11-22T00:00:00Z"),
    outputRow({ result } as never, "2026-11-22T00:00:00Z"),
  ];
  const stats = await writeOutputRows(mock, { sheet: "Sheet1", rowIndex: 5, columnIndex: 3 }, block, [0, 1]);
  expect(stats.syncs).toBe(1);
  const main = ranges.find((x) => x.args[3] === OUTPUT_COLUMNS.length)!;
  expect(main.args).toEqual([5, 3, 2, OUTPUT_COLUMNS.length]);
  // Written as the host writes them: date columns as date serials (real dates), everything else as it is.
  expect(main.range.values).toEqual(block.map((r) => hostRow(r)));
  expect(main.range.numberFormat[0][OUTPUT_COLUMNS.findIndex((c) => c.key === "action_due")]).toBe("yyyy-mm-dd");
  expect(main.range.numberFormat[0][statusColumnIndexes()[0]]).toBe("@");
  const epcCol = OUTPUT_COLUMNS.findIndex((c) => c.header === "EPC status");
  const epc = ranges.find((x) => x.args[1] === 3 + epcCol && x.args[3] === 1)!;
  expect(epc.range.props[0][0].format.fill.color).toBe(STATUS_COLOURS.fail.fill);
  // One colour call per status column and per Window column.
  expect(ranges.filter((x) => x.args[3] === 1)).toHaveLength(
    statusColumnIndexes().length + windowColumnIndexes().length,
  );
});

test("insertAddress: UPRN as text (leading zeros kept) in the active cell, the address in the empty cell beside it", async () => {
  const ranges: { at: string; range: { numberFormat: unknown; values: unknown } }[] = [];
  const cellAt = (r: number, c: number) => {
    const target: any = {
      numberFormat: null,
      values: null,
      formulas: [[""]],
      load() {},
      // No header above row 5: the table starts at the active cell.
      getSurroundingRegion: () => ({ rowIndex: 4, columnIndex: 1, rowCount: 1, columnCount: 1, load() {} }),
    };
    ranges.push({ at: `${r},${c}`, range: target });
    return target;
  };
  const mock = new OfficeMockObject({
    workbook: {
      cell: { rowIndex: 4, columnIndex: 1, worksheet: { name: "Props" } },
      getActiveCell() {
        return (mock as any).workbook.cell;
      },
      worksheets: {
        getItem() {
          return { getRangeByIndexes: (r: number, c: number) => cellAt(r, c) };
        },
      },
    },
  }) as any;
  const done = await insertAddress(mock, "000950089293", "=1 Evil Road");
  expect(done).toEqual({ uprnAt: "B5", addressAt: "C5" });
  const writes = ranges.filter((x) => x.range.values !== null).map((x) => [x.at, x.range.numberFormat, x.range.values]);
  expect(writes).toEqual([
    ["4,1", [["@"]], [["000950089293"]]],
    ["4,2", [["@"]], [["'=1 Evil Road"]]],
  ]);
});

test("A1 helpers", () => {
  expect([0, 25, 26, 27, 701, 702].map(columnLetter)).toEqual(["A", "Z", "AA", "AB", "ZZ", "AAA"]);
  expect(a1({ sheet: "S", rowIndex: 0, columnIndex: 4, rowCount: 9, columnCount: 23 })).toBe("E1:AA9");
});
