/**
 * zod schemas of what the service returns. Firm on what the spec fixes (field names, status words as
 * strings, YYYY-MM-DD dates, ISO timestamps); tolerant where it says "not shown": extra fields are kept,
 * unknown words pass through, and a missing optional member is reported as a warning, not thrown.
 */
import * as z from "zod/mini";
import { CHECK_NAMES } from "./checks";

// zod/mini (about a fifth of full zod minified, the same engine): functions instead of methods, so that a bundle
// carries only what it uses. `opt(x)` is `x.nullable().optional()` of full zod.
const opt = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));
const nonEmpty = () => z.string().check(z.minLength(1, "expected a non-empty string"));
/** Full zod's z.preprocess: `fn` runs on the raw input, then `schema` validates what it returns. */
const preprocess = <T extends z.ZodMiniType>(fn: (v: unknown) => unknown, schema: T) => z.pipe(z.transform(fn), schema);

/**
 * The schemas are built on first use, not when the module is evaluated: building them is most of the cost of
 * evaluating core (Apps Script evaluates the whole project on every google.script.run call, and most calls parse
 * nothing). Measured: core/service/schemas.ts bundled alone evaluates in 1.68 ms with the schemas built at load, of which
 * zod's own module code is 0.20 ms.
 */
/** ISO 8601 timestamp; offsets other than Z are accepted (a real server may send +00:00). */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Checks sent as a list of named members ([{ name: "epc", status, ... }]) are read as the object the spec shows. */
function checksByName(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const m of v) {
    if (!m || typeof m !== "object") return v;
    const o = m as Record<string, unknown>;
    const name = [o.name, o.check, o.type, o.id].find((x) => typeof x === "string");
    if (typeof name !== "string") return v;
    out[
      name
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, "_")
    ] = o;
  }
  return out;
}

function buildSchemas() {
  const f = fieldSchemas();
  return {
    ...checkSchemas(f),
    bulkJobSchema: z.looseObject({
      job_id: nonEmpty(),
      status: z.optional(nonEmpty()),
      total_properties: z.optional(z.int().check(z.nonnegative())),
      estimated_completion: opt(f.isoTimestamp),
      results_url: z.optional(nonEmpty()),
    }),
    errorBodySchema: errorBodySchema(),
    bulkResultsSchema: bulkResultsSchema(f),
    addressRecordSchema: z.looseObject({
      uprn: f.uprnField,
      address: opt(z.string()),
      full_address: opt(z.string()),
      address_line_1: opt(z.string()),
      line_1: opt(z.string()),
      address_line_2: opt(z.string()),
      town: opt(z.string()),
      post_town: opt(z.string()),
      postcode: opt(z.string()),
    }),
  };
}

/** The fields the service's shapes share: dates, timestamps, numbers sent as text, statuses and UPRNs. */
function fieldSchemas() {
  const isoDate = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, "expected a YYYY-MM-DD date"));
  const isoTimestamp = z.string().check(z.regex(ISO_TIMESTAMP, "expected an ISO 8601 timestamp"));

  /** A date field: YYYY-MM-DD, or null/absent where it does not apply. A full timestamp is cut to its date. */
  const dateField = z.optional(
    preprocess(
      (v) => (typeof v === "string" && /^\s*\d{4}-\d{2}-\d{2}[T ]/.test(v) ? v.trim().slice(0, 10) : v),
      z.nullable(isoDate),
    ),
  );
  /**
   * When the result was last updated: informational, so it never sinks a result. Unix seconds or milliseconds become
   * an ISO timestamp; a date-time any other way that Date can read too; what cannot be read is left out.
   */
  const updatedField = z.optional(
    preprocess((v) => {
      if (v === null || v === undefined) return v;
      if (typeof v === "string" && ISO_TIMESTAMP.test(v)) return v;
      const ms = typeof v === "number" ? (v > 1e12 ? v : v * 1000) : typeof v === "string" ? Date.parse(v) : NaN;
      return Number.isFinite(ms) && typeof v !== "boolean" ? new Date(ms).toISOString() : null;
    }, z.nullable(isoTimestamp)),
  );
  /** A number sent as a numeric string ("65") is that number. */
  const numberField = z.optional(
    preprocess(
      (v) => (typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v),
      z.nullable(z.number()),
    ),
  );
  const textField = opt(z.string());
  const statusField = nonEmpty();

  const uprnField = preprocess((v) => (typeof v === "number" && Number.isInteger(v) ? String(v) : v), nonEmpty());
  return { isoTimestamp, dateField, updatedField, numberField, textField, statusField, uprnField };
}
type Fields = ReturnType<typeof fieldSchemas>;

