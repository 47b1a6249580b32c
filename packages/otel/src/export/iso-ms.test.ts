// The hand parse of a stored time is Date.parse: for every time toISOString can write, and for
// strings of the same shape that are not times (out-of-range fields, non-digits, other days).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoMs } from "./iso-ms.ts";

const same = (iso: string) => {
  const expected = Date.parse(iso);
  const got = isoMs(iso);
  if (Number.isNaN(expected)) expect(got).toBeNaN();
  else expect(got).toBe(expected);
};

describe("isoMs", () => {
  it("is Date.parse for every time a store stamps", () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (date) => same(date.toISOString())),
      { numRuns: 2000 },
    );
  });

  it("is Date.parse for strings of that shape, times or not, in any order", () => {
    const digit = fc.constantFrom(..."0123456789");
    const any = fc.constantFrom(..."0123456789:.-TZ x");
    const field = (n: number) =>
      fc.array(fc.oneof({ weight: 9, arbitrary: digit }, any), { minLength: n, maxLength: n });
    const shaped = fc
      .tuple(
        fc.constantFrom("2026-12-01", "2026-02-30", "1999-12-31", "2026-13-01", "0000-01-01"),
        field(2),
        field(2),
        field(2),
        field(3),
      )
      .map(([d, h, m, s, ms]) => `${d}T${h.join("")}:${m.join("")}:${s.join("")}.${ms.join("")}Z`);
    fc.assert(
      fc.property(fc.array(fc.oneof(shaped, fc.string()), { maxLength: 5 }), (isos) => isos.forEach(same)),
      {
        numRuns: 2000,
      },
    );
  });
});
