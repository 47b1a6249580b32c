/**
 * The instruments of Sema's metrics on one `Meter`, created once per meter (a meter's instruments
 * are shared by every sink and store wrapper on it), each with the unit, description and bucket
 * advice of its `METRIC_SPECS` entry.
 */
import type { Counter, Histogram, Meter, MeterProvider } from "@opentelemetry/api";
import type { Measurement, MetricAttributes } from "./metric-fold.ts";
import { METRIC_SPECS, type MetricName } from "./metric-names.ts";
import type { MetricsProducer } from "./metrics-producer.ts";

/** The instrumentation scope the metrics are recorded under. */
export const METER_NAME = "@sema-agent/otel";

type Recorder = Counter | Histogram;

/** Records measurements on the instruments of one meter. */
export interface Instruments {
  /** The meter they live on (observable gauges are added to it). */
  readonly meter: Meter;
  /** Records one measurement on its instrument. */
  record(measurement: Measurement): void;
  /** Records `value` on the instrument of `metric`: `record` without a `Measurement` to make. */
  recordValue(metric: MetricName, value: number, attributes: MetricAttributes): void;
  /** The function that records on `metric`'s instrument (made now if need be); `undefined` for a gauge. */
  recorderOf(metric: MetricName): ((value: number, attributes: MetricAttributes) => void) | undefined;
}

// By meter, with where its histograms go (undefined: on the meter itself).
const cache = new WeakMap<Meter, { producer: MetricsProducer | undefined; instruments: Instruments }>();

/** The meter of `options`: the one given, or `@sema-agent/otel`'s on the provider given. */
export function meterOf(options: { meter?: Meter; meterProvider?: MeterProvider }, where: string): Meter {
  if (options.meter !== undefined) return options.meter;
  if (options.meterProvider !== undefined) return options.meterProvider.getMeter(METER_NAME);
  throw new TypeError(`${where}: give a meter or a meterProvider`);
}

/**
 * The instruments on `meter`, created on first use; with `producer`, the histograms are recorded
 * on it instead and never created on the meter (a metric must not be exported twice), so one
 * meter takes one choice: asking again with another is a `TypeError`.
 */
export function instrumentsOf(meter: Meter, producer?: MetricsProducer): Instruments {
  const known = cache.get(meter);
  if (known !== undefined) {
    if (known.producer !== producer)
      throw new TypeError(
        "@sema-agent/otel: this meter's histograms are already recorded elsewhere; give every sink and store wrapper on it the same producer (or none)",
      );
    return known.instruments;
  }
  // Each metric's instrument as one function that records on it, made at its first measurement.
  const recorders = new Map<MetricName, (value: number, attributes: MetricAttributes) => void>();
  const recorder = (name: MetricName): ((value: number, attributes: MetricAttributes) => void) | undefined => {
    const existing = recorders.get(name);
    if (existing !== undefined) return existing;
    const spec = METRIC_SPECS[name];
    if (producer !== undefined && spec.kind === "histogram") {
      const onProducer = producer.recorderOf(name);
      if (onProducer !== undefined) recorders.set(name, onProducer);
      return onProducer;
    }
    const options = { unit: spec.unit, description: spec.description };
    let made: Recorder | undefined;
    if (spec.kind === "counter") made = meter.createCounter(name, options);
    else if (spec.kind === "histogram")
      made = meter.createHistogram(name, {
        ...options,
        ...(spec.buckets === undefined ? {} : { advice: { explicitBucketBoundaries: [...spec.buckets] } }),
      });
    if (made === undefined) return undefined;
    const target = made;
    const write =
      "add" in target
        ? (value: number, attributes: MetricAttributes) => target.add(value, attributes)
        : (value: number, attributes: MetricAttributes) => target.record(value, attributes);
    recorders.set(name, write);
    return write;
  };
  const recordValue = (metric: MetricName, value: number, attributes: MetricAttributes) =>
    recorder(metric)?.(value, attributes);
  const instruments: Instruments = {
    meter,
    record: (measurement) => recordValue(measurement.metric, measurement.value, measurement.attributes),
    recordValue,
    recorderOf: recorder,
  };
  cache.set(meter, { producer, instruments });
  return instruments;
}
