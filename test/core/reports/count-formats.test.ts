/**
 * The number format core gives each count the add-ins write into sheets (COUNT_FORMAT, "#,##0": "2,500" as the words
 * write it): every column of the Run log that holds a count, and every number the Compliance summary shows, computed
 * by a real formula engine, except the average score (a score of 0 to 100, not a count).
 */
import {
  COUNT_FORMAT,
  RUN_LOG_HEADERS,
  blockProperties,
  buildSummary,
  detectUserColumns,
  formatCount,
  lastCheckedAt,
  outputHeaders,
  outputRow,
  parseCheckResult,
  runLogNumberFormats,
  type Cell,
  type TableCount,
} from "../../../core";
import { buildDatasetFor, checkResultFor } from "../../../sandbox/dataset";
import { computeSheet } from "../../helpers/formulas";

const NOW = new Date("2027-01-31T09:30:00Z");
const TODAY = "2027-01-31";

test("COUNT_FORMAT groups as formatCount does", () => {
  expect(COUNT_FORMAT).toBe("#,##0");
  expect(formatCount(2500)).toBe("2,500");
});

test("the Run log: its seven count columns under COUNT_FORMAT, the rest General", () => {
  const formats = runLogNumberFormats();
  expect(formats).toHaveLength(RUN_LOG_HEADERS.length);
  expect(RUN_LOG_HEADERS.filter((_h, i) => formats[i] === COUNT_FORMAT)).toEqual([
    "Rows",
    "Checked",
    "Changed",
    "Worse",
    "Errors",
    "Requests used",
    "Quota left",
  ]);
  expect(new Set(formats.filter((f) => f !== COUNT_FORMAT))).toEqual(new Set(["General"]));
});

test("the Compliance summary: every number it shows is a count under COUNT_FORMAT but the average score; words General", () => {
  const rows: Cell[][] = [["UPRN", "Address", ...outputHeaders()]];
  for (const p of buildDatasetFor(NOW).properties.slice(0, 300)) {
    const parsed = parseCheckResult(JSON.parse(JSON.stringify(checkResultFor(p))));
    if (!parsed.ok) throw new Error(parsed.message);
    rows.push([p.uprn, p.address, ...outputRow({ result: parsed.value }, NOW.toISOString())]);
  }
  const props = blockProperties(rows.slice(1), {
    blockColumn: 2,
    uprn: 0,
    address: 1,
    user: detectUserColumns(rows[0]),
    dates: { monthFirst: false, today: TODAY },
  });
  const block = { sheet: "Portfolio", column: 2, firstRow: 1, lastRow: rows.length - 1 };
  const tables: TableCount[] = [
    {
      id: "t1",
      label: "Portfolio",
      found: true,
      properties: 300,
      demo: 0,
      overdue: 4,
      open: 9,
      later: 20,
      closed: 1,
      kept: 0,
    },
  ];
  const summary = buildSummary(block, props, {
    today: TODAY,
    asOf: lastCheckedAt(props),
    tables,
    doneWithoutEvidence: 2,
  });
  expect(summary.numberFormats.map((r) => r.length)).toEqual(summary.cells.map((r) => r.length));
  const values = computeSheet({ Portfolio: rows, Summary: summary.cells }, "Summary");
  const average = summary.cells.findIndex((r) => r[0] === "Average score");
  const wrong: unknown[] = [];
  let counts = 0;
  values.forEach((r, i) =>
    r.forEach((v, j) => {
      const format = summary.numberFormats[i][j];
      const want = typeof v === "number" && i !== average ? COUNT_FORMAT : "General";
      if (want === COUNT_FORMAT) counts++;
      if (format !== want) wrong.push({ row: i, column: j, cell: summary.cells[i][j], value: v, format });
    }),
  );
  expect(wrong).toEqual([]);
  expect(counts).toBeGreaterThan(100);
  expect(typeof values[average][1]).toBe("number");
});
