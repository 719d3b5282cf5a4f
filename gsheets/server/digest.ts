/**
 * Reminder digests in Google Sheets: after each scheduled re-check (recheck.ts) that has something to say, and on the
 * weekly summary day, core's digest (core/reports/digest*.ts) is emailed with MailApp to the schedule's owner (everything),
 * each "Assigned to" person (their actions) and any extra recipients, within the day's MailApp quota. The settings,
 * the last digest's state and the last one sent are document properties; each digest has its Run log row.
 */
import {
  countWord,
  DEFAULT_THRESHOLDS,
  buildDigest,
  digestActions,
  digestHasNews,
  digestLogRow,
  digestStateText,
  fitQuota,
  horizonDays,
  isEmailAddress,
  parseThresholds,
  readDigestState,
  renderDigest,
  routeDigest,
  sheetsRowLink,
  type DigestAction,
  type DigestRecipient,
  type DigestState,
  utcMinute,
  type PortfolioTable,
} from "../../core";
import { isDemoKey } from "../../core/demo/demo-key";
import { WEEKDAYS, type DigestInput, type DigestView } from "../shared/api";
import { portfolioList } from "./actions";
import { todayInFileZone } from "./days";
import { appendLogRow } from "./logs";
import { docProps, readJson, type ScheduleRecord } from "./schedule-store";
import { loadSettings } from "./settings";
import { errorText } from "./sheetrun";

const SETTINGS_KEY = "compliance.digest";
const STATE_KEY = "compliance.digest.state";
const LAST_KEY = "compliance.digest.last";
/** A property value holds 9 KB: the state is kept in pieces of this many characters (ASCII). */
const PIECE = 8000;

export interface DigestSettings {
  on: boolean;
  thresholds: number[];
  extra: string[];
  /** "" or one of WEEKDAYS: that day's digest lists every open action. */
  summaryDay: string;
}

interface LastDigest {
  atMs: number;
  to: string[];
  actions: number;
  notSent: string[];
}

/** On by default, with the Action list's windows as thresholds, from the moment a schedule is saved. */
export function loadDigestSettings(): DigestSettings {
  const s = readJson<Partial<DigestSettings>>(docProps(), SETTINGS_KEY) || {};
  const t = parseThresholds(s.thresholds ?? "");
  return {
    on: s.on !== false,
    thresholds: t.ok ? t.value : DEFAULT_THRESHOLDS.slice(),
    extra: Array.isArray(s.extra) ? s.extra.filter((x) => typeof x === "string") : [],
    summaryDay:
      typeof s.summaryDay === "string" && (WEEKDAYS as readonly string[]).includes(s.summaryDay) ? s.summaryDay : "",
  };
}

const at = utcMinute;

export function digestView(): DigestView {
  const s = loadDigestSettings();
  const last = readJson<LastDigest>(docProps(), LAST_KEY);
  return {
    on: s.on,
    thresholds: s.thresholds.join(", "),
    extra: s.extra.join(", "),
    summaryDay: s.summaryDay,
    last: last
      ? `Last digest ${at(last.atMs)} to ${last.to.join(", ") || "nobody"} (${countWord(last.actions, "action")})${last.notSent.length ? `; not sent to ${last.notSent.join(", ")}` : ""}.`
      : "No digest sent yet.",
  };
}

/** The Schedule section's reminder settings, each checked and refused in words naming it. */
export function saveDigest(input: DigestInput): { ok: boolean; message: string } {
  const on = !!(input && input.on);
  const t = parseThresholds(input ? input.thresholds : "");
  if (!t.ok) return { ok: false, message: t.message };
  const extra = String((input && input.extra) || "")
    .split(/[\s,;]+/)
    .filter(Boolean);
  const bad = extra.filter((e) => !isEmailAddress(e));
  if (bad.length) return { ok: false, message: `Extra recipients: "${bad[0]}" is not an email address.` };
  if (extra.length > 10) return { ok: false, message: "Extra recipients: at most 10 addresses." };
  const day = String((input && input.summaryDay) || "").toUpperCase();
  if (day && (WEEKDAYS as readonly string[]).indexOf(day) < 0)
    return { ok: false, message: `"${String(input.summaryDay)}" is not a day of the week.` };
  const s: DigestSettings = { on, thresholds: t.value, extra, summaryDay: day };
  docProps().setProperty(SETTINGS_KEY, JSON.stringify(s));
  return {
    ok: true,
    message: on
      ? `Reminder digests on: after each scheduled re-check with something new, at ${s.thresholds.join(", ")} days before each due date${day ? `, and a summary every ${day.charAt(0)}${day.slice(1).toLowerCase()}` : ""}.`
      : "Reminder digests off: no email is sent after scheduled re-checks.",
  };
}

function loadState(): DigestState | null {
  const store = docProps();
  const n = Number(store.getProperty(STATE_KEY) || 0);
  if (!(n > 0)) return null;
  let text = "";
  for (let i = 0; i < n; i++) text += store.getProperty(`${STATE_KEY}.${i}`) || "";
  return readDigestState(text);
}

