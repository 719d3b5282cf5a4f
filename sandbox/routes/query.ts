/** Query values of the service's routes, read as the contract words them. */
import { ApiError } from "../errors";
import { optionalText } from "../lookup";

/** A query value as a bounded positive integer; absent = `fallback`; above `max` = `max`. */
export function positiveInt(raw: unknown, name: string, fallback: number, max = Infinity): number {
  const t = optionalText(raw, name);
  if (t === undefined) return fallback;
  if (!/^\d+$/.test(t) || Number(t) < 1)
    throw new ApiError(400, "invalid_request", `${name} must be a positive integer.`);
  return Math.min(Number(t), max);
}
