/**
 * Excel Tables (Insert > Table). First the stand-in's model of them, held to what Microsoft documents (a Table's ranges,
 * its columns named by their header cells, TableColumnCollection.add, getTables, a sort that moves only the Table's
 * cells, a filter that hides rows, growth when the user types next to it, structured references in formulas). Then the
 * BUILT task pane (dist/excel) in headless Chromium against the sandbox: a Table named Properties checked, sorted by the
 * user, grown by a typed row, filtered and checked again; every row keeps its own results and Notes, the results are the
 * Table's own columns (`=COUNTIF(Properties[EPC status],"fail")` counts them), and filtered-out rows are neither sent
 * nor written. Between them, the pane's reading of a Table over the sources, and a Table re-checked on open.
 */
import type { Page } from "playwright-core";
import { CHECK_LABELS, OUTPUT_COLUMNS, createClient, outputHeaders } from "../../../core";
import { selectedRowsOutside, tableAtCell, tableResultColumns, tableSelectedOffsets } from "../../../core/sheet/tables";
import { prepareCheck, runCheck, type ExcelRun } from "../../../excel/taskpane/check-run";
import { memoryStore } from "../../../excel/settings";
import { recheckOnOpen } from "../../../excel/taskpane/watch";
import { RECHECK_DAYS, recordBlock, watchedBlocks } from "../../../excel/taskpane/watch-settings";
import { checkResultFor } from "../../../sandbox/dataset";
import { computeSheet, structuredToA1, type TableDef } from "../../helpers/formulas";
import { describeWithChromium } from "../../helpers/chromium";
import { createStandIn } from "../../helpers/excel-standin";
import { sandbox, type Sandbox } from "../../helpers/sandbox";
import { standIn } from "../helpers/stand-in-page";
import { servedPane } from "../helpers/pane";

const W = OUTPUT_COLUMNS.length;

/** A sheet's cells from A1, formulas computed (structured references resolved against the workbook's Tables). */
function computed(api: any, sheet: string): unknown[][] {
  const sheets: Record<string, unknown[][]> = {};
  for (const name of api.sheetNames()) sheets[name] = api.sourceGrid(name);
  return computeSheet(sheets, sheet, { tables: api.tables() as TableDef[] });
}

