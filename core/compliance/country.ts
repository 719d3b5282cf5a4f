/**
 * Which country's rules a property falls under, from its postcode: England, Wales or Scotland, or a place these rules do
 * not cover (Northern Ireland, Guernsey, Jersey, the Isle of Man), said per row. One entry point: `countryOf(postcode)`.
 *
 * A postcode area names the country except near the England–Wales and England–Scotland borders, where Royal Mail's areas
 * follow post towns, not the border: Deeside (CH5) is in Wales though the CH area is Chester's; Berwick-upon-Tweed (TD15)
 * is in England though TD is the Scottish Borders'. BORDER_DISTRICTS settles those areas district by district. A few
 * districts lie on both sides of the border (CH4: Saltney and Broughton in Wales, Handbridge in England); for them the
 * postcode cannot decide, and the answer says so: the user's own Country column (`countryFromText`) settles the row.
 *
 * Source of the table (rechecked 2026-11-27, district by district): the councils' own address lists, as each council
 * publishes them for its polling-station lookup (DemocracyClub/UK-Polling-Stations, one import script per council,
 * naming the postcodes of addresses in the council's register: SY22 6LG and SY10 9EG in Shropshire's, SY5 9BT, SY15 6LD
 * and HR3 5JY in Powys's, SY13 and SY14 postcodes in Wrexham's, CH4 in Flintshire's and Cheshire West's, TD12 in
 * Northumberland's and the Scottish Borders'); a list of the councils serving each district (gdorr/sl2,
 * la_postcodes.js: SY7 and SY9 in Powys and Shropshire, NP7 in Monmouthshire and Herefordshire); Royal Mail's districts
 * with their post towns; and addresses reported on the English side of SY15 (Chirbury) and SY22 (Llanymynech). Where
 * any source names a council on each side, the district is on both sides. No npm dataset of outward code to country was
 * found that is small enough for the Apps Script bundle; the ONS Postcode Directory (the authority, per postcode) is
 * some 1 GB, so this table holds only the districts of the border areas.
 */
import { match, parse } from "postcode";
import { remember } from "../memo";

export type Country = "England" | "Wales" | "Scotland";
export const COUNTRIES: readonly Country[] = ["England", "Wales", "Scotland"];

/** Places with a UK-style postcode whose law these rules do not describe. */
export type OutOfScope = "Northern Ireland" | "Guernsey" | "Jersey" | "Isle of Man";

export type CountryAnswer =
  /** The country whose rules apply; `outward` is the district that decided it. */
  (
    | { kind: "country"; country: Country; outward: string }
    /** A place outside these rules: the row says `message` and gets no country's deadlines. */
    | { kind: "out_of_scope"; place: OutOfScope; outward: string; message: string }
    /** The district lies on both sides of a border: the postcode alone cannot say which country. */
    | { kind: "both_sides"; countries: readonly [Country, Country]; outward: string; message: string }
    /** Not a postcode of a property (empty, malformed, or a non-geographic code such as BFPO). */
    | { kind: "unknown"; message: string }
  ) & {
    /** Set when the user's Country cell could not be read and the postcode decided instead. */
    note?: string;
  };

const OUT_OF_SCOPE_AREAS: Record<string, OutOfScope> = {
  BT: "Northern Ireland",
  GY: "Guernsey",
  JE: "Jersey",
  IM: "Isle of Man",
};

/** Areas wholly (or, for those in BORDER_DISTRICTS, mostly) in Scotland or Wales; every other valid area is England's. */
const AREA_COUNTRY: Record<string, Country> = {
  AB: "Scotland",
  DD: "Scotland",
  DG: "Scotland",
  EH: "Scotland",
  FK: "Scotland",
  G: "Scotland",
  HS: "Scotland",
  IV: "Scotland",
  KA: "Scotland",
  KW: "Scotland",
  KY: "Scotland",
  ML: "Scotland",
  PA: "Scotland",
  PH: "Scotland",
  TD: "Scotland",
  ZE: "Scotland",
  CF: "Wales",
  LD: "Wales",
  LL: "Wales",
  NP: "Wales",
  SA: "Wales",
};

