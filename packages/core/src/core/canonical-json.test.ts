import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../protocol/json.ts";
import { canonicalJson, frozenCopy, frozenFromJson } from "./canonical-json.ts";

const json = fc.jsonValue() as fc.Arbitrary<JsonValue>;

/** Rebuild a value with every object's keys in a random order. */
function shuffled(value: JsonValue, seed: number): JsonValue {
  if (Array.isArray(value)) return value.map((item, i) => shuffled(item, seed + i));
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  const order = keys
    .map((k, i) => [k, (i * 7919 + seed * 104729) % (keys.length + 13)] as const)
    .sort((a, b) => a[1] - b[1]);
  const out: { [key: string]: JsonValue } = {};
  for (const [key] of order) {
    Object.defineProperty(out, key, {
      value: shuffled(value[key] as JsonValue, seed + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: null, y: "x" }], c: true } })).toBe(
      '{"a":{"c":true,"d":[3,{"y":"x","z":null}]},"b":1}',
    );
    expect(canonicalJson("é\n\u2028")).toBe(JSON.stringify("é\n\u2028"));
  });

  it("property: round-trips, and key order never changes the text", () => {
    fc.assert(
      fc.property(json, fc.nat(), (value, seed) => {
        const text = canonicalJson(value);
        // -0 has no JSON spelling of its own: like JSON.stringify, canonical JSON writes it as 0.
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(shuffled(value, seed))).toBe(text);
        expect(canonicalJson(JSON.parse(text) as JsonValue)).toBe(text);
      }),
      { numRuns: 10_000 },
    );
  });

  it("property: gives the text recorded digests were made of (the definition, written plainly)", () => {
    // Digests in stored logs (approvals, model_turn v2) name this text: it may never change.
    const definition = (value: JsonValue): string => {
      if (value === null || typeof value !== "object") return JSON.stringify(value);
      if (Array.isArray(value)) return `[${value.map(definition).join(",")}]`;
      const members = Object.keys(value)
        .sort()
        .filter((key) => value[key] !== undefined)
        .map((key) => `${JSON.stringify(key)}:${definition(value[key] as JsonValue)}`);
      return `{${members.join(",")}}`;
    };
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value)).toBe(definition(value));
      }),
      { numRuns: 10_000 },
    );
    expect(canonicalJson({ a: undefined, b: [1, 2] } as unknown as JsonValue)).toBe('{"b":[1,2]}');
  });
});

describe("frozenFromJson", () => {
  it("gives a deep-frozen fresh copy", () => {
    const value = frozenFromJson('{"a":{"b":[1,{"c":2}]}}') as { a: { b: [number, { c: number }] } };
    expect(
      Object.isFrozen(value) && Object.isFrozen(value.a) && Object.isFrozen(value.a.b) && Object.isFrozen(value.a.b[1]),
    ).toBe(true);
    expect(() => {
      (value.a.b[1] as { c: number }).c = 3;
    }).toThrow(TypeError);
  });
});

describe("frozenCopy", () => {
  it("property: equals the value, shares nothing with it, and is frozen all the way down", () => {
    fc.assert(
      fc.property(json, (value) => {
        const copy = frozenCopy(value);
        expect(copy).toEqual(value);
        const walk = (a: unknown, b: unknown) => {
          if (typeof a !== "object" || a === null) return;
          expect(a).not.toBe(b);
          expect(Object.isFrozen(a)).toBe(true);
          for (const key of Object.keys(a))
            walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]);
        };
        walk(copy, value);
      }),
      { numRuns: 5_000 },
    );
  });

  it("keeps an own __proto__ key as a key", () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as JsonValue;
    const copy = frozenCopy(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "a"]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
