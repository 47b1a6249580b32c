/**
 * The gauges a host feeds: how many tasks wait for a worker and how many legs run here, read by
 * callbacks the host gives (a store listing, the worker pool) each time the metrics are collected.
 */
import type { Meter, MeterProvider } from "@opentelemetry/api";
import { meterOf } from "./instruments.ts";
import { METRIC, METRIC_ATTRIBUTE, METRIC_SPECS } from "./metric-names.ts";

/** What `sema.tasks` and `sema.store.bytes` read: a store's `stats({ events: false })`, or its shape. */
export interface StoreSizes {
  tasks: Readonly<Record<string, number>>;
  storeBytes?: number;
}

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
  /**
   * The store's tasks by status (`sema.tasks`, attribute `sema.task.status`) and size
   * (`sema.store.bytes`), e.g. `store.stats({ events: false, largest: 0 })`, read once per
   * collection for both gauges.
   */
  store?: () => StoreSizes | Promise<StoreSizes>;
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
  if (options.store !== undefined) removers.push(observeStore(meter, options.store, options.onError));
  return () => {
    for (const remove of removers) remove();
  };
}

/** `sema.tasks` and `sema.store.bytes` from one read of the store per collection. */
function observeStore(
  meter: Meter,
  read: () => StoreSizes | Promise<StoreSizes>,
  onError: ((error: unknown) => void) | undefined,
): () => void {
  const tasks = meter.createObservableGauge(METRIC.tasks, {
    unit: METRIC_SPECS[METRIC.tasks].unit,
    description: METRIC_SPECS[METRIC.tasks].description,
  });
  const bytes = meter.createObservableGauge(METRIC.storeBytes, {
    unit: METRIC_SPECS[METRIC.storeBytes].unit,
    description: METRIC_SPECS[METRIC.storeBytes].description,
  });
  const callback = async (result: {
    observe(gauge: typeof tasks, value: number, attributes?: Record<string, string>): void;
  }) => {
    try {
      const sizes = await read();
      for (const [status, count] of Object.entries(sizes.tasks))
        result.observe(tasks, count, { [METRIC_ATTRIBUTE.taskStatus]: status });
      if (sizes.storeBytes !== undefined) result.observe(bytes, sizes.storeBytes);
    } catch (error) {
      try {
        onError?.(error);
      } catch {
        // A failing error handler must not break the collection.
      }
    }
  };
  meter.addBatchObservableCallback(callback, [tasks, bytes]);
  return () => meter.removeBatchObservableCallback(callback, [tasks, bytes]);
}
