/**
 * Large writes to Excel: core packs the rows into requests by their measured size (core/sheet/write-chunks.ts), and the task
 * pane's writeOutputRows sends them to the Excel stand-in, which refuses a request over 5 MB as Excel on the web does.
 */
import { outputRow, type CheckResult } from "../../../core";
import { EXCEL_REQUEST_BUDGET_BYTES, packWriteChunks, requestFloor, utf8Bytes } from "../../../core/sheet/write-chunks";
import { writeOutputRows } from "../../../excel/taskpane/sheet";
import { buildDatasetFor, checkResultFor } from "../../../sandbox/dataset";
import { createStandIn } from "../../helpers/excel-workbook";

/** The stand-in's limit: 5 MiB, the larger reading of Excel's "5 MB" (core budgets against the smaller). */
const STANDIN_LIMIT = 5 * 1024 * 1024;

test("rows are packed in order, each request filled to the budget, a run cut where a request is full", () => {
  const chunks = packWriteChunks(
    [
      [0, 9],
      [20, 24],
    ],
    () => 100,
    { budgetBytes: 1000, pieceOverheadBytes: 50 },
  );
  expect(chunks.map((c) => c.pieces.map((p) => [p.start, p.end]))).toEqual([
    [[0, 8]],
    [
      [9, 9],
      [20, 24],
    ],
  ]);
  for (const c of chunks) expect(c.bytes).toBeLessThanOrEqual(1000);
  expect(chunks[1].bytes).toBe(50 + 100 + 50 + 500);
  // A row larger than a request still goes, alone.
  expect(
    packWriteChunks([[0, 2]], (i) => (i === 1 ? 5000 : 10), { budgetBytes: 1000, pieceOverheadBytes: 0 }).map((c) =>
      c.pieces.map((p) => [p.start, p.end]),
    ),
  ).toEqual([[[0, 0]], [[1, 1]], [[2, 2]]]);
  expect(packWriteChunks([], () => 1)).toEqual([]);
});

test("sizes are counted in UTF-8 bytes, as the request carries them", () => {
  expect(utf8Bytes("abc")).toBe(3);
  expect(utf8Bytes("£5 – é")).toBe(Buffer.byteLength("£5 – é"));
  expect(utf8Bytes("🏠")).toBe(4);
  // Runs of them, pairs back to back, and one after a long ASCII stretch: each character counted once, as UTF-8 has it.
  for (const text of [
    "a🏠b£–🏠🏠é",
    "🏠🏠",
    "££",
    `${"x".repeat(5000)}é`,
    JSON.stringify(["Flat 2, Cwrt – Pen-y-bryn", 12]),
  ])
    expect(utf8Bytes(text)).toBe(Buffer.byteLength(text));
});

test("20,000 result rows reach the sheet in syncs within 1.5x the floor (bytes / 5 MB), none over the limit", async () => {
  const ds = buildDatasetFor(new Date("2026-11-22T00:00:00Z"));
  // 2,000 properties' rows, each written ten times over: the sizes of real rows, without making 20,000 of them.
  const rows = ds.properties
    .slice(0, 2000)
    .map((p) => outputRow({ result: checkResultFor(p) as CheckResult }, "2026-11-22T10:00:00Z"));
  const block = Array.from({ length: 20_000 }, (_, i) => rows[i % rows.length]);
  const s = createStandIn();
  const stats = await s.Excel.run((ctx: Excel.RequestContext) =>
    writeOutputRows(ctx, { sheet: "Sheet1", rowIndex: 1, columnIndex: 4 }, block, block.keys()),
  );
  const st = s.api.state.stats;
  const floor = requestFloor(st.totalBytes, STANDIN_LIMIT);
  expect(floor).toBeGreaterThanOrEqual(4);
  expect(st.syncs).toBe(stats.syncs);
  expect(stats.syncs).toBeLessThanOrEqual(Math.floor(1.5 * floor));
  expect(st.maxRequestBytes).toBeLessThanOrEqual(EXCEL_REQUEST_BUDGET_BYTES);
  // Core's measure of each request is at least what the stand-in counted: the budget is kept by the real bytes.
  expect(stats.maxChunkBytes).toBeGreaterThanOrEqual(st.maxRequestBytes);
  // Every row is on the sheet, the last one too.
  expect(s.api.read("Sheet1", "E20001").values[0][0]).toBe(block[19_999][0]);
  expect(s.api.read("Sheet1", "E2").values[0][0]).toBe(block[0][0]);
}, 30_000);

test("the stand-in refuses a request over 5 MB and applies none of it, as Excel on the web does", async () => {
  const s = createStandIn();
  const big = "x".repeat(1000);
  const run = s.Excel.run(async (ctx: Excel.RequestContext) => {
    ctx.workbook.worksheets.getItem("Sheet1").getRangeByIndexes(0, 0, 5300, 1).values = Array.from(
      { length: 5300 },
      () => [big],
    );
    await ctx.sync();
  });
  await expect(run).rejects.toThrow(/RequestPayloadSizeLimitExceeded/);
  expect(s.api.read("Sheet1", "A1").values[0][0]).toBe("");
});
