// The W3C trace-context parser takes any header value without throwing, and accepts only what the
// recommendation calls valid: what it returns always passes the schema the log validates with.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseTraceContext, traceContextSchema } from "./trace-context.ts";

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length });
const traceId = hex(32).filter((id) => id !== "0".repeat(32));
const spanId = hex(16).filter((id) => id !== "0".repeat(16));
const flags = hex(2);
const valid = fc.tuple(traceId, spanId, flags).map(([t, s, f]) => `00-${t}-${s}-${f}`);

describe("parseTraceContext", () => {
  it("never throws, and whatever it accepts the log's schema accepts", () => {
    const header = fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(..."0f-a9 ,=@*/Z\t") }), valid);
    fc.assert(
      fc.property(
        fc.option(header, { nil: undefined }),
        fc.option(fc.oneof(fc.string(), fc.constant("congo=t61rcWkgMzE")), { nil: undefined }),
        (traceparent, tracestate) => {
          const parsed = parseTraceContext({ traceparent, tracestate });
          if (parsed !== undefined) expect(traceContextSchema.safeParse(parsed).success).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("accepts every valid version-00 traceparent as it is", () => {
    fc.assert(
      fc.property(valid, (traceparent) => {
        expect(parseTraceContext({ traceparent })).toEqual({ traceparent });
      }),
    );
  });

  it("refuses what the recommendation calls invalid", () => {
    const t = "4bf92f3577b34da6a3ce929d0e0e4736";
    const s = "00f067aa0ba902b7";
    for (const traceparent of [
      "",
      `00-${"0".repeat(32)}-${s}-01`,
      `00-${t}-${"0".repeat(16)}-01`,
      `00-${t.toUpperCase()}-${s}-01`,
      `ff-${t}-${s}-01`,
      `00-${t}-${s}-01-extra`,
      `00-${t}-${s}-1`,
      `00-${t.slice(1)}-${s}-01`,
      `00_${t}_${s}_01`,
      `00-${t}-${s}-01, 00-${t}-${s}-01`,
      `0-${t}-${s}-01`,
    ])
      expect(parseTraceContext({ traceparent }), traceparent).toBeUndefined();
    expect(parseTraceContext({})).toBeUndefined();
    expect(parseTraceContext({ traceparent: null, tracestate: "a=b" })).toBeUndefined();
  });

  it("reads a later version's first four fields, as version 00", () => {
    const t = "4bf92f3577b34da6a3ce929d0e0e4736";
    const s = "00f067aa0ba902b7";
    expect(parseTraceContext({ traceparent: `01-${t}-${s}-01-what-comes-later` })).toEqual({
      traceparent: `00-${t}-${s}-01`,
    });
    expect(parseTraceContext({ traceparent: `01-${t}-${s}-01` })).toEqual({ traceparent: `00-${t}-${s}-01` });
    expect(parseTraceContext({ traceparent: `01-${t}-${s}-01x` })).toBeUndefined();
  });

  it("keeps a well-formed tracestate and drops a malformed one, keeping the traceparent", () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(parseTraceContext({ traceparent, tracestate: "rojo=00f067aa0ba902b7, congo=t61rcWkgMzE" })).toEqual({
      traceparent,
      tracestate: "rojo=00f067aa0ba902b7, congo=t61rcWkgMzE",
    });
    expect(parseTraceContext({ traceparent, tracestate: "tenant@vendor=x" })).toEqual({
      traceparent,
      tracestate: "tenant@vendor=x",
    });
    for (const tracestate of [
      "",
      "novalue",
      "Upper=x",
      "a=b,a=c",
      "a=b=c",
      "a=",
      "a=x\u0001",
      "a=é",
      `a=${"x".repeat(600)}`,
    ])
      expect(parseTraceContext({ traceparent, tracestate }), tracestate).toEqual({ traceparent });
    const many = Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(",");
    expect(parseTraceContext({ traceparent, tracestate: many })).toEqual({ traceparent });
  });
});
