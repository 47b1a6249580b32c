/** What the fold of a task's log produces: plain records of spans, before any SDK object. */

/** An attribute value as OpenTelemetry carries it (no nested objects). */
export type AttributeValue = string | number | boolean | string[];

/** Attributes of a span or span event. */
export type SpanAttributes = Record<string, AttributeValue>;

/** Something that happened at an instant inside a span, at the stored time of its event. */
export interface SpanEventRecord {
  /** The event's name (see `SPAN_EVENT`). */
  name: string;
  /** ISO-8601: the `at` of the log event it comes from. */
  at: string;
  /** Its attributes (never a text of the task unless content capture is on). */
  attributes: SpanAttributes;
}

/** A span's outcome: `unset` (the default), `ok`, or `error` with a short message. */
export interface SpanStatusRecord {
  /** The status code, as OpenTelemetry names it. */
  code: "unset" | "ok" | "error";
  /** Why, for an error (a stable code, never a stack). */
  message?: string;
}

/** A span of another trace, or of this one elsewhere, that a span points at (a caller's steer or decision). */
export interface SpanLinkRecord {
  /** The linked span's trace. */
  traceId: string;
  /** The linked span. */
  spanId: string;
  /** What the link is: the event that recorded it (`sema.link.event`) and its input or call id. */
  attributes: SpanAttributes;
}

/**
 * One span as the log defines it: `key` is stable for the same task and log (the span's id is
 * derived from it), `parentKey` names the parent's key (absent on the task's root span).
 */
export interface SpanRecord {
  /** The task the span belongs to. */
  taskId: string;
  /**
   * The trace it is in: the caller's when the task was started with a trace context, the
   * delegating parent's for a child task, else one derived from the task id (`traceIdOf`).
   */
  traceId: string;
  /** Stable within the task: `task`, `leg:<legId>:<seq>`, `chat:<seq>`, `tool:<seq>` (the seq of the event that opened it), `delegate:<callId>` (a delegating call). */
  key: string;
  /** The parent span's key; absent on the root. */
  parentKey?: string;
  /**
   * On the root only: the id of its parent span outside this task — the caller's span, or the
   * parent task's `execute_tool` span of the delegating call. Absent when the task's trace is its own.
   */
  parentSpanId?: string;
  /** The span's name, per the GenAI conventions (`invoke_agent …`, `chat …`, `execute_tool …`). */
  name: string;
  /** `client` for a model call, `internal` for everything else. */
  kind: "internal" | "client";
  /** ISO-8601: when it started, from a stored event's `at`. */
  start: string;
  /** ISO-8601: when it ended, from a stored event's `at`; absent while open. */
  end?: string;
  /** Its attributes. */
  attributes: SpanAttributes;
  /** Its span events, in log order. */
  events: SpanEventRecord[];
  /** Spans it links to (a caller's span that steered or decided), in log order; absent when none. */
  links?: SpanLinkRecord[];
  /** Its status. */
  status: SpanStatusRecord;
}
