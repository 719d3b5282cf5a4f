/**
 * The COMPLIANCE functions count with the user's saved windows, the ones the results block uses: after the windows are
 * changed in Settings, =COMPLIANCE.PROPERTY's card, NEXTACTION, DUE and CHECK agree with the block's row for the same
 * property and day. Real sandbox over loopback; the Excel stand-in supplies the Office and CustomFunctions globals.
 */
import {
  OUTPUT_COLUMNS,
  nextObligation,
  outputHeaders,
  outputRow,
  parseCheckResult,
  resultCountry,
  serialDate,
  type CheckResult,
  type WindowSettings,
} from "../../../core";
import * as f from "../../../excel/functions/functions";
import { createRuntime, installRuntime, type ComplianceRuntime } from "../../../excel/runtime";
import { memoryStore } from "../../../excel/settings";
import { checkResultFor, findProperties } from "../../../sandbox/dataset";
import { TEST_DAY, dayClock, type TestClock } from "../../helpers/clock";
import { startTestSandbox, type Sandbox } from "../../helpers/sandbox";
import { createStandIn } from "../../helpers/excel-workbook";

const KEY = "sandbox-professional";
const g = globalThis as any;
const saved = { CustomFunctions: g.CustomFunctions, Office: g.Office };

let sb: Sandbox;
let runtime: ComplianceRuntime;
// The sandbox's register and the functions' day on one clock from a fixed noon: the day is the same at any hour.
let clock: TestClock;
beforeAll(async () => {
  clock = dayClock();
  sb = await startTestSandbox({ today: TEST_DAY, now: clock.date });
  const standIn = createStandIn();
  standIn.api.state.unsupportedSets = [];
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
  runtime = createRuntime({
    store: memoryStore(),
    fallbackBaseUrl: sb.baseUrl,
    fetch: (u, i) => fetch(u, i),
    now: clock.now,
  });
  await runtime.settings.setApiKey(KEY);
  installRuntime(runtime);
});

/** The functions' day: the computer's own day on the test clock, as the runtime counts it. */
const today = () => runtime.today();
const H = outputHeaders();
const WIDE: WindowSettings = Object.fromEntries(
  ["epc", "gas_safety", "eicr", "licensing", "deposit_protection"].map((c) => [
    c,
    { plan: 3650, book: 3650, urgent: 3650 },
  ]),
) as WindowSettings;

function resultOf(p: ReturnType<Sandbox["dataset"]>["properties"][number]): CheckResult {
  const r = parseCheckResult(JSON.parse(JSON.stringify(checkResultFor(p))));
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

/** What each function shows for a UPRN, and what the block's row shows for the same answer on the same day. */
async function shown(uprn: string, windows?: WindowSettings) {
  const card = await f.property(uprn);
  const row = (await f.check(uprn))[0];
  const { result, checkedAt } = await runtime.batcher.check(uprn);
  const block = outputRow({ result }, checkedAt, undefined, undefined, {
    windows,
    day: runtime.today(),
    country: resultCountry(result),
  });
  const due = (await f.due(uprn)) as { basicValue: number };
  return {
    card: [card.properties["Next action"].basicValue, card.properties["Window"].basicValue],
    nextaction: await f.nextaction(uprn),
    due: serialDate(due.basicValue),
    check: row[H.indexOf("Window")],
    block: {
      action: block[H.indexOf("Next action")],
      due: block[H.indexOf("Action due")],
      window: block[H.indexOf("Window")],
    },
  };
}

test("after the windows are changed in Settings, the card, NEXTACTION, DUE and CHECK agree with the block's row", async () => {
  // Properties whose most urgent action is dated and beyond the default windows (Plan or OK): every window set to
  // 3,650 days makes them Urgent.
  // The register's first three such (each looked at is parsed as the client parses an answer, so the search stops there).
  const picked = findProperties(
    sb.dataset(),
    (p) => {
      const next = nextObligation(resultOf(p), { today: today() });
      return !!next?.due && (next.window === "OK" || next.window === "Plan") && next.due > today();
    },
    3,
  );
  expect(picked).toHaveLength(3);
  for (const p of picked) {
    const before = await shown(p.uprn);
    expect(["OK", "Plan"]).toContain(before.card[1]);
    expect(before.check).toBe(before.card[1]);
    expect(before.block.window).toBe(before.card[1]);
  }
  const requests = sb.stats().total;
  await runtime.settings.setWindows(WIDE);
  for (const p of picked) {
    const after = await shown(p.uprn, WIDE);
    expect(after.block.window).toBe("Urgent");
    expect(after.card).toEqual([after.block.action, "Urgent"]);
    expect(after.nextaction).toBe(after.block.action);
    expect(after.due).toBe(after.block.due);
    expect(after.check).toBe("Urgent");
  }
  // The windows changed nothing the service said: the answers came from the cache, no new request.
  expect(sb.stats().total).toBe(requests);
  expect(OUTPUT_COLUMNS.length).toBe(H.length);
});

test("the saved windows are read from the user's store by a runtime that starts later (the functions without the pane)", async () => {
  const store = memoryStore();
  const first = createRuntime({ store, fallbackBaseUrl: sb.baseUrl, fetch: (u, i) => fetch(u, i), now: clock.now });
  await first.settings.setApiKey(KEY);
  await first.settings.setWindows(WIDE);
  const later = createRuntime({ store, fallbackBaseUrl: sb.baseUrl, fetch: (u, i) => fetch(u, i), now: clock.now });
  installRuntime(later);
  runtime = later;
  const p = sb.dataset().properties.find((x) => {
    const next = nextObligation(resultOf(x), { today: today() });
    return next?.due && next.window === "OK" && next.due > today();
  })!;
  expect((await shown(p.uprn, WIDE)).card[1]).toBe("Urgent");
});
