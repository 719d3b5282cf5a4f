/**
 * Rows that no longer show their own property's result (core movedRows and resultPrint), the one rule both add-ins
 * apply before each write: a result follows its property when only the input columns were sorted, a row whose result
 * is still to come is marked again, and a row the user changed, or that this run did not write, is left alone.
 */
import {
  OUTPUT_COLUMNS,
  checkingRow,
  formatTimestamp,
  movedRows,
  outputRow,
  resultPrint,
  serviceError,
  unreadableInput,
  type CheckResult,
  type RowAsRead,
  type RunWritten,
} from "../../../core";

const AT = "2026-11-25T10:00:00.000Z";
const EARLIER = "2026-11-20T09:00:00.000Z";
const MESSAGE = OUTPUT_COLUMNS.findIndex((c) => c.key === "message");
const MATCHED = OUTPUT_COLUMNS.findIndex((c) => c.key === "matched_uprn");

function result(uprn: string): CheckResult {
  return {
    uprn,
    address: `${uprn.slice(-2)} Test Street, London`,
    postcode: "SW1A 2AA",
    compliance_score: 80,
    risk_level: "low",
    checks: {},
    last_updated: "2026-11-01T00:00:00Z",
  } as unknown as CheckResult;
}

/** The block row this run writes for a UPRN (at AT, or another time). */
const shown = (uprn: string, at = AT) => outputRow({ result: result(uprn) }, at, undefined);

/** What the run wrote: a row for each UPRN in `wrote`, still to come for those in `pending`. */
function run(wrote: string[], pending: string[] = []): RunWritten {
  const prints = new Map(wrote.map((u) => [u, resultPrint(shown(u))]));
  return {
    stamped: (s) => s === formatTimestamp(AT),
    printFor: (k) => prints.get(k),
    prints: new Set(prints.values()),
    pending: new Set(pending),
  };
}

test("only the input columns sorted: each row's result is copied from the row that shows its property's", () => {
  const rows: RowAsRead[] = [
    { key: "3", cells: shown("1") },
    { key: "1", cells: shown("2") },
    { key: "2", cells: shown("3") },
  ];
  expect(movedRows(rows, run(["1", "2", "3"]))).toEqual([
    { row: 0, kind: "copy", from: 2 },
    { row: 1, kind: "copy", from: 0 },
    { row: 2, kind: "copy", from: 1 },
  ]);
});

test("rows that show their own property's result are left alone", () => {
  const rows: RowAsRead[] = [
    { key: "1", cells: shown("1") },
    { key: "2", cells: shown("2") },
  ];
  expect(movedRows(rows, run(["1", "2"]))).toEqual([]);
});

test("a row beside a property still to come is marked Checking… again; one beside an unknown input says it changed", () => {
  const rows: RowAsRead[] = [
    { key: "9", cells: shown("1") },
    { key: "7", cells: shown("2") },
  ];
  const fixes = movedRows(rows, run(["1", "2"], ["9"]));
  expect(fixes).toEqual([
    { row: 0, kind: "checking", key: "9" },
    { row: 1, kind: "changed" },
  ]);
});

test("a row whose property's result no row shows any more says it changed, not another property's result", () => {
  const rows: RowAsRead[] = [{ key: "2", cells: shown("1") }];
  expect(movedRows(rows, run(["1", "2"]))).toEqual([{ row: 0, kind: "changed" }]);
});

test("a row still Checking… whose property's result was written elsewhere takes it; one whose result is to come waits", () => {
  const checking = outputRow({ result: result("5") }, AT, undefined).map((v, i) => (i === MESSAGE ? "Checking…" : ""));
  const rows: RowAsRead[] = [
    { key: "1", checking: true, cells: checking },
    { key: "5", checking: true, cells: checking },
    { key: "6", cells: shown("1") },
  ];
  expect(movedRows(rows, run(["1"], ["5", "6"]))).toEqual([
    { row: 0, kind: "copy", from: 2 },
    { row: 2, kind: "checking", key: "6" },
  ]);
});

