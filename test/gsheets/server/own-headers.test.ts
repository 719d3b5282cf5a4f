/**
 * Own-obligation headers as agents type them, through the BUILT Code.js over the real sandbox: two smoke-alarm columns
 * (one a Smoke & CO column, which counts for the CO alarms too) give the later date and name its column on the Action
 * list, "RTR expiry date" is read, and a header that looks like a compliance date but is not read is said once in the
 * sidebar's notes; a header of another purpose ("Notes on smoke") is not.
 */
import { countryOf } from "../../../core";
import { OWN_CELLS, OWN_EXPECT, OWN_HEADERS, occurrences } from "../../helpers/own-headers-table";
import { createGasEnvironment, type GasEnvironment } from "../harness/gas";
import type { FakeSheet } from "../harness/fake-sheets";
import { sandboxForFile, type SandboxProperty } from "../harness/sandbox";
import { configure, pollToEnd, seedTable } from "../harness/table";

const sandbox = sandboxForFile({ msPerProperty: 0 });
let props: SandboxProperty[];

beforeAll(async () => {
  props = await sandbox.properties(20000);
});

const isDate = (d: unknown): d is Date => Object.prototype.toString.call(d) === "[object Date]";

test("headers as agents type them and two columns for one obligation on the Action list; the unread header said once", async () => {
  const english = props
    .filter((p) => {
      const a = countryOf(p.postcode);
      return a.kind === "country" && a.country === "England";
    })
    .slice(0, 2);
  expect(english).toHaveLength(2);
  const env: GasEnvironment = createGasEnvironment();
  configure(env, sandbox);
  const header = ["UPRN", "Postcode", ...OWN_HEADERS];
  const rows = english.map((p, i) => [p.uprn, p.postcode, ...OWN_CELLS[i]]);
  const { firstRow, lastRow } = seedTable(env.sheet, header, rows);
  env.sheet.select(`A${firstRow}:A${lastRow}`);
  const start = env.run("startBulkCheck", {});
  if (!start.ok) throw new Error(start.message);
  const polls = await pollToEnd(env);
  const last = polls[polls.length - 1];
  expect(last.phase).toBe("done");

  const said = [last.message, ...(last.details ?? []), ...(last.notes ?? [])].join("\n");
  expect(occurrences(said, OWN_EXPECT.unread)).toBe(1);
  expect(said).not.toContain("Notes on smoke");

  const sheet = env.spreadsheet.sheets.find((s) => s.getName() === "Action list") as FakeSheet;
  const grid = sheet.peek(1, 1, sheet.getLastRow(), sheet.getLastColumn());
  const h = grid[0].map(String);
  const c = (name: string) => h.indexOf(name);
  const inZone = (v: unknown) =>
    isDate(v) ? new Intl.DateTimeFormat("en-CA", { timeZone: env.spreadsheet.timeZone }).format(v) : String(v ?? "");
  const find = (uprn: string, check: string) =>
    grid.find((r) => String(r[c("UPRN")]).replace(/^'/, "") === uprn && r[c("Check")] === check);
  english.forEach((p, i) => {
    const smoke = find(p.uprn, "Smoke alarms")!;
    expect([inZone(smoke[c("Due")]), smoke[c("Action")]]).toEqual([OWN_EXPECT.due, OWN_EXPECT.smokeAction[i]]);
    const co = find(p.uprn, "Carbon monoxide alarms")!;
    expect([inZone(co[c("Due")]), co[c("Action")]]).toEqual([OWN_EXPECT.due, OWN_EXPECT.coAction]);
  });
  const rtr = find(english[0].uprn, "Right to Rent follow-up")!;
  expect(inZone(rtr[c("Due")])).toBe(OWN_EXPECT.rtrDue);
  expect(find(english[1].uprn, "Right to Rent follow-up")).toBeUndefined();

  // Refreshing the lists by hand says it again, once: the line is the lists' own.
  const again = env.run("refreshActionSheets", {});
  expect(again.ok).toBe(true);
  expect(occurrences(JSON.stringify(again), OWN_EXPECT.unread.replace(/"/g, '\\"'))).toBe(1);
});