/** Non-geographic areas: British Forces Post Office and bulk mail codes, not a rented home's address. */
const NON_GEOGRAPHIC_AREAS = new Set(["BF", "BX", "XX"]);

type Side = Country | readonly [Country, Country];
const EW = ["England", "Wales"] as const;
const WE = ["Wales", "England"] as const;
const ES = ["England", "Scotland"] as const;
const SE = ["Scotland", "England"] as const;

/**
 * The districts of the border areas whose country differs from their area's, or that lie on both sides (a pair, the
 * larger part first). Districts of these areas not listed follow AREA_COUNTRY (England for CH, SY, HR, CA, NE).
 */
export const BORDER_DISTRICTS: Readonly<Record<string, Side>> = {
  // CH (Chester): Flintshire's districts are in Wales; CH4 spans Saltney and Broughton (Wales) and Handbridge (England).
  CH4: WE,
  CH5: "Wales",
  CH6: "Wales",
  CH7: "Wales",
  CH8: "Wales",
  // SY (Shrewsbury): mid-Wales from SY15; west of Shrewsbury (SY5), Clun (SY7), Bishop's Castle (SY9), Oswestry (SY10),
  // Whitchurch (SY13) and Malpas (SY14) reach over the border, and Montgomery (SY15: Chirbury) and Llanymynech (SY22)
  // back into Shropshire.
  SY5: EW,
  SY7: EW,
  SY9: EW,
  SY10: EW,
  SY13: EW,
  SY14: EW,
  SY15: WE,
  SY16: "Wales",
  SY17: "Wales",
  SY18: "Wales",
  SY19: "Wales",
  SY20: "Wales",
  SY21: "Wales",
  SY22: WE,
  SY23: "Wales",
  SY24: "Wales",
  SY25: "Wales",
  // LD (Llandrindod Wells): Knighton (LD7) and Presteigne (LD8) have English addresses too.
  LD7: WE,
  LD8: WE,
  // HR (Hereford): Hay-on-Wye (HR3) is in Wales, Clifford in England; Kington (HR5) reaches into Powys.
  HR3: EW,
  HR5: EW,
  // NP (Newport): Abergavenny (NP7), Chepstow (NP16) and Monmouth (NP25) include Herefordshire and Gloucestershire villages.
  NP7: WE,
  NP16: WE,
  NP25: WE,
  // TD (Galashiels): Berwick-upon-Tweed (TD15) is in England with Scottish villages (Paxton); Coldstream (TD12) spans
  // the Tweed to Cornhill-on-Tweed in England.
  TD12: SE,
  TD15: ES,
};

/** The message a row outside these rules shows (Northern Ireland and the Crown dependencies have their own law). */
export function outOfScopeMessage(place: OutOfScope): string {
  return place === "Northern Ireland"
    ? "Northern Ireland: its own law applies (no deadlines are given here; these rules cover England, Wales and Scotland)."
    : `${place}: a Crown dependency with its own law (no deadlines are given here; these rules cover England, Wales and Scotland).`;
}

/**
 * Postcodes as the library parses them, by their text: a row's postcode is placed when its result is written and again
 * for each sheet built from the block, and parsing takes a dozen regular expressions.
 */
const parses = new Map<string, ReturnType<typeof parse>>();
function parsed(raw: string): ReturnType<typeof parse> {
  const p = parses.get(raw);
  return p === undefined ? remember(parses, raw, parse(raw)) : p;
}

/** The last postcode an address names (the service's matched address ends with it), else null; remembered as parses are. */
const lastPostcodes = new Map<string, string | null>();
function lastPostcodeIn(address: string): string | null {
  const last = lastPostcodes.get(address);
  if (last !== undefined) return last;
  const found = match(address);
  return remember(lastPostcodes, address, found.length ? found[found.length - 1] : null);
}

