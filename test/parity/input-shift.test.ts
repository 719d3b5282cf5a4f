/**
 * core/sheet/input-shift.ts: where a run's input columns are after a column was inserted or deleted during the check. Excel
 * (excel/taskpane/rows-now.ts) and Sheets (gsheets/server/sheetrun.ts) both call it before every write.
 */
import { inputShiftNow, normaliseProperty, shiftMapping } from "../../core";

const U = ["100023336956", "100065691929", "100072641322"];
const keys = new Set(U.map((u) => normaliseProperty(u, undefined, undefined).key!));
const all = () => true;

describe("inputShiftNow", () => {
  test("a column inserted left of both the input (B) and the block: the input moved with the block", () => {
    // was: Ref | UPRN | block...; now: new | Ref | UPRN | block...
    const rows = U.map((u, i) => ["", `r${i}`, u]);
    expect(inputShiftNow(rows, { uprn: 1 }, 1, all, keys)).toBe(1);
    expect(shiftMapping({ uprn: 1, postcode: 2 }, 1)).toEqual({ uprn: 2, postcode: 3 });
  });

  test("a column inserted between the input and the block: the input stayed", () => {
    const rows = U.map((u, i) => [`r${i}`, u, "typed by the user"]);
    expect(inputShiftNow(rows, { uprn: 1 }, 1, all, keys)).toBe(0);
  });

  test("a column deleted left of both: the input moved left with the block", () => {
    const rows = U.map((u) => [u]);
    expect(inputShiftNow(rows, { uprn: 1 }, -1, all, keys)).toBe(-1);
  });

  test("the input cannot move left of column A; only rows still waiting count; a tie keeps the input where it was", () => {
    expect(
      inputShiftNow(
        U.map((u) => [u]),
        { uprn: 0 },
        -1,
        all,
        keys,
      ),
    ).toBe(0);
    const rows = U.map((u) => ["", u]);
    expect(inputShiftNow(rows, { uprn: 0 }, 1, () => false, keys)).toBe(0);
    expect(inputShiftNow(rows, { uprn: 0 }, 1, (i) => i === 0, keys)).toBe(1);
    expect(inputShiftNow([[U[0], U[1]]], { uprn: 0 }, 1, all, keys)).toBe(0);
  });
});
