import type { StoredEvent } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { FrameCache } from "./frame-cache.ts";

const event = (seq: number, text = "x".repeat(100)): StoredEvent =>
  ({ type: "engine_note", v: 1, kind: "test", text, seq, taskId: "t", at: "2026-01-01T00:00:00.000Z" }) as StoredEvent;

describe("FrameCache", () => {
  it("serves the same frame to every stream reading the same event, within its byte bound", () => {
    const cache = new FrameCache(2000);
    const first = cache.frame("t", event(1));
    // Another read of the log yields a new object; the frame is the cached one.
    expect(cache.frame("t", event(1))).toBe(first);
    for (let seq = 2; seq <= 50; seq++) cache.frame("t", event(seq));
    expect(cache.bytes).toBeLessThanOrEqual(2000);
    expect(cache.frame("t", event(1))).not.toBe(first);
    expect(cache.frame("other", event(50))).not.toBe(cache.frame("t", event(50)));
  });

  it("keeps none larger than a quarter of its bound", () => {
    const cache = new FrameCache(1000);
    const big = event(1, "y".repeat(400));
    expect(cache.frame("t", big)).toEqual(cache.frame("t", event(1, "y".repeat(400))));
    expect(cache.bytes).toBe(0);
  });
});
