/**
 * Which of a bulk job's properties each result of a page is: by its index, else by the property it names, else by the
 * UPRN, postcode and first line the result states compared with the row's query, else by its place on a finished page.
 * An item that says it is another property is never placed on the row.
 */
import { propertyKey, type PropertyQuery } from "../sheet/input-rows";
import type { ResultsItem } from "./results-page";

/** Letters and digits only, upper case: how a postcode is compared ("sw1a2aa" = "SW1A 2AA"). */
function compact(s: unknown): string {
  return typeof s === "string" ? s.replace(/[^a-z0-9]+/gi, "").toUpperCase() : "";
}

/** The whole words of an address, lower case, accents folded: "2 Jubilee Rd." -> ["2", "jubilee", "rd"]. */
function addressWords(s: unknown): string[] {
  if (typeof s !== "string") return [];
  return (
    s
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? []
  );
}

/** Does the address begin with the first line asked for, word for word? "2 Jubilee Road" is not "42 Jubilee Road". */
function startsWithLine(address: unknown, line: string): boolean {
  const have = addressWords(address);
  const want = addressWords(line);
  return want.length > 0 && want.length <= have.length && want.every((w, i) => have[i] === w);
}

/** Does a check result (its address / postcode) fit a postcode query (and its first line, when given)? */
export function fitsPostcodeQuery(result: unknown, q: PropertyQuery): "address" | "postcode" | null {
  if (!q.postcode || q.uprn || !result || typeof result !== "object") return null;
  const r = result as Record<string, unknown>;
  const where = compact(r.address) + "|" + compact(r.postcode) + "|" + compact(r.full_address);
  if (!where.includes(compact(q.postcode))) return null;
  if (q.address && (startsWithLine(r.address, q.address) || startsWithLine(r.full_address, q.address)))
    return "address";
  return q.address ? null : "postcode";
}

const POSTCODE_IN_TEXT = /\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b/gi;

/** Whether a result says it is another property than the one asked: another UPRN, postcode or first line. */
export function contradicts(result: unknown, q: PropertyQuery | undefined): boolean {
  if (!q || !result || typeof result !== "object") return false;
  const r = result as Record<string, unknown>;
  if (q.uprn)
    return (
      r.uprn !== undefined &&
      r.uprn !== null &&
      String(r.uprn).replace(/^0+(?=\d)/, "") !== q.uprn.replace(/^0+(?=\d)/, "")
    );
  // Only a postcode the result states (its own field, or one written in its address) can contradict the row's.
  const stated = [
    r.postcode,
    ...[r.address, r.full_address].flatMap((a) => (typeof a === "string" ? (a.match(POSTCODE_IN_TEXT) ?? []) : [])),
  ]
    .map(compact)
    .filter(Boolean);
  if (q.postcode && stated.length > 0 && !stated.includes(compact(q.postcode))) return true;
  const lines = [r.address, r.full_address, r.address_line_1, r.line_1].filter(
    (v) => typeof v === "string" && v.trim(),
  );
  return !!q.address && lines.length > 0 && !lines.some((l) => startsWithLine(l, q.address!));
}

/** What placing a page needs to know of its job. */
export interface PagePlace {
  /** The job's number of properties. */
  total: number;
  /** The job's properties, in order, when the host still has them. */
  properties?: readonly PropertyQuery[];
  /** Whether the job's property at this index has its result already. */
  taken: (local: number) => boolean;
  /** The job's index of the page's first item. */
  pageStart: number;
  /** The job has ended: items without indexes may be placed by their position on the page. */
  finished: boolean;
}

/**
 * Where each result of a page goes, in the order they are placed (an index into the job's properties), and how many
 * results (not pending) could not be placed. Items still pending are not results: the page is polled again for them.
 */
export function placeResults(
  items: readonly ResultsItem[],
  job: PagePlace,
): { placed: { item: ResultsItem; local: number }[]; unmatched: number } {
  const placed: { item: ResultsItem; local: number }[] = [];
  const mine = new Set<number>();
  const free = (i: number) => !mine.has(i) && !job.taken(i);
  const place = (item: ResultsItem, local: number) => {
    mine.add(local);
    placed.push({ item, local });
  };
  const keys = job.properties?.map(propertyKey);
  const noIndexes = items.every((it) => it.index === undefined);
  let pending: { item: ResultsItem; pos: number }[] = [];
  // 1. by index, unless the item names another property of this job than the one at its index (a server counting
  // from 1, say): then its own identity places it (2.). An identity that names no property of the job (a server
  // that normalised the query its own way) does not overrule the index.
  const identity = (item: ResultsItem) =>
    item.input ? propertyKey(item.input) : item.uprn ? propertyKey({ uprn: item.uprn }) : undefined;
  const namesAnother = (item: ResultsItem, at: number) => {
    const key = keys && identity(item);
    return !!key && keys![at] !== key && keys!.includes(key);
  };
  items.forEach((item, pos) => {
    if (item.pending) return;
    if (item.index !== undefined && item.index >= 0 && item.index < job.total && !namesAnother(item, item.index)) {
      if (free(item.index)) place(item, item.index);
    } else pending.push({ item, pos });
  });
  // 2. by the input echo, or the result's uprn
  pending = pending.filter(({ item }) => {
    if (!keys || !(item.input || item.uprn)) return true;
    const key = item.input ? propertyKey(item.input) : propertyKey({ uprn: item.uprn });
    const found = keys.findIndex((k, i) => k === key && free(i));
    if (found < 0) return true;
    place(item, found);
    return false;
  });
  // 3. a result for a postcode query: by the postcode (and first line) in its address
  const props = job.properties;
  if (props) {
    pending = pending.filter(({ item }) => {
      if (item.input || item.result === undefined) return true;
      const best = postcodeFit(item.result, props, job.total, free);
      if (best < 0) return true;
      place(item, best);
      return false;
    });
  }
  // 4. by position, on a finished job without indexes, unless the item names another property
  pending = pending.filter(({ item, pos }) => {
    const local = job.pageStart + pos;
    if (!noIndexes || !job.finished || local >= job.total || !free(local)) return true;
    const q = props?.[local];
    if (item.input || (item.uprn && q && q.uprn)) return true; // its own identity did not match this row
    if (contradicts(item.result, q)) return true; // it says it is another property than this row asked for
    place(item, local);
    return false;
  });
  return { placed, unmatched: pending.length };
}

/**
 * The first free property whose postcode and first line the result states, else the first with its postcode; -1 for
 * none.
 */
function postcodeFit(
  result: unknown,
  props: readonly PropertyQuery[],
  total: number,
  free: (i: number) => boolean,
): number {
  let best = -1;
  for (let i = 0; i < total && i < props.length; i++) {
    if (!free(i)) continue;
    const fit = fitsPostcodeQuery(result, props[i]);
    if (fit === "address") return i;
    if (fit && best < 0) best = i;
  }
  return best;
}
