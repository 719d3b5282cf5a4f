/**
 * Runs the BUILT dist/gsheets/Code.js in a bare Node vm context with stand-ins for Google's services only:
 * SpreadsheetApp (recording), PropertiesService, CacheService, LockService, HtmlService, Ui, and a
 * UrlFetchApp that makes real synchronous HTTP requests (a worker thread, sync-http.ts) to the sandbox.
 */
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { BooleanCriteria, CallLog, FakeRuleBuilder, FakeSpreadsheet, zonedParts, type FakeSheet } from "./fake-sheets";
import { FakeCache } from "./fake-cache";
import { passTime } from "./sandbox";
import { syncFetch, type RawReply, type WireRequest } from "./sync-http";

export const DIST = path.resolve(__dirname, "../../../dist/gsheets");

/**
 * The headers that carry the vm's clock (its offset from real time, and which clock it is) to a sandbox started by
 * harness/sandbox.ts, which moves its own clock on with it: time the vm lets pass (Utilities.sleep, a trigger's delay)
 * passes for the sandbox's jobs and rate windows too. A spreadsheet made later starts its clock at 0 while the sandbox
 * may be ahead; the sandbox counts each clock from where it first saw it, so that spreadsheet's sleeps move it too.
 * Added on the wire only; the requests the add-on made are recorded without them.
 */
export const CLOCK_HEADER = "x-harness-clock-offset";
export const CLOCK_ID_HEADER = "x-harness-clock-id";
const clockIds = new WeakMap<Clock, string>();
function clockedHttp(clock: Clock): (reqs: WireRequest[]) => RawReply[] {
  if (!clockIds.has(clock)) clockIds.set(clock, `${process.pid}-${Math.random().toString(36).slice(2)}`);
  const id = clockIds.get(clock)!;
  return (reqs) =>
    syncFetch(
      reqs.map((r) => ({
        ...r,
        headers: { ...(r.headers || {}), [CLOCK_HEADER]: String(clock.offsetMs), [CLOCK_ID_HEADER]: id },
      })),
    );
}

/**
 * A fresh global scope for Code.js, as Apps Script gives each execution. A plain global object where Node has one
 * (DONT_CONTEXTIFY): in a contextified one every use of a global (Math, String, JSON, Object) inside Code.js goes
 * through Node's interceptors, and the add-on's own code ran ten times slower than in Node or Apps Script (a 10,000-row
 * re-check took minutes). The services below are set on it as globals either way.
 */
function newContext(): vm.Context {
  // A Node without it (older than this project asks for) gets a contextified object: slower, the same otherwise.
  const plain = vm.constants?.DONT_CONTEXTIFY;
  return vm.createContext(plain ?? {});
}

/** Limits of the real services that our code must respect; the stand-ins throw as Apps Script does. */
const PROPERTY_VALUE_MAX = 9 * 1024;
const PROPERTY_STORE_MAX = 500 * 1024;
/** UrlFetchApp refuses longer URLs. */
const URL_MAX = 2 * 1024;
/** Apps Script ends an execution after 6 minutes, wherever it is. */
const EXECUTION_MAX_MS = 6 * 60 * 1000;

/** Utilities.formatDate's SimpleDateFormat letters that our code uses; anything else throws, so a test notices. */
const formatted = new Map<string, Map<string, Map<number, string>>>();
export function formatDate(date: Date, timeZone: string, pattern: string): string {
  // Remembered, as zonedTimeToUtc is: a large run formats the same few hundred days over and over (by zone, then
  // pattern: a key made of both was a new string for each of the hundreds of thousands of calls).
  let zone = formatted.get(timeZone);
  if (!zone) formatted.set(timeZone, (zone = new Map()));
  let texts = zone.get(pattern);
  if (!texts) zone.set(pattern, (texts = new Map()));
  const ms = date.getTime();
  let text = texts.get(ms);
  if (text === undefined) {
    if (texts.size > 100_000) texts.clear();
    texts.set(ms, (text = formatDateOnce(date, timeZone, pattern)));
  }
  return text;
}

