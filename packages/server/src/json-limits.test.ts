import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { illFormedPath, jsonShapeError, RESERVED_KEYS } from "./json-limits.ts";

/** Nesting depth of a parsed value, iteratively (the oracle the scan is checked against). */
function depthOf(value: unknown): number {
  let max = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== "object") continue;
    max = Math.max(max, depth + 1);
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return max;
}

const hasReservedKey = (text: string): boolean => {
  let found = false;
  JSON.parse(text, (key, value: unknown) => {
    if (RESERVED_KEYS.has(key)) found = true;
    return value;
  });
  return found;
};

// Keys and strings full of the characters the scan treats specially.
const tricky = fc.string({ unit: fc.constantFrom("a", '"', "\\", "{", "}", "[", "]", ",", ":", "é", "\u2028") });
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, 0, -1.5e3),
    tricky,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(tricky, fc.constantFrom(...RESERVED_KEYS)), tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("jsonShapeError", () => {
  it("refuses exactly the documents deeper than the limit or with a reserved key, whatever the strings hold", () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 1, max: 6 }), fc.boolean(), (value, maxDepth, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const error = jsonShapeError(text, maxDepth);
        const expected = depthOf(JSON.parse(text)) > maxDepth || hasReservedKey(text);
        expect(error !== undefined).toBe(expected);
        if (error !== undefined) expect(error.status).toBe(400);
      }),
      { numRuns: 2000 },
    );
  });

  it("names the limit and the path where nesting went too deep, in linear time for any depth", () => {
    const deep = `{"metadata":{"k":[1,${"[".repeat(100_000)}${"]".repeat(100_000)}]}}`;
    const error = jsonShapeError(deep, 4);
    expect(error?.body()).toEqual({
      error: {
        code: "InvalidInput",
        message: "the body is nested deeper than 4 levels",
        details: { path: "body.metadata.k.1.0", maxDepth: 4 },
      },
    });
    expect(jsonShapeError(deep, 100_004)).toBeUndefined();
  });

  it("names a reserved key and its path, escaped or not, at any depth", () => {
    expect(jsonShapeError('{"metadata":{"k":{"__proto__":[1]}}}', 64)?.body().error).toEqual({
      code: "InvalidInput",
      message: 'the key "__proto__" is not accepted in a body',
      details: { path: "body.metadata.k.__proto__", key: "__proto__" },
    });
    expect(jsonShapeError('[{"a":1},{"b":{"constr\\u0075ctor":2}}]', 64)?.details).toMatchObject({
      path: "body.1.b.constructor",
    });
    expect(jsonShapeError('{"prototype":1}', 64)?.details).toMatchObject({ path: "body.prototype" });
    // As a value, not a key, it is plain text.
    expect(jsonShapeError('{"text":"__proto__","a":["constructor"]}', 64)).toBeUndefined();
  });
});

describe("illFormedPath", () => {
  it("finds a lone surrogate in a key or a string at any depth without recursion", () => {
    let deep: unknown = "a\ud800";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(illFormedPath(deep)).toBe(`body${".0".repeat(100_000)}`);
    expect(illFormedPath({ ok: "x", list: ["y", { "k\udc00": 1 }] })).toBe("body.list.1.k\ufffd");
    expect(illFormedPath({ a: ["fine", { b: "é" }] })).toBeUndefined();
  });
});
