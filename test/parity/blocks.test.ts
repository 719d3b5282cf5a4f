/**
 * The same table finds the same rows and results block in Excel and Google Sheets, where the two once decided apart:
 * a block without a header row found again by its rows, trailing blank rows, input columns inside the block, a table
 * below another, a title row above the header. Both ask core's planTable; how each scenario runs is in hosts.ts.
 */
import { EDITED_BLOCK_NOTE, outputHeaders } from "../../core";
import { MATCHED, MESSAGE, W, colLetters, column, parityScenarios, sandboxUprns, type Scenario } from "./sheet-model";

/** Where the table and the results block are, decided by core's planTable in both add-ins: the cases they once decided apart. */
function blockScenarios(): Scenario[] {
  const u = sandboxUprns;
  const noHeader = () =>
    u()
      .slice(0, 3)
      .map((x, i) => [x, `n${i}`]);
  const byHand = { mapping: { uprn: "A" }, hasHeader: false };
  return [
    {
      name: "no header row, checked, then the block re-checked with a row added below: found by its rows (core's findBlockByShape) and updated in place, the new row too",
      group: "blocks",
      grid: noHeader,
      steps: () => [
        { select: "A1:A3", ...byHand },
        { change: [{ type: { at: "A4", values: [[u()[3], "n3"]] } }], select: "A1:A4", ...byHand },
      ],
      said: [/^/, new RegExp(`Results are updated in place in columns C:${colLetters(2 + W - 1)}\\.`)],
      expect: (g) => {
        expect(column(g, 2, MATCHED, 1, 4)).toEqual(u().slice(0, 4));
        expect(g.slice(0, 4).every((r) => r.slice(2 + W).every((v) => v === ""))).toBe(true);
      },
    },
    {
      name: "no header row, checked, then a column of the user's inserted inside the block: the block is left as it is (core's findEditedBlockByShape) and fresh results go one blank column after its whole width",
      group: "blocks",
      grid: noHeader,
      steps: [
        { select: "A1:A3", ...byHand },
        {
          change: [{ insertColumnBefore: "D" }, { type: { at: "D1", values: [["mine"], ["mine"], ["mine"]] } }],
          select: "A1:A3",
          ...byHand,
        },
      ],
      said: [
        /^/,
        new RegExp(
          `${EDITED_BLOCK_NOTE.replace(/[()]/g, "\\$&")}\nResults go in columns ${colLetters(4 + W)}:${colLetters(3 + 2 * W)}, after the last column in use`,
        ),
      ],
      expect: (g) => {
        expect(g.slice(0, 3).map((r) => r[3])).toEqual(["mine", "mine", "mine"]);
        expect(column(g, 4 + W, MATCHED, 1, 3)).toEqual(u().slice(0, 3));
        expect(g.slice(0, 3).every((r) => r[3 + W] === "")).toBe(true);
      },
    },
    {
      name: "trailing rows of a selection: a row with only a note in it is the table's (its Message says what is missing), the blank rows after it are left out and counted",
      group: "blocks",
      grid: () => [
        ["UPRN", "Notes"],
        ...u()
          .slice(0, 3)
          .map((x, i) => [x, `n${i}`]),
        [],
        ["", "ask the landlord"],
        [],
        [],
        ["", "", "", "a note further right, below"],
      ],
      steps: [{ select: "A2:B8" }],
      said: [/Checked rows 2–6: the selected rows below 6 are empty and were left out\./],
      expect: (g) => {
        expect(column(g, 2, MATCHED, 2, 4)).toEqual(u().slice(0, 3));
        expect(column(g, 2, MESSAGE, 6, 6)[0]).not.toBe("");
        expect(g.slice(6, 8).every((r) => r.slice(4, 4 + W).every((v) => v === ""))).toBe(true);
      },
    },
    {
      name: "columns chosen by hand inside the results block (its Matched UPRN taken for the UPRN): refused in both add-ins with core's words, nothing written",
      group: "blocks",
      grid: () => [
        ["Ref", "Town"],
        ...u()
          .slice(0, 3)
          .map((x) => [x, "Leeds"]),
      ],
      steps: () => [
        { select: "A2:A4", mapping: { uprn: "A" } },
        { select: "A2:A4", mapping: { uprn: colLetters(2 + MATCHED) } },
      ],
      refused: [/The chosen input columns overlap the results block at C; choose other columns\./],
      expect: (g) => {
        expect(g[0].slice(2, 2 + W)).toEqual(outputHeaders());
        expect(column(g, 2, MATCHED, 2, 4)).toEqual(u().slice(0, 3));
        expect(g[0].filter((v) => v === outputHeaders()[0])).toHaveLength(1);
      },
    },
    {
      name: "empty cells selected below the table: refused in both add-ins with core's words, nothing written",
      group: "blocks",
      grid: () => [
        ["UPRN"],
        ...u()
          .slice(0, 3)
          .map((x) => [x]),
      ],
      steps: [{ select: "A1:A4" }, { select: "A10:B12" }],
      refused: [/^Nothing to check in A10:B12, the cells you selected: no UPRN, postcode or address there\./],
      expect: (g) => {
        expect(column(g, 1, MATCHED, 2, 4)).toEqual(u().slice(0, 3));
        expect(g.slice(4).every((r) => r.every((v) => v === ""))).toBe(true);
      },
    },
    {
      name: "a table below another with one blank row between: a selection across both checks the upper one and says so; the lower one's header row then checks it alone",
      group: "blocks",
      grid: () => [
        ["UPRN", "Notes"],
        ...u()
          .slice(0, 3)
          .map((x, i) => [x, `a${i}`]),
        [],
        ["UPRN", "Notes"],
        ...u()
          .slice(3, 6)
          .map((x, i) => [x, `b${i}`]),
      ],
      steps: [{ select: "A2:B9" }, { select: "A6:B6" }],
      said: [
        /Checked rows 2–4: the selection runs into another table \(its header is row 6\), which is left as it is\./,
        /You selected the header row, so the whole table is checked: rows 7–9\./,
      ],
      expect: (g) => {
        expect(column(g, 2, MATCHED, 2, 4)).toEqual(u().slice(0, 3));
        expect(g[4].every((v) => v === "")).toBe(true);
        expect(g[5].slice(2, 2 + W)).toEqual(outputHeaders());
        expect(column(g, 2, MATCHED, 7, 9)).toEqual(u().slice(3, 6));
      },
    },
    {
      name: "a title row above a header that names none of our columns, the UPRN column chosen by hand and rows mid-table selected: the header row under the title gets the results' headers, the title is left alone",
      group: "blocks",
      grid: () => [
        ["Portfolio: North"],
        ["Ref", "Town"],
        ...u()
          .slice(0, 4)
          .map((x) => [x, "Leeds"]),
      ],
      steps: [{ select: "A4:B5", mapping: { uprn: "A" } }],
      expect: (g) => {
        expect(g[0].slice(0, 3)).toEqual(["Portfolio: North", "", ""]);
        expect(g[0].slice(2).every((v) => v === "")).toBe(true);
        expect(g[1].slice(2, 2 + W)).toEqual(outputHeaders());
        expect(column(g, 2, MATCHED, 3, 6)).toEqual(["", u()[1], u()[2], ""]);
      },
    },
  ];
}

parityScenarios("blocks", blockScenarios());
