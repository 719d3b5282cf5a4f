/**
 * The task pane's "Find a UPRN" card: addresses found by postcode or words, and the chosen UPRN (with its address, if
 * asked) inserted at the selected cell.
 */
import type { AddressList } from "../../core";
import { complianceRuntime } from "../runtime";
import type { ExcelRun } from "./check-run";
import { $, errorText, savedClient, say, showQuota, startAction } from "./pane-ui";
import { formatCount } from "../../core/numbers";

const rt = complianceRuntime();
/** The addresses of the last search, in the order the list shows them. */
let found: AddressList = [];

async function lookup(ev: Event): Promise<void> {
  ev.preventDefault();
  const text = ($("lookup-text") as HTMLInputElement).value.trim();
  const list = $<HTMLSelectElement>("lookup-results");
  if (!text) return say("lookup-status", "Type a postcode or some words of the address.");
  startAction();
  if (!(await savedClient())) return;
  say("lookup-status", "Searching…");
  try {
    found = await rt.lookups.addresses(text);
    list.textContent = "";
    found.forEach((a, i) => list.append(new Option(`${a.address} (UPRN ${a.uprn})`, String(i))));
    list.hidden = found.length === 0;
    $("insert-row").hidden = found.length === 0;
    if (found.length) list.selectedIndex = 0;
    const total = found.total;
    const more =
      total !== undefined && total > found.length
        ? ` (the first ${found.length} of ${formatCount(total)}: add words to narrow it)`
        : "";
    say(
      "lookup-status",
      found.length
        ? `${found.length} address${found.length === 1 ? "" : "es"} found${more}. Pick one, select a cell, then Insert.`
        : "No addresses found.",
    );
  } catch (e) {
    say("lookup-status", errorText(e));
  }
  showQuota(rt.lastRateLimit);
}

async function insert(excelRun: ExcelRun, withAddress: boolean): Promise<void> {
  const a = found[Number($<HTMLSelectElement>("lookup-results").value)];
  if (!a) return say("lookup-status", "Pick an address first.");
  try {
    const { insertAddress } = await import(/* webpackChunkName: "check" */ "./sheet");
    const done = await excelRun((ctx) => insertAddress(ctx, a.uprn, withAddress ? a.address : null));
    say(
      "lookup-status",
      `Inserted UPRN ${a.uprn} at ${done.uprnAt}${done.addressAt ? ` and the address at ${done.addressAt}` : ""}.${done.skipped ? ` ${done.skipped}` : ""}`,
    );
  } catch (e) {
    say("lookup-status", errorText(e));
  }
}

export function wireLookup(excelRun: ExcelRun): void {
  $("lookup-form").addEventListener("submit", (e) => void lookup(e));
  $("insert-uprn").addEventListener("click", () => void insert(excelRun, false));
  $("insert-both").addEventListener("click", () => void insert(excelRun, true));
}
