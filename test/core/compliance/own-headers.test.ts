/**
 * The own-obligation headers agents really type: variants, typos and a combined Smoke & CO column are read; headers of
 * another purpose are not; a header that looks like an obligation's date but is not read is said once, in the line both
 * hosts show; two columns for one obligation are both read, the latest date taken and its column named.
 */
import { readFileSync } from "fs";
import { join } from "path";
import { actionListLine, buildPortfolioList } from "../../../core/reports/action-list";
import {
  detectOwnColumns,
  normaliseHeader,
  ownInputsOf,
  ownObligations,
  unreadColumnSentence,
  unreadOwnColumns,
} from "../../../core/compliance/own-obligations";
import { OWN_RULES, type OwnKey } from "../../../core/compliance/own-rules";
import { cellDay } from "../../../core/sheet/user-columns";

const TODAY = "2027-01-31";
const keysOf = (header: string) => detectOwnColumns(["UPRN", header]).map((c) => [c.key, c.column, c.meaning]);

describe("header variants agents type are read", () => {
  test.each<[string, OwnKey[], "done" | "due"]>([
    ["Date of smoke alarm check", ["smoke_alarms"], "done"],
    ["Last smoke alarm check", ["smoke_alarms"], "done"],
    ["Smoke alarm check date", ["smoke_alarms"], "done"],
    ["Date of last smoke alarm test", ["smoke_alarms"], "done"],
    ["Smoke detectors tested on", ["smoke_alarms"], "done"],
    ["Smoke & CO alarms checked", ["smoke_alarms", "co_alarms"], "done"],
    ["Smoke/CO alarm test", ["smoke_alarms", "co_alarms"], "done"],
    ["Smoke and carbon monoxide alarms", ["smoke_alarms", "co_alarms"], "done"],
    ["CO & smoke alarms tested", ["smoke_alarms", "co_alarms"], "done"],
    ["Smoke + CO checked", ["smoke_alarms", "co_alarms"], "done"],
    ["Last CO alarm check", ["co_alarms"], "done"],
    ["Carbon monoxide detector test date", ["co_alarms"], "done"],
    ["Smoke alrams checked", ["smoke_alarms"], "done"],
    ["Smoek alarm tested", ["smoke_alarms"], "done"],
    ["Smoke alarms chekced", ["smoke_alarms"], "done"],
    ["CO alarms tetsed", ["co_alarms"], "done"],
    ["Legionella last assessed", ["legionella"], "done"],
    ["Date of last legionella risk assessment", ["legionella"], "done"],
    ["Legionela risk assesment", ["legionella"], "done"],
    ["Legionella RA date", ["legionella"], "done"],
    ["Legionella risk assessment review date", ["legionella"], "due"],
    ["RTR expiry date", ["right_to_rent"], "due"],
    ["Right to rent check expiry date", ["right_to_rent"], "due"],
    ["Next right to rent check", ["right_to_rent"], "due"],
    ["RTR follow-up due", ["right_to_rent"], "due"],
    ["HMO licence expires on", ["hmo_licence"], "due"],
    ["HMO licence expiry date", ["hmo_licence"], "due"],
    ["Landlord registration expiry date", ["landlord_registration"], "due"],
    ["Rent Smart Wales licence expiry", ["rent_smart_wales"], "due"],
  ])("%j is read as %j (a %s date)", (header, keys, meaning) => {
    expect(keysOf(header)).toEqual(keys.map((k) => [k, 1, meaning]));
    expect(unreadOwnColumns(["UPRN", header])).toEqual([]);
  });

  test("every header the docs and the message offer is read as its own obligation", () => {
    for (const r of OWN_RULES) {
      expect(r.examples.length).toBeGreaterThan(1);
      for (const e of r.examples) expect(keysOf(e).map(([k]) => k)).toContain(r.key);
    }
  });

  test("a one-letter typo is mended only to a rule word it is unambiguously near, and short words never", () => {
    expect(normaliseHeader("Smoke alrams checked")).toBe("smoke alarms checked");
    expect(normaliseHeader("Smoke alarm tset")).toBe("smoke alarm tset");
    expect(normaliseHeader("Licence expiry")).toBe("licence expiry");
    expect(normaliseHeader("Smoke & Carbon Monoxide alarms")).toBe("smoke co alarms");
  });
});

