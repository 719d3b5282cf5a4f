/**
 * The same sheet gets the same grid in Excel and in Google Sheets. Each scenario (scenarios.ts) seeds one grid, then
 * selects and checks one or more times in both add-ins (hosts.ts: the built task pane in Chromium over the Excel
 * stand-in, and the built Code.js in the Sheets stand-in, each against a sandbox on loopback); the two sheets must then
 * hold the same cells. Both add-ins decide the table, its header, the rows checked and the results block with
 * core/sheet. Dates and times are compared as days. tables.test.ts and rows.test.ts run a group each, so two jest
 * workers share them; blocks.test.ts adds scenarios of its own.
 */
import { chromiumAvailable } from "../helpers/chromium";
import { AT, colLetters, dayIn, inExcel, inSheets, resetSandboxes, start, stop } from "./hosts";
import { scenarios, type Scenario } from "./scenarios";

export { MATCHED, MESSAGE, W, colLetters, sandboxUprns } from "./hosts";
export { column, type Scenario } from "./scenarios";

/**
 * The scenarios of one group, each run in both add-ins: the same grid, the same words, the same marks as the first
 * submit leaves. The browser, the pane's server and both sandboxes are started once for the file that calls this.
 */
export function parityScenarios(group: Scenario["group"], more: Scenario[] = []): void {
  const run = chromiumAvailable("parity suite over the built pane") ? describe : describe.skip;
  run("the same grid in Excel and Google Sheets", () => {
    beforeAll(start);
    afterAll(stop);
    test.each([...scenarios, ...more].filter((s) => s.group === group).map((s) => [s.name, s] as const))(
      "%s",
      async (_name, s) => {
        const steps = typeof s.steps === "function" ? s.steps() : s.steps;
        await resetSandboxes();
        // The two add-ins run side by side, each on its own sandbox: the pane mostly waits on Chromium while the Sheets
        // stand-in works in this process. Both end before the next scenario resets the sandboxes, even when one fails.
        const [excelRun, sheetsRun] = await Promise.allSettled([inExcel(s.grid(), steps), inSheets(s.grid(), steps)]);
        if (excelRun.status === "rejected") throw excelRun.reason;
        if (sheetsRun.status === "rejected") throw sheetsRun.reason;
        const excel = excelRun.value;
        const sheets = sheetsRun.value;
        for (const refused of [excel.refused, sheets.refused]) {
          expect(refused).toHaveLength(s.refused?.length ?? 0);
          for (const [i, pattern] of (s.refused ?? []).entries()) expect(refused[i]).toMatch(pattern);
        }
        const brief = (g: string[][]) =>
          g
            .map(
              (r, i) =>
                `${i + 1}: ${r.slice(0, 6).join("|")} || ${r
                  .map((v, c) =>
                    v === "Matched UPRN" ||
                    /^\d{12}$/.test(v) ||
                    (c % 1 === 0 && /Same|changed|not valid|No UPRN/.test(v))
                      ? `${c}:${v.slice(0, 30)}`
                      : "",
                  )
                  .filter(Boolean)
                  .join(" ")}`,
            )
            .join("\n");
        if (process.env.SHOW_GRIDS) {
          const diff = excel.grid.flatMap((r, i) =>
            r.flatMap((v, c) =>
              v === sheets.grid[i][c] ? [] : [`${colLetters(c)}${i + 1}: excel=${v} sheets=${sheets.grid[i][c]}`],
            ),
          );
          console.log(
            `EXCEL\n${brief(excel.grid)}\nSHEETS\n${brief(sheets.grid)}\nSAID ${JSON.stringify([excel.said, sheets.said, excel.refused, sheets.refused])}\nDIFF\n${diff.join("\n")}`,
          );
        }
        s.expect(excel.grid);
        for (const [i, pattern] of (s.said ?? []).entries()) {
          expect(excel.said[i]).toMatch(pattern);
          expect(sheets.said[i]).toMatch(pattern);
        }
        expect(sheets.grid).toEqual(excel.grid);
        // The checks' day shows as a day (Checked at, among others), so a date a day out in one add-in fails above.
        expect(excel.grid.flat().filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v))).toContain(dayIn(new Date(AT)));
        // A run begins in one order in both (core/run/begin.ts): its rows are marked before its first submit leaves.
        expect(excel.atFirstSubmit.some((r) => r.some((v) => /^Checking/.test(v)))).toBe(true);
        const untagged = (g: string[][]) => g.map((r) => r.map((v) => v.replace(/\(run [0-9a-z]{5};/, "(run <tag>;")));
        expect(untagged(sheets.atFirstSubmit)).toEqual(untagged(excel.atFirstSubmit));
      },
    );
  });
}
