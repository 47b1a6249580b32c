// The hold: on while an export is under way, off when the last one settles or on release (and
// never again after it), so a shutdown that gave up leaves nothing keeping the process alive.
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { HeldExporter } from "./held-exporter.ts";

/** An exporter whose exports settle only when the test says so. */
function pending() {
  const callbacks: Parameters<SpanExporter["export"]>[1][] = [];
  const exporter: SpanExporter = {
    export: (_spans, callback) => callbacks.push(callback),
    shutdown: async () => {},
  };
  return { exporter, settle: () => callbacks.shift()?.({ code: 0 }) };
}

describe("HeldExporter", () => {
  it("holds while any export is under way", () => {
    const inner = pending();
    const held = new HeldExporter(inner.exporter);
    const results: number[] = [];
    expect(held.holding).toBe(false);
    held.export([] as ReadableSpan[], (result) => results.push(result.code));
    held.export([] as ReadableSpan[], (result) => results.push(result.code));
    expect(held.holding).toBe(true);
    inner.settle();
    expect(held.holding).toBe(true);
    inner.settle();
    expect(held.holding).toBe(false);
    expect(results).toEqual([0, 0]);
  });

  it("lets go on release, exports under way included, and holds no more after it", () => {
    const inner = pending();
    const held = new HeldExporter(inner.exporter);
    held.export([] as ReadableSpan[], () => {});
    held.release();
    expect(held.holding).toBe(false);
    held.export([] as ReadableSpan[], () => {});
    expect(held.holding).toBe(false);
  });
});
