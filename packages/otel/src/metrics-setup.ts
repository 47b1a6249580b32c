/**
 * `@sema-agent/otel/metrics-setup`: a host's metrics from the standard OpenTelemetry variables
 * (OTLP) and the Prometheus text of `GET /metrics`. This entry imports nothing of OpenTelemetry
 * until metrics are wanted, so a host can call it unconditionally.
 *
 * @module @sema-agent/otel/metrics-setup
 */
export {
  type MetricsFromEnvOptions,
  type MetricsSetup,
  metricsFromEnv,
  metricsWanted,
} from "./metrics/metrics-from-env.ts";
export { agentToolNames } from "./metrics/tool-labels.ts";