describe("the stand-in's Excel Tables", () => {
  function lettings() {
    const s = createStandIn();
    const run = (fn: (ctx: any) => Promise<unknown>) => s.Excel.run(fn as never);
    s.api.seed("Lettings", "A1", [
      ["UPRN", "Address", "Notes"],
      ["3", "Flat C", "c"],
      ["1", "Flat A", "a"],
      ["2", "Flat B", "b"],
    ]);
    // Beside the Table, in its rows: cells a Table sort must not move.
    s.api.seed("Lettings", "F1", [["Outside"], ["x3"], ["x1"], ["x2"]]);
    return { s, api: s.api, run };
  }

  test("tables.add names the Table, its ranges and columns are read from it, getTables finds it from a cell", async () => {
    const { api, run } = lettings();
    const out: any = await run(async (ctx) => {
      const t = ctx.workbook.worksheets.getItem("Lettings").tables.add("Lettings!A1:C4", true);
      t.name = "Properties";
      await ctx.sync();
      const p = ctx.workbook.tables.getItem("properties");
      const body = p.getDataBodyRange().load("address");
      const head = p.getHeaderRowRange().load("values");
      const all = p.getRange().load("address");
      p.columns.load("items/name");
      const found = ctx.workbook.worksheets.getItem("Lettings").getRange("B3").getTables(false);
      found.load("items/name");
      const none = ctx.workbook.worksheets.getItem("Lettings").getRange("F2").getTables(false);
      none.load("items/name");
      const count = p.columns.getCount();
      await ctx.sync();
      return {
        body: body.address,
        head: head.values,
        all: all.address,
        cols: p.columns.items.map((c: any) => c.name),
        found: found.items.map((t: any) => t.name),
        none: none.items.length,
        count: count.value,
      };
    });
    expect(out).toEqual({
      body: "Lettings!A2:C4",
      head: [["UPRN", "Address", "Notes"]],
      all: "Lettings!A1:C4",
      cols: ["UPRN", "Address", "Notes"],
      found: ["Properties"],
      none: 0,
      count: 3,
    });
    // Another Table over the same cells, or a bad name, is refused at the sync, as Excel does.
    await expect(
      run(async (ctx) => {
        ctx.workbook.worksheets.getItem("Lettings").tables.add("Lettings!B2:D5", true);
        await ctx.sync();
      }),
    ).rejects.toThrow(/overlap/);
    await expect(
      run(async (ctx) => {
        ctx.workbook.tables.getItem("Properties").name = "My table";
        await ctx.sync();
      }),
    ).rejects.toThrow(/not a valid table name/);
    expect(api.tables()).toEqual([
      { name: "Properties", sheet: "Lettings", r: 0, c: 0, rows: 4, cols: 3, headers: ["UPRN", "Address", "Notes"] },
    ]);
  });

  test("columns.add inserts a named column at the Table's end, shifting what stood right of it in its rows only", async () => {
    const { api, run } = lettings();
    api.seed("Lettings", "D6", [["below"]]);
    await run(async (ctx) => {
      const t = ctx.workbook.worksheets.getItem("Lettings").tables.add("A1:C4", true);
      t.name = "Properties";
      await ctx.sync();
      t.columns.add(null, undefined, "EPC status");
      t.columns.add(null, [["Score"], [1], [2], [3]]);
      await ctx.sync();
    });
    expect(api.tables()[0]).toMatchObject({ cols: 5, headers: ["UPRN", "Address", "Notes", "EPC status", "Score"] });
    expect(api.read("Lettings", "D1:E4").values).toEqual([
      ["EPC status", "Score"],
      ["", 1],
      ["", 2],
      ["", 3],
    ]);
    // "Outside" moved right with its rows; a cell below the Table's rows did not.
    expect(api.read("Lettings", "H1:H4").values).toEqual([["Outside"], ["x3"], ["x1"], ["x2"]]);
    expect(api.read("Lettings", "D6").values).toEqual([["below"]]);
  });

  test("a Table sort moves only the Table's cells; with a filter on, hidden rows stay where they are", async () => {
    const { api, run } = lettings();
    await run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Lettings").tables.add("A1:C4", true).name = "Properties";
      await ctx.sync();
      ctx.workbook.tables.getItem("Properties").sort.apply([{ key: 1, ascending: true }]);
      await ctx.sync();
    });
    expect(api.read("Lettings", "A2:C4").values).toEqual([
      ["1", "Flat A", "a"],
      ["2", "Flat B", "b"],
      ["3", "Flat C", "c"],
    ]);
    expect(api.read("Lettings", "F2:F4").values).toEqual([["x3"], ["x1"], ["x2"]]);
    // Filter out Flat B, sort descending: only the visible rows trade places.
    await run(async (ctx) => {
      const t = ctx.workbook.tables.getItem("Properties");
      t.columns.getItem("Address").filter.applyValuesFilter(["Flat A", "Flat C"]);
      await ctx.sync();
      t.sort.apply([{ key: 1, ascending: false }]);
      await ctx.sync();
    });
    expect(api.hiddenRows("Lettings")).toEqual([2]);
    expect(api.read("Lettings", "A2:C4").values).toEqual([
      ["3", "Flat C", "c"],
      ["2", "Flat B", "b"],
      ["1", "Flat A", "a"],
    ]);
    const hidden = await run(async (ctx) => {
      const r = ctx.workbook.tables.getItem("Properties").getDataBodyRange();
      const rows = [0, 1, 2].map((i) => r.getRow(i).load("rowHidden"));
      await ctx.sync();
      return rows.map((x) => x.rowHidden);
    });
    expect(hidden).toEqual([false, true, false]);
    await run(async (ctx) => {
      ctx.workbook.tables.getItem("Properties").clearFilters();
      await ctx.sync();
    });
    expect(api.hiddenRows("Lettings")).toEqual([]);
  });

  test("typing right below the Table or right of it grows the Table; typing further away does not; a write by code does not", async () => {
    const { api, run } = lettings();
    await run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Lettings").tables.add("A1:C4", true).name = "Properties";
      await ctx.sync();
    });
    api.type("Lettings", "A5:B5", [["4", "Flat D"]]);
    expect(api.tables()[0]).toMatchObject({ rows: 5, cols: 3 });
    api.type("Lettings", "D1", [["Done"]]);
    expect(api.tables()[0]).toMatchObject({ rows: 5, cols: 4, headers: ["UPRN", "Address", "Notes", "Done"] });
    api.type("Lettings", "A8", [["7"]]);
    expect(api.tables()[0]).toMatchObject({ rows: 5, cols: 4 });
    await run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Lettings").getRange("A6").values = [["5"]];
      await ctx.sync();
    });
    expect(api.tables()[0]).toMatchObject({ rows: 5 });
  });

  test("structured references evaluate: a column's data rows, #All, #Headers, a span of columns", () => {
    const s = createStandIn();
    s.api.seed("Lettings", "A1", [
      ["UPRN", "EPC status", "Score"],
      ["1", "fail", 10],
      ["2", "pass", 20],
      ["3", "fail", 30],
    ]);
    return s.Excel.run(async (ctx: any) => {
      ctx.workbook.worksheets.getItem("Lettings").tables.add("A1:C4", true).name = "Properties";
      await ctx.sync();
    }).then(() => {
      const tables = s.api.tables() as TableDef[];
      expect(structuredToA1(`=COUNTIF(Properties[EPC status],"fail")`, tables)).toBe(
        `=COUNTIF('Lettings'!$B$2:$B$4,"fail")`,
      );
      expect(structuredToA1(`=ROWS(Properties[#All])&"[x]"`, tables)).toBe(`=ROWS('Lettings'!$A$1:$C$4)&"[x]"`);
      expect(structuredToA1(`=Properties[[#Headers],[Score]]`, tables)).toBe(`='Lettings'!$C$1:$C$1`);
      expect(structuredToA1(`=SUM(Properties[[EPC status]:[Score]])`, tables)).toBe(`=SUM('Lettings'!$B$2:$C$4)`);
      expect(structuredToA1(`=SUM(Other[Score])`, tables)).toBe(`=SUM(Other[Score])`);
      s.api.seed("Summary", "A1", [[`=COUNTIF(Properties[EPC status],"fail")`, `=SUM(Properties[Score])`]]);
      expect(computed(s.api, "Summary")[0]).toEqual([2, 60]);
      // The Table grows by a typed row: the reference takes it in.
      s.api.type("Lettings", "A5:C5", [["4", "fail", 5]]);
      expect(computed(s.api, "Summary")[0]).toEqual([3, 65]);
    });
  });
});

