/**
 * A span record as the OpenTelemetry SDK's exporters take it: a `ReadableSpan`.
 *
 * Built once per ended span on the live tracer's path, so it costs one small object: what an
 * exporter reads is derived from the record when first read and remembered (ids are a SHA-256
 * each, times a `Date.parse` each). An exporter that reads nothing but keeps the spans (the
 * in-memory one) pays for nothing it does not read; one that reads every field (OTLP) pays what
 * building the fields up front would have cost, once. Reading late is safe because the fold never
 * changes a record it has ended (span-fold.test.ts holds it to that).
 */
import { type HrTime, type Link, type SpanContext, SpanKind, SpanStatusCode, TraceFlags } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";
import type { SpanAttributes, SpanRecord, SpanStatusRecord } from "../spans/span-record.ts";
import { leafSpanIdOf, spanIdOf, traceIdOf } from "./span-ids.ts";

/** The instrumentation scope every span names: this package. */
export const SCOPE = { name: "@sema-agent/otel", version: "0.1.0" } as const;

/** An unparsable time (never one a store stamps) counts as the epoch. */
function hrTimeOf(ms: number): HrTime {
  const safe = Number.isFinite(ms) ? ms : 0;
  return [Math.floor(safe / 1000), (safe % 1000) * 1_000_000];
}

const STATUS = { unset: SpanStatusCode.UNSET, ok: SpanStatusCode.OK, error: SpanStatusCode.ERROR } as const;

function statusOf(status: SpanStatusRecord): ReadableSpan["status"] {
  return status.message === undefined
    ? { code: STATUS[status.code] }
    : { code: STATUS[status.code], message: status.message };
}

/** The times of a span, derived together (the duration needs both ends). */
interface Times {
  start: HrTime;
  end: HrTime;
  duration: HrTime;
}

/** A `ReadableSpan` over an ended record; each derived field is computed when first read. */
class RecordSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly resource: Resource;
  readonly #record: SpanRecord;
  #own: SpanContext | undefined;
  #times: Times | undefined;
  #status: ReadableSpan["status"] | undefined;
  #attributes: SpanAttributes | undefined;
  #events: TimedEvent[] | undefined;
  #links: Link[] | undefined;

  constructor(record: SpanRecord, resource: Resource) {
    this.name = record.name;
    this.kind = record.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL;
    this.resource = resource;
    this.#record = record;
  }

  spanContext(): SpanContext {
    if (this.#own === undefined) {
      const { taskId, key } = this.#record;
      this.#own = context(taskId, leafSpanIdOf(taskId, key));
    }
    return this.#own;
  }

  #timesOf(): Times {
    if (this.#times === undefined) {
      const start = Date.parse(this.#record.start);
      const end = this.#record.end === undefined ? start : Date.parse(this.#record.end);
      const durationMs = Math.max(0, end - start) || 0;
      this.#times = { start: hrTimeOf(start), end: hrTimeOf(end), duration: hrTimeOf(durationMs) };
    }
    return this.#times;
  }

  get startTime(): HrTime {
    return this.#timesOf().start;
  }

  get endTime(): HrTime {
    return this.#timesOf().end;
  }

  get duration(): HrTime {
    return this.#timesOf().duration;
  }

  get status(): ReadableSpan["status"] {
    this.#status ??= statusOf(this.#record.status);
    return this.#status;
  }

  get attributes(): SpanAttributes {
    // A copy: what an exporter or processor does to it never reaches the record.
    this.#attributes ??= { ...this.#record.attributes };
    return this.#attributes;
  }

  get events(): TimedEvent[] {
    this.#events ??= this.#record.events.map((event) => ({
      name: event.name,
      time: hrTimeOf(Date.parse(event.at)),
      attributes: { ...event.attributes },
    }));
    return this.#events;
  }

  get links(): Link[] {
    this.#links ??= [];
    return this.#links;
  }

  get ended(): boolean {
    return true;
  }

  get instrumentationScope(): ReadableSpan["instrumentationScope"] {
    return SCOPE;
  }

  get droppedAttributesCount(): number {
    return 0;
  }

  get droppedEventsCount(): number {
    return 0;
  }

  get droppedLinksCount(): number {
    return 0;
  }
}

/** A span with a parent: the root has no `parentSpanContext` at all, as an SDK root span. */
class ChildRecordSpan extends RecordSpan {
  readonly #taskId: string;
  readonly #parentKey: string;
  #parent: SpanContext | undefined;

  constructor(record: SpanRecord, parentKey: string, resource: Resource) {
    super(record, resource);
    this.#taskId = record.taskId;
    this.#parentKey = parentKey;
  }

  get parentSpanContext(): SpanContext {
    this.#parent ??= context(this.#taskId, spanIdOf(this.#taskId, this.#parentKey));
    return this.#parent;
  }
}

function context(taskId: string, spanId: string): SpanContext {
  return { traceId: traceIdOf(taskId), spanId, traceFlags: TraceFlags.SAMPLED, isRemote: false };
}

/** The `ReadableSpan` of an ended record (an open one is ended at its start). */
export function toReadableSpan(record: SpanRecord, resource: Resource): ReadableSpan {
  return record.parentKey === undefined
    ? new RecordSpan(record, resource)
    : new ChildRecordSpan(record, record.parentKey, resource);
}