function formatDateOnce(date: Date, timeZone: string, pattern: string): string {
  const p = zonedParts(date.getTime(), timeZone);
  const two = (n: number) => String(n).padStart(2, "0");
  const fields: Record<string, string> = {
    yyyy: String(p.year),
    MM: two(p.month),
    dd: two(p.day),
    HH: two(p.hour),
    mm: two(p.minute),
    ss: two(p.second),
  };
  return pattern.replace(/[A-Za-z]+/g, (t) => {
    if (!(t in fields)) throw new Error(`formatDate stand-in: unsupported pattern letters "${t}"`);
    return fields[t];
  });
}

/** The user lock: \`busy\` makes tryLock fail, as when another execution (a poll in flight) holds it. */
export class FakeLock {
  busy = false;
  held = false;
  tryLock(_ms?: number) {
    if (this.busy) return false;
    this.held = true;
    return true;
  }
  waitLock(ms?: number) {
    if (!this.tryLock(ms))
      throw new Error("Exception: Lock timeout: another process was holding the lock for too long.");
  }
  releaseLock() {
    this.held = false;
  }
  hasLock() {
    return this.held;
  }
}

/**
 * Time as the vm sees it: Date.now() is the real clock plus offsetMs, so a test can let a request "hang" for
 * minutes without waiting for them. Shared by every execution, as real time is.
 */
export interface Clock {
  offsetMs: number;
}

/** Network faults UrlFetchApp shows that the sandbox cannot: fetchAll failing as a whole, requests that hang. */
export interface NetworkFaults {
  /** fetchAll throws this (after its hang) instead of answering, as when one of its requests cannot connect. */
  fetchAllThrows?: string;
  /** fetchAll sends every request (the service gets them all), then throws this instead of answering. */
  fetchAllThrowsAfterSending?: string;
  /** Every fetch and fetchAll takes this long on the vm's clock before it answers or throws. */
  hangMs?: number;
  /** A test's look at the world as requests leave (after any hang, before the service gets them). */
  beforeSend?: (requests: { method: string; url: string }[]) => void;
}

/** A message MailApp.sendEmail sent, as the stand-in recorded it. */
export interface SentMail {
  to: string;
  subject: string;
  body: string;
  htmlBody?: string;
  name?: string;
  atMs: number;
}

/**
 * MailApp as Google documents it: each recipient of each message counts against a daily quota (100 a day on consumer
 * accounts, 1,500 on Workspace), counted here per UTC day of the vm's clock; sending past it throws, as MailApp does
 * ("Service invoked too many times for one day: email"). Shared by every execution, as Google keeps it.
 */
export interface MailState {
  sent: SentMail[];
  /** Recipients allowed per day. */
  dailyQuota: number;
  /** Recipients used per UTC day. */
  used: Map<string, number>;
}

function fakeMailApp(mail: MailState, now: () => number) {
  const day = () => new Date(now()).toISOString().slice(0, 10);
  const remaining = () => Math.max(0, mail.dailyQuota - (mail.used.get(day()) ?? 0));
  const RECIPIENTS_MAX = 50;
  return {
    getRemainingDailyQuota: () => remaining(),
    sendEmail(a: any, subject?: string, body?: string, options?: any) {
      const msg = typeof a === "object" ? a : { ...(options || {}), to: a, subject, body };
      const to = String(msg.to || "")
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean);
      if (!to.length) throw new Error("Exception: Invalid argument: recipient");
      for (const t of to) if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t)) throw new Error(`Exception: Invalid email: ${t}`);
      if (to.length > RECIPIENTS_MAX) throw new Error("Exception: Limit Exceeded: Email Recipients Per Message.");
      if (typeof msg.subject !== "string" || /[\r\n]/.test(msg.subject))
        throw new Error("Exception: Invalid argument: subject");
      if (to.length > remaining()) throw new Error("Exception: Service invoked too many times for one day: email.");
      mail.used.set(day(), (mail.used.get(day()) ?? 0) + to.length);
      mail.sent.push({
        to: to.join(","),
        subject: msg.subject,
        body: String(msg.body ?? ""),
        htmlBody: msg.htmlBody,
        name: msg.name,
        atMs: now(),
      });
    },
  };
}