describe("core's rules for Tables", () => {
  const box = (rowIndex: number, columnIndex: number, rowCount: number, columnCount: number) => ({
    rowIndex,
    columnIndex,
    rowCount,
    columnCount,
  });

  test("the Table holding a cell; the rows a selection means", () => {
    const tables = [
      { name: "North", box: box(0, 0, 10, 4) },
      { name: "South", box: box(12, 0, 5, 4) },
    ];
    expect(tableAtCell(tables, { rowIndex: 3, columnIndex: 2 })?.name).toBe("North");
    expect(tableAtCell(tables, { rowIndex: 13, columnIndex: 0 })?.name).toBe("South");
    expect(tableAtCell(tables, { rowIndex: 10, columnIndex: 0 })).toBeUndefined();
    expect(tableAtCell(tables, { rowIndex: 3, columnIndex: 4 })).toBeUndefined();
    expect(tableSelectedOffsets(box(4, 0, 10, 4), box(6, 1, 1, 1), true)).toEqual([0, 9]);
    expect(tableSelectedOffsets(box(4, 0, 10, 4), box(6, 0, 3, 4), false)).toEqual([2, 4]);
    // A selection running past the Table's last row (whole columns) ends at it.
    expect(tableSelectedOffsets(box(4, 0, 10, 4), box(0, 0, 60, 3), false)).toEqual([0, 9]);
    expect(selectedRowsOutside(box(4, 0, 10, 4), box(0, 0, 60, 3), false)).toBe(50);
    expect(selectedRowsOutside(box(4, 0, 10, 4), box(6, 0, 3, 4), false)).toBe(0);
    expect(selectedRowsOutside(box(4, 0, 10, 4), box(6, 0, 1, 1), true)).toBe(0);
    // The header row selected (a few of its cells): the whole Table, blank rows in it too.
    expect(tableSelectedOffsets(box(4, 0, 10, 4), box(4, 0, 1, 3), false)).toEqual([0, 9]);
    expect(selectedRowsOutside(box(4, 0, 10, 4), box(4, 0, 1, 3), false)).toBe(0);
  });

  test("the results: added at the Table's end, found in place, refused when changed or when a name is taken", () => {
    const mine = ["UPRN", "Address", "Notes"];
    expect(tableResultColumns("Properties", mine)).toEqual({ kind: "add", at: 3, names: outputHeaders() });
    expect(tableResultColumns("Properties", [...mine, ...outputHeaders(), "Done"])).toEqual({ kind: "inPlace", at: 3 });
    const changed = [...mine, ...outputHeaders()];
    changed.splice(8, 0, "My column");
    expect(tableResultColumns("Properties", changed)).toMatchObject({
      kind: "refuse",
      message: expect.stringMatching(/^The results columns of the Table Properties were changed/),
    });
    expect(tableResultColumns("Properties", [...mine, "EPC rating"])).toEqual({
      kind: "refuse",
      message: `The Table Properties already has a column named "EPC rating", which the results need for their own (a Table's column names are unique). Rename it (for example "My EPC rating") and check again.`,
    });
  });
});

