/**
 * What the pane makes of the values people have in their UPRN and postcode cells: a UPRN written as text with ".0", a
 * placeholder beside a valid postcode, a number Excel shows in scientific notation, an error value. Each row gets its
 * result or its own reason at that row, and the user's cells stay as typed. The task pane's prepareCheck / runCheck
 * against the sandbox over loopback, with the Excel stand-in as the workbook.
 */
import { findExamples } from "../../../sandbox/dataset";
import { EPC, MATCHED, MESSAGE, block, checkSelection, proClient, workbook } from "../../helpers/excel-workbook";
import { knownUprns, sandbox, type Sandbox } from "../../helpers/sandbox";

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandbox(0);
});
afterAll(() => sb.close());

test("'<UPRN>.0' as text, 'TBC' beside a valid postcode, '1.00023E+11', #N/A, 'tbc' alone: each row gets its result or its own reason, the cells stay as typed", async () => {
  const ex = findExamples(sb.dataset());
  const { excelRun, api } = workbook();
  const [u1] = knownUprns(sb, 1);
  const pc = ex.singlePropertyPostcode;
  const typed = [`${u1}.0`, "TBC", "1.00023E+11", "#N/A", "tbc"];
  api.seed("Sheet1", "A1", [
    ["UPRN", "Postcode", "Address"],
    [typed[0], "", ""],
    [typed[1], pc.postcode, ""],
    [typed[2], "", ""],
    [typed[3], pc.postcode, ""],
    [typed[4], "", ""],
  ]);
  api.select("Sheet1", "A2:C6");
  await checkSelection(excelRun, proClient(sb));
  const out = block(api, "Sheet1", 3, 2, 6).values as unknown[][];
  expect(out[0][MATCHED]).toBe(u1);
  expect(out[0][EPC]).not.toBe("error");
  expect(out[1][MATCHED]).toBe(pc.property.uprn);
  expect(String(out[1][MESSAGE])).toMatch(/TBC.*postcode/);
  expect(String(out[2][MESSAGE])).toMatch(/scientific notation/);
  expect(String(out[3][MESSAGE])).toMatch(/#N\/A/);
  expect(String(out[4][MESSAGE])).toMatch(/\S/);
  expect(out[4][EPC]).toBe("error");
  expect(api.read("Sheet1", "A2:A6").values.flat()).toEqual(typed);
});
