/**
 * The task pane's "Since the last digest" card: after the re-check on open, the same digest Google Sheets emails
 * (core/reports/digest*.ts), and "Email digest", which saves one draft per person (.eml, opened by Outlook as a message ready
 * to send) and, when asked, one calendar (.ics) of their actions each. The last digest's state is kept in the
 * workbook's settings, so that everyone who opens the file counts from the same digest.
 */
import {
  ICS_MIME,
  actionCalendar,
  buildDigest,
  countWord,
  digestActions,
  digestEml,
  digestStateText,
  horizonDays,
  readDigestState,
  renderDigest,
  routeDigest,
  type ActionListSheet,
  type Digest,
  type DigestRecipient,
} from "../../core";
import type { UserStore } from "../settings";
import { complianceRuntime } from "../runtime";
import type { ExcelRun } from "./check-run";
import { $, errorText, say } from "./pane-ui";
import { CHUNK_MISSING, isChunkLoadError } from "../chunk-error";
import { actionSheets, lastBlock } from "./last-block";
import { localDay } from "./stored";
import { saveSettings, watchedBlocks, workbookSettings } from "./watch-settings";

const rt = complianceRuntime();

/** Workbook settings: the last digest's state (text, no key or address), and the address of who saves the drafts. */
export const DIGEST_STATE = "compliance.digest.state";
export const DIGEST_OWNER = "compliance.digest.owner";
const SHOWN = 20;
const STOP = "These drafts are made only when you press Email digest in the add-in's pane; nothing is sent by itself.";

interface Built {
  digest: Digest;
  list: ActionListSheet;
  title: string;
}

async function build(excelRun: ExcelRun, store: UserStore): Promise<Built | { problem: string }> {
  const place = await lastBlock(store);
  if (!place) return { problem: "No check has been run from this computer yet: check some rows first." };
  const s = await rt.settings.load();
  const today = localDay(Date.now());
  const r = await (
    await actionSheets()
  ).portfolioList(excelRun, place, {
    today,
    withinDays: horizonDays(),
    windows: s.windows,
    tables: watchedBlocks(workbookSettings()),
  });
  if ("problem" in r) return { problem: `No digest: ${r.problem}.` };
  const prev = readDigestState(String(workbookSettings()?.get(DIGEST_STATE) ?? ""));
  const digest = buildDigest(prev, digestActions(r.list, r.tables), { today });
  return { digest, list: r.list, title: workbookName() };
}

/** The workbook's file name without its extension, as the subject names it; "the workbook" when Office does not say. */
function workbookName(): string {
  const url = (globalThis as { Office?: { context?: { document?: { url?: string } } } }).Office?.context?.document?.url;
  const base = (url || "").split(/[\\/]/).pop() || "";
  return decodeURIComponent(base.replace(/\.xls[xmb]?$/i, "")) || "the workbook";
}

const n = (k: number, one: string) => countWord(k, one);

/** The card's summary and its first lines; called after the re-check on open and after a check. */
export async function showSinceLastDigest(excelRun: ExcelRun, store: UserStore): Promise<void> {
  try {
    const b = await build(excelRun, store);
    const ul = $("digest-list");
    ul.textContent = "";
    if ("problem" in b) return say("digest-status", b.problem);
    const d = b.digest;
    say(
      "digest-status",
      `${d.since ? `Since the last digest (${d.since})` : "No digest yet: every open action is new"}: ${n(d.entries.length, "action")} new, more urgent, overdue or past a threshold${d.doneWithoutEvidence.length ? `; ${n(d.doneWithoutEvidence.length, "action")} marked done without evidence` : ""}.${d.demo ? " Demo data, not a real check." : ""}`,
    );
    for (const e of d.entries.slice(0, SHOWN)) {
      const li = document.createElement("li");
      li.textContent = `${e.why}: ${e.check}, ${e.address} (${e.table}${e.row ? ` row ${e.row}` : ""}), due ${e.due ?? "no date"}`;
      ul.appendChild(li);
    }
    if (d.entries.length > SHOWN) {
      const li = document.createElement("li");
      li.textContent = `and ${n(d.entries.length - SHOWN, "more action")} in the drafts`;
      ul.appendChild(li);
    }
  } catch (e) {
    say("digest-status", isChunkLoadError(e) ? CHUNK_MISSING : `The digest could not be made (${errorText(e)}).`);
  }
}