describe("the pane's reading of a Table (sources, no service needed)", () => {
  async function workbook(rows: unknown[][]) {
    const s = createStandIn();
    const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
    s.api.seed("Lettings", "A1", rows);
    await excelRun(async (ctx) => {
      ctx.workbook.worksheets.getItem("Lettings").tables.add(`Lettings!A1:C${rows.length}`, true).name = "Properties";
      await ctx.sync();
    });
    return { api: s.api, excelRun };
  }
  const data = [
    ["UPRN", "Address", "Notes"],
    ["100023336956", "10 Downing Street", "n1"],
    ["10033544614", "1 Main Street", "n2"],
  ];

  test("the Table's own cells, not the region around it; rows selected below it are named, not checked", async () => {
    const { api, excelRun } = await workbook(data);
    // A note typed two rows below, not part of the Table, and a column of other data right beside it.
    api.seed("Lettings", "A5:B5", [["200001", "Flat 9"]]);
    api.seed("Lettings", "D1", [["Other"]]);
    api.select("Lettings", "A2:A5");
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (!prep.ok) throw new Error(prep.message);
    expect(prep.check.region).toMatchObject({ rowIndex: 0, columnIndex: 0, rowCount: 3, columnCount: 3 + W });
    expect(prep.check.rows.map((r) => r.index)).toEqual([1, 2]);
    expect(prep.check.placement).toMatch(new RegExp(`^Results: ${W} new columns of the Table Properties`));
    // A5, and the blank A4 between: the Table's rows are checked, and the others are said to be left out.
    expect(prep.check.placement).toMatch(/2 selected rows are outside the Table and were not checked/);
    expect(api.tables()[0].headers).toEqual(["UPRN", "Address", "Notes", ...outputHeaders()]);
    // "Other" moved right with the Table's rows; nothing was written over it.
    expect(api.read("Lettings", `${api.colLetters(3 + W)}1`).values).toEqual([["Other"]]);
  });

  test("changed results columns, or a column of the user's named like ours, are refused with nothing written", async () => {
    const { api, excelRun } = await workbook([
      ["UPRN", "Address", "EPC rating"],
      ["100023336956", "10 Downing Street", "C"],
    ]);
    api.select("Lettings", "A2");
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    expect(prep).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^The Table Properties already has a column named "EPC rating"/),
    });
    expect(api.tables()[0].cols).toBe(3);
  });
});