describe("headers of another purpose are not read, and not said", () => {
  test.each([
    "Notes on smoke",
    "Smoke alarm notes",
    "Smoke alarm location",
    "Smoke alarms checked by",
    "Smoke alarm contractor",
    "Co-owner start date",
    "Company",
    "Smoke",
    "Alarm checked",
    "Landlord registration number",
    "Rent Smart Wales registration number",
    "HMO licence number",
    "Right to Rent",
    "EICR date",
    "Deposit received",
    "Tenancy start",
    "Smoke alarm evidence",
  ])("%j", (header) => {
    expect(detectOwnColumns(["UPRN", header])).toEqual([]);
    expect(unreadOwnColumns(["UPRN", header])).toEqual([]);
  });
});

describe("a header that looks like an obligation's date but is not read is said", () => {
  test.each<[string, OwnKey]>([
    ["Smoke alarm fitted date", "smoke_alarms"],
    ["Legionella assessed when", "legionella"],
    ["RTR check date", "right_to_rent"],
    ["HMO licence start date", "hmo_licence"],
    ["CO alarm installed date", "co_alarms"],
  ])("%j looks like %s", (header, key) => {
    expect(detectOwnColumns(["UPRN", header])).toEqual([]);
    expect(unreadOwnColumns(["UPRN", header, "Notes"])).toEqual([{ column: 1, header, key }]);
  });

  test("its sentence offers the headers the obligation is read under", () => {
    expect(unreadColumnSentence({ header: "Smoke alarm fitted date", key: "smoke_alarms" })).toBe(
      `Column 'Smoke alarm fitted date' looks like a compliance date but is not read: rename it to one of "Smoke alarms checked", "Date of smoke alarm check" or "Smoke & CO alarms checked".`,
    );
  });

  test("the add-in's own columns are left out", () => {
    expect(unreadOwnColumns(["Smoke alarm fitted date"], new Set([0]))).toEqual([]);
  });

  test("the line after the lists are built says it once, over every table that has it", () => {
    const unread = [{ header: "Smoke alarm fitted date", key: "smoke_alarms" as const }];
    const list = buildPortfolioList(
      [
        { id: "t1", sheet: "North", props: [], unreadColumns: unread },
        { id: "t2", sheet: "South", props: [], unreadColumns: unread },
      ],
      { today: TODAY, withinDays: 30 },
    );
    const line = actionListLine(list, 30, "Action list", "Compliance summary");
    const sentence = unreadColumnSentence(unread[0]);
    expect(line.split(sentence).length - 1).toBe(1);
    expect(line.endsWith(sentence)).toBe(true);
  });

  test("a table that was not found says nothing of its columns", () => {
    const list = buildPortfolioList(
      [
        { id: "t1", sheet: "North", props: [] },
        {
          id: "t2",
          sheet: "Gone",
          props: null,
          problem: "not found",
          unreadColumns: [{ header: "RTR check date", key: "right_to_rent" }],
        },
      ],
      { today: TODAY, withinDays: 30 },
    );
    expect(list.unreadColumns).toEqual([]);
  });
});

