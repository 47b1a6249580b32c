// The ReadableSpan of a record, whose fields are derived when first read: for any record, every
// field an exporter reads (the OTLP transformer reads them all) is what the record says, read in
// any order and any number of times; and what a reader does to it never reaches the record.
import { SpanKind, SpanStatusCode, TraceFlags } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SpanRecord } from "../spans/span-record.ts";
import { SCOPE, toReadableSpan } from "./readable-span.ts";
import { leafSpanIdOf, spanIdOf } from "./span-ids.ts";

const resource = resourceFromAttributes({ "service.name": "test" });
const T0 = Date.parse("2026-11-30T10:00:00.000Z");

const iso = fc.integer({ min: 0, max: 10_000_000 }).map((ms) => new Date(T0 + ms).toISOString());
const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }));
const attributes = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), value, { maxKeys: 5 });
const record: fc.Arbitrary<SpanRecord> = fc
  .record(
    {
      taskId: fc.constantFrom("t1", "t2"),
      traceId: fc.constantFrom("a".repeat(32), "b".repeat(32)),
      key: fc.constantFrom("task", "leg:a:2", "chat:3", "tool:4"),
      parentKey: fc.constantFrom("task", "leg:a:2"),
      parentSpanId: fc.constantFrom("c".repeat(16)),
      links: fc.array(
        fc.record({ traceId: fc.constantFrom("d".repeat(32)), spanId: fc.constantFrom("e".repeat(16)), attributes }),
        { maxLength: 2 },
      ),
      name: fc.string(),
      kind: fc.constantFrom("internal", "client" as const),
      start: fc.oneof(iso, fc.constant("not a time")),
      end: iso,
      attributes,
      events: fc.array(fc.record({ name: fc.string(), at: iso, attributes }), { maxLength: 3 }),
      status: fc.oneof(
        fc.record({ code: fc.constantFrom("unset", "ok", "error" as const) }),
        fc.record({ code: fc.constant("error" as const), message: fc.string() }),
      ),
    },
    { requiredKeys: ["taskId", "traceId", "key", "name", "kind", "start", "attributes", "events", "status"] },
  )
  .map((r) => structuredClone(r));

/** The `HrTime` of an ISO time as the SDK counts it: seconds and nanoseconds; an unparsable one is 0. */
function hr(at: string): [number, number] {
  const ms = Number.isFinite(Date.parse(at)) ? Date.parse(at) : 0;
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
}

/** Every field of `span`, read in the order `order` gives (a permutation of the field names). */
function read(span: ReadableSpan, order: readonly number[]) {
  const fields: Record<string, () => unknown> = {
    name: () => span.name,
    kind: () => span.kind,
    context: () => span.spanContext(),
    parent: () => span.parentSpanContext,
    start: () => span.startTime,
    end: () => span.endTime,
    duration: () => span.duration,
    status: () => span.status,
    attributes: () => span.attributes,
    events: () => span.events,
    links: () => span.links,
    ended: () => span.ended,
    resource: () => span.resource,
    scope: () => span.instrumentationScope,
    dropped: () => [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
  };
  const names = Object.keys(fields);
  const out: Record<string, unknown> = {};
  for (const i of order) {
    const name = names[i % names.length] as string;
    out[name] = fields[name]?.();
  }
  for (const name of names) out[name] ??= fields[name]?.();
  return out;
}

describe("the ReadableSpan of a record", () => {
  it("carries exactly what the record says, whatever order its fields are read in", () => {
    fc.assert(
      fc.property(record, fc.array(fc.nat(30), { maxLength: 20 }), (rec, order) => {
        const expected = structuredClone(rec);
        const span = toReadableSpan(rec, resource);
        const end = rec.end ?? rec.start;
        const durationMs = Math.max(0, Date.parse(end) - Date.parse(rec.start)) || 0;
        const context = (key: string) => ({
          traceId: rec.traceId,
          spanId: spanIdOf(rec.taskId, key),
          traceFlags: TraceFlags.SAMPLED,
          isRemote: false,
        });
        const remote = (traceId: string, spanId: string) => ({
          traceId,
          spanId,
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        });
        const codes = { unset: SpanStatusCode.UNSET, ok: SpanStatusCode.OK, error: SpanStatusCode.ERROR };
        const first = read(span, order);
        expect(first).toEqual({
          name: rec.name,
          kind: rec.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
          context: context(rec.key),
          parent:
            rec.parentKey !== undefined
              ? context(rec.parentKey)
              : rec.parentSpanId !== undefined
                ? remote(rec.traceId, rec.parentSpanId)
                : undefined,
          start: hr(rec.start),
          end: hr(end),
          duration: [Math.floor(durationMs / 1000), (durationMs % 1000) * 1_000_000],
          status:
            rec.status.message === undefined
              ? { code: codes[rec.status.code] }
              : { code: codes[rec.status.code], message: rec.status.message },
          attributes: rec.attributes,
          events: rec.events.map((e) => ({ name: e.name, time: hr(e.at), attributes: e.attributes })),
          links: (rec.links ?? []).map((link) => ({
            context: remote(link.traceId, link.spanId),
            attributes: link.attributes,
            droppedAttributesCount: 0,
          })),
          ended: true,
          resource,
          scope: SCOPE,
          dropped: [0, 0, 0],
        });
        // Read again: the same objects (an exporter may read a field twice), the record untouched.
        expect(read(span, [])).toEqual(first);
        expect(span.attributes).toBe(span.attributes);
        expect(span.spanContext()).toBe(span.spanContext());
        expect(rec).toEqual(expected);
      }),
    );
  });

  it("hands out copies: what a reader changes never reaches the record", () => {
    const rec: SpanRecord = {
      taskId: "t1",
      traceId: "a".repeat(32),
      key: "chat:3",
      parentKey: "task",
      name: "chat",
      kind: "client",
      start: "2026-11-30T10:00:00.000Z",
      end: "2026-11-30T10:00:01.000Z",
      attributes: { "gen_ai.operation.name": "chat" },
      events: [{ name: "e", at: "2026-11-30T10:00:00.500Z", attributes: { a: 1 } }],
      status: { code: "unset" },
    };
    const span = toReadableSpan(rec, resource);
    (span.attributes as Record<string, unknown>).extra = true;
    (span.events[0]?.attributes as Record<string, unknown>).b = 2;
    span.events.push({ name: "x", time: [0, 0] });
    expect(rec.attributes).toEqual({ "gen_ai.operation.name": "chat" });
    expect(rec.events).toEqual([{ name: "e", at: "2026-11-30T10:00:00.500Z", attributes: { a: 1 } }]);
  });

  it("names its own span by the same id as a child names it as parent", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.boolean(), (taskId, key, parentFirst) => {
        if (parentFirst) expect(spanIdOf(taskId, key)).toBe(leafSpanIdOf(taskId, key));
        else expect(leafSpanIdOf(taskId, key)).toBe(spanIdOf(taskId, key));
      }),
    );
  });
});
