/** JSON: what every stored field is made of, its check and its schemas. */
import { z } from "zod";

/** A JSON value: what every stored field is made of. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Whether a value is plain JSON: what survives a JSON round trip unchanged. A hand-written walk,
 * not a zod union: a union tries each alternative and builds an issue for every miss, which made
 * validation the largest cost of an append.
 */
export function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (depth > 64) return false;
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) if (!isJsonValue((value as Record<string, unknown>)[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

/** Any JSON value (see {@link isJsonValue}). */
export const jsonValueSchema = z.custom<JsonValue>((value) => isJsonValue(value), { message: "not a JSON value" });

/** A JSON object (a JSON Schema, one provider's options). */
export const jsonObjectSchema = z.record(z.string(), jsonValueSchema);
