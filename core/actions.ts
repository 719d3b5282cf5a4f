/**
 * The two sheets built from a results block after every check, the same in Excel and Google Sheets: "Action list" (one
 * row per property and check that needs action within N days, plus every overdue one, keeping what the user typed in
 * Done and Notes) and "Compliance summary" (live COUNTIF formulas over the block, and a table of actions due per month
 * for the chart). Also the Action list as an iCalendar file. Pure: hosts read cells, call these, write what they return.
 */
import { CHECK_NAMES, type CheckName } from "./checks";
import { OUTPUT_COLUMNS, firstReportedOf, safeCellText, type Cell } from "./layout";
import { CHECK_LABELS, WINDOWS, addDays, addMonths, dateSerial, isoDay, obligationsFor, type Obligation, type UserDates, type WindowDays } from "./obligations";
import type { CheckResult } from "./schemas";

import { cellDay, userDatesOf, type UserColumns } from "./user-columns";

export { cellDay, detectUserColumns, readUserDates, userDatesOf, type UserColumns } from "./user-columns";

export const ACTION_LIST_SHEET = "Action list";
export const SUMMARY_SHEET = "Compliance summary";

const col = (key: string) => OUTPUT_COLUMNS.findIndex((c) => c.key === key);
const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v.trim() : String(v));

const MEMBERS: [CheckName, string, Record<string, string>][] = [
  ["epc", "epc_status", { rating: "epc_rating", expiry: "epc_expiry" }],
  ["gas_safety", "gas_status", { last_certificate: "gas_last_certificate", expiry: "gas_expiry" }],
  ["eicr", "eicr_status", { expiry: "eicr_expiry", detail: "eicr_detail" }],
  ["licensing", "licensing_status", { scheme: "licensing_scheme", expiry: "licensing_expiry" }],
  ["deposit_protection", "deposit_status", { scheme: "deposit_scheme", protected_date: "deposit_protected_date" }],
];

/**
 * A check result as our block's row shows it (block cells in OUTPUT_COLUMNS order), so that every sheet built from the
 * block gives the answers the row gives. A status of "error" or blank is a check not known. Null when no check is known.
 */
