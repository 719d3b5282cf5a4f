/**
 * The words both add-ins' pages show as they stand (the Excel task pane, the Google Sheets sidebar): each page marks
 * the element with data-words="key" and writes this text into it as it loads, so the two cannot drift. Light imports
 * only: the sidebar bundles it.
 */
import { PLANS, type PlanName } from "./service/checks";
import { formatCount } from "./numbers";

/** A plan as the Plan setting offers it, with the batch size it sets (the spec's Limits table). */
const planChoice = (name: string, plan: PlanName) =>
  `${name} (${formatCount(PLANS[plan].batchCap)} properties per job)`;

export const PAGE_WORDS = {
  demoBanner: "results come from built-in demo data, not the compliance service; nothing is sent.",
  checkAnyway: "Check the selection anyway",
  windowsLegend: "Action windows (days before the due date)",
  windowsHint: "A check enters Plan, Book and Urgent this many days before it is due (Plan ≥ Book ≥ Urgent).",
  planProfessional: planChoice("Professional", "professional"),
  planEnterprise: planChoice("Enterprise", "enterprise"),
} as const;

/** The text for a page element's data-words key; undefined for a key core does not know (the element is left as is). */
export function pageWord(key: string | undefined): string | undefined {
  return key !== undefined && Object.prototype.hasOwnProperty.call(PAGE_WORDS, key)
    ? PAGE_WORDS[key as keyof typeof PAGE_WORDS]
    : undefined;
}