/** A file name from an address: letters, digits, dots and hyphens. */
const fileOf = (to: string, ext: string) => `digest-${(to || "everything").replace(/[^0-9A-Za-z.-]+/g, "_")}.${ext}`;

/** The recipient's own actions as a calendar: the list's rows of their Action IDs. */
function calendarOf(list: ActionListSheet, r: DigestRecipient, nowIso: string): string | null {
  const ids = new Set(r.entries.map((e) => e.id));
  const idCol = list.headers.indexOf("Action ID");
  const rows = list.values.slice(1, 1 + list.open).filter((row) => ids.has(String(row[idCol])));
  if (!rows.length) return null;
  return actionCalendar({ ...list, values: [list.values[0], ...rows], open: rows.length }, { nowIso });
}

function addLink(box: HTMLElement, name: string, type: string, text: string): void {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.textContent = `Save ${name}`;
  a.className = "digest-file";
  const li = document.createElement("li");
  li.appendChild(a);
  box.appendChild(li);
  a.click();
}

/** Saves one draft per person (and their calendar when asked); the digest then counts as sent. */
export async function emailDigest(excelRun: ExcelRun, store: UserStore): Promise<void> {
  const button = $("email-digest") as HTMLButtonElement;
  button.disabled = true;
  try {
    const owner = ($("digest-owner") as HTMLInputElement).value.trim();
    const b = await build(excelRun, store);
    if ("problem" in b) return say("digest-status", b.problem);
    const d = b.digest;
    if (!d.entries.length && !d.doneWithoutEvidence.length)
      return say("digest-status", "Nothing new since the last digest: no drafts were made.");
    // Demo results go to the person saving them alone, and start no real reminders.
    let routed = routeDigest(d, { owner });
    if (d.demo) routed = routed.filter((r) => r.everything).slice(0, 1);
    const box = $("digest-files");
    for (const a of Array.from(box.querySelectorAll("a"))) URL.revokeObjectURL((a as HTMLAnchorElement).href);
    box.textContent = "";
    const nowMs = Date.now();
    const withIcs = ($("digest-ics") as HTMLInputElement).checked;
    let files = 0;
    routed.forEach((r, i) => {
      const m = renderDigest(r, { title: b.title, today: d.today, since: d.since, demo: d.demo, stop: STOP });
      const eml = digestEml(m, { to: r.to, ...(owner ? { from: owner } : {}), nowMs, id: `${nowMs}.${i}` });
      addLink(box, fileOf(r.to, "eml"), "message/rfc822", eml);
      files++;
      const ics = withIcs ? calendarOf(b.list, r, new Date(nowMs).toISOString()) : null;
      if (ics) {
        addLink(box, fileOf(r.to, "ics"), ICS_MIME, ics);
        files++;
      }
    });
    const settings = workbookSettings();
    if (settings) {
      settings.set(DIGEST_OWNER, owner);
      if (!d.demo) settings.set(DIGEST_STATE, digestStateText(d.next));
      await saveSettings(settings);
    }
    say(
      "digest-status",
      `${n(files, "file")} ready: ${routed.map((r) => r.to || "your own draft").join(", ")}. Open each .eml in Outlook, check it and press Send.${d.demo ? " Demo data, not a real check: the next digest starts again." : ""}`,
    );
  } catch (e) {
    say("digest-status", isChunkLoadError(e) ? CHUNK_MISSING : `The drafts could not be made (${errorText(e)}).`);
  } finally {
    button.disabled = false;
  }
}

/** The address saved with the last drafts, unless the user has started typing one while this chunk was loading. */
export function showDigestOwner(): void {
  const owner = workbookSettings()?.get(DIGEST_OWNER);
  const input = $("digest-owner") as HTMLInputElement;
  if (typeof owner === "string" && !input.value) input.value = owner;
}
