/**
 * A property card: one check result as named fields in sections (summary, one per check, the record), for hosts that
 * can show a property as one rich value (Excel's entity data types, =COMPLIANCE.PROPERTY). Host-free: the host only
 * turns each field's kind into its own cell value; which fields, their names, values and order are decided here.
 */
import { CHECK_NAMES, displayStatus, type CheckName } from "../service/checks";
import { CHECK_LABELS } from "../sheet/colours";
import { countryMessage, rulesCountry, type CountryAnswer } from "./country";
import { DEMO_NOTE } from "../demo/demo-key";
import { isoDay, type UserDates, type WindowDays } from "./obligations";
import { nextObligationIn } from "./result-place";
import type { CheckResult } from "../service/schemas";

export type CardFieldKind = "text" | "number" | "status" | "window" | "date" | "datetime";

export interface CardField {
  /** The field's name, which is also how a formula reaches it: =A2.Score, =A2.[Next action]. */
  name: string;
  kind: CardFieldKind;
  /** Text or a number; dates as YYYY-MM-DD, datetimes as ISO timestamps (UTC); null when there is no value. */
  value: string | number | null;
  /** A few words shown beside the name: why the value is missing, or the unit (UTC). */
  note?: string;
}

export interface CardSection {
  title: string;
  /** Field names, in the order the card shows them. */
  fields: string[];
}

export interface PropertyCard {
  /** What the cell shows: the address (the UPRN when the service sent no address). */
  text: string;
  uprn: string;
  fields: CardField[];
  sections: CardSection[];
  demo: boolean;
}

export interface CardOptions {
  /** The day the next action is counted from, YYYY-MM-DD; default the day of checkedAt. */
  today?: string;
  windows?: Partial<Record<CheckName, Partial<WindowDays>>>;
  userDates?: UserDates;
  /** The property's country (core/compliance/result-place.ts `resultCountry`, the results block's rule): its rules and message. */
  country?: CountryAnswer;
}

/** The number format hosts give the card's timestamps (UTC), beside DATE_FORMAT for its dates. */
export const DATETIME_FORMAT = "yyyy-mm-dd hh:mm:ss";

/** The summary fields, by name, as the issue fixes them (formulas depend on these exact words). */
export const CARD_SUMMARY_FIELDS = ["Score", "Risk", "Next action", "Action due", "Days left", "Window"] as const;

type Member = Record<string, unknown> | undefined;
type FieldDef = { name: string; kind: CardFieldKind; read: (m: Member) => unknown };

/**
 * Each check's fields after its status, named as the output columns name them (EPC rating, Gas expiry...), so that
 * =A2.[EPC expiry] and the EPC expiry column of COMPLIANCE.CHECK are the same thing under the same name.
 */
const CHECK_FIELDS: Record<CheckName, FieldDef[]> = {
  epc: [
    { name: "EPC status", kind: "status", read: (m) => m && displayStatus(m.status) },
    { name: "EPC rating", kind: "text", read: (m) => m?.rating },
    { name: "EPC expiry", kind: "date", read: (m) => m?.expiry },
  ],
  gas_safety: [
    { name: "Gas safety status", kind: "status", read: (m) => m && displayStatus(m.status) },
    { name: "Gas expiry", kind: "date", read: (m) => m?.expiry },
    { name: "Gas last certificate", kind: "date", read: (m) => m?.last_certificate },
  ],
  eicr: [
    { name: "EICR status", kind: "status", read: (m) => m && displayStatus(m.status) },
    { name: "EICR expiry", kind: "date", read: (m) => m?.expiry },
    { name: "EICR detail", kind: "text", read: (m) => m?.detail },
  ],
  licensing: [
    { name: "Licensing status", kind: "status", read: (m) => m && displayStatus(m.status) },
    { name: "Licensing scheme", kind: "text", read: (m) => m?.scheme },
  ],
  deposit_protection: [
    { name: "Deposit status", kind: "status", read: (m) => m && displayStatus(m.status) },
    { name: "Deposit scheme", kind: "text", read: (m) => m?.scheme },
    { name: "Deposit protected", kind: "date", read: (m) => m?.protected_date },
  ],
};

function member(r: CheckResult, name: CheckName): Member {
  return (r.checks as Record<string, Record<string, unknown> | undefined>)[name];
}

