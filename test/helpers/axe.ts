/**
 * axe-core in a page under test: injects Deque's rules engine (the npm axe-core package) and runs the WCAG 2.0/2.1
 * A and AA rules. Returns the serious and critical violations in a readable form, so a failing test names the rule,
 * the element and axe's own help text.
 */
import * as fs from "fs";
import type { Page } from "playwright-core";

const AXE_SOURCE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Every serious or critical WCAG 2.1 AA violation on the page as it is now, plus how many rules passed (to show it ran). */
export async function axeSeriousViolations(page: Page): Promise<{ violations: AxeFinding[]; passes: number }> {
  if (!(await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === "object"))) {
    await page.addScriptTag({ content: AXE_SOURCE });
  }
  const result = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: any }).axe;
    const r = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return {
      passes: r.passes.length,
      violations: r.violations.map((v: any) => ({
        rule: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.map(
          (n: any) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ").trim() ?? ""}`,
        ),
      })),
    };
  }, WCAG_TAGS);
  if (process.env.AXE_ALL) return result;
  return {
    passes: result.passes,
    violations: result.violations.filter((v: AxeFinding) => v.impact === "serious" || v.impact === "critical"),
  };
}

export interface TabStop {
  /** id, or tag and text when the control has no id. */
  id: string;
  /** The accessible name axe computes (what a screen reader says). */
  name: string;
  /** The focus indicator is drawn: an outline or a box shadow while the control has focus. */
  focusShown: boolean;
  top: number;
}

/**
 * Walks the page with the Tab key from the top, as a keyboard user would, until focus leaves the page or comes back
 * round. Returns each stop, and the controls a keyboard user should reach (visible, enabled, tabbable) in DOM order.
 */
export async function tabWalk(page: Page, maxStops = 120): Promise<{ stops: TabStop[]; expected: string[] }> {
  if (!(await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === "object"))) {
    await page.addScriptTag({ content: AXE_SOURCE });
  }
  const expected = await page.evaluate(() => {
    const sel = "a[href], button, input, select, textarea, summary, [tabindex]";
    const label = (el: Element) => el.id || `${el.tagName.toLowerCase()}:${(el.textContent ?? "").trim().slice(0, 30)}`;
    return [...document.querySelectorAll<HTMLElement>(sel)]
      .filter(
        (el) =>
          el.tabIndex >= 0 &&
          !(el as HTMLButtonElement).disabled &&
          el.getClientRects().length > 0 &&
          getComputedStyle(el).visibility !== "hidden",
      )
      .filter((el) => !el.closest("details:not([open])") || el.matches("details > summary"))
      .map(label);
  });
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
    (window as unknown as { axe: any }).axe.setup(document);
  });
  // A click on the page's top-left corner (a heading, not a control) puts the Tab starting point at the top.
  await page.mouse.click(2, 2);
  const stops: TabStop[] = [];
  for (let i = 0; i < maxStops; i++) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const axe = (window as unknown as { axe: any }).axe;
      const cs = getComputedStyle(el);
      const outline = cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) >= 1;
      return {
        id: el.id || `${el.tagName.toLowerCase()}:${(el.textContent ?? "").trim().slice(0, 30)}`,
        name: String(axe.commons.text.accessibleTextVirtual(axe.utils.getNodeFromTree(el)) ?? "").trim(),
        focusShown: outline || (cs.boxShadow !== "none" && cs.boxShadow !== ""),
        top: Math.round(el.getBoundingClientRect().top + window.scrollY),
      };
    });
    if (!stop || (stops.length && stop.id === stops[0].id)) break;
    stops.push(stop);
  }
  await page.evaluate(() => (window as unknown as { axe: any }).axe.teardown?.());
  return { stops, expected };
}
