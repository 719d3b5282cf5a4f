/**
 * The settings a user types, read the same way by both hosts: each check's Plan, Book and Urgent windows (days before
 * the due date), and the Action list's "due within N days". Each field is checked and refused in words naming it; a
 * stored value that cannot be read falls back to the default, never to a half-read value.
 */
import { CHECK_NAMES, type CheckName } from "../service/checks";
import { CHECK_LABELS } from "../sheet/colours";
import { DEFAULT_WINDOWS, type WindowSettings } from "./obligations";
import { MAX_WINDOW_DAYS } from "./window-fields";

/**
 * One window field as typed: a whole number of days written with digits only ("30", " 30 ", "030"), or a number that is
 * whole. Refused: an empty field (a number field of a browser also hands over "" for what it cannot read, such as
 * "0x1E"), "1e2", "0x1E", "7.0", "+7", "-1", "7 days" and anything that is not text or a number.
 */
function windowDays(raw: unknown): number | null {
  if (typeof raw === "number") return Number.isInteger(raw) ? raw : null;
  if (typeof raw !== "string" || !/^\s*\d{1,4}\s*$/.test(raw)) return null;
  return Number(raw.trim());
}

/**
 * Window settings from what a user typed: each check's plan, book and urgent days, whole numbers 0..3650 written as
 * digits, with plan >= book >= urgent. A field left out keeps its default; a field given must be a whole number (an
 * empty one is refused, since a browser's number field hands over "" for what it cannot read). Unknown checks and
 * unknown window names are refused. Returns the settings with defaults filled in, or the first problem in words,
 * naming the field ("EICR plan window: ...").
 */
export function parseWindowSettings(
  input: unknown,
): { ok: true; value: WindowSettings } | { ok: false; message: string } {
  const out = JSON.parse(JSON.stringify(DEFAULT_WINDOWS)) as WindowSettings;
  if (input === undefined || input === null) return { ok: true, value: out };
  if (typeof input !== "object" || Array.isArray(input))
    return {
      ok: false,
      message: "Window settings must be an object of checks: reset the windows to their defaults in Settings.",
    };
  for (const [check, v] of Object.entries(input as Record<string, unknown>)) {
    if (!(CHECK_NAMES as readonly string[]).includes(check))
      return { ok: false, message: `"${check}" is not a check (use ${CHECK_NAMES.join(", ")}).` };
    const label = CHECK_LABELS[check as CheckName];
    if (v === undefined || v === null) continue;
    if (typeof v !== "object" || Array.isArray(v))
      return {
        ok: false,
        message: `${label} windows must give plan, book and urgent days: reset the windows to their defaults in Settings.`,
      };
    const w = { ...out[check as CheckName] };
    for (const [k, raw] of Object.entries(v as Record<string, unknown>)) {
      if (k !== "plan" && k !== "book" && k !== "urgent")
        return { ok: false, message: `${label} "${k}" is not a window (use plan, book, urgent).` };
      if (raw === undefined || raw === null) continue;
      if (typeof raw === "string" && raw.trim() === "")
        return {
          ok: false,
          message: `${label} ${k} window is empty, or what was typed is not a number: enter a whole number of days from 0 to ${MAX_WINDOW_DAYS}.`,
        };
      const n = windowDays(raw);
      if (n === null || n < 0 || n > MAX_WINDOW_DAYS)
        return {
          ok: false,
          message: `${label} ${k} window: "${String(raw)}" is not a whole number of days; enter one from 0 to ${MAX_WINDOW_DAYS}.`,
        };
      w[k] = n;
    }
    if (!(w.plan >= w.book && w.book >= w.urgent)) {
      return {
        ok: false,
        message: `${label} windows must be Plan ≥ Book ≥ Urgent (got ${w.plan} / ${w.book} / ${w.urgent} days): correct the numbers.`,
      };
    }
    out[check as CheckName] = w;
  }
  return { ok: true, value: out };
}

/** The choices of N for the Action list: actions due within N days, plus every overdue one. */
export const ACTION_LIST_DAYS = [7, 30, 60, 90] as const;
export const DEFAULT_ACTION_LIST_DAYS = 30;

/**
 * Settings as a host stored them (text in user properties or Office's storage), read back the same way by both hosts:
 * anything unreadable or out of range falls back to the default, never to a half-read value.
 */
export function storedWindows(text: string | null | undefined): WindowSettings {
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const r = parseWindowSettings(parsed);
  return r.ok ? r.value : (parseWindowSettings(undefined) as { ok: true; value: WindowSettings }).value;
}

export function storedActionDays(v: unknown): number {
  const n = Number(v);
  return (ACTION_LIST_DAYS as readonly number[]).indexOf(n) >= 0 ? n : DEFAULT_ACTION_LIST_DAYS;
}