describe("two columns for one obligation", () => {
  const header = ["UPRN", "Smoke alarms checked", "Smoke & CO alarms tested", "Tenancy start"];
  const cols = detectOwnColumns(header);

  test("both are read, and a combined column counts for smoke and CO", () => {
    expect(cols.map((c) => [c.key, c.column])).toEqual([
      ["smoke_alarms", 1],
      ["smoke_alarms", 2],
      ["co_alarms", 2],
    ]);
  });

  test("the latest date is taken, whichever column holds it, and the column is named", () => {
    const later2 = ownInputsOf(["1", "2026-03-01", "2026-09-30"], cols, cellDay);
    expect(later2.map((i) => [i.key, i.date, i.header])).toEqual([
      ["smoke_alarms", "2026-09-30", "Smoke & CO alarms tested"],
      ["co_alarms", "2026-09-30", "Smoke & CO alarms tested"],
    ]);
    expect(later2[0].from).toBe(
      `date from "Smoke & CO alarms tested", the latest of "Smoke alarms checked" and "Smoke & CO alarms tested"`,
    );
    expect(later2[1].from).toBeUndefined();
    const later1 = ownInputsOf(["1", "2026-10-02", "2026-09-30"], cols, cellDay);
    expect(later1.map((i) => [i.key, i.date, i.header])).toEqual([
      ["smoke_alarms", "2026-10-02", "Smoke alarms checked"],
      ["co_alarms", "2026-09-30", "Smoke & CO alarms tested"],
    ]);
  });

  test("the obligation says which column its date came from (action or note)", () => {
    const inputs = ownInputsOf(["1", "2026-03-01", "2026-09-30"], cols, cellDay);
    const [smoke] = ownObligations(inputs, { today: TODAY, country: "England", tenancyStart: "2026-12-01" }).filter(
      (o) => o.key === "smoke_alarms",
    );
    expect(smoke.due).toBe("2026-12-01");
    expect(smoke.header).toBe("Smoke & CO alarms tested");
    expect(smoke.action).toBe(
      `Check the smoke alarms work on the day the tenancy begins (2026-12-01), and record it (date from "Smoke & CO alarms tested", the latest of "Smoke alarms checked" and "Smoke & CO alarms tested")`,
    );
    const [noted] = ownObligations(inputs, { today: TODAY, country: "England" }).filter(
      (o) => o.key === "smoke_alarms",
    );
    expect(noted.action).toBe("");
    expect(noted.note).toBe(
      `Checked 2026-09-30; the next check is due on the day a new tenancy begins. Date from "Smoke & CO alarms tested", the latest of "Smoke alarms checked" and "Smoke & CO alarms tested"`,
    );
  });

  test("one column empty: the other's date, no column named", () => {
    const [smoke] = ownInputsOf(["1", "", "2026-09-30"], cols, cellDay);
    expect([smoke.date, smoke.header, smoke.from]).toEqual(["2026-09-30", "Smoke & CO alarms tested", undefined]);
    const [none] = ownInputsOf(["1", "", ""], cols, cellDay);
    expect([none.date, none.header]).toEqual([null, "Smoke alarms checked"]);
  });

  test("a cell that is not a date is said, never outvoted by the other column", () => {
    const [smoke] = ownInputsOf(["1", "2026-03-01", "TBC"], cols, cellDay);
    expect([smoke.date, smoke.unreadable, smoke.header]).toEqual([null, "TBC", "Smoke & CO alarms tested"]);
  });

  test("a column saying when it falls due outranks one saying when it was done", () => {
    const h = ["Legionella last assessed", "Legionella review due"];
    const c = detectOwnColumns(h);
    const [leg] = ownInputsOf(["2026-12-01", "2026-06-01"], c, cellDay);
    expect([leg.date, leg.meaning, leg.header]).toEqual(["2026-06-01", "due", "Legionella review due"]);
    const [only] = ownInputsOf(["2026-12-01", ""], c, cellDay);
    expect([only.date, only.meaning]).toEqual(["2026-12-01", "done"]);
  });

  test("Evidence of either column comes back with the obligation", () => {
    const c = detectOwnColumns(["Smoke alarms checked", "Evidence", "Smoke alarms tested"]);
    const [smoke] = ownInputsOf(["2026-01-01", "https://example.org/a.pdf", "2026-05-01"], c, cellDay);
    expect([smoke.date, smoke.evidence]).toEqual(["2026-05-01", "https://example.org/a.pdf"]);
  });
});

test("docs/compliance-rules.md offers, for each obligation, exactly the headers the code offers", () => {
  const doc = readFileSync(join(__dirname, "../../../docs/compliance-rules.md"), "utf8");
  const section = doc.slice(doc.indexOf("## The obligations the service cannot see"));
  const rows = section
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| obligation") && !l.startsWith("|---"))
    .slice(0, OWN_RULES.length)
    .map((l) => [...l.split(" | ")[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]));
  expect(rows).toEqual(OWN_RULES.map((r) => [...r.examples]));
});
