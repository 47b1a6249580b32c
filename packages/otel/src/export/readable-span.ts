/** A span record as the OpenTelemetry SDK's exporters take it: a `ReadableSpan`. */
import { type HrTime, type SpanContext, SpanKind, SpanStatusCode, TraceFlags } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { SpanRecord } from "../spans/span-record.ts";
import { spanIdOf } from "./span-ids.ts";

/** The instrumentation scope every span names: this package. */
export const SCOPE = { name: "@sema-agent/otel", version: "0.1.0" } as const;

function hrTime(iso: string): HrTime {
  const ms = Date.parse(iso);
  const safe = Number.isFinite(ms) ? ms : 0;
  return [Math.floor(safe / 1000), (safe % 1000) * 1_000_000];
}

function context(traceId: string, spanId: string, isRemote = false): SpanContext {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote };
}

/** The parent's context: a span of the task, or (on the root) one outside it, the caller's or the parent task's. */
function parentOf(record: SpanRecord): SpanContext | undefined {
  if (record.parentKey !== undefined) return context(record.traceId, spanIdOf(record.taskId, record.parentKey));
  if (record.parentSpanId !== undefined) return context(record.traceId, record.parentSpanId, true);
  return undefined;
}

const STATUS = { unset: SpanStatusCode.UNSET, ok: SpanStatusCode.OK, error: SpanStatusCode.ERROR } as const;

/** The `ReadableSpan` of an ended record (an open one is ended at its start). */
export function toReadableSpan(record: SpanRecord, resource: Resource): ReadableSpan {
  const startTime = hrTime(record.start);
  const endTime = hrTime(record.end ?? record.start);
  const durationMs = Math.max(0, Date.parse(record.end ?? record.start) - Date.parse(record.start)) || 0;
  const own = context(record.traceId, spanIdOf(record.taskId, record.key));
  const parent = parentOf(record);
  const status =
    record.status.message === undefined
      ? { code: STATUS[record.status.code] }
      : { code: STATUS[record.status.code], message: record.status.message };
  return {
    name: record.name,
    kind: record.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => own,
    ...(parent === undefined ? {} : { parentSpanContext: parent }),
    startTime,
    endTime,
    status,
    attributes: { ...record.attributes },
    links: (record.links ?? []).map((link) => ({
      context: context(link.traceId, link.spanId, true),
      attributes: { ...link.attributes },
      droppedAttributesCount: 0,
    })),
    events: record.events.map((event) => ({
      name: event.name,
      time: hrTime(event.at),
      attributes: { ...event.attributes },
    })),
    duration: [Math.floor(durationMs / 1000), (durationMs % 1000) * 1_000_000],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