/** A check result and each of its checks. */
function checkSchemas(f: Fields) {
  const { dateField, numberField, textField, statusField, uprnField, updatedField } = f;
  const epcSchema = z.looseObject({ status: statusField, rating: textField, expiry: dateField });
  const gasSafetySchema = z.looseObject({ status: statusField, last_certificate: dateField, expiry: dateField });
  const eicrSchema = z.looseObject({ status: statusField, detail: textField, expiry: dateField });
  const licensingSchema = z.looseObject({ status: statusField, scheme: textField });
  const depositSchema = z.looseObject({ status: statusField, scheme: textField, protected_date: dateField });

  const checkResultSchema = z.looseObject({
    uprn: uprnField,
    address: opt(z.string()),
    compliance_score: numberField,
    risk_level: opt(z.string()),
    // A member sent as null (a check not run) is read as absent.
    checks: preprocess(
      (v) =>
        (v = checksByName(v)) && typeof v === "object" && !Array.isArray(v)
          ? Object.fromEntries(Object.entries(v).filter(([, m]) => m !== null))
          : v,
      z.looseObject({
        epc: z.optional(epcSchema),
        gas_safety: z.optional(gasSafetySchema),
        eicr: z.optional(eicrSchema),
        licensing: z.optional(licensingSchema),
        deposit_protection: z.optional(depositSchema),
      }),
    ),
    last_updated: updatedField,
  });
  return { epcSchema, gasSafetySchema, eicrSchema, licensingSchema, depositSchema, checkResultSchema };
}

/** Error bodies: ours is { error: { code, message, status, details } }; the other common shapes are allowed too. */
function errorBodySchema() {
  return z.looseObject({
    error: z.optional(
      z.union([
        z.string(),
        z.looseObject({
          code: z.optional(z.string()),
          message: z.optional(z.string()),
          details: z.optional(z.unknown()),
        }),
      ]),
    ),
    code: z.optional(z.union([z.string(), z.number()])),
    message: z.optional(z.string()),
    detail: z.optional(z.string()),
    title: z.optional(z.string()),
    details: z.optional(z.unknown()),
    errors: z.optional(z.array(z.looseObject({ code: z.optional(z.string()), message: z.optional(z.string()) }))),
  });
}

/** A page of bulk results: envelope only; the items are read one by one so that one bad item does not sink the page. */
function bulkResultsSchema(f: Fields) {
  const count = preprocess(
    (v) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v),
    z.int().check(z.nonnegative()),
  );
  const list = opt(z.array(z.unknown()));

  return z.looseObject({
    job_id: z.optional(z.string()),
    status: z.optional(z.string()),
    state: z.optional(z.string()),
    total_properties: z.optional(count),
    total: z.optional(count),
    processed_properties: z.optional(count),
    processed: z.optional(count),
    estimated_completion: opt(f.isoTimestamp),
    page: z.optional(count),
    per_page: z.optional(count),
    total_pages: z.optional(count),
    results: list,
    items: list,
    data: list,
  });
}

let built: ReturnType<typeof buildSchemas> | undefined;

/** The service's schemas, built once, on first use. */
export function schemas(): ReturnType<typeof buildSchemas> {
  if (!built) built = buildSchemas();
  return built;
}

type Schemas = ReturnType<typeof buildSchemas>;
export type CheckResult = z.infer<Schemas["checkResultSchema"]>;
export type BulkJob = z.infer<Schemas["bulkJobSchema"]>;
export type ErrorBody = z.infer<Schemas["errorBodySchema"]>;
export type BulkResultsBody = z.infer<Schemas["bulkResultsSchema"]>;
export type AddressRecordRaw = z.infer<Schemas["addressRecordSchema"]>;