/** The country of a postcode, or why there is none. Takes any spacing and case ("ch5 1ab", "CH51AB"). */
export function countryOf(postcode: unknown): CountryAnswer {
  const raw = typeof postcode === "string" ? postcode.trim() : "";
  if (!raw)
    return { kind: "unknown", message: "No postcode: the country cannot be told, so England's rules are shown." };
  const p = parsed(raw);
  if (!p.valid)
    return {
      kind: "unknown",
      message: `"${raw}" is not a UK postcode: the country cannot be told, so England's rules are shown.`,
    };
  const area = p.area;
  const outward = p.outcode;
  const place = OUT_OF_SCOPE_AREAS[area];
  if (place) return { kind: "out_of_scope", place, outward, message: outOfScopeMessage(place) };
  if (NON_GEOGRAPHIC_AREAS.has(area))
    return { kind: "unknown", message: `${p.postcode} is not a property's address (non-geographic postcode).` };
  // A sub-district (EC1A, W1D) belongs to its district; the border districts have none, so the outward code is enough.
  const side = BORDER_DISTRICTS[outward];
  if (side && typeof side !== "string") {
    const [larger, other] = side;
    return {
      kind: "both_sides",
      countries: side,
      outward,
      message: `${outward} lies in both ${larger} and ${other}: add a Country column saying which (rules of ${larger} shown meanwhile).`,
    };
  }
  return { kind: "country", country: (side as Country | undefined) ?? AREA_COUNTRY[area] ?? "England", outward };
}

/** A country the user typed ("Wales", "cymru", "SCO", "Eng"), else null. */
export function countryFromText(v: unknown): Country | OutOfScope | null {
  const t =
    typeof v === "string"
      ? v
          .trim()
          .toLowerCase()
          .replace(/[.\s]+/g, " ")
      : "";
  if (/^(england|eng|en|gb-eng)$/.test(t)) return "England";
  if (/^(wales|cymru|wal|wls|cy|gb-wls)$/.test(t)) return "Wales";
  if (/^(scotland|alba|sco|sct|scot|gb-sct)$/.test(t)) return "Scotland";
  if (/^(northern ireland|ni|n ireland|gb-nir)$/.test(t)) return "Northern Ireland";
  if (/^(guernsey|gg)$/.test(t)) return "Guernsey";
  if (/^(jersey|je)$/.test(t)) return "Jersey";
  if (/^(isle of man|iom|im)$/.test(t)) return "Isle of Man";
  return null;
}

/**
 * The answer for a row: the user's Country cell when it names a place (it settles a border district), else the postcode.
 * A Country cell that names no place is reported, not ignored.
 */
export function rowCountry(postcode: unknown, countryCell?: unknown, matchedAddress?: unknown): CountryAnswer {
  // A row keyed by UPRN alone: the service's matched address ends with the postcode.
  if ((typeof postcode !== "string" || !postcode.trim()) && typeof matchedAddress === "string") {
    const found = lastPostcodeIn(matchedAddress);
    if (found !== null) postcode = found;
  }
  const typed = typeof countryCell === "string" ? countryCell.trim() : countryCell == null ? "" : String(countryCell);
  if (typed) {
    const c = countryFromText(typed);
    const outward = countryOf(postcode);
    const at = outward.kind === "unknown" ? "" : outward.outward;
    if (c === "England" || c === "Wales" || c === "Scotland") return { kind: "country", country: c, outward: at };
    if (c) return { kind: "out_of_scope", place: c, outward: at, message: outOfScopeMessage(c) };
    return {
      ...outward,
      note: `Country "${typed}" is not England, Wales, Scotland, Northern Ireland, Guernsey, Jersey or the Isle of Man: the postcode decided.`,
    };
  }
  return countryOf(postcode);
}

/** The country whose rules a row gets: its own, the larger part's for a district on both sides, none (null) out of scope. */
export function rulesCountry(a: CountryAnswer): Country | null | undefined {
  return a.kind === "country"
    ? a.country
    : a.kind === "both_sides"
      ? a.countries[0]
      : a.kind === "out_of_scope"
        ? null
        : undefined;
}

/** What a row's Message says about its country ("" when there is nothing to say). */
export function countryMessage(a: CountryAnswer | undefined): string {
  if (!a) return "";
  const own = a.kind === "country" ? "" : a.message;
  return [own, a.note ?? ""].filter(Boolean).join(" ");
}
