/**
 * `@sema-agent/otel`: OpenTelemetry traces of Sema tasks, following the GenAI semantic
 * conventions. One fold maps a task's log to spans (`foldSpans`, `SpanFold`); `traceTask` rebuilds
 * any task's trace from its log with the stored timestamps, and `traceEmit` is an `emit` sink that
 * builds the same spans live. Both hand `ReadableSpan`s to an SDK `SpanExporter`;
 * `traceTaskJson` gives the rebuilt trace as OTLP/JSON text. The metrics come from the same fold
 * (`MetricFold`): `metricsEmit` records them live, `instrumentStore` feeds it what this process
 * appends and times the appends, `observeTaskGauges` adds the host's gauges, and
 * `createMetricsProducer` aggregates the histograms outside the SDK's per-record path, for the
 * SDK's readers to collect (`metricProducers`).
 * `callTraceparent` gives a running tool call the `traceparent` of its span, for the services it
 * calls.
 *
 * @module @sema-agent/otel
 */
export { ERROR_TYPE, GEN_AI, LEG_SPAN, OPERATION, SEMA, SPAN_EVENT } from "./attributes.ts";
export { spanIdOf, traceIdOf } from "./export/span-ids.ts";
export { callTraceparent, type TracePlacement } from "./export/trace-placement.ts";
export { type InstrumentStoreOptions, instrumentStore } from "./metrics/instrument-store.ts";
export { METER_NAME } from "./metrics/instruments.ts";
export {
  foldMeasurements,
  type Measurement,
  type MetricAttributes,
  MetricFold,
  type MetricFoldOptions,
  type RecordMeasurement,
} from "./metrics/metric-fold.ts";
export {
  DURATION_BUCKETS,
  METRIC,
  METRIC_ATTRIBUTE,
  METRIC_SPECS,
  type MetricName,
  type MetricSpec,
  STORE_BUCKETS,
  TOKEN_BUCKETS,
  WAIT_BUCKETS,
} from "./metrics/metric-names.ts";
export { type MetricsEmit, type MetricsEmitOptions, metricsEmit } from "./metrics/metrics-emit.ts";
export {
  createMetricsProducer,
  type MetricsProducer,
  type MetricsProducerOptions,
  type RecordHistogram,
} from "./metrics/metrics-producer.ts";
export { observeTaskGauges, type StoreSizes, type TaskGaugeOptions } from "./metrics/task-gauges.ts";
export { agentToolNames, OTHER_TOOL, toolLabeler } from "./metrics/tool-labels.ts";
export { foldSpans, SpanFold, type SpanFoldOptions } from "./spans/span-fold.ts";
export type {
  AttributeValue,
  SpanAttributes,
  SpanEventRecord,
  SpanLinkRecord,
  SpanRecord,
  SpanStatusRecord,
} from "./spans/span-record.ts";
export { type TraceEmit, type TraceEmitOptions, traceEmit } from "./trace/trace-emit.ts";
export { CAPTURE_CONTENT_ENV, SEMCONV_OPT_IN_ENV, type TraceOptions } from "./trace/trace-options.ts";
export { traceTask } from "./trace/trace-task.ts";
export { type TraceJsonOptions, traceTaskJson } from "./trace/trace-task-json.ts";
