// The package root's export list, pinned: changing what `@sema-agent/otel` offers means changing
// these lists on purpose. Values are read from the module, type names from the entry's source.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as root from "./index.ts";
import * as setup from "./setup/index.ts";

const VALUES = [
  "CAPTURE_CONTENT_ENV",
  "DURATION_BUCKETS",
  "ERROR_TYPE",
  "GEN_AI",
  "LEG_SPAN",
  "METER_NAME",
  "METRIC",
  "METRIC_ATTRIBUTE",
  "METRIC_SPECS",
  "MetricFold",
  "OPERATION",
  "OTHER_TOOL",
  "SEMA",
  "SEMCONV_OPT_IN_ENV",
  "SPAN_EVENT",
  "STORE_BUCKETS",
  "SpanFold",
  "TOKEN_BUCKETS",
  "WAIT_BUCKETS",
  "agentToolNames",
  "callTraceparent",
  "createMetricsProducer",
  "foldMeasurements",
  "foldSpans",
  "instrumentStore",
  "metricsEmit",
  "observeTaskGauges",
  "spanIdOf",
  "toolLabeler",
  "traceEmit",
  "traceIdOf",
  "traceTask",
  "traceTaskJson",
];
const TYPES = [
  "AttributeValue",
  "InstrumentStoreOptions",
  "Measurement",
  "MetricAttributes",
  "MetricFoldOptions",
  "MetricName",
  "MetricSpec",
  "MetricsEmit",
  "MetricsEmitOptions",
  "MetricsProducer",
  "MetricsProducerOptions",
  "RecordHistogram",
  "RecordMeasurement",
  "SpanAttributes",
  "SpanEventRecord",
  "SpanFoldOptions",
  "SpanLinkRecord",
  "SpanRecord",
  "SpanStatusRecord",
  "StoreSizes",
  "TaskGaugeOptions",
  "TraceEmit",
  "TraceEmitOptions",
  "TraceJsonOptions",
  "TraceOptions",
  "TracePlacement",
];

const SETUP_VALUES = ["OTEL_VARIABLES", "readOtlpConfig", "tracingFromEnv"];
const SETUP_TYPES = [
  "OtlpOverrides",
  "OtlpProtocol",
  "OtlpTraceConfig",
  "OtlpTracing",
  "SamplerName",
  "TracingFromEnvOptions",
];

/** The names an entry's source exports, values and types. */
function exportedNames(file: string): string[] {
  const text = readFileSync(new URL(file, import.meta.url), "utf8");
  return [...text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)].flatMap(([, list = ""]) =>
    list
      .split(",")
      .map((item) => item.trim().replace(/^type\s+/, ""))
      .filter((name) => name !== ""),
  );
}

describe("@sema-agent/otel's root", () => {
  it("exports these values and types, nothing else", () => {
    expect(Object.keys(root).sort()).toEqual([...VALUES].sort());
    expect(
      exportedNames("./index.ts")
        .filter((name) => !VALUES.includes(name))
        .sort(),
    ).toEqual(TYPES);
  });
});

describe("@sema-agent/otel/setup", () => {
  it("exports these values and types, nothing else", () => {
    expect(Object.keys(setup).sort()).toEqual([...SETUP_VALUES].sort());
    expect(
      exportedNames("./setup/index.ts")
        .filter((name) => !SETUP_VALUES.includes(name))
        .sort(),
    ).toEqual(SETUP_TYPES);
  });
});