/** An address as the add-ins show it, whatever field names the server used. */
export interface AddressRecord {
  uprn: string;
  address: string;
  addressLine1: string | null;
  town: string | null;
  postcode: string | null;
  raw: AddressRecordRaw;
}

/** The addresses of one answer; `total` is how many matched in all, when the server says (it may send fewer). */
export type AddressList = AddressRecord[] & { total?: number };

export const CHECK_MEMBERS = CHECK_NAMES;

export type ParseOutcome<T> = { ok: true; value: T; warnings: string[] } | { ok: false; message: string };

/**
 * Human-readable one-line summary of a zod error: "checks.epc.expiry: expected a YYYY-MM-DD date". zod/mini carries
 * no English messages (they are what make full zod large), so the generic ones are worded here from the issue.
 */
export function describeZodError(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join(".") + ": " : ""}${issueText(i)}`)
    .join("; ");
}

function issueText(i: z.core.$ZodIssue): string {
  if (i.message && i.message !== "Invalid input") return i.message;
  switch (i.code) {
    case "invalid_type":
      return `expected ${i.expected === "int" ? "a whole number" : i.expected}`;
    case "too_small":
      return `expected ${i.origin === "string" ? "a non-empty string" : `at least ${String(i.minimum)}`}`;
    case "invalid_union":
      return "expected a string or an object";
    default:
      return "invalid value";
  }
}

/** Parse a check result; a missing check member is a warning, a malformed one is an error. */
export function parseCheckResult(
  value: unknown,
  requested: readonly string[] = CHECK_NAMES,
): ParseOutcome<CheckResult> {
  // A result wrapped in an envelope ({ data: {...} } or { result: {...} }) is read from inside it.
  if (value && typeof value === "object" && !("checks" in value)) {
    const o = value as Record<string, unknown>;
    const inner = [o.data, o.result, o.property].find(
      (x) => x && typeof x === "object" && !Array.isArray(x) && "checks" in x,
    );
    if (inner) value = inner;
  }
  const parsed = schemas().checkResultSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: `Malformed check result: ${describeZodError(parsed.error)}` };
  const warnings: string[] = [];
  for (const name of requested) {
    if (!(parsed.data.checks as Record<string, unknown>)[name]) warnings.push(`the service returned no ${name} check`);
  }
  return { ok: true, value: parsed.data, warnings };
}

export function parseBulkJob(value: unknown): ParseOutcome<BulkJob> {
  const parsed = schemas().bulkJobSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: `Malformed bulk job: ${describeZodError(parsed.error)}` };
  return { ok: true, value: parsed.data, warnings: [] };
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
}

/** Address lists: a bare array, or the list under results / addresses / data. */
export function parseAddressList(value: unknown): ParseOutcome<AddressList> {
  const list = Array.isArray(value)
    ? value
    : value && typeof value === "object"
      ? ((value as Record<string, unknown>).results ??
        (value as Record<string, unknown>).addresses ??
        (value as Record<string, unknown>).data)
      : undefined;
  if (!Array.isArray(list))
    return { ok: false, message: "Malformed address list: no list of addresses in the response" };
  const out: AddressList = [];
  const warnings: string[] = [];
  const envelope =
    !Array.isArray(value) && value && typeof value === "object" ? (value as Record<string, unknown>) : {};
  const total = Number(envelope.total ?? envelope.total_results ?? envelope.count);
  if (Number.isInteger(total) && total >= list.length) out.total = total;
  list.forEach((item, i) => {
    const parsed = schemas().addressRecordSchema.safeParse(item);
    if (!parsed.success) {
      warnings.push(`address ${i + 1} skipped: ${describeZodError(parsed.error)}`);
      return;
    }
    const r = parsed.data;
    const line1 = str(r.address_line_1) ?? str(r.line_1);
    const town = str(r.town) ?? str(r.post_town);
    const postcode = str(r.postcode);
    const full =
      str(r.address) ??
      str(r.full_address) ??
      [line1, str(r.address_line_2), town, postcode].filter(Boolean).join(", ");
    out.push({ uprn: r.uprn, address: full, addressLine1: line1, town, postcode, raw: r });
  });
  return { ok: true, value: out, warnings };
}