/** A value as the card holds it: text trimmed, numbers finite, dates valid days; anything else is no value. */
function valueOf(v: unknown, kind: CardFieldKind): string | number | null {
  if (v === null || v === undefined) return null;
  if (kind === "number") return typeof v === "number" && Number.isFinite(v) ? v : null;
  if (kind === "date") return isoDay(v);
  if (kind === "datetime") return typeof v === "string" && Number.isFinite(Date.parse(v)) ? v : null;
  const s = typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : "";
  return s === "" ? null : s;
}

/** The card of one check result. `checkedAt` is when the answer was fetched (ISO timestamp). */
export function propertyCard(result: CheckResult, checkedAt: string, o: CardOptions = {}): PropertyCard {
  const today = isoDay(o.today) ?? isoDay(checkedAt) ?? new Date().toISOString().slice(0, 10);
  const next = nextObligationIn(result, o.country, { today, windows: o.windows, userDates: o.userDates });
  // Outside these rules the block's row gives no action either, and its Message says why; so does the card.
  const noRules = o.country && rulesCountry(o.country) === null ? countryMessage(o.country) : "";
  const fields: CardField[] = [];
  const add = (name: string, kind: CardFieldKind, raw: unknown, missing?: string): string => {
    const value = valueOf(raw, kind);
    fields.push(value === null && missing ? { name, kind, value, note: missing } : { name, kind, value });
    return name;
  };

  const summary: CardSection = {
    title: "Compliance",
    fields: [
      add("Score", "number", result.compliance_score, "not given by the service"),
      add("Risk", "text", result.risk_level, "not given by the service"),
      add("Next action", "text", next ? next.action : noRules ? null : "No action due", noRules),
      add("Action due", "date", next?.due, next ? "no date for this action" : noRules || "nothing due"),
      add("Days left", "number", next?.daysLeft, next ? "no date for this action" : noRules || "nothing due"),
      add("Window", "window", next?.window, noRules || "nothing due"),
    ],
  };

  const checks: CardSection[] = CHECK_NAMES.map((check) => {
    const m = member(result, check);
    const notRequired = !!m && displayStatus(m.status) === "not_required";
    const missing = !m ? "not returned by the service" : notRequired ? "not required" : "none on record";
    return {
      title: CHECK_LABELS[check],
      fields: CHECK_FIELDS[check].map((f) => add(f.name, f.kind, f.read(m), missing)),
    };
  });

  const demo = (result as { demo?: unknown }).demo === true;
  const unknown = CHECK_NAMES.flatMap((c) => {
    const m = member(result, c);
    return m && displayStatus(m.status) === "unknown"
      ? [`${CHECK_LABELS[c]} status "${String(m.status)}" is not a status this add-in knows`]
      : [];
  });
  const record: CardSection = {
    title: "Record",
    fields: [
      add("UPRN", "text", result.uprn),
      add("Address", "text", result.address, "not given by the service"),
      add("Last updated", "datetime", result.last_updated, "not given by the service"),
      add("Checked at", "datetime", checkedAt),
      add("Message", "text", [demo ? DEMO_NOTE : "", countryMessage(o.country), ...unknown].filter(Boolean).join("; ")),
    ],
  };
  // Timestamps are UTC, and say so beside their names (a note that is not about a missing value).
  for (const f of fields) if (f.kind === "datetime" && f.value !== null) f.note = "UTC";

  const address = valueOf(result.address, "text");
  return {
    text: typeof address === "string" ? address : `UPRN ${result.uprn}`,
    uprn: String(result.uprn),
    fields,
    sections: [summary, ...checks, record],
    demo,
  };
}

/** A card's field by name (undefined when the card has no such field). */
export function cardField(card: PropertyCard, name: string): CardField | undefined {
  return card.fields.find((f) => f.name === name);
}

/** Days from 1899-12-30 with the time of day as a fraction, as spreadsheets count them: the serial of an ISO timestamp. */
export function timestampSerial(iso: string): number | null {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return null;
  // Whole seconds, cut as formatTimestamp cuts them, so the card shows the same second as the Checked at column.
  return Math.floor((ms - Date.UTC(1899, 11, 30)) / 1000) / 86_400;
}
