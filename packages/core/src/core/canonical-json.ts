/**
 * Canonical JSON: object keys sorted (by UTF-16 code units), no insignificant whitespace. Two
 * equal values always give the same text, so a digest of it names one exact action.
 */
import type { JsonValue } from "../protocol/json.ts";

export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const key of keys) {
    const item = value[key];
    if (item !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
  }
  return `{${parts.join(",")}}`;
}

/** Freeze a value and everything reachable from it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** A deep-frozen value parsed from JSON text: nobody can change it after the fact. */
export function frozenFromJson(text: string): JsonValue {
  return deepFreeze(JSON.parse(text) as JsonValue);
}
