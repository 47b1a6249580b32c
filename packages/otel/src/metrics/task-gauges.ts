/**
 * The gauges a host feeds: how many tasks wait for a worker and how many legs run here, read by
 * callbacks the host gives (a store listing, the worker pool) each time the metrics are collected.
 */
import type { Meter, MeterProvider } from "@opentelemetry/api";
import { meterOf } from "./instruments.ts";
import { METRIC, METRIC_SPECS } from "./metric-names.ts";

/** The host's counts; each is optional, and may be async (it is awaited at collection). */
export interface TaskGaugeOptions {
  /** The meter; or give `meterProvider`. */
  meter?: Meter;
  /** Its meter `@sema-agent/otel` is used. */
  meterProvider?: MeterProvider;
  /** Runnable tasks waiting for a worker (`sema.tasks.runnable`), e.g. a bounded `store.listRunnable` count. */
  runnable?: () => number | Promise<number>;
  /** Legs running in this process (`sema.legs.running`), e.g. `pool.running().length`. */
  running?: () => number | Promise<number>;
  /** Called when a callback fails (that collection skips the gauge). Default: ignored. */
  onError?: (error: unknown) => void;
}

/** Registers the gauges; returns a function that removes them. */
export function observeTaskGauges(options: TaskGaugeOptions): () => void {
  const meter = meterOf(options, "observeTaskGauges");
  const removers: (() => void)[] = [];
  for (const [name, read] of [
    [METRIC.tasksRunnable, options.runnable],
    [METRIC.legsRunning, options.running],
  ] as const) {
    if (read === undefined) continue;
    const spec = METRIC_SPECS[name];
    const gauge = meter.createObservableGauge(name, { unit: spec.unit, description: spec.description });
    const callback = async (result: { observe(value: number): void }) => {
      try {
        result.observe(await read());
      } catch (error) {
        try {
          options.onError?.(error);
        } catch {
          // A failing error handler must not break the collection.
        }
      }
    };
    gauge.addCallback(callback);
    removers.push(() => gauge.removeCallback(callback));
  }
  return () => {
    for (const remove of removers) remove();
  };
}
