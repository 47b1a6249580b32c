/**
 * `@sema-agent/otel/setup`: tracing configured from the standard OpenTelemetry variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_TRACES_SAMPLER`, …) for Node hosts. Importing it loads no
 * OpenTelemetry module; `tracingFromEnv` loads the OTLP exporter only when the variables ask for
 * an export.
 *
 * @module @sema-agent/otel/setup
 */
export {
  OTEL_VARIABLES,
  type OtlpOverrides,
  type OtlpProtocol,
  type OtlpTraceConfig,
  readOtlpConfig,
  type SamplerName,
} from "./otlp-config.ts";
export { type OtlpTracing, type TracingFromEnvOptions, tracingFromEnv } from "./tracing-from-env.ts";
