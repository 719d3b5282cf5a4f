/**
 * The country of a property from its postcode: real postcodes on each side of the England–Wales and England–Scotland
 * borders (council offices and town halls), the districts that lie on both sides, and the places out of scope.
 */
import { readFileSync } from "fs";
import { join } from "path";
import {
  BORDER_DISTRICTS,
  countryFromText,
  countryOf,
  rowCountry,
  type Country,
} from "../../../core/compliance/country";

// [postcode, what it is, expected country]
const SIDES: [string, string, Country][] = [
  // England–Wales: Chester and Flintshire (CH).
  ["CH1 2HJ", "Chester Town Hall (Cheshire West and Chester)", "England"],
  ["CH7 6NB", "Flintshire County Hall, Mold", "Wales"],
  ["CH5 1AB", "Deeside (Flintshire)", "Wales"],
  ["CH6 5BD", "Flint", "Wales"],
  ["CH8 7HA", "Holywell", "Wales"],
  ["CH65 0AZ", "Ellesmere Port", "England"],
  // Shropshire and Powys/Ceredigion (SY).
  ["SY2 6ND", "Shirehall, Shrewsbury (Shropshire Council)", "England"],
  ["SY11 1PZ", "Oswestry town centre", "England"],
  ["SY16 2NZ", "Newtown, Powys", "Wales"],
  ["SY21 7AS", "Welshpool", "Wales"],
  ["SY23 3UE", "Canolfan Rheidol, Aberystwyth (Ceredigion)", "Wales"],
  // Wrexham (LL) against Whitchurch (SY13 is on both sides, below).
  ["LL11 1AY", "Wrexham Guildhall", "Wales"],
  // Powys (LD) and Herefordshire (HR).
  ["LD1 5LG", "Powys County Hall, Llandrindod Wells", "Wales"],
  ["HR4 0LE", "Herefordshire Council, Plough Lane, Hereford", "England"],
  ["HR9 5AB", "Ross-on-Wye", "England"],
  // Monmouthshire (NP) and Gloucestershire (GL).
  ["NP15 1GA", "Monmouthshire County Hall, Usk", "Wales"],
  ["NP20 4UR", "Newport Civic Centre", "Wales"],
  ["GL16 8HG", "Coleford, Forest of Dean", "England"],
  ["GL1 2TG", "Shire Hall, Gloucester", "England"],
  ["CF10 4UW", "Cardiff County Hall", "Wales"],
  ["SA1 3SN", "Swansea Civic Centre", "Wales"],
  // England–Scotland: the Borders (TD), Dumfries and Galloway (DG) against Cumbria (CA) and Northumberland (NE).
  ["TD6 0SA", "Scottish Borders Council, Newtown St Boswells", "Scotland"],
  ["TD1 1BA", "Galashiels", "Scotland"],
  ["TD14 5AA", "Eyemouth", "Scotland"],
  ["NE61 2EF", "Northumberland County Hall, Morpeth", "England"],
  ["NE71 6BL", "Wooler", "England"],
  ["DG1 2DD", "Dumfries and Galloway Council, Dumfries", "Scotland"],
  ["DG16 5DY", "Gretna", "Scotland"],
  ["CA3 8QG", "Carlisle Civic Centre", "England"],
  ["CA6 5HH", "Longtown", "England"],
  ["EH1 1YJ", "Edinburgh City Chambers", "Scotland"],
  ["G2 1DU", "Glasgow City Chambers", "Scotland"],
  ["SW1A 2AA", "10 Downing Street", "England"],
];