/** A time-driven trigger as ScriptApp keeps it: whose, which document's, and when it fires. */
export interface FakeTrigger {
  id: string;
  handler: string;
  user: string;
  docId: string;
  /** everyDays / everyWeeks with atHour (and onWeekDay), or a one-off after(ms) from createdAtMs. */
  every?: { days?: number; weeks?: number; hour?: number; weekday?: string; timeZone?: string };
  afterMs?: number;
  createdAtMs: number;
  /** Google disabled it (it kept failing): still listed, never fired. Apps Script does not say so to the script. */
  disabled?: boolean;
}

/**
 * ScriptApp's triggers and authorisation, shared by every execution (as Google keeps them), and who the user is.
 * An Editor add-on may have one time-driven trigger per user per document, at most hourly: creating a second one
 * throws, as Apps Script does, so a test sees a duplicate at once.
 */
export interface ScriptState {
  triggers: FakeTrigger[];
  /** Every trigger ever created, for counting replacements. */
  created: FakeTrigger[];
  deleted: string[];
  /** ScriptApp.getAuthorizationInfo(FULL).getAuthorizationStatus(). */
  authStatus: "NOT_REQUIRED" | "REQUIRED";
  /** Session.getEffectiveUser() / getActiveUser() address. */
  user: string;
  nextId: number;
  /** Trigger run time used, by user and UTC day ("user|2026-11-27"), against TRIGGER_RUNTIME_PER_DAY_MS. */
  runtimeMs?: Record<string, number>;
}

/** A user may hold 20 triggers of one script (an add-on is one script), across all their documents. */
export const TRIGGERS_PER_USER_MAX = 20;
export const TRIGGERS_PER_USER_ERROR =
  "This script has too many triggers. Triggers must be deleted from the script before more can be added.";
/** Consumer accounts: 90 minutes of trigger run time a day, after which triggers do not run. */
export const TRIGGER_RUNTIME_PER_DAY_MS = 90 * 60 * 1000;
export const TRIGGER_RUNTIME_ERROR = "Service using too much computer time for one day. Try again tomorrow.";

export const ADDON_TRIGGER_LIMIT_ERROR =
  "This add-on has created too many time-based triggers in this document for this Google user account.";

function fakeScriptApp(state: ScriptState, docId: () => string, now: () => number) {
  const view = (t: FakeTrigger) => ({
    getHandlerFunction: () => t.handler,
    getUniqueId: () => t.id,
    getEventType: () => "CLOCK",
    getTriggerSource: () => "CLOCK",
    getTriggerSourceId: () => null,
    __id: t.id,
  });
  const WeekDay = Object.fromEntries(
    ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"].map((d) => [d, d]),
  );
  function clockBuilder(handler: string) {
    const t: FakeTrigger = { id: "", handler, user: state.user, docId: docId(), createdAtMs: 0 };
    const every = () => (t.every ??= {});
    const b = {
      everyDays: (n: number) => ((every().days = n), b),
      everyWeeks: (n: number) => ((every().weeks = n), b),
      atHour: (h: number) => {
        if (!(Number.isInteger(h) && h >= 0 && h <= 23)) throw new Error(`Exception: Invalid argument: hour (${h})`);
        every().hour = h;
        return b;
      },
      onWeekDay: (d: string) => {
        if (!(d in WeekDay)) throw new Error(`Exception: Invalid argument: day (${d})`);
        every().weekday = d;
        return b;
      },
      inTimezone: (tz: string) => ((every().timeZone = tz), b),
      nearMinute: () => b,
      after: (ms: number) => ((t.afterMs = ms), b),
      everyMinutes: () => {
        throw new Error("Exception: Add-ons may not create time-based triggers that run more often than once an hour.");
      },
      everyHours: (n: number) => ((every().days = n / 24), b),
      create: () => {
        if (state.triggers.some((x) => x.user === t.user && x.docId === t.docId))
          throw new Error(`Exception: ${ADDON_TRIGGER_LIMIT_ERROR}`);
        if (state.triggers.filter((x) => x.user === t.user).length >= TRIGGERS_PER_USER_MAX)
          throw new Error(`Exception: ${TRIGGERS_PER_USER_ERROR}`);
        if (!t.every && t.afterMs === undefined)
          throw new Error("Exception: The trigger has no schedule (everyDays, everyWeeks or after).");
        t.id = `trigger-${++state.nextId}`;
        t.createdAtMs = now();
        state.triggers.push(t);
        state.created.push({ ...t, every: t.every ? { ...t.every } : undefined });
        return view(t);
      },
    };
    return b;
  }
  return {
    newTrigger: (handler: string) => ({ timeBased: () => clockBuilder(handler) }),
    getUserTriggers: (_doc: unknown) =>
      state.triggers.filter((t) => t.user === state.user && t.docId === docId()).map(view),
    getProjectTriggers: () => state.triggers.filter((t) => t.user === state.user).map(view),
    deleteTrigger: (v: { __id: string }) => {
      state.triggers = state.triggers.filter((t) => t.id !== v.__id);
      state.deleted.push(v.__id);
    },
    getAuthorizationInfo: (_mode: string) => ({
      getAuthorizationStatus: () => state.authStatus,
      getAuthorizationUrl: () =>
        state.authStatus === "REQUIRED" ? "https://script.google.com/macros/fake-reauthorise" : null,
    }),
    AuthMode: { NONE: "NONE", LIMITED: "LIMITED", CUSTOM_FUNCTION: "CUSTOM_FUNCTION", FULL: "FULL" },
    AuthorizationStatus: { REQUIRED: "REQUIRED", NOT_REQUIRED: "NOT_REQUIRED" },
    WeekDay,
    EventType: { CLOCK: "CLOCK" },
  };
}

