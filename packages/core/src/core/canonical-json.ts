/**
 * Canonical JSON: object keys sorted (by UTF-16 code units), no insignificant whitespace. Two
 * equal values always give the same text, so a digest of it names one exact action.
 */
import type { JsonValue } from "../protocol/json.ts";

/**
 * The canonical JSON text of a value: keys sorted, no whitespace, `undefined` members dropped. Equal
 * values give equal text, so its digest names one exact tool input (approvals bind to it).
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  // Built by appending to one string: a digest takes the canonical text of every transcript entry,
  // and arrays of parts joined at each level cost several times as much in allocation.
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ",";
      // As `join` did: a hole or an undefined item adds nothing between its commas.
      text += (canonicalJson(value[i] as JsonValue) as string | undefined) ?? "";
    }
    return `${text}]`;
  }
  const keys = Object.keys(value).sort();
  let text = "{";
  for (const key of keys) {
    const item = value[key];
    if (item === undefined) continue;
    if (text.length > 1) text += ",";
    text += `${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${text}}`;
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

/**
 * Copy `source`'s own keys into `out`, each value through `copy`. An own `__proto__` key (JSON.parse
 * makes one) stays a plain key instead of setting the prototype.
 */
export function copyKeysInto(
  out: Record<string, unknown>,
  source: object,
  copy: (value: unknown) => unknown,
): Record<string, unknown> {
  for (const key of Object.keys(source)) {
    const item = copy((source as Record<string, unknown>)[key]);
    if (key === "__proto__")
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

/**
 * A deep copy of a plain JSON value (objects, arrays, primitives): what stores hand out so a
 * caller's changes never reach what they keep. Several times cheaper than `structuredClone` on
 * the small records and leases they copy on every call.
 */
export function jsonCopy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(jsonCopy) as T;
  return copyKeysInto({}, value, jsonCopy) as T;
}

/**
 * A deep-frozen copy of a plain JSON value, in one pass: several times cheaper than a JSON round
 * trip followed by a freeze.
 */
export function frozenCopy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = frozenCopy(value[i]);
    return Object.freeze(out) as T;
  }
  return Object.freeze(copyKeysInto({}, value, frozenCopy)) as T;
}
