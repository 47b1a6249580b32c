/**
 * `metricsFromEnv`: a host's metrics from the standard OpenTelemetry variables, and the Prometheus
 * text of `GET /metrics` when the host asks for it. Nothing of OpenTelemetry is imported by this
 * module itself: when neither is wanted it returns undefined having loaded nothing, and the SDK
 * and the one exporter configured are imported only then (so a host pays for metrics only when on).
 */
import type { MeterProvider } from "@opentelemetry/api";
import type { PushMetricExporter } from "@opentelemetry/sdk-metrics";
import type { Emit, Store } from "@sema-agent/core";
import { ConfigError, type ConfigProblem } from "@sema-agent/core/protocol";
import type { StoreSizes } from "./task-gauges.ts";

/** What a host asks of its metrics beyond the environment. */
export interface MetricsFromEnvOptions {
  /** The host's store: missed events are read from it, and `store` is returned instrumented. */
  store?: Store;
  /** Serve the Prometheus text format (`sema serve --metrics`) on the same provider. */
  prometheus?: boolean;
  /** `service.name` when `OTEL_SERVICE_NAME` is unset. Default `sema`. */
  serviceName?: string;
  /** The tool names `gen_ai.tool.name` may take (`agentToolNames(agents)`); others are `_OTHER` (see `metricsEmit`). */
  toolNames?: Iterable<string>;
  /** Called when a read, a record or a gauge fails (metrics never fail a task). Default: ignored. */
  onError?: (error: unknown) => void;
}

