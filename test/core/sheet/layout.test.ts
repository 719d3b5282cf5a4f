/** The output table: one row per outcome, formula-safe text, colours, and nothing lost on a failed refresh. */
import {
  OUTPUT_COLUMNS,
  STATUS_COLOURS,
  locateOutputColumns,
  outputHeaders,
  outputRow,
  safeCellText,
  serviceError,
  statusColour,
  statusColumnIndexes,
} from "../../../core";

const col = (h: string) => outputHeaders().indexOf(h);
const result = {
  uprn: "100023336956",
  address: "+44 Flat, @home",
  compliance_score: 64,
  risk_level: "medium",
  checks: {
    epc: { status: "pass", rating: "C", expiry: "2027-01-10" },
    gas_safety: { status: "warning", last_certificate: "2025-12-10", expiry: "2026-12-10" },
    eicr: { status: "fail", detail: "-No EICR on record" },
    licensing: { status: "not_required", scheme: null },
    deposit_protection: { status: "revoked", scheme: "TDS", protected_date: "2025-01-01" },
  },
  last_updated: "2026-11-20T09:12:44Z",
};

test("a row per result, in the table's order, with every check's fields", () => {
  const row = outputRow({ result }, "2026-11-22T10:00:00Z");
  expect(row).toHaveLength(OUTPUT_COLUMNS.length);
  expect(row[col("Compliance score")]).toBe(64);
  expect(row[col("EPC rating")]).toBe("C");
  expect(row[col("Gas safety status")]).toBe("warning");
  expect(row[col("Licensing scheme")]).toBe("");
  expect(row[col("Next expiry")]).toBe("2026-12-10");
  expect(row[col("Days to next expiry")]).toBe(18);
  expect(row[col("Last updated (UTC)")]).toBe("2026-11-20 09:12:44");
  expect(row[col("Checked at (UTC)")]).toBe("2026-11-22 10:00:00");
  // an unknown status word shows as unknown, and the word is kept in Message
  expect(row[col("Deposit status")]).toBe("unknown");
  expect(row[col("Message")]).toContain('"revoked"');
});

test("text from the service never becomes a formula", () => {
  const row = outputRow({ result }, "2026-11-22T10:00:00Z");
  expect(row[col("Matched address")]).toBe("'+44 Flat, @home");
  expect(row[col("EICR detail")]).toBe("'-No EICR on record");
  for (const s of ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "|x"]) expect(safeCellText(s)).toBe(`'${s}`);
  for (const s of ["Flat 1", "", " =1", "1-2", "a=b", "'kept"]) expect(safeCellText(s)).toBe(s);
});

test("rows checked at different times each show their own time, however their writes alternate", () => {
  const times = ["2026-11-22T10:00:00Z", "2026-11-23T08:30:05.250Z", "2026-11-22T10:00:00Z", "not a time"];
  const shown = times.map((t) => outputRow({ result }, t)[col("Checked at (UTC)")]);
  expect(shown).toEqual(["2026-11-22 10:00:00", "2026-11-23 08:30:05", "2026-11-22 10:00:00", "not a time"]);
});

test("a definitive error fills the status cells with error and says why", () => {
  const row = outputRow(
    { error: serviceError("not_found", "property_not_found", "No property with UPRN 9.") },
    "2026-11-22T10:00:00Z",
  );
  for (const i of statusColumnIndexes()) expect(row[i]).toBe("error");
  expect(row[col("Message")]).toBe(
    "No property with UPRN 9. Check the UPRN or postcode in this row (Find a UPRN looks one up by address).",
  );
  expect(row[col("Compliance score")]).toBe("");
});

test("a transient failure keeps the previous values and says the refresh failed", () => {
  const previous = outputRow({ result }, "2026-11-01T10:00:00Z");
  const row = outputRow({ error: serviceError("server", "internal_error", "Boom.") }, "2026-11-22T10:00:00Z", previous);
  expect(row[col("Compliance score")]).toBe(64);
  expect(row[col("Checked at (UTC)")]).toBe("2026-11-01 10:00:00");
  expect(row[col("Message")]).toMatch(
    /^Not refreshed at 2026-11-22 10:00:00: The compliance service had a problem \(Boom\)\. Try again shortly\. Values are from the previous check\.$/,
  );
  // a refused key is about the run, not the property: earlier values stay too
  expect(
    outputRow({ error: serviceError("auth", "invalid_api_key", "Bad key.") }, "2026-11-22T10:00:00Z", previous)[
      col("Compliance score")
    ],
  ).toBe(64);
  // not found replaces them: they were for another property
  expect(
    outputRow({ error: serviceError("not_found", "property_not_found", "Gone.") }, "2026-11-22T10:00:00Z", previous)[
      col("Compliance score")
    ],
  ).toBe("");
  // previous text is made formula-safe again when kept
  const unsafe = [...previous];
  unsafe[col("Matched address")] = "=CMD()";
  expect(outputRow(undefined, "2026-11-22T10:00:00Z", unsafe)[col("Matched address")]).toBe("'=CMD()");
  // with nothing before, it is an error row
  expect(
    outputRow({ error: serviceError("server", "internal_error", "Boom.") }, "2026-11-22T10:00:00Z")[col("EPC status")],
  ).toBe("error");
});

test("colours for every status, and the block found again by its headers", () => {
  for (const s of ["pass", "warning", "fail", "not_required", "error", "unknown"] as const) {
    expect(statusColour(s)).toEqual({ fill: STATUS_COLOURS[s].fill, font: STATUS_COLOURS[s].font });
  }
  expect(statusColour("Flat 1")).toBeNull();
  expect(locateOutputColumns(["UPRN", "Postcode", ...outputHeaders()])).toEqual({ start: 2 });
  expect(locateOutputColumns(["UPRN", "Compliance score", "Notes"])).toBeNull();
});

test("days left and the window count from the file's own day of the check, not the UTC day", () => {
  // 2026-11-22T12:30Z is already 23 November in Auckland (UTC+13): the file's day is one day later.
  const at = "2026-11-22T12:30:00Z";
  const utc = outputRow({ result }, at);
  const auckland = outputRow({ result }, at, undefined, undefined, { day: "2026-11-23" });
  expect(utc[col("Days to next expiry")]).toBe(18);
  expect(auckland[col("Days to next expiry")]).toBe(17);
  // The failed EICR with no date is due on the day of the check: the file's day.
  expect(utc[col("Action due")]).toBe("2026-11-22");
  expect(auckland[col("Action due")]).toBe("2026-11-23");
  expect(auckland[col("Window")]).toBe("Overdue");
});