test("rows this run did not write, rows whose result the user typed over and cleared rows are left alone", () => {
  const typedOver = shown("1");
  typedOver[MATCHED] = "n/a";
  const cleared = shown("1").map(() => "");
  const rows: RowAsRead[] = [
    { key: "2", cells: shown("1", EARLIER) },
    { key: "2", cells: typedOver },
    { cells: cleared },
  ];
  expect(movedRows(rows, run(["1", "2"]))).toEqual([]);
});

test("rows of one property whose Messages differ (a duplicate's note, the user's words) are not taken for moved rows", () => {
  const copy = shown("1");
  copy[MESSAGE] = "Same property as row 2: checked once.";
  const noted = shown("2");
  noted[MESSAGE] = "Landlord says the new certificate is in the post";
  const rows: RowAsRead[] = [
    { key: "1", cells: shown("1") },
    { key: "1", cells: copy },
    { key: "2", cells: noted },
  ];
  expect(movedRows(rows, run(["1", "2"]))).toEqual([]);
});

test("an error names no property: a row beside another row's error says it changed, and takes only its own error; an unreadable input says why again", () => {
  const error = (why: string) => outputRow({ error: serviceError("not_found", "not_found", why) }, AT, undefined);
  const wrote = run(["1"]);
  const printFor = (k: string) => (k === "404" ? resultPrint(error("x")) : wrote.printFor(k));
  const errors: RunWritten = { ...wrote, printFor, prints: new Set([...wrote.prints, resultPrint(error("x"))]) };
  const rows: RowAsRead[] = [
    { key: "1", cells: error("No property has UPRN 404.") },
    { key: "404", cells: shown("1") },
    { key: "!bad", checking: true, cells: shown("1").map((v, i) => (i === MESSAGE ? "Checking…" : "")) },
  ];
  expect(movedRows(rows, errors)).toEqual([
    { row: 0, kind: "copy", from: 1 },
    { row: 1, kind: "changed" },
    { row: 2, kind: "unreadable", error: unreadableInput("bad") },
  ]);
});

test("words typed over a row's Checking… mark stay while its result is still to come", () => {
  // A mark is written with no Checked at (checkingRow): nothing in it is a stamp of this run.
  const typed = checkingRow(undefined, AT, "run-1");
  typed[MESSAGE] = "Chased the landlord on Monday";
  expect(movedRows([{ key: "5", cells: typed }], run(["1"], ["5"]))).toEqual([]);
});

test("a row beside a property still to come that shows another row's error is marked Checking… again", () => {
  const error = outputRow(
    { error: serviceError("not_found", "not_found", "No property has UPRN 404.") },
    AT,
    undefined,
  );
  const wrote: RunWritten = { ...run(["1"], ["5"]), printFor: (k) => (k === "404" ? resultPrint(error) : undefined) };
  const rows: RowAsRead[] = [
    { key: "5", cells: error },
    { key: "404", checking: true, cells: checkingRow(undefined, AT, "run-1") },
  ];
  expect(movedRows(rows, wrote)).toEqual([
    { row: 0, kind: "checking", key: "5" },
    { row: 1, kind: "changed" },
  ]);
});

test("a cleared input beside a result this run wrote says it changed", () => {
  expect(movedRows([{ cells: shown("1") }], run(["1"]))).toEqual([{ row: 0, kind: "changed" }]);
});

test("a print reads a cell as either host gives it back: a text marker, a number for digits, spaces", () => {
  const written = shown("100023336956");
  const asNumber = written.slice();
  asNumber[MATCHED] = 100023336956;
  const asText = written.slice();
  asText[MATCHED] = "'100023336956 ";
  expect(resultPrint(asNumber)).toBe(resultPrint(written));
  expect(resultPrint(asText)).toBe(resultPrint(written));
  expect(resultPrint(written)).toHaveLength(6);
  expect(resultPrint(shown("100023336957"))).not.toBe(resultPrint(written));
});