export class FakeProperties {
  data = new Map<string, string>();
  calls = 0;
  /** Called before every write: the execution-time limit stops writes after the 6 minutes. */
  guard: () => void = () => undefined;
  getProperty(k: string) {
    this.calls++;
    return this.data.has(k) ? this.data.get(k)! : null;
  }
  getProperties() {
    this.calls++;
    return Object.fromEntries(this.data);
  }
  getKeys() {
    this.calls++;
    return [...this.data.keys()];
  }
  setProperty(k: string, v: string) {
    return this.setProperties({ [k]: v });
  }
  setProperties(obj: Record<string, string>, deleteAllOthers = false) {
    this.guard();
    this.calls++;
    const next = new Map(deleteAllOthers ? [] : this.data);
    for (const [k, v] of Object.entries(obj)) {
      const s = String(v);
      if (Buffer.byteLength(k) + Buffer.byteLength(s) > PROPERTY_VALUE_MAX)
        throw new Error(`Exception: Argument too large: value (${k})`);
      next.set(k, s);
    }
    let total = 0;
    for (const [k, v] of next) total += Buffer.byteLength(k) + Buffer.byteLength(v);
    if (total > PROPERTY_STORE_MAX) throw new Error("Exception: You have exceeded the property storage quota.");
    this.data = next;
    return this;
  }
  deleteProperty(k: string) {
    this.calls++;
    this.data.delete(k);
    return this;
  }
  deleteAllProperties() {
    this.calls++;
    this.data.clear();
    return this;
  }
}

export interface FetchRecord {
  method: string;
  url: string;
  headers: Record<string, string>;
  status: number | null;
  viaFetchAll: boolean;
}

