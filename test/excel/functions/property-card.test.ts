/**
 * =COMPLIANCE.PROPERTY(uprn) against the real sandbox over loopback: the entity's fields are the service's answer, 300
 * cells over 120 UPRNs cost one bulk job, errors are cell errors with messages, and the built add-in (functions.json and
 * the bundle, run in Chromium) has the function. The Excel stand-in supplies the Office and CustomFunctions globals.
 */
import * as fs from "fs";
import * as path from "path";
import {
  DEMO_NOTE,
  OUTPUT_COLUMNS,
  addDays,
  cardField,
  nextObligation,
  outputRow,
  propertyCard,
  resultCountry,
  type CheckResult,
} from "../../../core";
import * as f from "../../../excel/functions/functions";
import { createRuntime, installRuntime, type ComplianceRuntime } from "../../../excel/runtime";
import { memoryStore } from "../../../excel/settings";
import { checkResultFor } from "../../../sandbox/dataset";
import { ensureExcelBuild } from "../helpers/build";
import { launch, testWithChromium } from "../../helpers/chromium";
import { createStandIn } from "../../helpers/excel-standin";
import { knownUprns, sandbox, type Sandbox } from "../../helpers/sandbox";
import { openBuiltPane } from "../helpers/pane";
import { serveStatic } from "../helpers/static-server";

const KEY = "sandbox-professional";

type Entity = Excel.EntityCellValue & { properties: Record<string, Record<string, unknown>> };

let sb: Sandbox;
let standIn: any;
let examples: Record<string, any>;
const g = globalThis as any;
const saved = { CustomFunctions: g.CustomFunctions, Office: g.Office };

beforeAll(async () => {
  sb = await sandbox(0);
  examples = await (await fetch(`${sb.url}/__sandbox/examples`)).json();
  standIn = createStandIn();
  g.CustomFunctions = standIn.CustomFunctions;
  g.Office = standIn.Office;
});
afterAll(async () => {
  installRuntime(undefined);
  g.CustomFunctions = saved.CustomFunctions;
  g.Office = saved.Office;
  await sb.close();
});
beforeEach(async () => {
  sb.reset();
  standIn.api.state.unsupportedSets = [];
  // A fresh runtime per test: an empty cache, so each test's requests are its own.
  const rt = createRuntime({ store: memoryStore(), fallbackBaseUrl: sb.baseUrl, fetch: (u, i) => fetch(u, i) });
  await rt.settings.setApiKey(KEY);
  installRuntime(rt);
  runtime = rt;
});
let runtime: ComplianceRuntime;

/** What a cell shows: the value, or Excel's error code and message. */
const settle = (p: Promise<unknown>) =>
  p.then(
    (v) => ({ v: v as Entity }),
    (e) => ({ code: e.code as string, message: e.message as string }),
  );

