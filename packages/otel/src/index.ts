/**
 * `@sema-agent/otel`: OpenTelemetry traces of Sema tasks, following the GenAI semantic
 * conventions. One fold maps a task's log to spans (`foldSpans`, `SpanFold`); `traceTask` rebuilds
 * any task's trace from its log with the stored timestamps, and `traceEmit` is an `emit` sink that
 * builds the same spans live. Both hand `ReadableSpan`s to an SDK `SpanExporter`.
 *
 * @module @sema-agent/otel
 */
export { ERROR_TYPE, GEN_AI, LEG_SPAN, OPERATION, SEMA, SPAN_EVENT } from "./attributes.ts";
export { spanIdOf, traceIdOf } from "./export/span-ids.ts";
export { foldSpans, SpanFold, type SpanFoldOptions } from "./spans/span-fold.ts";
export type {
  AttributeValue,
  SpanAttributes,
  SpanEventRecord,
  SpanRecord,
  SpanStatusRecord,
} from "./spans/span-record.ts";
export { type TraceEmit, type TraceEmitOptions, traceEmit } from "./trace/trace-emit.ts";
export { CAPTURE_CONTENT_ENV, SEMCONV_OPT_IN_ENV, type TraceOptions } from "./trace/trace-options.ts";
export { traceTask } from "./trace/trace-task.ts";
