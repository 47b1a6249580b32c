/**
 * `instrumentStore`: the store as this process writes to it, measured. Every `append` and
 * `createTask` records its latency (`sema.store.append.duration`) and hands the events it stored
 * to `emit`, so a metrics sink sees exactly what this process appended — a leg's events, and the
 * steers, approvals and cancels an API node writes — and nothing that another process wrote.
 * Everything else passes through untouched, optional methods included.
 */
import type { Meter, MeterProvider } from "@opentelemetry/api";
import { type Emit, isSemaError, type Store, type StoredEvent } from "@sema-agent/core";
import { ERROR_TYPE } from "../attributes.ts";
import { instrumentsOf, meterOf } from "./instruments.ts";
import { METRIC, METRIC_ATTRIBUTE } from "./metric-names.ts";
import type { MetricsProducer } from "./metrics-producer.ts";

/** What the wrapper measures with and whom it tells. */
export interface InstrumentStoreOptions {
  /** The meter; or give `meterProvider`. */
  meter?: Meter;
  /** Its meter `@sema-agent/otel` is used. */
  meterProvider?: MeterProvider;
  /**
   * Where the histograms are recorded instead of the meter (`createMetricsProducer`, listed in the
   * readers' `metricProducers`); the counters stay on the meter. Every sink and store wrapper on
   * one meter must give the same producer, or none. Default: every metric on the meter.
   */
  producer?: MetricsProducer;
  /** Given every event this process stored, once it is stored (e.g. `metricsEmit(…).emit`); must not throw. */
  emit?: Emit;
  /** Milliseconds for the latency, monotonic. Default `performance.now`. */
  now?: () => number;
}

const WRAPPED = new Set(["append", "createTask"]);

/** Wraps `store` (see the module's note); the result is a `Store` with the same methods. */
export function instrumentStore(store: Store, options: InstrumentStoreOptions): Store {
  const recordLatency = instrumentsOf(meterOf(options, "instrumentStore"), options.producer).recorderOf(
    METRIC.storeAppend,
  );
  const now = options.now ?? (() => performance.now());
  const { emit } = options;
  // A success's attributes are the same every time: one object per operation, not one per append.
  const succeeded = {
    append: Object.freeze({ [METRIC_ATTRIBUTE.storeOperation]: "append" }),
    create_task: Object.freeze({ [METRIC_ATTRIBUTE.storeOperation]: "create_task" }),
  } as const;
  // The store's own promise is handed back, with the measuring as its first reaction: it runs
  // before the caller resumes, as a wrapping promise's would, but costs the caller no extra
  // promise nor microtask turns (this runs twice per model turn).
  const measured = (
    operation: "append" | "create_task",
    started: number,
    pending: Promise<StoredEvent[]>,
  ): Promise<StoredEvent[]> => {
    pending.then(
      (events) => {
        try {
          recordLatency?.(Math.max(0, now() - started) / 1000, succeeded[operation]);
          if (emit !== undefined) for (const event of events) emit(event);
        } catch {
          // Measuring never fails an append that succeeded.
        }
      },
      (error: unknown) => {
        try {
          recordLatency?.(Math.max(0, now() - started) / 1000, {
            [METRIC_ATTRIBUTE.storeOperation]: operation,
            [ERROR_TYPE]: isSemaError(error) ? error.code : "_OTHER",
          });
        } catch {
          // The append's own error is what the caller sees, on the promise it was given.
        }
      },
    );
    return pending;
  };
  // Made once, not at every access: the harness reads `store.append` for every append. The store
  // is called synchronously, as before: a method that throws instead of rejecting still throws.
  const append = (...args: Parameters<Store["append"]>) => measured("append", now(), store.append(...args));
  const createTask = (...args: Parameters<Store["createTask"]>) =>
    measured("create_task", now(), store.createTask(...args));
  // Each method bound once (again if the store's own method changes), not one new function per call.
  const bound = new Map<PropertyKey, { method: (...args: unknown[]) => unknown; bound: unknown }>();
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "append") return append;
      if (property === "createTask") return createTask;
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || WRAPPED.has(String(property))) return value;
      const known = bound.get(property);
      if (known !== undefined && known.method === value) return known.bound;
      // Methods run on the store itself, so its private fields work.
      const method = value as (...args: unknown[]) => unknown;
      const made = method.bind(target);
      bound.set(property, { method, bound: made });
      return made;
    },
  });
}
