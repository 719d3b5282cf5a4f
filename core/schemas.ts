/**
 * zod schemas of what the service returns. Firm on what the spec fixes (field names, status words as
 * strings, YYYY-MM-DD dates, ISO timestamps); tolerant where it says "not shown": extra fields are kept,
 * unknown words pass through, and a missing optional member is reported as a warning, not thrown.
 */
import { z } from "zod";
import { CHECK_NAMES } from "./checks";

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a YYYY-MM-DD date");
/** ISO 8601 timestamp; offsets other than Z are accepted (a real server may send +00:00). */
const isoTimestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i, "expected an ISO 8601 timestamp");

/** A date field: YYYY-MM-DD, or null/absent where it does not apply. A full timestamp is cut to its date. */
const dateField = z.preprocess(
  (v) => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}T/.test(v) ? v.slice(0, 10) : v),
  isoDate.nullable().optional(),
);
const textField = z.string().nullable().optional();
const statusField = z.string().min(1);

export const epcSchema = z.looseObject({ status: statusField, rating: textField, expiry: dateField });
export const gasSafetySchema = z.looseObject({ status: statusField, last_certificate: dateField, expiry: dateField });
export const eicrSchema = z.looseObject({ status: statusField, detail: textField, expiry: dateField });
export const licensingSchema = z.looseObject({ status: statusField, scheme: textField });
export const depositSchema = z.looseObject({ status: statusField, scheme: textField, protected_date: dateField });

const uprnField = z.preprocess((v) => (typeof v === "number" && Number.isInteger(v) ? String(v) : v), z.string().min(1));

export const checkResultSchema = z.looseObject({
  uprn: uprnField,
  address: z.string().nullable().optional(),
  compliance_score: z.number().nullable().optional(),
  risk_level: z.string().nullable().optional(),
  // A member sent as null (a check not run) is read as absent.
  checks: z.preprocess(
    (v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter(([, m]) => m !== null)) : v),
    z.looseObject({
    epc: epcSchema.optional(),
    gas_safety: gasSafetySchema.optional(),
    eicr: eicrSchema.optional(),
    licensing: licensingSchema.optional(),
    deposit_protection: depositSchema.optional(),
    }),
  ),
  last_updated: isoTimestamp.nullable().optional(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

export const bulkJobSchema = z.looseObject({
  job_id: z.string().min(1),
  status: z.string().min(1).optional(),
  total_properties: z.number().int().nonnegative().optional(),
  estimated_completion: isoTimestamp.nullable().optional(),
  results_url: z.string().min(1).optional(),
});
export type BulkJob = z.infer<typeof bulkJobSchema>;

/** Error bodies: ours is { error: { code, message, status, details } }; the other common shapes are allowed too. */
export const errorBodySchema = z.looseObject({
  error: z.union([z.string(), z.looseObject({ code: z.string().optional(), message: z.string().optional(), details: z.unknown().optional() })]).optional(),
  code: z.union([z.string(), z.number()]).optional(),
  message: z.string().optional(),
  detail: z.string().optional(),
  title: z.string().optional(),
  details: z.unknown().optional(),
  errors: z.array(z.looseObject({ code: z.string().optional(), message: z.string().optional() })).optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

const count = z.preprocess((v) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v), z.number().int().nonnegative());

/** A page of bulk results: envelope only; the items are read one by one so that one bad item does not sink the page. */
export const bulkResultsSchema = z.looseObject({
  job_id: z.string().optional(),
  status: z.string().optional(),
  state: z.string().optional(),
  total_properties: count.optional(),
  total: count.optional(),
  processed_properties: count.optional(),
  processed: count.optional(),
  estimated_completion: isoTimestamp.nullable().optional(),
  page: count.optional(),
  per_page: count.optional(),
  total_pages: count.optional(),
  results: z.array(z.unknown()).nullable().optional(),
  items: z.array(z.unknown()).nullable().optional(),
  data: z.array(z.unknown()).nullable().optional(),
});
export type BulkResultsBody = z.infer<typeof bulkResultsSchema>;

export const addressRecordSchema = z.looseObject({
  uprn: uprnField,
  address: z.string().nullable().optional(),
  full_address: z.string().nullable().optional(),
  address_line_1: z.string().nullable().optional(),
  line_1: z.string().nullable().optional(),
  address_line_2: z.string().nullable().optional(),
  town: z.string().nullable().optional(),
  post_town: z.string().nullable().optional(),
  postcode: z.string().nullable().optional(),
});
export type AddressRecordRaw = z.infer<typeof addressRecordSchema>;

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

/** Human-readable one-line summary of a zod error: "checks.epc.expiry: expected a YYYY-MM-DD date". */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join(".") + ": " : ""}${i.message}`)
    .join("; ");
}

/** Parse a check result; a missing check member is a warning, a malformed one is an error. */
export function parseCheckResult(value: unknown, requested: readonly string[] = CHECK_NAMES): ParseOutcome<CheckResult> {
  const parsed = checkResultSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: `Malformed check result: ${describeZodError(parsed.error)}` };
  const warnings: string[] = [];
  for (const name of requested) {
    if (!(parsed.data.checks as Record<string, unknown>)[name]) warnings.push(`the service returned no ${name} check`);
  }
  return { ok: true, value: parsed.data, warnings };
}

export function parseBulkJob(value: unknown): ParseOutcome<BulkJob> {
  const parsed = bulkJobSchema.safeParse(value);
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
      ? ((value as Record<string, unknown>).results ?? (value as Record<string, unknown>).addresses ?? (value as Record<string, unknown>).data)
      : undefined;
  if (!Array.isArray(list)) return { ok: false, message: "Malformed address list: no list of addresses in the response" };
  const out: AddressList = [];
  const warnings: string[] = [];
  const envelope = !Array.isArray(value) && value && typeof value === "object" ? (value as Record<string, unknown>) : {};
  const total = Number(envelope.total ?? envelope.total_results ?? envelope.count);
  if (Number.isInteger(total) && total >= list.length) out.total = total;
  list.forEach((item, i) => {
    const parsed = addressRecordSchema.safeParse(item);
    if (!parsed.success) {
      warnings.push(`address ${i + 1} skipped: ${describeZodError(parsed.error)}`);
      return;
    }
    const r = parsed.data;
    const line1 = str(r.address_line_1) ?? str(r.line_1);
    const town = str(r.town) ?? str(r.post_town);
    const postcode = str(r.postcode);
    const full = str(r.address) ?? str(r.full_address) ?? [line1, str(r.address_line_2), town, postcode].filter(Boolean).join(", ");
    out.push({ uprn: r.uprn, address: full, addressLine1: line1, town, postcode, raw: r });
  });
  return { ok: true, value: out, warnings };
}
