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
import { isoMs } from "./iso-ms.ts";
import { leafSpanIdOf, spanIdOf } from "./span-ids.ts";

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

/** What a span derives from its record when first read (one object, made at the first read). */
interface Derived {
  own: SpanContext | undefined;
  parent: SpanContext | undefined;
  times: Times | undefined;
  status: ReadableSpan["status"] | undefined;
  attributes: SpanAttributes | undefined;
  events: TimedEvent[] | undefined;
  links: Link[] | undefined;
}

/**
 * A `ReadableSpan` over an ended record; each derived field is computed when first read. Three
 * fields until then (four with a parent): an exporter such as the in-memory one keeps every span, so its size is what
 * tracing retains per span.
 */
class RecordSpan implements ReadableSpan {
  readonly #record: SpanRecord;
  readonly #resource: Resource;
  #derived: Derived | undefined;

  constructor(record: SpanRecord, resource: Resource) {
    this.#record = record;
    this.#resource = resource;
  }

  /** The record, for the subclass of spans with a parent (a prototype accessor, not a field). */
  protected get source(): SpanRecord {
    return this.#record;
  }

  protected get derived(): Derived {
    this.#derived ??= {
      own: undefined,
      parent: undefined,
      times: undefined,
      status: undefined,
      attributes: undefined,
      events: undefined,
      links: undefined,
    };
    return this.#derived;
  }

  get name(): string {
    return this.#record.name;
  }

  get kind(): SpanKind {
    return this.#record.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL;
  }

  get resource(): Resource {
    return this.#resource;
  }

  spanContext(): SpanContext {
    const derived = this.derived;
    if (derived.own === undefined) {
      const { taskId, traceId, key } = this.#record;
      derived.own = context(traceId, leafSpanIdOf(taskId, key));
    }
    return derived.own;
  }

  #timesOf(): Times {
    const derived = this.derived;
    if (derived.times === undefined) {
      const start = isoMs(this.#record.start);
      const end = this.#record.end === undefined ? start : isoMs(this.#record.end);
      const durationMs = Math.max(0, end - start) || 0;
      derived.times = { start: hrTimeOf(start), end: hrTimeOf(end), duration: hrTimeOf(durationMs) };
    }
    return derived.times;
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
    const derived = this.derived;
    derived.status ??= statusOf(this.#record.status);
    return derived.status;
  }

  get attributes(): SpanAttributes {
    // A copy: what an exporter or processor does to it never reaches the record.
    const derived = this.derived;
    derived.attributes ??= { ...this.#record.attributes };
    return derived.attributes;
  }

  get events(): TimedEvent[] {
    const derived = this.derived;
    derived.events ??= this.#record.events.map((event) => ({
      name: event.name,
      time: hrTimeOf(isoMs(event.at)),
      attributes: { ...event.attributes },
    }));
    return derived.events;
  }

  get links(): Link[] {
    const derived = this.derived;
    derived.links ??= (this.#record.links ?? []).map((link) => ({
      context: context(link.traceId, link.spanId, true),
      attributes: { ...link.attributes },
      droppedAttributesCount: 0,
    }));
    return derived.links;
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
  readonly #parentKey: string;

  constructor(record: SpanRecord, parentKey: string, resource: Resource) {
    super(record, resource);
    this.#parentKey = parentKey;
  }

  get parentSpanContext(): SpanContext {
    const derived = this.derived;
    if (derived.parent === undefined) {
      const { taskId, traceId } = this.source;
      derived.parent = context(traceId, spanIdOf(taskId, this.#parentKey));
    }
    return derived.parent;
  }
}

/** A task's root span whose parent is outside the task (the caller's span, or the delegating call's). */
class RemoteChildRecordSpan extends RecordSpan {
  readonly #parentSpanId: string;

  constructor(record: SpanRecord, parentSpanId: string, resource: Resource) {
    super(record, resource);
    this.#parentSpanId = parentSpanId;
  }

  get parentSpanContext(): SpanContext {
    const derived = this.derived;
    derived.parent ??= context(this.source.traceId, this.#parentSpanId, true);
    return derived.parent;
  }
}

function context(traceId: string, spanId: string, isRemote = false): SpanContext {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote };
}

/** The `ReadableSpan` of an ended record (an open one is ended at its start). */
export function toReadableSpan(record: SpanRecord, resource: Resource): ReadableSpan {
  if (record.parentKey !== undefined) return new ChildRecordSpan(record, record.parentKey, resource);
  if (record.parentSpanId !== undefined) return new RemoteChildRecordSpan(record, record.parentSpanId, resource);
  return new RecordSpan(record, resource);
}
