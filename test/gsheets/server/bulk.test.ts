/**
 * The bulk check as Apps Script runs it: the BUILT Code.js in a vm, real HTTP to the sandbox, the sheet in
 * memory. 2,500 rows on a Professional key, bad and duplicate rows, and writes that stay per poll, not per row.
 */
import type { GasEnvironment } from "../harness/gas";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { API_KEY, STATUS_KEYS, cellValue, expectedFill, outputCol, pollToEnd, seedTable } from "../harness/table";
import { OUTPUT_COLUMNS, outputHeaders } from "../../../core";
import { configuredEnv } from "../../helpers/gsheets-results";

// 5 ms a property: a job outlasts the start call even on a busy machine (the polls pass the time on the test clock).
const sandbox = sandboxForFile({ msPerProperty: 5 }, { resetEach: true });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(3000);
});

test("2,500 rows on a Professional key: 3 jobs, every row written, coloured by rule, bounded writes per poll", async () => {
  const env = configuredEnv(sandbox);
  const rows = props.slice(0, 2500).map((p) => [p.uprn, p.postcode, p.address, "my note"]);
  const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN", "Postcode", "Address", "Notes"], rows);
  env.sheet.select(`A${firstRow}:D${lastRow}`);

  const startMark = env.log.mark();
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.jobIds).toHaveLength(3);
  expect(start.progress.properties).toBe(2500);
  // The run's property list is written once to the hidden sheet that keeps it for Resume: counted apart.
  const all = env.log.writesSince(startMark);
  const listSheet = (c: { sheet?: string; method: string }) =>
    c.sheet === "Compliance run data" || c.method === "insertSheet";
  const startWrites = all.filter((c) => !listSheet(c)).map((c) => `${c.target}.${c.method}`);
  expect(all.filter(listSheet).map((c) => `${c.target}.${c.method}`)).toEqual([
    "Spreadsheet.insertSheet",
    "Sheet.hideSheet",
    "Range.setNumberFormat",
    "Range.setValues",
  ]);
  // headers, bold, one number format call per format core gives the block (text, date, general), colour rules, and ONE
  // block write of every row
  expect(startWrites.filter((w) => w === "Range.setValues")).toHaveLength(2);
  expect(startWrites.filter((w) => w === "RangeList.setNumberFormat")).toHaveLength(3);
  expect(startWrites.length).toBeLessThanOrEqual(8);

  const polls = await pollToEnd(env, (writes, calls) => {
    expect(writes.filter((w) => w !== "Range.setValues")).toEqual([]);
    // One setValues per run of consecutive rows updated; each results page is one run, so at most one per job.
    expect(writes.length).toBeLessThanOrEqual(3);
    expect(calls).toBeLessThan(60);
  });
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("done");
  expect(last.propertiesDone).toBe(2500);
  expect(last.rowsWritten).toBeGreaterThanOrEqual(2500);

  const stats = await sandbox.stats();
  expect(stats.bulk_submit).toBe(3);
  expect(stats.by_status["429"] ?? 0).toBe(0);

  // The user's column is untouched; our block starts after it, headed by core's headers.
  expect(cellValue(env.sheet, 1, 4)).toBe("Notes");
  expect(cellValue(env.sheet, 2, 4)).toBe("my note");
  expect(env.sheet.peek(1, 5, 1, OUTPUT_COLUMNS.length)[0]).toEqual(outputHeaders());

  const uprnCol = outputCol(env.sheet, "matched_uprn");
  for (const i of [0, 1, 999, 1000, 1999, 2000, 2499]) {
    const row = firstRow + i;
    expect(String(cellValue(env.sheet, row, uprnCol))).toBe(props[i].uprn);
    for (const [key, check] of STATUS_KEYS) {
      const col = outputCol(env.sheet, key);
      const value = cellValue(env.sheet, row, col);
      expect(value).toBe(props[i].checks[check].status);
      expect(env.sheet.effectiveFill(row, col)).toBe(expectedFill(value));
    }
  }
  expect(env.sheet.formulas()).toEqual([]);
  // Apps Script's 6-minute limit: every call is short.
  expect(Math.max(...env.durations.map((d) => d.ms))).toBeLessThan(30000);
});