describe("country from postcode", () => {
  test.each(SIDES)("%s (%s) is in %s", (postcode, _what, country) => {
    const a = countryOf(postcode);
    expect(a).toMatchObject({ kind: "country", country });
  });

  test("spacing and case do not matter", () => {
    expect(countryOf("ch51ab")).toEqual({ kind: "country", country: "Wales", outward: "CH5" });
    expect(countryOf("  td15 1bt ")).toMatchObject({ kind: "both_sides", outward: "TD15" });
  });

  test.each([
    ["CH4 0DR", "Broughton (Wales) and Handbridge (England)", ["Wales", "England"]],
    ["SY10 7AA", "Oswestry and Llansilin", ["England", "Wales"]],
    ["SY13 1AA", "Whitchurch and Bronington", ["England", "Wales"]],
    ["HR3 5AA", "Hay-on-Wye (Wales) and Clifford (England)", ["England", "Wales"]],
    ["LD7 1AA", "Knighton", ["Wales", "England"]],
    ["NP16 5EY", "Chepstow (Wales) and Tutshill (England)", ["Wales", "England"]],
    ["TD15 1BT", "Berwick-upon-Tweed (England) and Paxton (Scotland)", ["England", "Scotland"]],
    ["TD12 4AA", "Coldstream (Scotland) and Cornhill-on-Tweed (England)", ["Scotland", "England"]],
    ["SY15 6LD", "Montgomery (Wales) and Chirbury (England)", ["Wales", "England"]],
    ["SY22 6LG", "Four Crosses (Wales) and Llanymynech's Shropshire side (England)", ["Wales", "England"]],
    ["SY5 9BT", "west of Shrewsbury (England) and Powys's edge (Wales)", ["England", "Wales"]],
    ["SY7 8AA", "Clun (England) and Powys's edge (Wales)", ["England", "Wales"]],
    ["SY9 5AA", "Bishop's Castle (England) and Powys's edge (Wales)", ["England", "Wales"]],
    ["NP7 5LB", "Abergavenny (Wales) and Herefordshire villages (England)", ["Wales", "England"]],
  ])("%s lies on both sides of the border (%s): the row is told to say which", (postcode, _what, countries) => {
    const a = countryOf(postcode);
    expect(a.kind).toBe("both_sides");
    if (a.kind !== "both_sides") return;
    expect(a.countries).toEqual(countries);
    expect(a.message).toContain("Country column");
    expect(a.message).toContain(a.outward);
  });

  test.each([
    ["BT1 5GS", "Northern Ireland"],
    ["GY1 1FH", "Guernsey"],
    ["JE2 4UH", "Jersey"],
    ["IM1 3PN", "Isle of Man"],
  ])("%s is out of scope (%s), with a message for the row", (postcode, place) => {
    const a = countryOf(postcode);
    expect(a).toMatchObject({ kind: "out_of_scope", place });
    if (a.kind === "out_of_scope") expect(a.message).toMatch(/own law/);
  });

  test.each([
    ["", /No postcode/],
    ["ZZZ", /not a UK postcode/],
    ["BF1 3AA", /non-geographic/],
  ])("%j has no country, and says why", (postcode, why) => {
    const a = countryOf(postcode);
    expect(a.kind).toBe("unknown");
    if (a.kind === "unknown") expect(a.message).toMatch(why);
  });

  test("every border district in the table is a real district of a border area", () => {
    for (const d of Object.keys(BORDER_DISTRICTS)) expect(d).toMatch(/^(CH|SY|LD|HR|NP|TD)\d{1,2}$/);
  });

  test("docs/compliance-rules.md lists exactly the table's districts on both sides, each with its larger part", () => {
    const doc = readFileSync(join(__dirname, "../../../docs/compliance-rules.md"), "utf8");
    const listed = [
      ...doc.matchAll(/^\| ([A-Z]{2}\d{1,2}) \| (England|Wales|Scotland) and (England|Wales|Scotland) \|/gm),
    ];
    const table = Object.entries(BORDER_DISTRICTS).filter(([, s]) => typeof s !== "string");
    expect(listed.map((m) => [m[1], [m[2], m[3]]])).toEqual(table);
  });
});

describe("the user's Country column", () => {
  test.each([
    ["Wales", "Wales"],
    ["cymru", "Wales"],
    [" SCOTLAND ", "Scotland"],
    ["Eng", "England"],
    ["NI", "Northern Ireland"],
    ["Isle of Man", "Isle of Man"],
    ["Narnia", null],
  ])("%j reads as %j", (typed, country) => {
    expect(countryFromText(typed)).toBe(country);
  });

  test("it settles a district on both sides of the border", () => {
    expect(rowCountry("CH4 0DR", "England")).toMatchObject({ kind: "country", country: "England", outward: "CH4" });
    expect(rowCountry("CH4 0DR", "Wales")).toMatchObject({ kind: "country", country: "Wales" });
  });

  test("a Country the add-in cannot read is said, and the postcode decides", () => {
    const a = rowCountry("CH7 6NB", "Flintshire");
    expect(a).toMatchObject({ kind: "country", country: "Wales" });
    expect(a.note).toMatch(/Country "Flintshire" is not/);
  });

  test("an empty Country cell leaves the postcode to decide", () => {
    expect(rowCountry("EH1 1YJ", "")).toMatchObject({ kind: "country", country: "Scotland" });
    expect(rowCountry("BT1 5GS", null)).toMatchObject({ kind: "out_of_scope", place: "Northern Ireland" });
  });
});