/** The sandbox's own answer for a UPRN, over HTTP as any client gets it. */
async function serviceAnswer(uprn: string): Promise<CheckResult> {
  const res = await fetch(`${sb.baseUrl}/api/check?uprn=${uprn}`, { headers: { Authorization: `Bearer ${KEY}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as CheckResult;
}

// Independent of the card's code: dates as Excel counts them, and where each per-check field is in the answer.
const serial = (iso: string) => Math.round(Date.parse(iso.slice(0, 10) + "T00:00:00Z") / 86_400_000) + 25_569;
/** A date-time serial as the text Excel shows with yyyy-mm-dd hh:mm:ss. */
const stampText = (v: unknown) =>
  new Date(Math.round((Number(v) - 25_569) * 86_400) * 1000).toISOString().slice(0, 19).replace("T", " ");
const CHECK_FIELDS: Record<string, [string, string, "status" | "text" | "date"]> = {
  "EPC status": ["epc", "status", "status"],
  "EPC rating": ["epc", "rating", "text"],
  "EPC expiry": ["epc", "expiry", "date"],
  "Gas safety status": ["gas_safety", "status", "status"],
  "Gas expiry": ["gas_safety", "expiry", "date"],
  "Gas last certificate": ["gas_safety", "last_certificate", "date"],
  "EICR status": ["eicr", "status", "status"],
  "EICR expiry": ["eicr", "expiry", "date"],
  "EICR detail": ["eicr", "detail", "text"],
  "Licensing status": ["licensing", "status", "status"],
  "Licensing scheme": ["licensing", "scheme", "text"],
  "Deposit status": ["deposit_protection", "status", "status"],
  "Deposit scheme": ["deposit_protection", "scheme", "text"],
  "Deposit protected": ["deposit_protection", "protected_date", "date"],
};
const SUMMARY = ["Score", "Risk", "Next action", "Action due", "Days left", "Window"];
const RECORD = ["UPRN", "Address", "Last updated", "Checked at", "Message"];

/** An expected property value from a plain value: empty text for none, Double, date, or text. */
function expected(v: unknown, kind: "text" | "number" | "date" | "status"): Record<string, unknown> {
  if (v === null || v === undefined || v === "") return { type: "String", basicValue: "" };
  if (kind === "number") return { type: "Double", basicValue: v };
  if (kind === "date") return { type: "FormattedNumber", basicValue: serial(String(v)), numberFormat: "yyyy-mm-dd" };
  return { type: "String", basicValue: String(v) };
}
const bare = (p: Record<string, unknown>) => {
  const { propertyMetadata: _m, ...value } = p;
  return value;
};

test("the entity's fields are the service's answer, field by field, for UPRNs of every status, not-required checks and missing expiries", async () => {
  const st = examples.uprn_by_check_status;
  const uprns = [
    ...new Set([
      st.epc.pass,
      st.epc.fail,
      st.gas_safety.warning,
      st.gas_safety.not_required,
      st.eicr.fail,
      st.eicr.not_required,
      st.licensing.fail,
      st.deposit_protection.fail,
      st.deposit_protection.not_required,
    ]),
  ] as string[];
  const answers = new Map<string, CheckResult>();
  const ds = sb.dataset();
  for (const u of uprns) {
    const a = await serviceAnswer(u);
    // The sandbox answers what its register says.
    expect(a).toEqual(JSON.parse(JSON.stringify(checkResultFor(ds.byUprn.get(u)!))));
    answers.set(u, a);
  }
  // The set covers what the card must handle: every status word, a not_required check, a check held with no expiry.
  const members = [...answers.values()].flatMap((a) =>
    Object.values(a.checks as Record<string, Record<string, unknown>>),
  );
  expect(new Set(members.map((m) => m.status))).toEqual(new Set(["pass", "warning", "fail", "not_required"]));
  expect(members.some((m) => m.status !== "not_required" && "expiry" in m && m.expiry === null)).toBe(true);

  sb.reset();
  const cells = await Promise.all(uprns.map((u) => settle(f.property(u))));
  const actions = await Promise.all(uprns.map((u) => f.nextaction(u)));
  // A handful of UPRNs is answered by single checks (sooner than a bulk job can end), more by one batch; each UPRN is
  // asked once, and the NEXTACTION calls after them are answered from what the cards already fetched.
  const asked = sb.stats();
  if (asked.check > 0)
    expect({ check: asked.check, bulk_submit: asked.bulk_submit }).toEqual({ check: uprns.length, bulk_submit: 0 });
  else expect(asked.total).toBeLessThanOrEqual(1 + asked.bulk_results);

  for (const [i, u] of uprns.entries()) {
    const cell = cells[i];
    if (!("v" in cell)) throw new Error(`PROPERTY(${u}) gave ${cell.code} ${cell.message}`);
    const e = cell.v;
    const a = answers.get(u)!;
    const { checkedAt } = await runtime.batcher.check(u); // from the cache: the time the cell's answer was fetched
    expect(e.type).toBe("Entity");
    expect(e.text).toBe(a.address);

    // The row COMPLIANCE.CHECK gives for this answer: the card's summary fields are its columns under shorter names.
    // Counted from the workbook's day, in the country the block would give the row (core's rule over the matched address).
    const row = outputRow({ result: a }, checkedAt, undefined, undefined, {
      day: runtime.today(),
      country: resultCountry(a),
    });
    const col = (header: string) => row[OUTPUT_COLUMNS.findIndex((c) => c.header === header)];
    const want: Record<string, Record<string, unknown>> = {
      Score: expected(a.compliance_score, "number"),
      Risk: expected(a.risk_level, "text"),
      "Next action": expected(col("Next action") || "No action due", "text"),
      "Action due": expected(col("Action due"), "date"),
      "Days left": expected(col("Days left"), "number"),
      Window: expected(col("Window"), "text"),
      UPRN: expected(a.uprn, "text"),
      Address: expected(a.address, "text"),
      "Last updated": { type: "FormattedNumber", basicValue: expect.any(Number), numberFormat: "yyyy-mm-dd hh:mm:ss" },
      "Checked at": { type: "FormattedNumber", basicValue: expect.any(Number), numberFormat: "yyyy-mm-dd hh:mm:ss" },
      Message: expected("", "text"),
    };
    for (const [name, [check, field, kind]] of Object.entries(CHECK_FIELDS)) {
      want[name] = expected((a.checks as Record<string, Record<string, unknown>>)[check][field], kind);
      // ...and each is the CHECK row's column of the same name.
      expect({ name, v: bare(e.properties[name]) }).toEqual({ name, v: expected(col(name), kind) });
    }
    expect(Object.keys(e.properties).sort()).toEqual(Object.keys(want).sort());
    for (const name of Object.keys(want))
      expect({ uprn: u, name, v: bare(e.properties[name]) }).toEqual({ uprn: u, name, v: want[name] });
    // The timestamps show as the CHECK row's (UTC) columns show them, to the second.
    expect(stampText(e.properties["Last updated"].basicValue)).toBe(col("Last updated (UTC)"));
    expect(stampText(e.properties["Checked at"].basicValue)).toBe(col("Checked at (UTC)"));
    expect(col("Last updated (UTC)")).toBe(a.last_updated!.slice(0, 19).replace("T", " "));
    // =B2.[Next action] is what =COMPLIANCE.NEXTACTION(A2) says.
    expect(e.properties["Next action"].basicValue).toBe(actions[i]);

    // A field with no value says why beside its name; a not-required check's dates say "not required".
    for (const [name, [check]] of Object.entries(CHECK_FIELDS)) {
      const p = e.properties[name];
      if (p.basicValue !== "") continue;
      const status = (a.checks as Record<string, Record<string, unknown>>)[check].status;
      expect({ name, sublabel: (p.propertyMetadata as { sublabel?: string })?.sublabel }).toEqual({
        name,
        sublabel: status === "not_required" ? "not required" : "none on record",
      });
    }

    // The card: one List section per group, every field in exactly one section, summary first.
    const sections = e.layouts!.card!.sections!;
    expect(sections.map((s) => s.title)).toEqual([
      "Compliance",
      "EPC",
      "Gas safety",
      "EICR",
      "Licensing",
      "Deposit",
      "Record",
    ]);
    expect(sections.every((s) => s.layout === "List")).toBe(true);
    expect(sections[0].properties).toEqual(SUMMARY);
    expect(sections[sections.length - 1].properties).toEqual(RECORD);
    const listed = sections.flatMap((s) => s.properties);
    expect(listed.slice().sort()).toEqual(Object.keys(e.properties).sort());
    expect(new Set(listed).size).toBe(listed.length);
  }
});

test("300 PROPERTY cells over 120 distinct UPRNs cost exactly one bulk job (one POST), and each cell is its own property", async () => {
  const uprns = knownUprns(sb, 120);
  const calls = Array.from({ length: 300 }, (_, i) => uprns[(i * 7) % 120]);
  expect(new Set(calls).size).toBe(120);
  const cells = await Promise.all(calls.map((u) => settle(f.property(u))));
  const stats = sb.stats();
  console.log(
    `[property cards] 300 cells / 120 UPRNs: ${stats.total} requests (bulk_submit ${stats.bulk_submit}, bulk_results ${stats.bulk_results}, check ${stats.check})`,
  );
  expect(stats.bulk_submit).toBe(1);
  expect(stats.check).toBe(0);
  expect(stats.total).toBe(1 + stats.bulk_results);
  const ds = sb.dataset();
  cells.forEach((c, i) => {
    if (!("v" in c)) throw new Error(`cell ${i}: ${c.code} ${c.message}`);
    const truth = checkResultFor(ds.byUprn.get(calls[i])!);
    expect(c.v.properties.UPRN.basicValue).toBe(calls[i]);
    expect(c.v.text).toBe(truth.address);
    expect(c.v.properties.Score.basicValue).toBe(truth.compliance_score);
  });
  // A recalculation is answered from the cache.
  await Promise.all(calls.map((u) => f.property(u)));
  expect(sb.stats().total).toBe(stats.total);
});

test("errors are cell errors with a message: a bad UPRN #VALUE!, an unknown one #N/A; no data types names COMPLIANCE.CHECK and asks nothing", async () => {
  const out = await Promise.all(["12ab", "", "1234567890123", examples.unknown_uprn].map((u) => settle(f.property(u))));
  expect(out[0]).toEqual({ code: "#VALUE!", message: "invalid UPRN" });
  expect(out[1]).toEqual({ code: "#VALUE!", message: "invalid UPRN: the cell is empty" });
  expect(out[2]).toEqual({ code: "#VALUE!", message: "invalid UPRN: 13 digits; a UPRN has at most 12" });
  expect(out[3]).toEqual({ code: "#N/A", message: "property not found" });

  sb.reset();
  const [good] = knownUprns(sb, 1);
  for (const unsupported of [["ExcelApi 1.16"], ["CustomFunctionsRuntime 1.4"]]) {
    standIn.api.state.unsupportedSets = unsupported;
    const cell = await settle(f.property(good));
    expect(cell).toEqual({ code: "#N/A", message: expect.stringContaining("COMPLIANCE.CHECK") });
    expect((cell as { message: string }).message.length).toBeLessThanOrEqual(255);
  }
  // No Office at all (an old host): the same message.
  g.Office = undefined;
  try {
    expect(await settle(f.property(good))).toEqual({
      code: "#N/A",
      message: expect.stringContaining("COMPLIANCE.CHECK"),
    });
  } finally {
    g.Office = standIn.Office;
  }
  expect(sb.stats().total).toBe(0);
  // The alternative it names works there: one row of the same results.
  standIn.api.state.unsupportedSets = ["ExcelApi 1.16"];
  const row = await f.check(good);
  expect(row[0]).toHaveLength(OUTPUT_COLUMNS.length);
});

test("core's card: counted from the day given, says Demo for demo answers and names a status word it does not know", async () => {
  // A property whose most urgent action has a date weeks away: ten days on, the same action has ten days fewer left.
  const today = examples.today as string;
  const p = sb
    .dataset()
    .properties.find((x) => (nextObligation(checkResultFor(x) as CheckResult, { today })?.daysLeft ?? 0) > 20)!;
  const a = await serviceAnswer(p.uprn);
  const now = propertyCard(a, `${today}T09:00:00Z`);
  const later = propertyCard(a, `${today}T09:00:00Z`, { today: addDays(today, 10) });
  const days = (c: typeof now) => cardField(c, "Days left")!.value as number;
  expect(cardField(later, "Action due")!.value).toBe(cardField(now, "Action due")!.value);
  expect(days(now)).toBeGreaterThan(20);
  expect(days(later)).toBe(days(now) - 10);
  expect(cardField(now, "Message")!.value).toBeNull();
  const odd = propertyCard(
    { ...a, demo: true, checks: { ...a.checks, epc: { ...a.checks.epc!, status: "exempt" } } } as CheckResult,
    `${today}T09:00:00Z`,
  );
  expect(odd.demo).toBe(true);
  expect(cardField(odd, "EPC status")!.value).toBe("unknown");
  expect(cardField(odd, "Message")!.value).toBe(`${DEMO_NOTE}; EPC status "exempt" is not a status this add-in knows`);
});

describe("the built add-in", () => {
  const dist = ensureExcelBuild();
  const fj = JSON.parse(fs.readFileSync(path.join(dist, "functions.json"), "utf8"));

  test("functions.json has PROPERTY (one UPRN in, one value out, help link) and still allows data types", () => {
    expect(fj.allowCustomDataForDataTypeAny).toBe(true);
    const p = fj.functions.find((x: { id: string }) => x.id === "PROPERTY");
    expect(p).toMatchObject({ id: "PROPERTY", name: "PROPERTY", helpUrl: "https://localhost:3000/help.html#property" });
    // The UPRN, and the Country a table may give (a district on both sides of a border), as the block reads it.
    expect(p.parameters).toEqual([
      expect.objectContaining({ name: "uprn", type: "any" }),
      expect.objectContaining({ name: "country", type: "any", optional: true }),
    ]);
    // A single value (no dimensionality: not spilled), of any type: the entity.
    expect(p.result.dimensionality ?? "scalar").toBe("scalar");
    expect(p.result.type ?? "any").toBe("any");
    expect(p.description).toMatch(/COMPLIANCE\.CHECK/);
  });

  testWithChromium()(
    "the built bundle's COMPLIANCE.PROPERTY, run in Chromium, returns the same card as the sources",
    async () => {
      const web = await serveStatic(dist);
      const browser = await launch();
      try {
        const { page, errors } = await openBuiltPane(browser, web.url, { ready: "functions" });
        const st = examples.uprn_by_check_status;
        const uprns = [st.gas_safety.warning, st.eicr.not_required];
        sb.reset();
        const built = await page.evaluate(
          async ({ baseUrl, key, uprns }) => {
            const rt = (globalThis as any)[Symbol.for("property-compliance.excel.runtime")];
            await rt.settings.setBaseUrl(baseUrl);
            await rt.settings.setApiKey(key);
            const fn = (window as any).__excelStandIn.state.customFunctions.PROPERTY;
            return Promise.all(
              uprns.map((u: string) =>
                fn(u).then(
                  (v: unknown) => ({ v }),
                  (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
                ),
              ),
            );
          },
          { baseUrl: sb.baseUrl, key: KEY, uprns },
        );
        const mine = await Promise.all(uprns.map((u) => settle(f.property(u))));
        expect(built.map((c) => ("v" in c ? "entity" : c))).toEqual(["entity", "entity"]);
        // The same card, apart from when each side fetched its answer.
        const withoutTime = (c: any) => ({
          ...c,
          v: { ...c.v, properties: { ...c.v.properties, "Checked at": undefined } },
        });
        expect(built.map(withoutTime)).toEqual(mine.map(withoutTime));
        expect((built[0] as any).v.properties["Checked at"].numberFormat).toBe("yyyy-mm-dd hh:mm:ss");
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
        await web.close();
      }
    },
  );
});
