import type { JsonValue } from "@sema-agent/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonMatch } from "./json-match.ts";
import { isJsonObject } from "./json-values.ts";
import { answered, recorded, verdict } from "./test-support.ts";

/** `value` with `{ x }` as output, scored against `expected`. */
function scored(mode: "exact" | "subset", output: JsonValue, expected: JsonValue) {
  return verdict(jsonMatch({ mode }), answered(JSON.stringify(output), expected));
}

/** The paths of `value`'s leaves (a primitive, an empty object or array), as keys. */
function leaves(value: JsonValue, path: (string | number)[] = []): (string | number)[][] {
  const children: [string | number, JsonValue][] = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : isJsonObject(value)
      ? Object.entries(value)
      : [];
  if (children.length === 0) return [path];
  return children.flatMap(([key, child]) => leaves(child, [...path, key]));
}

/** `value` with the leaf at `path` replaced by a value of another type. */
function changed(value: JsonValue, path: (string | number)[]): JsonValue {
  const [key, ...rest] = path;
  if (key === undefined) return typeof value === "string" ? 0 : "changed";
  if (Array.isArray(value)) return value.map((item, i) => (i === key ? changed(item, rest) : item));
  const object = value as { [key: string]: JsonValue };
  const copy: { [key: string]: JsonValue } = {};
  for (const [k, v] of Object.entries(object))
    Object.defineProperty(copy, k, {
      value: k === key ? changed(v, rest) : v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}

describe("jsonMatch", () => {
  it("scores a recorded structured answer by the expected values it has", async () => {
    const { input } = await recorded([{ text: '{"city":"Lisbon","country":"PT","population":545000}' }], {
      expected: { city: "Lisbon", country: "Portugal" },
    });
    expect(await verdict(jsonMatch(), input)).toEqual({
      value: 0.5,
      reason: '1 of 2 checks pass: $.country expected "Portugal", got "PT"',
    });
  });

  it("subset mode ignores what the output has beyond the expected value; exact mode counts it", async () => {
    const output = { a: 1, b: { c: [1, 2, 3] }, extra: true };
    const expected = { a: 1, b: { c: [1, 2] } };
    expect(await scored("subset", output, expected)).toEqual({ value: 1 });
    expect(await scored("exact", output, expected)).toEqual({
      value: 3 / 5,
      reason: "3 of 5 checks pass: $.b.c[2] is not expected (got 3); $.extra is not expected (got true)",
    });
  });

  it("names missing and mistyped values, and keeps a wrongly typed subtree's leaves as failed checks", async () => {
    const expected = { name: "x", tags: ["a", "b"], "odd key": { deep: 1 }, empty: {} };
    expect(await scored("subset", { name: "x", tags: "a,b", empty: [] }, expected)).toEqual({
      value: 1 / 5,
      reason:
        '1 of 5 checks pass: $.tags expected ["a","b"], got "a,b"; $["odd key"] is missing (expected {"deep":1}); $.empty expected {}, got []',
    });
    expect(await scored("subset", { empty: { any: 1 } }, { empty: {} })).toEqual({ value: 1 });
    expect((await scored("exact", { empty: { any: 1 } }, { empty: {} })).value).toBe(0.5);
  });

  it("lists at most five mismatches", async () => {
    const expected = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, i]));
    const { reason } = await scored("subset", {}, expected);
    expect(reason).toMatch(/^0 of 8 checks pass: \$\.k0 is missing \(expected 0\);.*\$\.k4 .*; and 3 more$/);
  });

  it("scores 0, saying why, without an expected value, an output, or JSON in it", async () => {
    expect((await verdict(jsonMatch(), answered('{"a":1}'))).reason).toMatch(/^no expected value/);
    expect((await verdict(jsonMatch(), answered(undefined, { a: 1 }))).reason).toMatch(/^the task has no output/);
    expect(await verdict(jsonMatch(), answered("a: 1", { a: 1 }))).toEqual({
      value: 0,
      reason: 'the output is not JSON: "a: 1"; expected {"a":1}',
    });
  });

  it("refuses an unknown mode", () => {
    expect(() => jsonMatch({ mode: "fuzzy" as never })).toThrow(/jsonMatch: mode must be one of "exact", "subset"/);
  });

  it("scores 1 on equal JSON and below 1 once one leaf changes, in both modes (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.nat(), fc.constantFrom("exact", "subset"), async (json, pick, mode) => {
        const value = JSON.parse(JSON.stringify(json)) as JsonValue;
        expect(await scored(mode, value, value)).toEqual({ value: 1 });
        const all = leaves(value);
        const path = all[pick % all.length] ?? [];
        const { value: score, reason } = await scored(mode, changed(value, path), value);
        expect(score).toBeLessThan(1);
        expect(reason).toContain(" checks pass: ");
      }),
    );
  });
});