describe("a Table re-checked when the workbook opens (sources, against the sandbox)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await sandbox(0);
  });
  afterAll(() => sb.close());

  test("found by its own columns and checked in place, the rows it gained since taken in, nothing written beside it", async () => {
    const s = createStandIn();
    const excelRun: ExcelRun = (fn) => s.Excel.run(fn as never);
    const settings = s.Office.context.document.settings;
    const client = createClient({
      baseUrl: sb.baseUrl,
      apiKey: "sandbox-professional",
      fetch: (u, i) => fetch(u, i as RequestInit) as never,
    });
    const deps = {
      excelRun,
      client,
      plan: "professional" as const,
      store: memoryStore(),
      onBlockWritten: (place: Parameters<typeof recordBlock>[1], at: string) => recordBlock(settings, place, at),
      tables: () => watchedBlocks(settings),
    };
    const props = (sb.dataset().properties as any[]).slice(0, 6);
    s.api.seed("Lettings", "A1", [
      ["UPRN", "Address", "Notes"],
      ...props.slice(0, 5).map((p) => [String(p.uprn), p.address_line_1, `note ${p.uprn}`]),
    ]);
    await excelRun(async (ctx) => {
      ctx.workbook.worksheets.getItem("Lettings").tables.add("Lettings!A1:C6", true).name = "Properties";
      await ctx.sync();
    });
    s.api.select("Lettings", "A2");
    const prep = await prepareCheck(excelRun, { plan: "professional" });
    if (!prep.ok) throw new Error(prep.message);
    await runCheck(prep.check, deps);
    // A row typed below the Table since; the workbook opens later with "re-check every time".
    const p6 = props[5];
    s.api.type("Lettings", "A7:C7", [[String(p6.uprn), p6.address_line_1, `note ${p6.uprn}`]]);
    settings.set(RECHECK_DAYS, 0);
    const out = await recheckOnOpen({ ...deps, settings, now: () => Date.now() + 60_000 });
    expect(out).toMatchObject({ due: 1, checked: 1 });
    const [t] = s.api.tables() as TableDef[];
    expect(t).toMatchObject({ rows: 7, cols: 3 + W });
    const grid = s.api.sourceGrid("Lettings") as unknown[][];
    const at = (h: string) => t.headers.indexOf(h);
    for (let r = 1; r < 7; r++) {
      expect(String(grid[r][at("Matched UPRN")])).toBe(String(grid[r][0]));
      expect(grid[r][at("Notes")]).toBe(`note ${grid[r][0]}`);
    }
    expect(grid.every((r) => r.slice(3 + W).every((v) => v === "" || v === null))).toBe(true);
  }, 120_000);
});

const run = describeWithChromium();
const KEY = "sandbox-professional";
const DAY1 = Date.parse("2026-11-20T09:00:00Z");
const DAY2 = Date.parse("2026-11-21T09:00:00Z");

