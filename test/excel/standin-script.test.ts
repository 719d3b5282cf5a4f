/**
 * The Excel stand-in as a page gets it (STANDIN_SCRIPT): its files, which Node requires one by one, as one classic
 * script that installs office.js's globals. Run here in a bare context with only what a page has, so a stand-in file
 * that reached for Node (a require of a package or a builtin) or a file the script left out fails here, not in a
 * browser test's time-out.
 */
import * as vm from "vm";
import { createStandIn, pageScript, STANDIN_SCRIPT } from "../helpers/excel-standin";

function runInPage(script: string, options?: object): any {
  const page: any = { TextEncoder, Promise, __standInOptions: options };
  page.self = page;
  vm.createContext(page);
  vm.runInContext(script, page);
  return page;
}

test("the page script installs Excel, Office, CustomFunctions, OfficeRuntime and the test API, and Excel.run works", async () => {
  const page = runInPage(STANDIN_SCRIPT);
  expect(Object.keys(page).filter((k) => !["TextEncoder", "Promise", "self", "__standInOptions"].includes(k))).toEqual([
    "Excel",
    "Office",
    "CustomFunctions",
    "OfficeRuntime",
    "__excelStandIn",
  ]);
  await page.Excel.run(async (ctx: any) => {
    const range = ctx.workbook.worksheets.getItem("Sheet1").getRange("B2:C2");
    range.values = [["2025-05-02", "'0123"]];
    range.load("values,address");
    await ctx.sync();
    expect(range.address).toBe("Sheet1!B2:C2");
  });
  expect(page.__excelStandIn.read("Sheet1", "B2:C2")).toMatchObject({
    values: [[45779, "0123"]],
    prefixed: [[false, true]],
  });
});

test("the page's workbook is the one Node's createStandIn makes: a saved workbook opens the same in both", () => {
  const node = createStandIn();
  node.api.seed("Sheet1", "A1", [
    ["UPRN", "Postcode"],
    ["100023336956", "SW1A 2AA"],
  ]);
  const page = runInPage(STANDIN_SCRIPT, { restore: node.api.dump() });
  expect(page.__excelStandIn.dump()).toBe(node.api.dump());
});

test("a saved workbook opens again with exactly its sheets, in their order, on the sheet it was saved on", () => {
  const node = createStandIn();
  node.api.seed("Sheet1", "A1", [["UPRN"], ["100023336956"]]);
  node.api.seed("Run log", "A1", [["Run"]]);
  node.api.renameSheet("Sheet1", "Lettings");
  node.api.select("Run log", "A1");
  const ids = JSON.parse(node.api.dump()).sheetIds;
  const names = node.api.sheetNames();
  expect([...names].sort()).toEqual(["Lettings", "Run log"]);
  const saved = node.api.dump();
  for (const reopened of [
    createStandIn({ restore: saved }).api,
    runInPage(STANDIN_SCRIPT, { restore: saved }).__excelStandIn,
  ]) {
    expect(reopened.sheetNames()).toEqual(names);
    expect(reopened.state.activeSheet).toBe("Run log");
    expect(JSON.parse(reopened.dump()).sheetIds).toEqual(ids);
  }
  // A new workbook has its one empty Sheet1.
  expect(createStandIn().api.sheetNames()).toEqual(["Sheet1"]);
});

test("a stand-in file that requires anything but its neighbours fails when the script loads, naming it", () => {
  const script = pageScript().replace('require("./address")', 'require("fs")');
  expect(() => runInPage(script)).toThrow("Excel stand-in: no file fs beside excel-standin.js");
});
