/**
 * What polls and re-runs write, through the BUILT Code.js: kept dates stay dates, only the rows being
 * updated are written (a user's formula between them survives), a sheet without a header row keeps one
 * block when rows are added below, and results follow their rows however many rows are inserted above the table.
 */
import { OUTPUT_COLUMNS, columnNumberFormats } from "../../../core";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { cellValue, configure, outputCol, pollToEnd, runWords, seedTable } from "../harness/table";
import { columnLetter } from "../../helpers/columns";

const W = OUTPUT_COLUMNS.length;
const colLetters = columnLetter;
const DATE_KEYS = OUTPUT_COLUMNS.filter((c) => c.kind === "date" || c.kind === "datetime").map((c) => c.key);

const sandbox = sandboxForFile({ msPerProperty: 2 }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(100);
});

const isDate = (v: unknown): v is Date => Object.prototype.toString.call(v) === "[object Date]";

/** Every date and timestamp cell of a row, as instants (a Date read back) or as the text found there. */
function dateCells(env: GasEnvironment, row: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of DATE_KEYS) {
    const v = cellValue(env.sheet, row, outputCol(env.sheet, k));
    out[k] = isDate(v) ? v.getTime() : v;
  }
  return out;
}

describe("re-runs keep date and timestamp cells as they were", () => {
  // A zone far from UTC: a date formatted in the wrong zone moves to another day, a timestamp by hours.
  const zone = "Asia/Kolkata";

  test("Stop right after a re-run starts: kept dates and timestamps are the same instants, not JSON text", async () => {
    const env = createGasEnvironment();
    env.spreadsheet.timeZone = zone;
    configure(env, sandbox);
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(0, 5).map((p) => [p.uprn]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const before = dateCells(env, firstRow);
    expect(Object.values(before).filter((v) => typeof v === "number").length).toBeGreaterThanOrEqual(3);
    // Every column of the block has core's number format, as in Excel: Checked at stays the text written, dates are dates.
    const start = outputCol(env.sheet, OUTPUT_COLUMNS[0].key);
    expect(env.sheet.getRange(firstRow, start, 1, W).getNumberFormats()[0]).toEqual(columnNumberFormats());

    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    expect(env.run("cancelBulkCheck").phase).toBe("stopped");
    expect(dateCells(env, firstRow)).toEqual(before);
    // The stopped row keeps its values and waits for Resume (its job was sent: Resume collects it, no new job).
    expect(String(cellValue(env.sheet, firstRow, outputCol(env.sheet, "message")))).toMatch(
      /Choose Resume to collect it/,
    );
  });

  test("a failed job on a re-run keeps the earlier dates of its rows", async () => {
    const env = createGasEnvironment();
    env.spreadsheet.timeZone = zone;
    configure(env, sandbox);
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN"],
      props.slice(5, 10).map((p) => [p.uprn]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    const before = dateCells(env, lastRow);

    await sandbox.setFaults([{ kind: "job_fail", count: 1 }]);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    await pollToEnd(env);
    expect(String(cellValue(env.sheet, lastRow, outputCol(env.sheet, "message")))).toMatch(
      /Values are from the previous check/,
    );
    expect(dateCells(env, lastRow)).toEqual(before);
    const texts = env.sheet
      .peek(firstRow, 2, lastRow - firstRow + 1, W)
      .flat()
      .filter((v) => typeof v === "string");
    expect(texts.filter((t) => (t as string).includes('"'))).toEqual([]);
  });
});

describe("a poll writes only the rows it updates", () => {
  test("valid rows between rows with input errors: the error rows are not rewritten, a user's formula there survives", async () => {
    const env = createGasEnvironment();
    configure(env, sandbox);
    // Valid and invalid rows alternate: each results page updates rows with untouched rows between them.
    const rows = Array.from({ length: 11 }, (_v, i) => [i % 2 === 0 ? props[20 + i].uprn : "not a uprn"]);
    const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN"], rows);
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    const score = outputCol(env.sheet, "compliance_score");
    // The user puts a formula in the error rows' score cells while the check runs.
    for (let r = firstRow + 1; r <= lastRow; r += 2) env.sheet.seed(r, score, [["=1+1"]]);

    const writtenRows = new Set<number>();
    let maxSetValues = 0;
    const mark = env.log.mark();
    await pollToEnd(env, (writes) => {
      maxSetValues = Math.max(maxSetValues, writes.filter((w) => w === "Range.setValues").length);
    });
    for (const c of env.log.since(mark).filter((c) => c.method === "setValues" && c.sheet === "Sheet1")) {
      const [, r1, r2] = /^[A-Z]+(\d+)(?::[A-Z]+(\d+))?$/.exec(c.a1!)!;
      for (let r = Number(r1); r <= Number(r2 ?? r1); r++) writtenRows.add(r);
    }
    for (let r = firstRow; r <= lastRow; r++) expect([r, writtenRows.has(r)]).toEqual([r, (r - firstRow) % 2 === 0]);
    for (let r = firstRow + 1; r <= lastRow; r += 2) expect(env.sheet.cell(r, score)?.formula).toBe("=1+1");
    expect(maxSetValues).toBeLessThanOrEqual(10);
    expect(String(cellValue(env.sheet, lastRow, outputCol(env.sheet, "matched_uprn")))).toBe(props[30].uprn);
  });

  test("rows scattered over more bands than a poll may write: calls stay bounded, the rows between keep formulas and values", async () => {
    const env = createGasEnvironment();
    configure(env, sandbox);
    const rows = Array.from({ length: 81 }, (_v, i) => [i % 2 === 0 ? props[i / 2].uprn : "bad"]);
    const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN"], rows);
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    const score = outputCol(env.sheet, "compliance_score");
    const msg = outputCol(env.sheet, "message");
    for (let r = firstRow + 1; r <= lastRow; r += 2) env.sheet.seed(r, score, [["=1+1"]]);
    const errorText = cellValue(env.sheet, firstRow + 1, msg);

    await pollToEnd(env, (writes, calls) => {
      expect(writes.filter((w) => w === "Range.setValues").length).toBeLessThanOrEqual(10);
      expect(calls).toBeLessThan(60);
    });
    for (let r = firstRow + 1; r <= lastRow; r += 2) {
      expect(env.sheet.cell(r, score)?.formula).toBe("=1+1");
      expect(cellValue(env.sheet, r, msg)).toBe(errorText);
    }
    expect(String(cellValue(env.sheet, lastRow, outputCol(env.sheet, "matched_uprn")))).toBe(props[40].uprn);
  });
});

describe("no header row: rows added below", () => {
  test("checking the new rows 11–20 after 1–10 updates the one block; colour rules do not pile up", async () => {
    const env = createGasEnvironment();
    configure(env, sandbox);
    env.sheet.seed(
      1,
      1,
      props.slice(50, 60).map((p) => [p.uprn]),
    );
    env.sheet.select("A1:A10");
    const first = env.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(first.progress.outputA1).toBe(`B1:${colLetters(1 + W)}10`);
    await pollToEnd(env);
    const rules = env.sheet.rules.length;

    env.sheet.seed(
      11,
      1,
      props.slice(60, 70).map((p) => [p.uprn]),
    );
    env.sheet.select("A11:A20");
    const second = env.run("startBulkCheck", { mapping: { uprn: "A" } });
    expect(second.ok).toBe(true);
    expect(second.progress.outputA1).toBe(`B11:${colLetters(1 + W)}20`);
    await pollToEnd(env);
    expect(env.sheet.rules.length).toBe(rules);
    // The sheet grew once to fit the block, not per run, and nothing was written right of the block.
    expect(env.sheet.maxCols).toBe(Math.max(26, 1 + W));
    if (env.sheet.maxCols > 1 + W)
      expect(
        env.sheet
          .peek(1, 2 + W, 20, env.sheet.maxCols - 1 - W)
          .flat()
          .every((v) => v === ""),
      ).toBe(true);
    const uprn = 2 + OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn");
    expect(String(cellValue(env.sheet, 1, uprn))).toBe(props[50].uprn);
    expect(String(cellValue(env.sheet, 20, uprn))).toBe(props[69].uprn);
  });
});

describe("rows inserted above the table while it is checked", () => {
  test("250 rows inserted above the header mid-run, and typed into: every result lands on its own row, what the user typed is kept, the run is done", async () => {
    const env = createGasEnvironment();
    configure(env, sandbox);
    const ps = props.slice(0, 12);
    const { firstRow, lastRow } = seedTable(
      env.sheet,
      ["UPRN", "Landlord"],
      ps.map((p, i) => [p.uprn, `Landlord ${i}`]),
    );
    env.sheet.select(`A${firstRow}:A${lastRow}`);
    expect(env.run("startBulkCheck", {}).ok).toBe(true);
    const head = firstRow - 1;
    const was = outputCol(env.sheet, "matched_uprn", head);
    expect(String(cellValue(env.sheet, lastRow, outputCol(env.sheet, "message", head)))).toMatch(/^Checking/);

    // More rows than any window near the header: a title, a note among the new rows, and a landlord changed.
    env.sheet.insertRowsBefore(1, 250);
    env.sheet.seed(1, 1, [["Lettings, autumn"]]);
    env.sheet.seed(120, 2, [["ask about the gas certificate"]]);
    const moved = 250 + firstRow;
    env.sheet.seed(moved + 3, 2, [["Landlord 3 (new)"]]);
    const last = (await pollToEnd(env)).pop();

    expect(last.phase).toBe("done");
    expect(runWords(last)).toMatch(/^Done\b/);
    const uprn = outputCol(env.sheet, "matched_uprn", 250 + head);
    expect(uprn).toBe(was);
    const rows = ps.map((_p, i) => [
      String(cellValue(env.sheet, moved + i, 1)),
      String(cellValue(env.sheet, moved + i, uprn)),
    ]);
    expect(rows).toEqual(ps.map((p) => [p.uprn, p.uprn]));
    expect(ps.map((_p, i) => cellValue(env.sheet, moved + i, 2))).toEqual(
      ps.map((_p, i) => (i === 3 ? "Landlord 3 (new)" : `Landlord ${i}`)),
    );
    expect(cellValue(env.sheet, 1, 1)).toBe("Lettings, autumn");
    expect(cellValue(env.sheet, 120, 2)).toBe("ask about the gas certificate");
    // Nothing was written where the table stood before the rows went in, nor anywhere above its header now.
    const block = outputCol(env.sheet, OUTPUT_COLUMNS[0].key, moved - 1);
    expect(
      env.sheet
        .peek(1, block, moved - 2, W)
        .flat()
        .every((v) => v === ""),
    ).toBe(true);
  });
});