export function resultFromBlockRow(cells: readonly unknown[]): CheckResult | null {
  const checks: Record<string, Record<string, unknown>> = {};
  for (const [name, statusKey, fields] of MEMBERS) {
    const status = text(cells[col(statusKey)]).toLowerCase();
    if (!status || status === "error") continue;
    const m: Record<string, unknown> = { status };
    for (const [f, key] of Object.entries(fields)) {
      const v = cells[col(key)];
      m[f] = OUTPUT_COLUMNS[col(key)].kind === "date" ? cellDay(v) : text(v).replace(/^'/, "") || null;
    }
    checks[name] = m;
  }
  if (!Object.keys(checks).length) return null;
  const score = cells[col("compliance_score")];
  return {
    uprn: text(cells[col("matched_uprn")]),
    address: text(cells[col("matched_address")]),
    compliance_score: typeof score === "number" ? score : null,
    risk_level: text(cells[col("risk_level")]) || null,
    checks,
  } as CheckResult;
}

/** The day a block row was checked (its Checked at cell), else null. */
export function rowCheckedDay(cells: readonly unknown[]): string | null {
  return cellDay(cells[col("checked_at")]);
}

// ---------------------------------------------------------------------------------------------------------------
// The Action list.

/** One property of the results block, as the lists read it. */
export interface BlockProperty {
  /** The row's UPRN as the user's table has it (else the matched one). */
  uprn: string;
  address: string;
  owner?: string;
  /** The block's cells of this row, OUTPUT_COLUMNS order. */
  cells: readonly unknown[];
  userDates?: UserDates;
}

export interface ListOptions {
  /** The day the list counts from, YYYY-MM-DD. */
  today: string;
  /** Actions due within this many days are listed, with every overdue one. */
  withinDays: number;
  windows?: Partial<Record<CheckName, Partial<WindowDays>>>;
  /** The header of the user's owner column, when the table has one (the list then has that column). */
  ownerHeader?: string;
}

/** Every obligation of every property of the block, counted from `today`. */
export function blockObligations(props: readonly BlockProperty[], o: Pick<ListOptions, "today" | "windows">): { prop: BlockProperty; ob: Obligation }[] {
  const out: { prop: BlockProperty; ob: Obligation }[] = [];
  for (const prop of props) {
    const result = resultFromBlockRow(prop.cells);
    if (!result) continue;
    for (const ob of obligationsFor(result, { today: o.today, windows: o.windows, userDates: prop.userDates, firstReported: firstReportedOf(prop.cells) })) out.push({ prop, ob });
  }
  return out;
}

export const CLOSED_TITLE = "Closed: these actions are no longer due; kept for what was typed in Done and Notes";

export interface ActionListSheet {
  /** Cells to write from A1: text already formula-safe, dates as YYYY-MM-DD text (hosts write them as dates). */
  values: Cell[][];
  headers: string[];
  /** Column indexes: the window (coloured), the dates, Done. */
  windowColumn: number;
  dateColumns: number[];
  doneColumn: number;
  notesColumn: number;
  /** Rows 1.. of the open actions (0-based sheet rows, after the header) and of the Closed section's title. */
  open: number;
  closedTitleRow: number | null;
  closed: number;
}

export function actionListHeaders(ownerHeader?: string): string[] {
  return ["Window", "Due", "Days left", "UPRN", "Address", ...(ownerHeader ? [ownerHeader] : []), "Check", "Action", "Rule", "Done", "Notes"];
}

const keyOf = (uprn: string, check: string, due: string) => `${uprn.trim().toLowerCase()}\u0000${check.trim().toLowerCase()}\u0000${due}`;

interface Kept {
  key: string;
  row: unknown[];
  done: unknown;
  notes: unknown;
}

/**
 * What the user typed in the list as it stands now: found by the header row's words, not by position, so a column the
 * user moved or inserted still gives its Done and Notes back. Rows without Done or Notes are not kept.
 */
function readExisting(existing: readonly (readonly unknown[])[], headers: readonly string[]): Kept[] {
  if (!existing.length) return [];
  const headerAt = existing.findIndex((r) => r.some((v) => text(v).toLowerCase() === "uprn") && r.some((v) => text(v).toLowerCase() === "notes"));
  if (headerAt < 0) return [];
  const head = existing[headerAt].map((v) => text(v).toLowerCase());
  const at = (name: string) => head.indexOf(name.toLowerCase());
  const c = { uprn: at("UPRN"), check: at("Check"), due: at("Due"), done: at("Done"), notes: at("Notes") };
  if (c.uprn < 0 || c.check < 0) return [];
  const out: Kept[] = [];
  for (const r of existing.slice(headerAt + 1)) {
    const uprn = text(r[c.uprn]).replace(/^'/, "");
    if (!uprn) continue;
    const done = c.done >= 0 ? r[c.done] : "";
    const notes = c.notes >= 0 ? r[c.notes] : "";
    const typed = (v: unknown) => v !== "" && v !== null && v !== undefined && v !== false;
    if (!typed(done) && !typed(notes)) continue;
    // The row as our columns: same header words, today's order.
    const row = headers.map((h) => {
      const i = head.indexOf(h.toLowerCase());
      return i >= 0 ? r[i] : "";
    });
    out.push({ key: keyOf(uprn, text(r[c.check]), cellDay(c.due >= 0 ? r[c.due] : "") ?? ""), row, done, notes });
  }
  return out;
}

/** What a user typed, written back as it was (a checkbox's true/false stays a boolean), formula-safe. */
function userCell(v: unknown): Cell {
  if (typeof v === "boolean") return v as unknown as Cell;
  if (typeof v === "number") return v;
  if (v === null || v === undefined) return "";
  if (typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]") return cellDay(v) ?? "";
  return safeCellText(String(v));
}

/**
 * The Action list: a header row, the open actions (overdue and due within N days, by due date, then UPRN and check),
 * then, when there are any, a Closed section of earlier rows whose action has gone away but which carry Done or Notes.
 * `existing` is the sheet as it is now (values from A1), so typed Done and Notes survive, matched by UPRN + check + due.
 */
export function buildActionList(props: readonly BlockProperty[], o: ListOptions, existing: readonly (readonly unknown[])[] = []): ActionListSheet {
  const headers = actionListHeaders(o.ownerHeader);
  const kept = readExisting(existing, headers);
  const byKey = new Map(kept.map((k) => [k.key, k]));
  const last = addDays(o.today, o.withinDays);
  const items = blockObligations(props, o)
    .filter(({ ob }) => ob.due !== null && ob.action !== "" && (ob.window === "Overdue" || ob.due <= last))
    .sort((a, b) => (a.ob.due! < b.ob.due! ? -1 : a.ob.due! > b.ob.due! ? 1 : a.prop.uprn < b.prop.uprn ? -1 : a.prop.uprn > b.prop.uprn ? 1 : CHECK_NAMES.indexOf(a.ob.check) - CHECK_NAMES.indexOf(b.ob.check)));
  const used = new Set<string>();
  const values: Cell[][] = [headers];
  for (const { prop, ob } of items) {
    const key = keyOf(prop.uprn, CHECK_LABELS[ob.check], ob.due!);
    const k = used.has(key) ? undefined : byKey.get(key);
    used.add(key);
    values.push([
      ob.window ?? "",
      ob.due!,
      ob.daysLeft ?? "",
      safeCellText(prop.uprn),
      safeCellText(prop.address),
      ...(o.ownerHeader ? [safeCellText(prop.owner ?? "")] : []),
      CHECK_LABELS[ob.check],
      safeCellText(ob.action),
      safeCellText(ob.rule),
      userCell(k?.done),
      userCell(k?.notes),
    ]);
  }
  const open = values.length - 1;
  const closedRows = kept.filter((k) => !used.has(k.key));
  let closedTitleRow: number | null = null;
  if (closedRows.length) {
    values.push(headers.map(() => ""));
    closedTitleRow = values.length;
    values.push([CLOSED_TITLE, ...headers.slice(1).map(() => "")]);
    for (const k of closedRows) {
      values.push(
        headers.map((h, i) => {
          const v = k.row[i];
          if (h === "Done" || h === "Notes") return userCell(v);
          if (h === "Due") return cellDay(v) ?? "";
          if (h === "Window") return "Closed";
          if (h === "Days left") return "";
          return typeof v === "number" ? v : safeCellText(text(v).replace(/^'/, ""));
        }),
      );
    }
  }
  return {
    values,
    headers,
    windowColumn: 0,
    dateColumns: [1],
    doneColumn: headers.indexOf("Done"),
    notesColumn: headers.indexOf("Notes"),
    open,
    closedTitleRow,
    closed: closedRows.length,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The Compliance summary.

/** Where the results block stands, for the summary's formulas. */
export interface BlockRef {
  sheet: string;
  /** 0-based: the block's first column, and its first and last data rows. */
  column: number;
  firstRow: number;
  lastRow: number;
}

export function columnLetters(index: number): string {
  let s = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** 'Sheet name'!$E$2:$E$101 for one column of the block. */
export function blockColumnRef(b: BlockRef, key: string): string {
  const letter = columnLetters(b.column + col(key));
  return `'${b.sheet.replace(/'/g, "''")}'!$${letter}$${b.firstRow + 1}:$${letter}$${Math.max(b.firstRow, b.lastRow) + 1}`;
}

export const SUMMARY_STATUSES = ["pass", "warning", "fail", "not_required"] as const;
export const MONTHS_AHEAD = 18;

export interface SummarySheet {
  /** Cells from A1; strings starting "=" are formulas (hosts write this grid as formulas). */
  cells: Cell[][];
  /** The chart's source: rows and columns of the due-per-month table, 0-based, header row and label column included. */
  chart: { firstRow: number; firstColumn: number; rowCount: number; columnCount: number };
  /** Where each count table stands (0-based), for tests and hosts that format them. */
  tables: { status: number; risk: number; window: number; months: number };
  /** Rows (0-based) of header lines to make bold. */
  headerRows: number[];
}

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Actions due per month over the next 18 months, by check, with an "Overdue" row first. */
export function dueByMonth(props: readonly BlockProperty[], o: Pick<ListOptions, "today" | "windows">): { labels: string[]; counts: number[][] } {
  const start = o.today.slice(0, 7) + "-01";
  const labels = ["Overdue", ...Array.from({ length: MONTHS_AHEAD }, (_, i) => addMonths(start, i).slice(0, 7))];
  const counts = labels.map(() => CHECK_NAMES.map(() => 0));
  for (const { ob } of blockObligations(props, o)) {
    if (!ob.due || !ob.action) continue;
    const c = CHECK_NAMES.indexOf(ob.check);
    if (ob.window === "Overdue") counts[0][c]++;
    else {
      const i = labels.indexOf(ob.due.slice(0, 7));
      if (i > 0) counts[i][c]++;
    }
  }
  return { labels, counts };
}

/**
 * The Compliance summary: counts by status for each check, by risk level and by window as live COUNTIF formulas over
 * the block (so edits and re-runs update them without the add-in), an "as of" stamp, and the table of actions due per
 * month that the chart shows (values as of the run).
 */
export function buildSummary(block: BlockRef, props: readonly BlockProperty[], o: Pick<ListOptions, "today" | "windows"> & { asOf: string }): SummarySheet {
  const cells: Cell[][] = [];
  const width = 7;
  const row = (...v: Cell[]) => cells.push([...v, ...Array(Math.max(0, width - v.length)).fill("")]);
  const headerRows: number[] = [];
  row("Compliance summary");
  // Shown, not used in a formula: the sheet's name as it is (a leading apostrophe would be taken for a text prefix).
  row("As of", safeCellText(o.asOf), "Results block", safeCellText(`${block.sheet}!${columnLetters(block.column)}${block.firstRow + 1}:${columnLetters(block.column + OUTPUT_COLUMNS.length - 1)}${block.lastRow + 1}`));
  row("Counts are live formulas over the results block; the table of actions due per month is as of the last check.");
  row();
  const status = cells.length;
  headerRows.push(status);
  row("Check", ...SUMMARY_STATUSES, "error / unknown", "Total");
  for (const [name, statusKey] of MEMBERS) {
    const ref = blockColumnRef(block, statusKey);
    const r = cells.length + 1;
    row(
      CHECK_LABELS[name],
      ...SUMMARY_STATUSES.map((s) => `=COUNTIF(${ref},${q(s)})`),
      `=COUNTIF(${ref},"error")+COUNTIF(${ref},"unknown")`,
      `=SUM(B${r}:F${r})`,
    );
  }
  row();
  const risk = cells.length;
  headerRows.push(risk);
  row("Risk level", "Properties");
  const riskRef = blockColumnRef(block, "risk_level");
  for (const level of ["low", "medium", "high"]) row(level, `=COUNTIF(${riskRef},${q(level)})`);
  const scoreRef = blockColumnRef(block, "compliance_score");
  row("other / none", `=COUNTA(${blockColumnRef(block, "checked_at")})-COUNTIF(${riskRef},"low")-COUNTIF(${riskRef},"medium")-COUNTIF(${riskRef},"high")`);
  row("Average score", `=IFERROR(AVERAGE(${scoreRef}),"")`);
  row();
  const windowAt = cells.length;
  headerRows.push(windowAt);
  row("Window", "Properties");
  const winRef = blockColumnRef(block, "window");
  for (const w of WINDOWS) row(w, `=COUNTIF(${winRef},${q(w)})`);
  row();
  const months = cells.length;
  headerRows.push(months);
  const due = dueByMonth(props, o);
  row("Actions due", ...CHECK_NAMES.map((c) => CHECK_LABELS[c]));
  due.labels.forEach((label, i) => row(label, ...due.counts[i]));
  return {
    cells,
    chart: { firstRow: months, firstColumn: 0, rowCount: due.labels.length + 1, columnCount: CHECK_NAMES.length + 1 },
    tables: { status, risk, window: windowAt, months },
    headerRows,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// iCalendar (RFC 5545).

function icsText(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r?\n/g, "\\n");
}

/** Lines longer than 75 octets are folded (RFC 5545 3.1), never inside a UTF-8 character. */
function fold(line: string): string {
  const out: string[] = [];
  let cur = "";
  let bytes = 0;
  for (const ch of line) {
    // UTF-8 octets of the character (Apps Script has no TextEncoder).
    const cp = ch.codePointAt(0)!;
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + n > (out.length ? 74 : 75)) {
      out.push(cur);
      cur = "";
      bytes = 0;
    }
    cur += ch;
    bytes += n;
  }
  out.push(cur);
  return out.join("\r\n ");
}

const compact = (iso: string) => iso.replace(/-/g, "");

/**
 * The listed actions as all-day events on their due dates, each with a display alarm 7 days before. UIDs are stable
 * (UPRN + check + due), so importing a newer file updates events rather than doubling them.
 */
export function actionCalendar(list: ActionListSheet, o: { nowIso: string; name?: string }): string {
  const h = list.headers;
  const at = (name: string) => h.indexOf(name);
  const stamp = o.nowIso.replace(/[-:]/g, "").replace(/\.\d+/, "").slice(0, 15) + "Z";
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Property Compliance Check//Action list//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH", `X-WR-CALNAME:${icsText(o.name ?? "Compliance actions")}`];
  for (const r of list.values.slice(1, 1 + list.open)) {
    const due = cellDay(r[at("Due")]);
    if (!due) continue;
    const uprn = text(r[at("UPRN")]).replace(/^'/, "");
    const check = text(r[at("Check")]);
    const action = text(r[at("Action")]).replace(/^'/, "");
    const address = text(r[at("Address")]).replace(/^'/, "");
    lines.push(
      "BEGIN:VEVENT",
      `UID:${compact(due)}-${uprn.replace(/[^0-9A-Za-z]/g, "")}-${check.replace(/[^A-Za-z]/g, "").toLowerCase()}@compliance-check`,
      `DTSTAMP:${stamp}`,
      `DTSTART;VALUE=DATE:${compact(due)}`,
      `DTEND;VALUE=DATE:${compact(addDays(due, 1))}`,
      `SUMMARY:${icsText(`${check}: ${action}`)}`,
      `DESCRIPTION:${icsText(`${address} (UPRN ${uprn}). ${text(r[at("Rule")])}`)}`,
      ...(address ? [`LOCATION:${icsText(address)}`] : []),
      "TRANSP:TRANSPARENT",
      "BEGIN:VALARM",
      "ACTION:DISPLAY",
      `DESCRIPTION:${icsText(`${check} due in 7 days: ${address}`)}`,
      "TRIGGER:-P7D",
      "END:VALARM",
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return lines.map(fold).join("\r\n") + "\r\n";
}

/** The date serial of a YYYY-MM-DD cell, for hosts writing the lists' date columns as real dates. */
export function hostDate(v: Cell): Cell {
  return typeof v === "string" && isoDay(v) ? (dateSerial(v) ?? v) : v;
}


// ---------------------------------------------------------------------------------------------------------------
// Reading the block for the lists: the same in both hosts.

export interface TableColumns {
  /** 0-based columns in the rows given: the block's first column, the user's UPRN and address columns when known. */
  blockColumn: number;
  uprn?: number;
  address?: number;
  user?: UserColumns;
}

/**
 * The properties of a results block from the table's data rows (each row as the sheet holds it, from column A or from
 * the same first column as the indexes): rows whose block holds no check are left out. The UPRN is the user's cell
 * when there is one, else the matched UPRN; the address the user's, else the matched address.
 */
export function blockProperties(rows: readonly (readonly unknown[])[], c: TableColumns): BlockProperty[] {
  const out: BlockProperty[] = [];
  for (const row of rows) {
    const cells = Array.from({ length: OUTPUT_COLUMNS.length }, (_, k) => row[c.blockColumn + k]);
    if (!resultFromBlockRow(cells)) continue;
    const uprn = (c.uprn !== undefined ? text(row[c.uprn]).replace(/^'/, "") : "") || text(cells[col("matched_uprn")]).replace(/^'/, "");
    const address = (c.address !== undefined ? text(row[c.address]).replace(/^'/, "") : "") || text(cells[col("matched_address")]).replace(/^'/, "");
    out.push({
      uprn,
      address,
      owner: c.user?.owner !== undefined ? text(row[c.user.owner]).replace(/^'/, "") : undefined,
      cells,
      userDates: c.user ? userDatesOf(row, c.user) : undefined,
    });
  }
  return out;
}

/** The latest Checked at time of the block's rows ("YYYY-MM-DD hh:mm:ss" UTC), for the summary's "as of" stamp. */
export function lastCheckedAt(props: readonly BlockProperty[]): string {
  let best = "";
  for (const p of props) {
    const v = p.cells[col("checked_at")];
    const t =
      v && typeof v === "object" && Object.prototype.toString.call(v) === "[object Date]"
        ? new Date((v as Date).getTime()).toISOString().slice(0, 19).replace("T", " ")
        : typeof v === "number"
          ? new Date(Math.round((v - 25569) * 86_400_000)).toISOString().slice(0, 19).replace("T", " ")
          : text(v);
    if (t > best) best = t;
  }
  return best ? `${best} UTC` : "";
}
