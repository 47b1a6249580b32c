import { describe, expect, it } from "vitest";
import { isSemaError } from "../protocol/errors.ts";
import { SummaryCache } from "./summary-cache.ts";

const text = (sessionSeq: number) =>
  JSON.stringify({
    status: "running",
    openInputs: {},
    openApprovals: [],
    childResults: 0,
    sessionSeq,
    usage: { inputTokens: 1, outputTokens: 2 },
    runnable: false,
  });

describe("SummaryCache", () => {
  it("parses a text once, and again only when the stored text changed", () => {
    const cache = new SummaryCache("Test");
    const first = cache.parse("t1", text(1));
    expect(cache.parse("t1", text(1))).toBe(first);
    const changed = cache.parse("t1", text(2));
    expect(changed).not.toBe(first);
    expect(changed.sessionSeq).toBe(2);
    expect(cache.parse("t2", text(2))).not.toBe(changed);
  });

  it("hands out deep-frozen summaries, remembered ones included", () => {
    const cache = new SummaryCache("Test");
    const parsed = cache.parse("t1", text(1));
    expect(Object.isFrozen(parsed) && Object.isFrozen(parsed.usage) && Object.isFrozen(parsed.openInputs)).toBe(true);
    const written = { ...parsed, sessionSeq: 2, usage: { inputTokens: 3, outputTokens: 4 } };
    cache.remember("t1", JSON.stringify(written), written);
    expect(cache.parse("t1", JSON.stringify(written))).toBe(written);
    expect(Object.isFrozen(written.usage)).toBe(true);
  });

  it("reports a damaged summary as StoreUnavailable, naming the store", () => {
    const error = (() => {
      try {
        new SummaryCache("Test").parse("t1", "{not json");
      } catch (caught) {
        return caught;
      }
    })();
    expect(isSemaError(error, "StoreUnavailable")).toBe(true);
    expect(String((error as Error).message)).toContain("Test store");
  });

  it("forgets the oldest task past its capacity", () => {
    const cache = new SummaryCache("Test");
    const first = cache.parse("t0", text(0));
    for (let i = 1; i <= 16_384; i++) cache.parse(`t${i}`, text(i));
    expect(cache.parse("t0", text(0))).not.toBe(first);
    // Just under the capacity, the first is still remembered.
    const again = new SummaryCache("Test");
    const kept = again.parse("t0", text(0));
    for (let i = 1; i < 16_384; i++) again.parse(`t${i}`, text(i));
    expect(again.parse("t0", text(0))).toBe(kept);
    expect(cache.parse("t16384", text(16_384))).toBe(cache.parse("t16384", text(16_384)));
  });
});
