/**
 * Counts are written one way everywhere, by core's formatCount: en-GB grouping, whatever the runtime's locale data.
 * No other source formats a number for people by itself.
 */
import * as fs from "fs";
import * as path from "path";
import { countWord, formatCount, utcMinute } from "../../core";

test("formatCount groups thousands with commas, as en-GB does, for any size and sign", () => {
  const cases = [0, 7, 999, 1000, 2500, 12_345, 999_999, 1_000_000, 1_234_567_890, -2500, 1234.5];
  for (const n of cases) expect(formatCount(n)).toBe(n.toLocaleString("en-GB", { maximumFractionDigits: 20 }));
  expect(formatCount(2500)).toBe("2,500");
  expect(countWord(1, "row")).toBe("1 row");
  expect(countWord(2500, "row")).toBe("2,500 rows");
  expect(countWord(2, "property", "properties")).toBe("2 properties");
});

test("no source of the add-ins formats a number with toLocaleString: every count goes through formatCount", () => {
  const ROOT = path.resolve(__dirname, "../..");
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (/\.(ts|js|html)$/.test(e.name) && rel !== "core/numbers.ts" && !/webpack/.test(e.name))
        fs.readFileSync(path.join(ROOT, rel), "utf8")
          .split("\n")
          .forEach((l, i) => /toLocaleString\(/.test(l) && found.push(`${rel}:${i + 1}`));
    }
  };
  ["core", "excel", "gsheets"].forEach(walk);
  expect(found).toEqual([]);
});

test("a moment is written to the minute in UTC, named, the same from epoch milliseconds and an ISO timestamp", () => {
  // 23:59:59.999 on 31 March 2026 in UTC is already 1 April in British Summer Time and on Kiritimati: still 31 March here.
  const ms = Date.UTC(2026, 2, 31, 23, 59, 59, 999);
  expect(utcMinute(ms)).toBe("2026-03-31 23:59 UTC");
  expect(utcMinute(new Date(ms).toISOString())).toBe("2026-03-31 23:59 UTC");
  expect(utcMinute("2026-04-01T00:30:00+01:00")).toBe("2026-03-31 23:30 UTC");
});