/** A host's metrics, set up. */
export interface MetricsSetup {
  /** The SDK provider every reader (OTLP, Prometheus) reads. */
  meterProvider: MeterProvider;
  /** The live sink (`metricsEmit`): what this process appends; `store` below feeds it already. */
  emit: Emit;
  /** The host's store instrumented (`instrumentStore`), feeding `emit`; absent when no store was given. */
  store?: Store;
  /** The Prometheus text of every metric now (present when `prometheus` was asked). */
  prometheus?: () => Promise<string>;
  /** The gauges the host feeds (`observeTaskGauges`). */
  observe(counts: {
    runnable?: () => number | Promise<number>;
    running?: () => number | Promise<number>;
    store?: () => StoreSizes | Promise<StoreSizes>;
  }): void;
  /** Exports what is left and stops, within `timeoutMs` (default 5000) whatever the collector does. */
  shutdown(timeoutMs?: number): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

interface OtlpSettings {
  exporter: "otlp" | "console";
  protocol: "http/protobuf" | "http/json";
  url: string | undefined;
  headers: Record<string, string>;
  timeoutMillis: number | undefined;
  intervalMillis: number;
  exportTimeoutMillis: number;
  temporality: "cumulative" | "delta" | "lowmemory";
}

const value = (env: Env, name: string): string | undefined => {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
};

const positive = (env: Env, name: string, problems: ConfigProblem[]): number | undefined => {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (Number.isInteger(n) && n > 0) return n;
  problems.push({ path: name, message: `must be a positive number of milliseconds, got ${JSON.stringify(raw)}` });
  return undefined;
};

/** `k=v,k2=v2`, percent-decoded, as the specification writes headers and resource attributes. */
function keyValues(raw: string | undefined, name: string, problems: ConfigProblem[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  for (const item of raw.split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf("=");
    try {
      if (at <= 0) throw new Error("no key");
      out[decodeURIComponent(item.slice(0, at).trim())] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      problems.push({ path: name, message: `must be a list of key=value pairs, got ${JSON.stringify(item)}` });
    }
  }
  return out;
}

/** What the variables ask for OTLP (undefined: no push exporter), or a `ConfigError` naming each problem. */
export function otlpMetricsSettings(env: Env): OtlpSettings | undefined {
  const problems: ConfigProblem[] = [];
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const endpoint = value(env, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
  const base = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const listed = value(env, "OTEL_METRICS_EXPORTER")
    ?.split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "");
  let exporter: OtlpSettings["exporter"] | undefined;
  if (listed === undefined) exporter = endpoint !== undefined || base !== undefined ? "otlp" : undefined;
  else
    for (const item of listed) {
      if (item === "none") continue;
      if (item === "otlp" || item === "console") exporter ??= item;
      else
        problems.push({
          path: "OTEL_METRICS_EXPORTER",
          message:
            item === "prometheus"
              ? "prometheus is served by `sema serve --metrics` (GET /metrics), not by a server of its own"
              : `${JSON.stringify(item)} is not supported: use otlp, console or none`,
        });
    }
  const rawProtocol = value(env, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL") ?? value(env, "OTEL_EXPORTER_OTLP_PROTOCOL");
  let protocol: OtlpSettings["protocol"] = "http/protobuf";
  if (rawProtocol === "http/json" || rawProtocol === "http/protobuf") protocol = rawProtocol;
  else if (rawProtocol !== undefined)
    problems.push({
      path: "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
      message: `must be http/protobuf or http/json (grpc is not supported), got ${JSON.stringify(rawProtocol)}`,
    });
  let url = endpoint;
  if (url === undefined && base !== undefined) url = `${base.replace(/\/+$/, "")}/v1/metrics`;
  if (url !== undefined && !/^https?:\/\/./.test(url))
    problems.push({
      path: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
      message: `must be an http(s) URL, got ${JSON.stringify(url)}`,
    });
  const headers = {
    ...keyValues(value(env, "OTEL_EXPORTER_OTLP_HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS", problems),
    ...keyValues(value(env, "OTEL_EXPORTER_OTLP_METRICS_HEADERS"), "OTEL_EXPORTER_OTLP_METRICS_HEADERS", problems),
  };
  const timeoutMillis =
    positive(env, "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", problems) ??
    positive(env, "OTEL_EXPORTER_OTLP_TIMEOUT", problems);
  const intervalMillis = positive(env, "OTEL_METRIC_EXPORT_INTERVAL", problems) ?? 60_000;
  const exportTimeoutMillis = Math.min(positive(env, "OTEL_METRIC_EXPORT_TIMEOUT", problems) ?? 30_000, intervalMillis);
  const rawTemporality = value(env, "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE")?.toLowerCase() ?? "cumulative";
  let temporality: OtlpSettings["temporality"] = "cumulative";
  if (rawTemporality === "cumulative" || rawTemporality === "delta" || rawTemporality === "lowmemory")
    temporality = rawTemporality;
  else
    problems.push({
      path: "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
      message: `must be cumulative, delta or lowmemory, got ${JSON.stringify(rawTemporality)}`,
    });
  if (problems.length > 0) throw new ConfigError("OpenTelemetry metrics", problems);
  if (exporter === undefined) return undefined;
  return { exporter, protocol, url, headers, timeoutMillis, intervalMillis, exportTimeoutMillis, temporality };
}

/** Whether `metricsFromEnv` would set anything up (checks the variables; loads nothing). */
export function metricsWanted(env: Env, options: { prometheus?: boolean } = {}): boolean {
  return options.prometheus === true || otlpMetricsSettings(env) !== undefined;
}

async function pushExporter(settings: OtlpSettings): Promise<PushMetricExporter> {
  if (settings.exporter === "console") return new (await import("@opentelemetry/sdk-metrics")).ConsoleMetricExporter();
  const http = await import("@opentelemetry/exporter-metrics-otlp-http");
  const preference = http.AggregationTemporalityPreference;
  const config = {
    headers: settings.headers,
    temporalityPreference:
      settings.temporality === "delta"
        ? preference.DELTA
        : settings.temporality === "lowmemory"
          ? preference.LOWMEMORY
          : preference.CUMULATIVE,
    ...(settings.url === undefined ? {} : { url: settings.url }),
    ...(settings.timeoutMillis === undefined ? {} : { timeoutMillis: settings.timeoutMillis }),
  };
  if (settings.protocol === "http/json") return new http.OTLPMetricExporter(config);
  const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-proto");
  return new OTLPMetricExporter(config);
}

/**
 * The host's metrics: OTLP (or console) when the standard variables ask for it
 * (`OTEL_METRICS_EXPORTER`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL`, `…_HEADERS`, `…_TIMEOUT`, `OTEL_METRIC_EXPORT_INTERVAL`,
 * `OTEL_METRIC_EXPORT_TIMEOUT`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SDK_DISABLED`),
 * and the Prometheus text when `options.prometheus` is set; both read one `MeterProvider`, and
 * the histograms from a `createMetricsProducer` listed in every reader (on the SDK's instruments
 * instead when `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE` asks for delta or lowmemory).
 * Undefined, having loaded nothing, when neither is wanted. A bad variable is a `ConfigError`.
 */
export async function metricsFromEnv(env: Env, options: MetricsFromEnvOptions = {}): Promise<MetricsSetup | undefined> {
  const settings = otlpMetricsSettings(env);
  if (settings === undefined && options.prometheus !== true) return undefined;
  const problems: ConfigProblem[] = [];
  const attributes = keyValues(value(env, "OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES", problems);
  if (problems.length > 0) throw new ConfigError("OpenTelemetry metrics", problems);
  const [sdk, resources, { metricsEmit }, { instrumentStore }, { observeTaskGauges }, { createMetricsProducer }] =
    await Promise.all([
      import("@opentelemetry/sdk-metrics"),
      import("@opentelemetry/resources"),
      import("./metrics-emit.ts"),
      import("./instrument-store.ts"),
      import("./task-gauges.ts"),
      import("./metrics-producer.ts"),
    ]);
  const resource = resources.resourceFromAttributes({
    ...attributes,
    "service.name": value(env, "OTEL_SERVICE_NAME") ?? options.serviceName ?? "sema",
  });
  // The histograms are aggregated by Sema's producer (the SDK's per-record path cost over a tenth
  // of an instant turn), which reports cumulative only: a delta preference (delta, lowmemory)
  // keeps them on the SDK's instruments, which honour it.
  const producer =
    settings?.temporality === "delta" || settings?.temporality === "lowmemory" ? undefined : createMetricsProducer();
  const metricProducers = producer === undefined ? {} : { metricProducers: [producer] };
  const readers: InstanceType<typeof sdk.MetricReader>[] = [];
  if (settings !== undefined)
    readers.push(
      new sdk.PeriodicExportingMetricReader({
        exporter: await pushExporter(settings),
        exportIntervalMillis: settings.intervalMillis,
        exportTimeoutMillis: settings.exportTimeoutMillis,
        ...metricProducers,
      }),
    );
  let prometheus: (() => Promise<string>) | undefined;
  if (options.prometheus === true) {
    const { PrometheusExporter, PrometheusSerializer } = await import("@opentelemetry/exporter-prometheus");
    // The official exporter as a pull reader, its serializer on the host's own route: no server of its own.
    const reader = new PrometheusExporter({ preventServerStart: true, ...metricProducers });
    const serializer = new PrometheusSerializer();
    readers.push(reader);
    prometheus = async () => serializer.serialize((await reader.collect()).resourceMetrics);
  }
  const meterProvider = new sdk.MeterProvider({ resource, readers });
  const onError = options.onError;
  const sink = metricsEmit({
    meterProvider,
    ...(producer === undefined ? {} : { producer }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.toolNames === undefined ? {} : { toolNames: options.toolNames }),
    ...(onError === undefined ? {} : { onError }),
  });
  const setup: MetricsSetup = {
    meterProvider,
    emit: sink.emit,
    observe(counts) {
      observeTaskGauges({ meterProvider, ...counts, ...(onError === undefined ? {} : { onError }) });
    },
    async shutdown(timeoutMs = 5000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      try {
        await Promise.race([sink.flush().then(() => meterProvider.shutdown({ timeoutMillis: timeoutMs })), deadline]);
      } catch (error) {
        onError?.(error);
      } finally {
        clearTimeout(timer);
      }
    },
  };
  if (options.store !== undefined)
    setup.store = instrumentStore(options.store, {
      meterProvider,
      emit: sink.emit,
      ...(producer === undefined ? {} : { producer }),
    });
  if (prometheus !== undefined) setup.prometheus = prometheus;
  return setup;
}
