import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newId } from "./ids.ts";

/** The RFC 9562 layout, spelled out the slow way, to check the fast one against. */
function reference(now: number, random: Uint8Array): string {
  const bytes = new Uint8Array(16);
  let ms = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes.set(random.subarray(0, 10), 6);
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe("newId", () => {
  it("lays out a UUID version 7 exactly: 48 bits of time, version, variant, random", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        (now, random) => {
          expect(newId(now, random)).toBe(reference(now, random));
        },
      ),
    );
  });

  it("is unique and time-ordered across many ids from the pooled random source", () => {
    const ids = Array.from({ length: 5000 }, (_, i) => newId(1_700_000_000_000 + i));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