function saveState(s: DigestState): void {
  const store = docProps();
  const text = digestStateText(s);
  const before = Number(store.getProperty(STATE_KEY) || 0);
  const pieces: Record<string, string> = {};
  const n = Math.ceil(text.length / PIECE);
  for (let i = 0; i < n; i++) pieces[`${STATE_KEY}.${i}`] = text.slice(i * PIECE, (i + 1) * PIECE);
  pieces[STATE_KEY] = String(n);
  store.setProperties(pieces);
  for (let i = n; i < before; i++) store.deleteProperty(`${STATE_KEY}.${i}`);
}

/** The row's link: to the sheet of the action's table (its id, as the portfolio read it). */
function rowLink(url: string, tables: readonly PortfolioTable[]): (a: DigestAction) => string | null {
  return (a) => {
    const sheetId = tables.find((t) => t.id === a.tableId)?.sheetId;
    return url && sheetId !== undefined && a.row ? sheetsRowLink(url, Number(sheetId), a.row) : null;
  };
}

export const STOP_WORDS =
  'You receive this because reminder digests are on for this spreadsheet\'s schedule. To stop them, open the spreadsheet, then Extensions › Property compliance › Open sidebar › Schedule, and untick "Email reminder digests" (or turn the schedule off).';

function weekday(nowMs: number, zone: string): string {
  const day = todayInFileZone(nowMs, zone);
  const d = new Date(`${day}T12:00:00Z`).getUTCDay();
  return WEEKDAYS[(d + 6) % 7];
}

/** Each recipient's digest by email: who got theirs, and who could not be sent it (with why). */
function mailEach(
  recipients: readonly DigestRecipient[],
  options: Parameters<typeof renderDigest>[1],
): { sent: { to: string; actions: number }[]; failed: string[] } {
  const sent: { to: string; actions: number }[] = [];
  const failed: string[] = [];
  for (const r of recipients) {
    const m = renderDigest(r, options);
    try {
      MailApp.sendEmail({
        to: r.to,
        subject: m.subject,
        body: m.text,
        htmlBody: m.html,
        name: "Property compliance",
      });
      sent.push({ to: r.to, actions: r.entries.length });
    } catch (e) {
      failed.push(`${r.to} (${errorText(e)})`);
    }
  }
  return { sent, failed };
}

/**
 * After a scheduled re-check: the digest since the last one, emailed to each person it concerns. Never throws: what
 * went wrong is a Run log row. `tables`: the ones the pass's Action list was just built from, if it was.
 */
export function sendDigestAfterPass(rec: ScheduleRecord, tables?: PortfolioTable[]): void {
  const startedMs = Date.now();
  const s = loadDigestSettings();
  if (!s.on) return;
  const owner = rec.runsAs;
  const log = (sent: { to: string; actions: number }[], notSent: string[], problem = "") =>
    appendLogRow(
      digestLogRow({
        atIso: new Date(startedMs).toISOString(),
        endIso: new Date(Date.now()).toISOString(),
        owner,
        sent,
        notSent,
        problem,
      }),
    );
  try {
    const ss = SpreadsheetApp.getActive();
    const zone = ss.getSpreadsheetTimeZone();
    const today = todayInFileZone(startedMs, zone);
    const built = portfolioList(horizonDays(s.thresholds), tables);
    if ("problem" in built) return;
    const prev = loadState();
    const summary = !!s.summaryDay && weekday(startedMs, zone) === s.summaryDay && (!prev || prev.day !== today);
    const acts = digestActions(built.list, built.tables);
    const d = buildDigest(prev, acts, { today, thresholds: s.thresholds, summary });
    const demo = d.demo || isDemoKey(loadSettings().config?.apiKey);
    if (!digestHasNews(d)) {
      if (!demo) saveState(d.next);
      return;
    }
    // Demo results go to the owner alone, and start nothing: the state is not kept for real reminders.
    let routed: DigestRecipient[] = routeDigest(d, { owner, extra: demo ? [] : s.extra });
    if (demo) routed = routed.filter((r) => r.everything).slice(0, 1);
    const quota = MailApp.getRemainingDailyQuota();
    const fit = fitQuota(routed, quota);
    const options = {
      title: ss.getName(),
      today,
      since: d.since,
      summary: d.summary,
      demo,
      link: rowLink(ss.getUrl(), built.tables),
      stop: STOP_WORDS,
    };
    const { sent, failed } = mailEach(fit.send, options);
    const problem = [
      fit.notSent.length ? `The day's email quota had ${quota} left: not sent theirs: ${fit.notSent.join(", ")}.` : "",
      failed.length ? `Could not send to ${failed.join("; ")}.` : "",
    ]
      .filter(Boolean)
      .join(" ");
    log(sent, fit.notSent, problem);
    if (sent.length) {
      if (!demo) saveState(d.next);
      const last: LastDigest = {
        atMs: Date.now(),
        to: sent.map((x) => x.to),
        actions: d.entries.length,
        notSent: fit.notSent,
      };
      docProps().setProperty(LAST_KEY, JSON.stringify(last));
    }
  } catch (e) {
    log([], [], `The reminder digest could not be made: ${errorText(e)}`);
  }
}