test("invalid and duplicate rows: per-row messages before anything is sent, duplicates checked once", async () => {
  const env = configuredEnv(sandbox);
  const good = props.slice(0, 5);
  const rows: unknown[][] = [
    [good[0].uprn, "", ""],
    ["12345678901234", "", ""], // too many digits
    ["", "NOT A POSTCODE", "1 High Street"],
    [good[1].uprn, "", ""],
    [good[0].uprn, "", ""], // duplicate of the first row
    ["", "", ""], // blank inside the selection
    ["", good[2].postcode, good[2].address],
    ['\'=HYPERLINK("http://x")', "", ""], // text that looks like a formula must stay text in our block
    [good[3].uprn, "", ""],
  ];
  const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN", "Postcode", "Address line 1"], rows);
  env.sheet.select(`A${firstRow}:C${lastRow}`);

  const before = env.fetches.length;
  const start = env.run("startBulkCheck", {});
  expect(start.ok).toBe(true);
  expect(start.progress.invalidRows).toBe(4);
  expect(start.progress.duplicateRows).toBe(1);
  expect(start.progress.properties).toBe(4);
  // Only the valid, distinct properties were sent.
  const submit = env.fetches.slice(before).find((f) => f.method === "POST")!;
  expect(submit).toBeDefined();

  const msg = outputCol(env.sheet, "message");
  const epc = outputCol(env.sheet, "epc_status");
  // Errors are at their rows as soon as the check starts.
  expect(String(cellValue(env.sheet, firstRow + 1, msg))).toMatch(/UPRN/);
  expect(String(cellValue(env.sheet, firstRow + 2, msg))).toMatch(/postcode/i);
  expect(String(cellValue(env.sheet, firstRow + 5, msg))).toMatch(/No UPRN or postcode/);
  expect(String(cellValue(env.sheet, firstRow + 7, msg))).toMatch(/UPRN/);
  expect(cellValue(env.sheet, firstRow + 1, epc)).toBe("error");
  expect(env.sheet.effectiveFill(firstRow + 1, epc)).toBe(expectedFill("error"));

  await pollToEnd(env);
  const stats = await sandbox.stats();
  expect(stats.bulk_submit).toBe(1);
  const uprnCol = outputCol(env.sheet, "matched_uprn");
  expect(String(cellValue(env.sheet, firstRow, uprnCol))).toBe(good[0].uprn);
  expect(String(cellValue(env.sheet, firstRow + 4, uprnCol))).toBe(good[0].uprn);
  expect(String(cellValue(env.sheet, firstRow + 4, msg))).toMatch(new RegExp(`row ${firstRow}`));
  expect(String(cellValue(env.sheet, firstRow + 6, uprnCol))).toBe(good[2].uprn);
  expect(cellValue(env.sheet, firstRow + 6, epc)).toBe(good[2].checks.epc.status);
  // Still errors after the run: no row silently dropped or overwritten.
  expect(cellValue(env.sheet, firstRow + 1, epc)).toBe("error");
  expect(env.sheet.formulas()).toEqual([]);
});

test("re-run updates the block in place, never piles up colour rules, and never touches a user's column", async () => {
  const env = configuredEnv(sandbox);
  const rows = props.slice(10, 30).map((p) => [p.uprn]);
  const { firstRow, lastRow } = seedTable(env.sheet, ["UPRN"], rows);
  env.sheet.select(`A${firstRow}:A${lastRow}`);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  await pollToEnd(env);
  const rulesAfterFirst = env.sheet.rules.length;
  const blockCol = outputCol(env.sheet, "compliance_score");
  expect(blockCol).toBe(2);

  // The user adds their own column right of our block, then re-runs.
  const userCol = blockCol + OUTPUT_COLUMNS.length;
  env.sheet.maxCols = Math.max(env.sheet.maxCols, userCol + 2);
  env.sheet.seed(1, userCol, [["Owner"], ["Alice"]]);
  expect(env.run("startBulkCheck", {}).ok).toBe(true);
  await pollToEnd(env);
  expect(outputCol(env.sheet, "compliance_score")).toBe(blockCol);
  expect(env.sheet.rules.length).toBe(rulesAfterFirst);
  expect(cellValue(env.sheet, 1, userCol)).toBe("Owner");
  expect(cellValue(env.sheet, 2, userCol)).toBe("Alice");
  expect(headerRow(env).filter((h) => h === "Compliance score")).toHaveLength(1);
});

function headerRow(env: GasEnvironment) {
  return env.sheet.peek(1, 1, 1, env.sheet.maxCols)[0];
}

test("the API key stays in user properties: never in the sheet, a log, a result or other stores", async () => {
  const env = configuredEnv(sandbox);
  seedTable(
    env.sheet,
    ["UPRN"],
    props.slice(0, 3).map((p) => [p.uprn]),
  );
  env.sheet.select("A2:A4");
  const results = [env.run("getSidebarState"), env.run("startBulkCheck", {})];
  await pollToEnd(env, (_w, _c, p) => results.push(p));
  const everything = JSON.stringify({
    results,
    sheet: env.sheet.peek(1, 1, 10, env.sheet.maxCols),
    logs: env.consoleLines,
    doc: [...env.documentProperties.data],
    script: [...env.scriptProperties.data],
    cache: [...env.userCache.data],
  });
  expect(everything).not.toContain(API_KEY);
  expect(env.userProperties.data.get("compliance.apiKey")).toBe(API_KEY);
  expect(results[0].settings.maskedKey).not.toContain(API_KEY);
  expect(env.fetches.every((f) => f.headers.Authorization === `Bearer ${API_KEY}`)).toBe(true);
});
