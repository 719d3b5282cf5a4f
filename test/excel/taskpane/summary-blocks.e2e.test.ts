/**
 * The Compliance summary's live formulas in the BUILT task pane (headless Chromium, the Excel stand-in, the real
 * sandbox over loopback), over one, two and three checked tables (two on one sheet, one on another): after each check,
 * every formula, computed by a real formula engine over the workbook's cells, equals the count of the blocks' own cells.
 */
import type { Page } from "playwright-core";
import { MEMBERS, OUTPUT_COLUMNS, WINDOWS } from "../../../core";
import { computeSheet, type TableDef } from "../../helpers/formulas";
import { standIn as callStandIn } from "../helpers/stand-in-page";
import { describeWithChromium } from "../../helpers/chromium";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { paneWaits, servedPane } from "../helpers/pane";

const run = describeWithChromium();

run("the summary over several tables in the built pane", () => {
  let sb: Sandbox;
  const pane = servedPane();
  let page: Page;
  const pageErrors: string[] = [];
  const standIn = <T>(fn: string, ...args: unknown[]) => callStandIn(page)<T>(fn, ...args);
  const { waitText, waitIdle } = paneWaits(() => page, pageErrors);

  beforeAll(async () => {
    sb = await startTestSandbox({ today: "2027-01-31" });
    ({ page } = await pane.open({
      errors: pageErrors,
    }));
  });
  afterAll(async () => {
    await sb?.close();
  });

  test("after each of three tables is checked, every summary formula equals the count of the blocks' cells", async () => {
    await page.fill("#base-url", sb.baseUrl);
    await page.click("#save-base-url");
    await waitText("settings-status", /^Base URL saved\.$/);
    await page.fill("#api-key", "sandbox-professional");
    await page.click("#save-key");
    await waitText("settings-status", /^Key saved and accepted/);

    const ps = sb.dataset().properties;
    const table = (from: number, n: number) => [
      ["UPRN", "Address"],
      ...ps.slice(from, from + n).map((p) => [p.uprn, p.address]),
    ];
    // Two tables on Sheet1 (the second below the first, after blank rows) and one on Other: [sheet, header row, rows].
    const tables: [string, number, number][] = [
      ["Sheet1", 1, 60],
      ["Sheet1", 65, 45],
      ["Other", 1, 50],
    ];
    const width = 2 + OUTPUT_COLUMNS.length;
    const col = (key: string) => 2 + OUTPUT_COLUMNS.findIndex((x) => x.key === key);
    for (let n = 1; n <= tables.length; n++) {
      const [sheet, at, rows] = tables[n - 1];
      await standIn("seed", sheet, `A${at}`, table(n * 100, rows));
      await standIn("select", sheet, `A${at}`);
      await page.click("#check");
      await waitText("status", /Done/);
      await waitIdle();

      const grids: Record<string, unknown[][]> = {};
      for (const name of ["Sheet1", "Other", "Compliance summary"])
        grids[name] = (await standIn<unknown[][] | null>("sourceGrid", name)) ?? [[]];
      const body = tables
        .slice(0, n)
        .flatMap(([s, a, r]) => grids[s].slice(a, a + r).map((row) => row.slice(0, width)));
      expect(body).toHaveLength(tables.slice(0, n).reduce((s, t) => s + t[2], 0));
      const count = (key: string, word: string) => body.filter((r) => r[col(key)] === word).length;
      const values = computeSheet(grids, "Compliance summary", {
        tables: await standIn<TableDef[]>("tables"),
      });
      const rowOf = (label: string) => values.findIndex((r) => r[0] === label);
      const status = rowOf("Check");
      expect(MEMBERS.map((_m, i) => values[status + 1 + i].slice(1, 7))).toEqual(
        MEMBERS.map(([, key]) => [
          count(key, "pass"),
          count(key, "warning"),
          count(key, "fail"),
          count(key, "not_required"),
          count(key, "error") + count(key, "unknown"),
          body.length,
        ]),
      );
      const levels = ["low", "medium", "high"].map((l) => count("risk_level", l));
      const risk = rowOf("Risk level");
      expect(values.slice(risk + 1, risk + 5).map((r) => r.slice(0, 2))).toEqual([
        ["low", levels[0]],
        ["medium", levels[1]],
        ["high", levels[2]],
        ["other / none", body.length - levels[0] - levels[1] - levels[2]],
      ]);
      const scores = body.map((r) => r[col("compliance_score")]).filter((v): v is number => typeof v === "number");
      expect(values[risk + 5][1]).toBeCloseTo(scores.reduce((s, v) => s + v, 0) / scores.length, 9);
      const w = rowOf("Window");
      expect(values.slice(w + 1, w + 1 + WINDOWS.length).map((r) => r.slice(0, 2))).toEqual(
        WINDOWS.map((name) => [name, count("window", name)]),
      );
      const formulas = grids["Compliance summary"].flat().filter((v) => typeof v === "string" && v.startsWith("="));
      expect(formulas).toHaveLength(MEMBERS.length * 6 + 5 + WINDOWS.length);
    }
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
