/**
 * A remembered table's sheet found by the name it was recorded under (a record of an earlier version keeps no sheet
 * id): the pane's check over the real sandbox (loopback HTTP), the workbook in the Excel stand-in. The sheet of that
 * name is taken only when it plausibly holds the same table: a sheet that took the name, holding our results columns
 * but not the table's UPRN column, is neither read as the table nor gives the record its id. A run finds its sheet by
 * its id too, once it has read it: a sheet renamed while its check runs still gets every result.
 */
import type { PlanName } from "../../../core";
import { memoryStore } from "../../../excel/settings";
import { buildActionSheets } from "../../../excel/taskpane/action-sheets";
import { runCheck } from "../../../excel/taskpane/check-run";
import { WATCHED_BLOCKS, recordBlock, watchedBlocks } from "../../../excel/taskpane/watch-settings";
import { sandbox, type Sandbox } from "../../helpers/sandbox";
import { MATCHED, block, prepared, proClient, workbook } from "../../helpers/excel-workbook";

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandbox(0);
});
afterAll(() => sb.close());

const plan: PlanName = "professional";
/** The Action list's day: a fixed day, as the pane would give its file's day. */
const TODAY = "2027-01-31";

/** A client to the sandbox that does what the user does once, as the service gets the check's first request. */
function clientActingOnce(act: () => void): { client: ReturnType<typeof proClient>; happened: () => boolean } {
  let done = false;
  const client = proClient(sb, {
    fetch: (u, i) => {
      if (!done) {
        done = true;
        act();
      }
      return fetch(u, i as RequestInit) as never;
    },
  });
  return { client, happened: () => done };
}

test("a record kept by name only, whose name now belongs to a sheet holding our results columns but not its UPRN column: not read as that table, and the record takes no id from it", async () => {
  const { s, excelRun } = workbook();
  const settings = s.Office.context.document.settings;
  // The pane keeps the records in the workbook's settings through the Office global.
  (globalThis as { Office?: unknown }).Office = s.Office;
  try {
    const rows = sb.dataset().properties.slice(0, 10);
    s.api.seed("Sheet1", "A1", [["UPRN", "Address"], ...rows.map((p) => [p.uprn, p.address_line_1])]);
    s.api.select("Sheet1", "A1:A11");
    await runCheck(await prepared(excelRun, { plan }), {
      excelRun,
      client: proClient(sb),
      plan,
      store: memoryStore(),
      actionSheets: false,
      onBlockWritten: (place, at) => recordBlock(settings, place, at),
    });
    const [{ sheetId, ...old }] = watchedBlocks(settings);
    expect(sheetId).toBeTruthy();
    expect(old).toMatchObject({ sheet: "Sheet1", headerRow: 0, blockColumn: 2, inputColumns: { uprn: 0 } });
    settings.set(WATCHED_BLOCKS, [old]);

    // The checked sheet renamed (its record, keeping no id, cannot follow), and a new "Sheet1" holding a copy of the
    // results columns only, where they were.
    s.api.renameSheet("Sheet1", "Old");
    const results = (s.api.sourceGrid("Old") as unknown[][]).map((r) => r.slice(2));
    s.api.seed("Sheet1", "C1", results);
    expect(s.api.state.sheetIds.get("Sheet1")).not.toBe(sheetId);

    const r = await buildActionSheets(excelRun, old, { today: TODAY, withinDays: 30, tables: [old] });
    expect(r.ok).toBe(false);
    expect(r.line).toBe(
      'The Action list and Compliance summary were not refreshed: Sheet1: the UPRN or Postcode column of the table on "Sheet1" was not found. Check again to rebuild them.',
    );
    expect(watchedBlocks(settings)).toEqual([old]);
  } finally {
    delete (globalThis as { Office?: unknown }).Office;
  }
});

test("a sheet renamed while its check runs: every result is written on it, and the run's record follows the sheet", async () => {
  const { s, excelRun } = workbook();
  const settings = s.Office.context.document.settings;
  const rows = sb.dataset().properties.slice(0, 12);
  s.api.seed("Sheet1", "A1", [["UPRN", "Tenant"], ...rows.map((p, i) => [p.uprn, `T${i}`])]);
  s.api.select("Sheet1", "A1");
  const id = s.api.state.sheetIds.get("Sheet1");
  // Renamed by the user while the service answers the check's first request.
  const { client, happened: renamed } = clientActingOnce(() => s.api.renameSheet("Sheet1", "Lettings"));
  const summary = await runCheck(await prepared(excelRun, { plan }), {
    excelRun,
    client,
    plan,
    store: memoryStore(),
    actionSheets: false,
    writeRetryMs: 2_000,
    onBlockWritten: (place, at) => recordBlock(settings, place, at),
  });
  expect(renamed()).toBe(true);
  expect(summary.fatal).toBeFalsy();
  const written = block(s.api, "Lettings", 2, 2, rows.length + 1).values as unknown[][];
  expect(written.map((r) => String(r[MATCHED]).replace(/^'/, ""))).toEqual(rows.map((p) => p.uprn));
  expect((s.api.read("Lettings", `B2:B${rows.length + 1}`).values as unknown[][]).map((r) => r[0])).toEqual(
    rows.map((_p, i) => `T${i}`),
  );
  expect(watchedBlocks(settings)).toEqual([expect.objectContaining({ sheet: "Lettings", sheetId: id })]);
});

test("250 rows inserted above the table while its check runs, and typed into: every result lands on its own row, what the user typed is kept, the run is done", async () => {
  const { s, excelRun } = workbook();
  const rows = sb.dataset().properties.slice(0, 12);
  s.api.seed("Sheet1", "A1", [["UPRN", "Tenant"], ...rows.map((p, i) => [p.uprn, `T${i}`])]);
  s.api.select("Sheet1", "A1");
  // More rows than any window near the header, inserted while the service answers the check's first request.
  const { client, happened: inserted } = clientActingOnce(() => {
    s.api.insertRows("Sheet1", 0, 250);
    s.api.seed("Sheet1", "A1", [["Lettings, autumn"]]);
    s.api.seed("Sheet1", "B120", [["ask about the gas certificate"]]);
  });
  const summary = await runCheck(await prepared(excelRun, { plan }), {
    excelRun,
    client,
    plan,
    store: memoryStore(),
    actionSheets: false,
  });
  expect(inserted()).toBe(true);
  expect(summary.title).toBe("Done");
  // The table's rows are now 252 to 263, under its header on row 251.
  const sheet = s.api.read("Sheet1", `A252:B${251 + rows.length}`).values as unknown[][];
  expect(sheet).toEqual(rows.map((p, i) => [p.uprn, `T${i}`]));
  const written = block(s.api, "Sheet1", 2, 252, 251 + rows.length).values as unknown[][];
  expect(written.map((r) => String(r[MATCHED]).replace(/^'/, ""))).toEqual(rows.map((p) => p.uprn));
  expect(s.api.read("Sheet1", "A1").values[0][0]).toBe("Lettings, autumn");
  expect(s.api.read("Sheet1", "B120").values[0][0]).toBe("ask about the gas certificate");
  // Nothing written above the header: the block's columns of the inserted rows are as the user left them.
  expect((block(s.api, "Sheet1", 2, 1, 250).values as unknown[][]).flat().filter((v) => v !== "")).toEqual([]);
});
