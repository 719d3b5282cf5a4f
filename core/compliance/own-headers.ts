/**
 * Which of the user's columns hold an obligation the service cannot see, by their header: the words agents type
 * ("Date of smoke alarm check", "Smoke & CO alarms checked", "Legionella last assessed", "RTR expiry date", "Smoke alrams
 * checked"), one column for two obligations (Smoke & CO), two columns for one (both read: core/compliance/own-obligations.ts
 * `ownInputsOf` takes the later date), and the headers that look like an obligation's but are not read, said once.
 * Deterministic: the same header gives the same answer in both hosts, whatever else the table holds.
 */
import { DUE_WORDS, OWN_RULES, RULE_BY_KEY, HEADER_WORDS, type Meaning, type OwnKey } from "./own-rules";

/**
 * Optimal string alignment distance, capped: 2 stands for "2 or more". Within 1 only when one edit (a letter changed,
 * added or dropped, or two neighbours swapped) makes one the other, so that is what is looked for, letter by letter.
 */
function distance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length < b.length) [a, b] = [b, a];
  if (a.length - b.length > 1) return 2;
  let i = 0;
  while (i < b.length && a[i] === b[i]) i++;
  if (a.length > b.length) return a.slice(i + 1) === b.slice(i) ? 1 : 2;
  if (a.slice(i + 1) === b.slice(i + 1)) return 1;
  return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2) ? 1 : 2;
}

const KNOWN = new Set(HEADER_WORDS);

/** A word of a header mended to the one rule word it is a typo of; as typed when it is none, or more than one. */
function mend(word: string): string {
  if (word.length < 5 || KNOWN.has(word)) return word;
  const near = HEADER_WORDS.filter((w) => distance(word, w) === 1);
  return near.length === 1 ? near[0] : word;
}

// Headers are read again for every row (core/compliance/row-place.ts): each is normalised once, and the cache stays small.
const normalised = new Map<string, string>();

/** A header as the rules compare it. */
export function normaliseHeader(v: unknown): string {
  const t = v === null || v === undefined ? "" : String(v);
  const known = normalised.get(t);
  if (known !== undefined) return known;
  if (normalised.size >= 2000) normalised.clear();
  const n = normalise(t);
  normalised.set(t, n);
  return n;
}

function normalise(t: string): string {
  return t
    .toLowerCase()
    .replace(/[&+]/g, " and ")
    .replace(/[_\-–—:./()?,]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .split(" ")
    .map(mend)
    .join(" ")
    .replace(/carbon monoxide/g, "co")
    .replace(/licen[cs]e/g, "licence")
    .replace(/follow ?up/g, "follow up")
    .replace(/\b(smoke (and )?co|co (and )?smoke)\b/g, "smoke co");
}

export interface OwnColumn {
  key: OwnKey;
  /** 0-based column of the dates, and of the "Evidence" column when the table has one. */
  column: number;
  evidenceColumn?: number;
  header: string;
  meaning: Meaning;
}

const EVIDENCE = /\b(evidence|proof|certificate link|certificate|link|document|doc)\b/;

/**
 * The own-obligation columns of a header row, in column order: every column whose header names an obligation (a Smoke
 * & CO column once for each; two columns for one obligation both), each with its Evidence column, which is a header
 * naming the obligation and "evidence" ("Smoke alarm evidence"), or a bare "Evidence" / "Link" right after the column.
 */
export function detectOwnColumns(header: readonly unknown[], exclude: ReadonlySet<number> = new Set()): OwnColumn[] {
  const norm = header.map(normaliseHeader);
  const out: OwnColumn[] = [];
  norm.forEach((h, i) => {
    if (exclude.has(i) || !h || EVIDENCE.test(h)) return;
    for (const r of OWN_RULES.filter((x) => x.header.test(h)))
      out.push({
        key: r.key,
        column: i,
        header: String(header[i]).trim(),
        meaning: DUE_WORDS.test(h) ? "due" : r.defaultMeaning,
      });
  });
  for (const c of out) {
    const words = RULE_BY_KEY.get(c.key)!.words;
    const named = norm.findIndex((h, i) => !exclude.has(i) && EVIDENCE.test(h) && words.test(h));
    const next = norm[c.column + 1];
    if (named >= 0) c.evidenceColumn = named;
    else if (
      next !== undefined &&
      !exclude.has(c.column + 1) &&
      /^(evidence|proof|link|certificate|evidence link|certificate link|document)$/.test(next)
    )
      c.evidenceColumn = c.column + 1;
  }
  return out;
}

/** Words of a date, or of something done on a day: with an obligation's name, a header that looks like a date column. */
const DATE_WORDS =
  /\b(date|dated|day|when|checked|tested|check|test|last|latest|expiry|expires|expired|due|assessed|reviewed|review|renewal|renew|renewed|registered|until|follow up|inspected|inspection|next)\b/;
/** Words of a column that holds something else about the obligation: a name, a number, a note. */
const NOT_A_DATE =
  /\b(by|who|name|number|no|ref|reference|notes?|comments?|location|locations|type|status|count|cost|price|fee|contractor|engineer|company|result|outcome|frequency|interval)\b/;

/** A header that looks like an obligation's date column but is not read, and the obligation it looks like. */
export interface UnreadOwnColumn {
  column: number;
  header: string;
  key: OwnKey;
}

/**
 * The columns whose header names an obligation with a date word ("Smoke alarm fitted date", "Legionella assessed
 * when?") that no rule reads: said once, so that a date typed there is not thought to count. Evidence columns, the
 * add-in's own (`exclude`) and headers of another purpose ("Smoke alarm checked by", "Notes on smoke") are left alone.
 */
export function unreadOwnColumns(
  header: readonly unknown[],
  exclude: ReadonlySet<number> = new Set(),
): UnreadOwnColumn[] {
  const out: UnreadOwnColumn[] = [];
  header.map(normaliseHeader).forEach((h, i) => {
    if (exclude.has(i) || !h || EVIDENCE.test(h) || NOT_A_DATE.test(h) || !DATE_WORDS.test(h)) return;
    if (OWN_RULES.some((r) => r.header.test(h))) return;
    const r = OWN_RULES.find((x) => x.looks.test(h));
    if (r) out.push({ column: i, header: String(header[i]).trim(), key: r.key });
  });
  return out;
}

/** The sentence the status says once for such a column, offering the headers its obligation is read under. */
export function unreadColumnSentence(c: Pick<UnreadOwnColumn, "header" | "key">): string {
  const names = RULE_BY_KEY.get(c.key)!.examples.map((e) => `"${e}"`);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}` : names[0];
  return `Column '${c.header}' looks like a compliance date but is not read: rename it to one of ${list}.`;
}
