/**
 * JSON values as the scorers compare and show them: deep equality that ignores key order, paths
 * as `$.a[0]["b c"]`, and a short rendering for reasons.
 */
import type { JsonValue } from "@sema-agent/core";

/** A JSON object (not an array, not null). */
export type JsonObject = { [key: string]: JsonValue };

/** Whether `value` is a JSON object (not an array, not null). */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value of an own key (never one inherited: `__proto__` is a key like any other). */
export function ownValue(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Deep equality of JSON values: objects by their keys whatever the order, arrays by index. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i] as JsonValue));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => {
      const other = ownValue(b, key);
      return other !== undefined && jsonEqual(a[key] as JsonValue, other);
    });
  }
  return false;
}

/** Longest rendering of a value or a text in a reason, in UTF-16 code units. */
const SHOWN_CHARS = 120;

/** `text` cut to `max` code units with `…` when longer (never splitting a surrogate pair). */
export function clip(text: string, max = SHOWN_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** A value for a reason: JSON text, cut short. */
export function shown(value: JsonValue | undefined): string {
  return value === undefined ? "nothing" : clip(JSON.stringify(value));
}

/** `$.items[0].price`: the path of a key or index under `path`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
