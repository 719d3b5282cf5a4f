/**
 * The BUILT add-in's day-counting functions in headless Chromium against the sandbox over loopback:
 * - for Scottish and Welsh properties, =COMPLIANCE.PROPERTY's card, NEXTACTION and DUE say what the results block the
 *   pane writes for the same property says (its country from the matched address's postcode, the block's rule);
 * - in a workbook left open past local midnight (the page's clock injected), the shared runtime recalculates once and the
 *   functions then count from the new day.
 */
import type { Page } from "playwright-core";
import {
  countryOf,
  daysBetween,
  nextObligation,
  outputHeaders,
  parseCheckResult,
  serialDate,
  type CheckResult,
} from "../../../core";
import { localDay } from "../../../excel/taskpane/stored";
import { checkResultFor } from "../../../sandbox/dataset";
import { describeWithChromium } from "../../helpers/chromium";
import { TEST_DAY, dayClock, noonOn } from "../../helpers/clock";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { standIn } from "../helpers/stand-in-page";
import { servedPane } from "../helpers/pane";

const KEY = "sandbox-professional";
const H = outputHeaders();
const run = describeWithChromium();

type Cell = { v?: any; code?: string; message?: string };

run("the built functions: the block's country, and a new day", () => {
  let sb: Sandbox;
  const pane = servedPane();
  beforeAll(async () => {
    // The register made for TEST_DAY, on a clock from its noon; each page's clock is set on that day too.
    sb = await startTestSandbox({ today: TEST_DAY, now: dayClock().date });
  });
  afterAll(async () => {
    await sb?.close();
  });

  const openPane = (before?: (page: Page) => Promise<void>) =>
    pane.open({ before, ready: "functions", settings: { baseUrl: sb.baseUrl, key: KEY } });

  /** What each cell shows: a value (entities and formatted numbers as they are), or the error's code and message. */
  const call = (page: Page, fn: string, ...args: unknown[]) =>
    page.evaluate(
      ([f, a]) =>
        (window as any).__excelStandIn.state.customFunctions[f](...a).then(
          (v: unknown) => ({ v }),
          (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
        ),
      [fn, args] as const,
    ) as Promise<Cell>;

  const resultOf = (p: ReturnType<Sandbox["dataset"]>["properties"][number]): CheckResult => {
    const r = parseCheckResult(JSON.parse(JSON.stringify(checkResultFor(p))));
    if (!r.ok) throw new Error(r.message);
    return r.value;
  };
  const countryIs = (postcode: string, c: string) => {
    const a = countryOf(postcode);
    return a.kind === "country" && a.country === c;
  };

  test("Scottish and Welsh properties: the card, NEXTACTION and DUE say what the block's row says, not England's rules", async () => {
    const today = TEST_DAY;
    const props = sb.dataset().properties;
    const englandAction = (p: (typeof props)[number]) => nextObligation(resultOf(p), { today })?.action;
    const pick = (what: string, f: (p: (typeof props)[number]) => boolean) => {
      const p = props.find(f);
      if (!p) throw new Error(`no sandbox property: ${what}`);
      return p;
    };
    const scotEpc = pick(
      "Scottish, EPC F or G, which England's rules would put first",
      (p) => countryIs(p.postcode, "Scotland") && /Cannot be let/.test(englandAction(p) ?? ""),
    );
    const scotEicr = pick(
      "Scottish, EICR action first",
      (p) =>
        countryIs(p.postcode, "Scotland") &&
        p !== scotEpc &&
        nextObligation(resultOf(p), { today, country: "Scotland" })?.check === "eicr",
    );
    const welsh = pick(
      "Welsh, an action England words otherwise",
      (p) =>
        countryIs(p.postcode, "Wales") &&
        nextObligation(resultOf(p), { today, country: "Wales" })?.action !== englandAction(p),
    );
    const picked = [scotEpc, scotEicr, welsh];

    const { page, errors } = await openPane((p) => p.clock.install({ time: noonOn() }));
    // The pane's own check over a table of UPRNs: the block takes each row's country from the matched address.
    await page.evaluate(
      (uprns) => {
        const x = (window as any).__excelStandIn;
        x.seed("Sheet1", "A1", [["UPRN"], ...uprns.map((u) => [u])]);
        x.select("Sheet1", `A1:A${uprns.length + 1}`);
      },
      picked.map((p) => p.uprn),
    );
    await page.click("#check");
    await page.waitForFunction(() => /^Done/.test(document.getElementById("status")!.textContent ?? ""), undefined, {
      timeout: 60_000,
    });
    const block = (await standIn(page)<{ values: unknown[][] }>("read", "Sheet1", "B1:BZ4")).values;
    const at = (row: number, header: string) => block[row][H.indexOf(header)];
    expect(block[0].slice(0, H.length)).toEqual(H);

    for (const [i, p] of picked.entries()) {
      const row = i + 1;
      const action = at(row, "Next action");
      const due = at(row, "Action due");
      expect(action).toBeTruthy();
      const card = (await call(page, "PROPERTY", p.uprn)).v;
      expect(card.properties["Next action"].basicValue).toBe(action);
      expect(card.properties["Window"].basicValue).toBe(at(row, "Window"));
      expect((await call(page, "NEXTACTION", p.uprn)).v).toBe(action);
      const d = await call(page, "DUE", p.uprn);
      if (due === "" || due === null) {
        expect(d.code).toBe("#N/A");
        expect(card.properties["Action due"].basicValue).toBe("");
      } else {
        expect(d.v.basicValue).toBe(due);
        expect(card.properties["Action due"].basicValue).toBe(due);
      }
      // One spilled row of COMPLIANCE.CHECK: the same action.
      const spilled = (await call(page, "CHECK", p.uprn)).v[0];
      expect(spilled[H.indexOf("Next action")]).toBe(action);
    }
    // The cases the rules tell apart: Scotland has no minimum EPC for lets; Wales words its actions for Wales.
    expect(at(1, "Next action")).not.toMatch(/Cannot be let/);
    expect(englandAction(scotEpc)).toMatch(/Cannot be let/);
    expect(at(2, "Next action")).not.toMatch(/Below C/);
    expect(at(3, "Next action")).not.toBe(englandAction(welsh));
    // A typed Country settles it the other way, as a Country column does for the block.
    expect((await call(page, "NEXTACTION", scotEpc.uprn, "England")).v).toBe(englandAction(scotEpc));
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test("left open past local midnight: one full recalculation, then the card, NEXTACTION and DUE count from the new day", async () => {
    // Two minutes before the computer's local midnight at the end of TEST_DAY, on the page's injected clock.
    const beforeMidnight = new Date(noonOn() + (11 * 60 + 58) * 60_000);
    const { page, errors } = await openPane((p) => p.clock.install({ time: beforeMidnight }));
    // An English property whose most urgent action is dated well ahead, so the new day moves only its days left.
    const today = localDay(beforeMidnight.getTime());
    expect(today).toBe(TEST_DAY);
    const { uprn } = sb.dataset().properties.find((p) => {
      const next = nextObligation(resultOf(p), { today, country: "England" });
      return countryIs(p.postcode, "England") && !!next?.due && daysBetween(today, next.due) > 40;
    })!;
    const pageDay = () =>
      page.evaluate(() => {
        const d = new Date();
        return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
      });
    const calculations = () => page.evaluate(() => (window as any).__excelStandIn.state.stats.calculations as number);
    const shown = async () => {
      const card = (await call(page, "PROPERTY", uprn)).v;
      const due = (await call(page, "DUE", uprn)).v.basicValue as number;
      return {
        due: serialDate(due)!,
        daysLeft: card.properties["Days left"].basicValue as number,
        cardDue: serialDate(card.properties["Action due"].basicValue)!,
        action: (await call(page, "NEXTACTION", uprn)).v as string,
      };
    };
    const day1 = await pageDay();
    const before = await shown();
    expect(before.cardDue).toBe(before.due);
    expect(before.daysLeft).toBe(daysBetween(day1, before.due));
    const calculated = await calculations();
    const requests = sb.stats().total;

    await page.clock.runFor(3 * 60_000);
    const day2 = await pageDay();
    expect(daysBetween(day1, day2)).toBe(1);
    await page.waitForFunction((c) => (window as any).__excelStandIn.state.stats.calculations > c, calculated);
    expect(await calculations()).toBe(calculated + 1);
    expect(await page.evaluate(() => (window as any).__excelStandIn.state.lastCalculation)).toBe("Full");

    const after = await shown();
    expect(after.due).toBe(before.due);
    expect(after.daysLeft).toBe(daysBetween(day2, after.due));
    expect(after.daysLeft).toBe(before.daysLeft - 1);
    // The new day's count came from the cached answer: no request.
    expect(sb.stats().total).toBe(requests);
    // An hour later on the same day: no further recalculation.
    await page.clock.runFor(60 * 60_000);
    expect(await calculations()).toBe(calculated + 1);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
