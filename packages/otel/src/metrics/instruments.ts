/**
 * The instruments of Sema's metrics on one `Meter`, created once per meter (a meter's instruments
 * are shared by every sink and store wrapper on it), each with the unit, description and bucket
 * advice of its `METRIC_SPECS` entry.
 */
import type { Counter, Histogram, Meter, MeterProvider } from "@opentelemetry/api";
import type { Measurement } from "./metric-fold.ts";
import { METRIC_SPECS, type MetricName } from "./metric-names.ts";

/** The instrumentation scope the metrics are recorded under. */
export const METER_NAME = "@sema-agent/otel";

type Recorder = Counter | Histogram;

/** Records measurements on the instruments of one meter. */
export interface Instruments {
  /** The meter they live on (observable gauges are added to it). */
  readonly meter: Meter;
  /** Records one measurement on its instrument. */
  record(measurement: Measurement): void;
}

const cache = new WeakMap<Meter, Instruments>();

/** The meter of `options`: the one given, or `@sema-agent/otel`'s on the provider given. */
export function meterOf(options: { meter?: Meter; meterProvider?: MeterProvider }, where: string): Meter {
  if (options.meter !== undefined) return options.meter;
  if (options.meterProvider !== undefined) return options.meterProvider.getMeter(METER_NAME);
  throw new TypeError(`${where}: give a meter or a meterProvider`);
}

/** The instruments on `meter`, created on first use. */
export function instrumentsOf(meter: Meter): Instruments {
  const known = cache.get(meter);
  if (known !== undefined) return known;
  const recorders = new Map<MetricName, Recorder>();
  const recorder = (name: MetricName): Recorder | undefined => {
    const existing = recorders.get(name);
    if (existing !== undefined) return existing;
    const spec = METRIC_SPECS[name];
    const options = { unit: spec.unit, description: spec.description };
    let made: Recorder | undefined;
    if (spec.kind === "counter") made = meter.createCounter(name, options);
    else if (spec.kind === "histogram")
      made = meter.createHistogram(name, {
        ...options,
        ...(spec.buckets === undefined ? {} : { advice: { explicitBucketBoundaries: [...spec.buckets] } }),
      });
    if (made !== undefined) recorders.set(name, made);
    return made;
  };
  const instruments: Instruments = {
    meter,
    record(measurement) {
      const target = recorder(measurement.metric);
      if (target === undefined) return;
      if ("add" in target) target.add(measurement.value, measurement.attributes);
      else target.record(measurement.value, measurement.attributes);
    },
  };
  cache.set(meter, instruments);
  return instruments;
}
