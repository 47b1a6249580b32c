import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WindowTable } from "./window-table.ts";

/** A small hash range, so pairs collide in one half and slots crowd (probing, growth). */
const half = fc.integer({ min: 0, max: 40 }).map((n) => (n * 0x10001) | 0);
const op = fc.record({
  h1: half,
  h2: half,
  value: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  overwrite: fc.boolean(),
  reserve: fc.integer({ min: -5, max: 200 }),
});

describe("WindowTable", () => {
  it("property: behaves as a Map keyed by the pair, through growth and reserve", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), fc.integer({ min: 0, max: 100 }), (ops, capacity) => {
        const table = new WindowTable(capacity);
        const model = new Map<string, number>();
        const key = (h1: number, h2: number) => `${h1 >>> 0}:${h2 >>> 0}`;
        for (const { h1, h2, value, overwrite, reserve } of ops) {
          if (reserve % 7 === 0) table.reserve(reserve);
          table.set(h1, h2, value, overwrite);
          if (overwrite || !model.has(key(h1, h2))) model.set(key(h1, h2), value);
        }
        expect(table.size).toBe(model.size);
        const seen: Array<[number, number]> = [];
        const wanted: Array<[number, number]> = [];
        for (const { h1, h2 } of ops) {
          seen.push([table.get(h1, h2), table.has(h1, h2) ? 1 : 0]);
          wanted.push([model.get(key(h1, h2)) ?? -1, 1]);
        }
        // And pairs never set are absent.
        for (const [h1, h2] of [
          [41 * 0x10001, 0],
          [0, 41 * 0x10001],
        ] as const) {
          seen.push([table.get(h1, h2), table.has(h1, h2) ? 1 : 0]);
          wanted.push([-1, 0]);
        }
        expect(seen).toEqual(wanted);
      }),
      { numRuns: 150 },
    );
  });

  it("tells pairs apart that share one half, and negative from unsigned spellings alike", () => {
    const table = new WindowTable();
    table.set(-1, 7, 1);
    table.set(-1, 8, 2);
    expect(table.get(0xffffffff, 7)).toBe(1);
    expect(table.get(-1, 8)).toBe(2);
    expect(table.get(7, -1)).toBe(-1);
  });
});