function httpResponse(reply: { status: number; rawHeaders: string[]; body: string }) {
  const all: Record<string, string | string[]> = {};
  const single: Record<string, string> = {};
  for (let i = 0; i < reply.rawHeaders.length; i += 2) {
    const name = reply.rawHeaders[i];
    const value = reply.rawHeaders[i + 1];
    const prev = all[name];
    all[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    single[name] = value;
  }
  return {
    getResponseCode: () => reply.status,
    getContentText: (_charset?: string) => reply.body,
    getHeaders: () => ({ ...single }),
    getAllHeaders: () => ({ ...all }),
    getContent: () => Array.from(Buffer.from(reply.body, "utf8")),
  };
}

export { FakeCache };

export interface GasEnvironment {
  context: vm.Context;
  log: CallLog;
  spreadsheet: FakeSpreadsheet;
  sheet: FakeSheet;
  userProperties: FakeProperties;
  documentProperties: FakeProperties;
  scriptProperties: FakeProperties;
  userCache: FakeCache;
  fetches: FetchRecord[];
  consoleLines: string[];
  sidebars: { title: string; html: string }[];
  menus: { title: string; items: [string, string][] }[];
  /** Calls a top-level function as google.script.run does: JSON-like data in and out, timed. */
  run<T = any>(name: string, ...args: unknown[]): T;
  durations: { name: string; ms: number }[];
  /** Each call's duration on the vm's clock (real time plus any simulated hang). */
  vmDurations: { name: string; ms: number }[];
  userLock: FakeLock;
  clock: Clock;
  network: NetworkFaults;
  /** Triggers, authorisation status and the user's address (ScriptApp, Session). */
  script: ScriptState;
  /** MailApp's sent messages and daily quota. */
  mail: MailState;
}

/**
 * `from`: a new vm over the same spreadsheet, stores and logs, i.e. a fresh Apps Script execution (or a
 * reopened sidebar) that shares nothing with the earlier one but what Google's services keep.
 */
export function createGasEnvironment(
  opts: { codePath?: string; from?: GasEnvironment; otherSpreadsheet?: boolean } = {},
): GasEnvironment {
  const codePath = opts.codePath ?? path.join(DIST, "Code.js");
  if (!fs.existsSync(codePath)) throw new Error(`${codePath} is missing: run \`npm run build:gsheets\` first`);
  const from = opts.from;
  const log = from?.log ?? new CallLog();
  const context = newContext();
  const VmDate = vm.runInContext("Date", context) as DateConstructor;
  const makeDate = (ms: number) => new VmDate(ms);
  // otherSpreadsheet: the same user (user properties, cache, lock) in another document of theirs.
  const spreadsheet = (!opts.otherSpreadsheet && from?.spreadsheet) || new FakeSpreadsheet(log, makeDate);
  const userProperties = from?.userProperties ?? new FakeProperties();
  const documentProperties = (!opts.otherSpreadsheet && from?.documentProperties) || new FakeProperties();
  const scriptProperties = from?.scriptProperties ?? new FakeProperties();
  const fetches: FetchRecord[] = from?.fetches ?? [];
  const consoleLines: string[] = from?.consoleLines ?? [];
  const sidebars: { title: string; html: string }[] = from?.sidebars ?? [];
  const menus: { title: string; items: [string, string][] }[] = from?.menus ?? [];
  const durations: { name: string; ms: number }[] = from?.durations ?? [];
  const vmDurations: { name: string; ms: number }[] = from?.vmDurations ?? [];
  const userLock = from?.userLock ?? new FakeLock();
  const clock: Clock = from?.clock ?? { offsetMs: 0 };
  // Expiry on the vm's clock: time a test lets pass (passTime, a trigger's delay) ages the cache too.
  const userCache = from?.userCache ?? new FakeCache(() => Date.now() + clock.offsetMs);
  const network: NetworkFaults = from?.network ?? {};
  const mail: MailState = from?.mail ?? { sent: [], dailyQuota: 100, used: new Map() };
  const script: ScriptState = from?.script ?? {
    triggers: [],
    created: [],
    deleted: [],
    authStatus: "NOT_REQUIRED",
    user: "owner@example.com",
    nextId: 0,
  };
  (
    vm.runInContext(
      "(function (clock) { var now = Date.now; Date.now = function () { return now.call(Date) + clock.offsetMs; }; })",
      context,
    ) as (c: Clock) => void
  )(clock);
  const vmNow = () => Date.now() + clock.offsetMs;
  // The execution in progress: past 6 minutes every service call throws and the call ends with that error.
  let execution: { startMs: number; killed: boolean } | null = null;
  const guard = () => {
    if (!execution) return;
    if (execution.killed || vmNow() - execution.startMs > EXECUTION_MAX_MS) {
      execution.killed = true;
      throw new Error("Exceeded maximum execution time");
    }
  };
  userProperties.guard = guard;
  const http = () => clockedHttp(clock);
  const hang = () => {
    if (network.hangMs) clock.offsetMs += network.hangMs;
    guard();
  };

  function toWire(url: string, params: any = {}): WireRequest {
    const headers: Record<string, string> = { ...(params.headers || {}) };
    return {
      url,
      method: (params.method || "get").toUpperCase(),
      headers,
      payload: params.payload === undefined ? undefined : String(params.payload),
      contentType: params.contentType,
    };
  }
  function settle(wire: WireRequest, reply: RawReply, params: any, viaFetchAll: boolean) {
    fetches.push({
      method: wire.method!,
      url: wire.url,
      headers: wire.headers || {},
      status: "error" in reply ? null : reply.status,
      viaFetchAll,
    });
    if ("error" in reply) throw new Error(`Exception: Address unavailable: ${wire.url}`);
    if (!params.muteHttpExceptions && reply.status >= 400) {
      throw new Error(
        `Exception: Request failed for ${new URL(wire.url).host} returned code ${reply.status}. Truncated server response: ${reply.body.slice(0, 200)}`,
      );
    }
    return httpResponse(reply);
  }
  const checkUrl = (url: string) => {
    if (url.length > URL_MAX) throw new Error("Exception: Limit Exceeded: URLFetch URL Length.");
  };
  const UrlFetchApp = {
    fetch(url: string, params: any = {}) {
      if ("url" in params) throw new Error("Exception: Unexpected parameter: url (fetch takes the URL separately)");
      checkUrl(url);
      hang();
      const wire = toWire(url, params);
      network.beforeSend?.([{ method: wire.method!, url: wire.url }]);
      return settle(wire, http()([wire])[0], params, false);
    },
    fetchAll(requests: any[]) {
      requests.forEach((r) => checkUrl(r.url));
      hang();
      if (network.fetchAllThrows) throw new Error(network.fetchAllThrows);
      const wires = requests.map((r) => toWire(r.url, r));
      network.beforeSend?.(wires.map((w) => ({ method: w.method!, url: w.url })));
      const replies = http()(wires);
      if (network.fetchAllThrowsAfterSending) {
        wires.forEach((w, i) =>
          fetches.push({
            method: w.method!,
            url: w.url,
            headers: w.headers || {},
            status: "error" in replies[i] ? null : (replies[i] as { status: number }).status,
            viaFetchAll: true,
          }),
        );
        throw new Error(network.fetchAllThrowsAfterSending);
      }
      return replies.map((rep, i) => settle(wires[i], rep, requests[i], true));
    },
  };

  const ui = {
    createAddonMenu: () => menuBuilder("Compliance (add-on)"),
    createMenu: (title: string) => menuBuilder(title),
    showSidebar: (output: { title: string; html: string }) => sidebars.push({ title: output.title, html: output.html }),
    showModalDialog: () => undefined,
    alert: (msg: string) => consoleLines.push(`ALERT ${msg}`),
    ButtonSet: { OK: "OK" },
  };
  function menuBuilder(title: string) {
    const items: [string, string][] = [];
    const m = {
      addItem: (caption: string, fn: string) => (items.push([caption, fn]), m),
      addSeparator: () => m,
      addSubMenu: () => m,
      addToUi: () => void menus.push({ title, items }),
    };
    return m;
  }
  function htmlOutput(html: string) {
    const out = {
      title: "",
      html,
      setTitle: (t: string) => ((out.title = t), out),
      setWidth: () => out,
      setHeight: () => out,
      getContent: () => out.html,
      setSandboxMode: () => out,
      addMetaTag: () => out,
    };
    return out;
  }
  const HtmlService = {
    createHtmlOutputFromFile: (name: string) =>
      htmlOutput(fs.readFileSync(path.join(path.dirname(codePath), `${name}.html`), "utf8")),
    createHtmlOutput: (html: string) => htmlOutput(html),
    SandboxMode: { IFRAME: "IFRAME" },
  };
  const SpreadsheetApp = {
    getActive: () => (log.record("SpreadsheetApp", "getActive", false), spreadsheet),
    getActiveSpreadsheet: () => (log.record("SpreadsheetApp", "getActiveSpreadsheet", false), spreadsheet),
    getActiveRangeList: () => (
      log.record("SpreadsheetApp", "getActiveRangeList", false),
      spreadsheet.active.getActiveRangeList()
    ),
    getActiveSheet: () => (log.record("SpreadsheetApp", "getActiveSheet", false), spreadsheet.active),
    getActiveRange: () => (log.record("SpreadsheetApp", "getActiveRange", false), spreadsheet.active.activeRange),
    getUi: () => ui,
    newConditionalFormatRule: () => new FakeRuleBuilder(),
    flush: () => log.record("SpreadsheetApp", "flush", false),
    BooleanCriteria,
  };
  const otherLock = new FakeLock();
  const logLine = (...a: unknown[]) =>
    consoleLines.push(a.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(" "));

  Object.assign(context, {
    SpreadsheetApp,
    Charts: { ChartType: { COLUMN: "COLUMN", BAR: "BAR", LINE: "LINE", PIE: "PIE" } },
    UrlFetchApp,
    HtmlService,
    PropertiesService: {
      getUserProperties: () => userProperties,
      getDocumentProperties: () => documentProperties,
      getScriptProperties: () => scriptProperties,
    },
    CacheService: {
      getUserCache: () => userCache,
      getScriptCache: () => new FakeCache(vmNow),
      getDocumentCache: () => new FakeCache(vmNow),
    },
    LockService: { getUserLock: () => userLock, getScriptLock: () => otherLock, getDocumentLock: () => otherLock },
    ScriptApp: fakeScriptApp(script, () => spreadsheet.getId(), vmNow),
    MailApp: fakeMailApp(mail, vmNow),
    Session: {
      getEffectiveUser: () => ({ getEmail: () => script.user }),
      getActiveUser: () => ({ getEmail: () => script.user }),
      getScriptTimeZone: () => "Europe/London",
    },
    Utilities: {
      // Apps Script's sleep blocks the execution for ms: here the vm's clock moves on by ms at once (the 6-minute limit
      // sees the time pass) and the test does not wait for it. The sandbox's clock follows with the next request
      // (CLOCK_HEADER), so its jobs progress as far as the sleep says.
      sleep: (ms: number) => {
        clock.offsetMs += Math.max(0, ms);
      },
      formatDate: (date: Date, timeZone: string, pattern: string) => formatDate(date, timeZone, pattern),
    },
    Logger: { log: logLine },
    console: { log: logLine, info: logLine, warn: logLine, error: logLine },
  });
  vm.runInContext(fs.readFileSync(codePath, "utf8"), context, { filename: codePath });

  return {
    context,
    log,
    spreadsheet,
    sheet: spreadsheet.active,
    userProperties,
    documentProperties,
    scriptProperties,
    userCache,
    fetches,
    consoleLines,
    sidebars,
    menus,
    durations,
    vmDurations,
    userLock,
    clock,
    network,
    script,
    mail,
    run(name: string, ...args: unknown[]) {
      const fn = (context as any)[name];
      if (typeof fn !== "function") throw new Error(`Code.js has no top-level function ${name}`);
      // google.script.run passes plain data both ways: round-trip through JSON as it effectively does.
      const wireArgs = JSON.parse(JSON.stringify(args));
      const t0 = Date.now();
      const vm0 = vmNow();
      const exec = (execution = { startMs: vm0, killed: false });
      try {
        const result = fn(...wireArgs);
        // Killed at 6 minutes: whatever our code caught, the call ends with Apps Script's error.
        if (exec.killed) throw new Error("Exceeded maximum execution time");
        return result === undefined ? (undefined as any) : JSON.parse(JSON.stringify(result));
      } finally {
        execution = null;
        durations.push({ name, ms: Date.now() - t0 });
        vmDurations.push({ name, ms: vmNow() - vm0 });
      }
    },
  };
}

/**
 * Polls as the sidebar does (waiting waitMs between calls, on the test clock) until the run ends, then asks for the
 * end of the run (finishBulkCheck) when the last poll says it is due, as the sidebar does; returns every progress.
 */
export async function pollUntilDone(
  env: GasEnvironment,
  opts: { maxPolls?: number; onPoll?: (p: any, i: number) => void } = {},
) {
  const all: any[] = [];
  for (let i = 0; i < (opts.maxPolls ?? 500); i++) {
    const p = env.run("pollBulkCheck");
    all.push(p);
    opts.onPoll?.(p, i);
    if (p && p.endDue) {
      all.push(env.run("finishBulkCheck"));
      return all;
    }
    if (!p || p.phase !== "running") return all;
    await passTime(env, Math.min(p.waitMs, 5000));
  }
  throw new Error(`still running after ${all.length} polls: ${JSON.stringify(all[all.length - 1])}`);
}
