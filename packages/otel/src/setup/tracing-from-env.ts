/**
 * Tracing set up from the standard OpenTelemetry variables, for a host (`sema serve`, `sema
 * worker`, `sema run`) or a one-off export (`sema trace`). With nothing configured it returns
 * undefined and has loaded no OpenTelemetry module: the exporter, the SDK's samplers and the
 * tracer are imported only once the variables ask for an export.
 */
import type { Store } from "@sema-agent/core";
import type { TraceEmit } from "../trace/trace-emit.ts";
import type { TraceOptions } from "../trace/trace-options.ts";
import { type OtlpOverrides, type OtlpTraceConfig, readOtlpConfig } from "./otlp-config.ts";

/** What {@link tracingFromEnv} reads. */
export interface TracingFromEnvOptions {
  /** The variables. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** A command's flags, which win over the variables (an endpoint given here exports even if they say not to). */
  overrides?: OtlpOverrides;
  /**
   * Apply `OTEL_TRACES_SAMPLER` (default true). A one-off export of a task asked for by name
   * (`sema trace`) passes false: it exports that trace whatever the sampler would say.
   */
  sample?: boolean;
}

/** Tracing as configured: the options for `traceEmit`/`traceTask`, live tracers, and a bounded shutdown. */
export interface OtlpTracing {
  /** What was read (the URL and encoding, for messages). */
  readonly config: OtlpTraceConfig;
  /** The exporter (sampled) and the resource: pass to `traceTask`, or to `traceEmit` with a store. */
  readonly traceOptions: TraceOptions;
  /** A live tracer over `store` (`traceEmit`), flushed by `shutdown`. */
  live(store: Store, onError?: (error: unknown) => void): TraceEmit;
  /**
   * Exports what the live tracers still hold and closes the exporter, waiting at most
   * `timeoutMs` (default 5000): resolves true when everything was sent in time, false when an
   * export failed or it gave up (what was not sent is dropped; nothing keeps the process alive
   * for it, though the exporter may retry a refused connection until its own timeout).
   */
  shutdown(options?: { timeoutMs?: number }): Promise<boolean>;
}

/** Resolves true when `work` succeeds within `ms`, false otherwise (the timer does not outlive it). */
function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const done = work.then(
    () => true,
    () => false,
  );
  return Promise.race([done, late]).finally(() => clearTimeout(timer));
}

/**
 * Reads the variables (see `readOtlpConfig`; a wrong value is a `ConfigError`) and, when they
 * ask for an export, loads the OTLP exporter. Undefined when nothing is configured, traces are
 * turned off, or (when sampling) the sampler keeps no trace at all.
 */
export async function tracingFromEnv(options: TracingFromEnvOptions = {}): Promise<OtlpTracing | undefined> {
  const env =
    options.env ?? (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
  const config = readOtlpConfig(env, options.overrides);
  if (config === undefined) return undefined;
  const sample = options.sample ?? true;
  const { name, ratio } = config.sampler;
  const never =
    name === "always_off" || name === "parentbased_always_off" || (name.endsWith("traceidratio") && ratio === 0);
  if (sample && never) return undefined;

  const [{ createOtlpExporter }, { HeldExporter }, { SampledExporter, samplerOf }, { traceEmit }] = await Promise.all([
    import("./otlp-exporter.ts"),
    import("./held-exporter.ts"),
    import("./sampled-exporter.ts"),
    import("../trace/trace-emit.ts"),
  ]);
  const held = new HeldExporter(await createOtlpExporter(config));
  const exporter = sample ? new SampledExporter(held, samplerOf(config.sampler)) : held;
  const traceOptions: TraceOptions = { exporter, resourceAttributes: config.resourceAttributes, env };
  if (config.serviceName !== undefined) traceOptions.serviceName = config.serviceName;
  const tracers = new Set<TraceEmit>();
  let closed = false;
  return {
    config,
    traceOptions,
    live(store, onError) {
      const tracer = traceEmit({ ...traceOptions, store, ...(onError === undefined ? {} : { onError }) });
      tracers.add(tracer);
      return tracer;
    },
    async shutdown(shutdownOptions = {}) {
      if (closed) return true;
      closed = true;
      // One bound for the whole close: the exporter's own shutdown waits for its exports too.
      const inTime = await within(
        (async () => {
          await Promise.all([...tracers].map((tracer) => tracer.flush()));
          await exporter.shutdown();
        })(),
        shutdownOptions.timeoutMs ?? 5000,
      );
      // Done or given up: no export holds the process any more.
      held.release();
      return inTime;
    },
  };
}