run("the built pane checks an Excel Table", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let page: Page;
  const pageErrors: string[] = [];
  /** The UPRNs of every bulk job the page sent. */
  const sent: string[][] = [];

  beforeAll(async () => {
    sb = await sandbox(0);
    ({ page } = await pane.open({
      context: { viewport: { width: 360, height: 1000 } },
      errors: pageErrors,
      before: (p) => {
        p.on("request", (r) => {
          if (r.method() === "POST" && r.url().startsWith(sb.baseUrl)) {
            const body = JSON.parse(r.postData() ?? "{}");
            if (Array.isArray(body.properties))
              sent.push(body.properties.map((u: { uprn?: string }) => String(u.uprn)));
          }
        });
      },
      // "Checked at" is the page's clock: it runs from a set day, and moves a day on before the second check.
      clock: { time: DAY1, resume: true },
      ready: "runtime",
      settings: { baseUrl: sb.baseUrl, key: KEY },
    }));
  });
  afterAll(async () => {
    await sb?.close();
  });

  const api = (fn: string, ...args: unknown[]) => standIn(page)(fn, ...args);
  const waitIdle = () =>
    page
      .waitForFunction(
        () =>
          !(document.getElementById("check") as HTMLButtonElement).disabled &&
          document.getElementById("cancel")!.hidden,
        undefined,
        { timeout: 30_000 },
      )
      .catch(async (e) => {
        throw new Error(`${e.message}\nstatus: ${await status()}\npage errors: ${pageErrors.join("\n")}`);
      });
  const status = () => page.evaluate(() => document.getElementById("status")!.textContent ?? "");
  async function check(cell: string): Promise<string> {
    await api("select", "Lettings", cell);
    await page.click("#check");
    await page
      .waitForFunction(() => (document.getElementById("check") as HTMLButtonElement).disabled, undefined, {
        timeout: 5_000,
      })
      .catch(() => undefined);
    await waitIdle();
    return status();
  }
  /** A sheet of the page's workbook, formulas computed (structured references resolved). */
  async function pageComputed(sheet: string): Promise<unknown[][]> {
    const sheets: Record<string, unknown[][]> = {};
    for (const name of (await api("sheetNames")) as string[])
      sheets[name] = (await api("sourceGrid", name)) as unknown[][];
    return computeSheet(sheets, sheet, { tables: (await api("tables")) as TableDef[] });
  }
  /** The Table as the user sees it: its header and data rows, by column name. */
  async function table() {
    const [t] = (await api("tables")) as TableDef[];
    const grid = (await api("sourceGrid", "Lettings")) as unknown[][];
    const hidden = new Set((await api("hiddenRows", "Lettings")) as number[]);
    const rows = Array.from({ length: t.rows - 1 }, (_x, i) => t.r + 1 + i).map((r) => ({
      sheetRow: r,
      hidden: hidden.has(r),
      cell: (name: string) => (grid[r] ?? [])[t.c + t.headers.indexOf(name)] ?? "",
    }));
    return { t, rows, grid };
  }

  test("checked, sorted, grown by a typed row, filtered and checked again: each row keeps its own results and Notes", async () => {
    // Twelve properties, several with a failed EPC; Notes and Done are the user's own columns inside the Table.
    const all = sb.dataset().properties as any[];
    const fails = all.filter((p) => checkResultFor(p).checks.epc?.status === "fail").slice(0, 5);
    const others = all.filter((p) => checkResultFor(p).checks.epc?.status !== "fail").slice(0, 8);
    const props = [...fails.slice(0, 4), ...others.slice(0, 7)].sort((a, b) =>
      String(a.uprn).localeCompare(String(b.uprn)),
    );
    const later = fails[4];
    const note = (uprn: string) => `note for ${uprn}`;
    const done = new Map(props.map((p, i) => [String(p.uprn), i % 3 ? "no" : "yes"]));
    done.set(String(later.uprn), "no");
    await api("seed", "Lettings", "A1", [
      ["UPRN", "Address", "Notes", "Done"],
      ...props.map((p) => [String(p.uprn), p.address_line_1, note(String(p.uprn)), done.get(String(p.uprn))]),
    ]);
    await page.evaluate(async (n) => {
      await (window as any).Excel.run(async (ctx: any) => {
        ctx.workbook.worksheets.getItem("Lettings").tables.add(`Lettings!A1:D${n + 1}`, true).name = "Properties";
        await ctx.sync();
      });
    }, props.length);
    // A formula of the user's on another sheet, by structured reference.
    await api("seed", "Summary", "A1", [["EPC fails", `=COUNTIF(Properties[EPC status],"fail")`]]);

    const first = await check("B1");
    expect(first).toMatch(/new columns of the Table Properties/);
    let { t, rows, grid } = await table();
    expect(t.headers).toEqual(["UPRN", "Address", "Notes", "Done", ...outputHeaders()]);
    expect(t.rows).toBe(props.length + 1);
    // Nothing outside the Table: no second block right of it.
    expect(grid.every((r) => r.slice(t.c + t.cols).every((v) => v === "" || v === null))).toBe(true);
    for (const r of rows) {
      expect(String(r.cell("Matched UPRN"))).toBe(String(r.cell("UPRN")));
      expect(r.cell("Notes")).toBe(note(String(r.cell("UPRN"))));
      expect(r.cell("Done")).toBe(done.get(String(r.cell("UPRN"))));
    }
    const epcFails = (rs: typeof rows) => rs.filter((r) => r.cell("EPC status") === "fail").length;
    expect(epcFails(rows)).toBe(4);
    expect((await pageComputed("Summary"))[0][1]).toBe(4);
    expect(sent.flat().sort()).toEqual(props.map((p) => String(p.uprn)).sort());

    // The user sorts the Table by Address, Z to A: the results move with their rows.
    await api("sortTable", "Properties", "Address", false);
    ({ rows } = await table());
    expect(rows.map((r) => r.cell("Address"))).toEqual(
      [...props.map((p) => p.address_line_1)].sort((a, b) => b.localeCompare(a, undefined, { sensitivity: "base" })),
    );
    for (const r of rows) {
      expect(String(r.cell("Matched UPRN"))).toBe(String(r.cell("UPRN")));
      expect(r.cell("Notes")).toBe(note(String(r.cell("UPRN"))));
      expect(r.cell("Done")).toBe(done.get(String(r.cell("UPRN"))));
    }

    // A row typed right below the Table becomes the Table's; then the user filters Done to "no".
    await api("type", "Lettings", `A${props.length + 2}:D${props.length + 2}`, [
      [String(later.uprn), later.address_line_1, note(String(later.uprn)), "no"],
    ]);
    await api("filterTable", "Properties", "Done", ["no"]);
    ({ t, rows } = await table());
    expect(t.rows).toBe(props.length + 2);
    const hidden = rows.filter((r) => r.hidden);
    const shown = rows.filter((r) => !r.hidden);
    expect(hidden.length).toBe(4);
    const before = new Map(hidden.map((r) => [r.sheetRow, OUTPUT_COLUMNS.map((c) => r.cell(c.header))]));

    // The second check, a day later, from one cell of the Table's header row.
    sent.length = 0;
    await page.clock.setSystemTime(DAY2);
    const second = await check("A1");
    expect(second).toMatch(/updated in place in the Table Properties/);
    ({ t, rows, grid } = await table());
    expect(t.headers).toEqual(["UPRN", "Address", "Notes", "Done", ...outputHeaders()]);
    expect(grid.every((r) => r.slice(t.c + t.cols).every((v) => v === "" || v === null))).toBe(true);
    // Sent: the rows on show, the typed one among them; not the filtered-out ones.
    expect(sent.flat().sort()).toEqual(shown.map((r) => String(r.cell("UPRN"))).sort());
    expect(sent.flat()).toContain(String(later.uprn));
    for (const r of rows) {
      expect(String(r.cell("Matched UPRN"))).toBe(String(r.cell("UPRN")));
      expect(r.cell("Notes")).toBe(note(String(r.cell("UPRN"))));
      expect(r.cell("Done")).toBe(done.get(String(r.cell("UPRN"))));
      const at = String(r.cell("Checked at (UTC)"));
      // Written: the rows on show, with the second day; the hidden rows exactly as they were.
      if (r.hidden) expect(OUTPUT_COLUMNS.map((c) => r.cell(c.header))).toEqual(before.get(r.sheetRow));
      else expect(at.startsWith("2026-11-21")).toBe(true);
    }
    expect(hidden.every((r) => String(r.cell("Checked at (UTC)")).startsWith("2026-11-20"))).toBe(true);
    expect(epcFails(rows)).toBe(5);
    expect((await pageComputed("Summary"))[0][1]).toBe(epcFails(rows));
    // The Compliance summary counts the Table by its columns' names: the same count, and rows it gains later too.
    const sum = (await api("sourceGrid", "Compliance summary")) as unknown[][];
    const head = sum.findIndex((r) => r[0] === "Check");
    const epc = sum.findIndex((r, i) => i > head && r[0] === CHECK_LABELS.epc);
    const fail = sum[head].indexOf("fail");
    expect(sum[epc][fail]).toBe(`=COUNTIF(Properties[EPC status],"fail")`);
    expect((await pageComputed("Compliance summary"))[epc][fail]).toBe(epcFails(rows));
    expect(pageErrors).toEqual([]);
  });
});
