/** ScriptApp's stand-in: time-driven triggers with the limits Google sets, and authorisation. */

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

export function fakeScriptApp(state: ScriptState, docId: () => string, now: () => number) {
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
