/**
 * Runs the BUILT dist/gsheets/Code.js in a bare Node vm context with stand-ins for Google's services only:
 * SpreadsheetApp (recording), PropertiesService, CacheService, LockService, HtmlService, Ui, and a
 * UrlFetchApp that makes real synchronous HTTP requests (a worker thread, sync-http.ts) to the sandbox.
 */
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { BooleanCriteria, CallLog, FakeRuleBuilder, FakeSpreadsheet, type FakeSheet } from "./fake-sheets";
import { FakeCache } from "./fake-cache";
import { passTime } from "./sandbox";
import { syncFetch, type RawReply, type WireRequest } from "./sync-http";
import { formatDate } from "./gas-utilities";
import { FakeLock } from "./gas-lock";
import { fakeMailApp, type MailState } from "./gas-mail";
import { fakeScriptApp, type ScriptState } from "./gas-script-app";
import { FakeProperties } from "./gas-properties";

export { formatDate } from "./gas-utilities";
export { FakeLock } from "./gas-lock";
export { type MailState, type SentMail } from "./gas-mail";
export {
  ADDON_TRIGGER_LIMIT_ERROR,
  TRIGGER_RUNTIME_ERROR,
  TRIGGER_RUNTIME_PER_DAY_MS,
  TRIGGERS_PER_USER_ERROR,
  TRIGGERS_PER_USER_MAX,
  type FakeTrigger,
  type ScriptState,
} from "./gas-script-app";
export { FakeProperties } from "./gas-properties";

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

/**
 * Code.js compiled once per test file (and again when a build replaces it), run afresh in each new context: every
 * execution still starts from the bundle's own top level, as Apps Script's does, without parsing 900 KB each time.
 */
const bundles = new Map<string, { mtimeMs: number; script: vm.Script }>();
function bundleScript(codePath: string): vm.Script {
  const { mtimeMs } = fs.statSync(codePath);
  const seen = bundles.get(codePath);
  if (seen && seen.mtimeMs === mtimeMs) return seen.script;
  const script = new vm.Script(fs.readFileSync(codePath, "utf8"), { filename: codePath });
  bundles.set(codePath, { mtimeMs, script });
  return script;
}

/**
 * Limits of the real services that our code must respect (the stand-ins throw as Apps Script does): UrlFetchApp refuses
 * longer URLs.
 */
const URL_MAX = 2 * 1024;
/** Apps Script ends an execution after 6 minutes, wherever it is. */
const EXECUTION_MAX_MS = 6 * 60 * 1000;

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
  // The vm's clock is every reading of "now": Date.now(), new Date() and Date() alike, as Apps Script has one clock.
  (
    vm.runInContext(
      `(function (clock) {
        var Real = Date;
        var realNow = Real.now;
        var now = function () { return realNow.call(Real) + clock.offsetMs; };
        function ClockDate() {
          if (!new.target) return new Real(now()).toString();
          var args = arguments.length ? Array.prototype.slice.call(arguments) : [now()];
          return Reflect.construct(Real, args, new.target === ClockDate ? Real : new.target);
        }
        ClockDate.prototype = Real.prototype;
        ClockDate.now = now;
        ClockDate.parse = Real.parse;
        ClockDate.UTC = Real.UTC;
        globalThis.Date = ClockDate;
      })`,
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
  bundleScript(codePath).runInContext(context);

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
