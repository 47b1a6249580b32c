import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, MAX_JSON_DEPTH_CEILING, resolveLimits } from "./limits.ts";

describe("resolveLimits", () => {
  it("fills in the defaults and keeps a depth limit the schema checks can bear", () => {
    expect(resolveLimits()).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS).toMatchObject({ maxImportBodyBytes: 32 * 1024 * 1024, maxConcurrentReplays: 2 });
    expect(resolveLimits({ maxJsonDepth: 8 }).maxJsonDepth).toBe(8);
    expect(resolveLimits({ maxJsonDepth: MAX_JSON_DEPTH_CEILING }).maxJsonDepth).toBe(MAX_JSON_DEPTH_CEILING);
    for (const maxJsonDepth of [0, -1, 1.5, Number.NaN, MAX_JSON_DEPTH_CEILING + 1, 100_000])
      expect(() => resolveLimits({ maxJsonDepth }), String(maxJsonDepth)).toThrow(/maxJsonDepth/);
  });
});
