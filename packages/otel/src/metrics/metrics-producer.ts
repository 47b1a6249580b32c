/**
 * `createMetricsProducer`: Sema's histograms aggregated here, not on the SDK's instruments, and
 * handed to the SDK's readers through its `MetricProducer` extension point
 * (`MetricReaderOptions.metricProducers`). The SDK's record path hashes every attribute set and
 * looks it up per measurement (six per model turn, over a tenth of an instant turn's CPU); here a
 * measurement finds its series by the attribute object's identity (the fold hands out the same
 * frozen objects turn after turn) and adds to plain numbers. A new object is keyed once by its
 * sorted entries, so equal sets made apart still share one series.
 *
 * What a reader collects is what the SDK's explicit-bucket histograms export: the same names,
 * units, descriptions, bucket boundaries (`METRIC_SPECS`), attributes, counts, sums, minima and
 * maxima, under the same instrumentation scope (`METER_NAME`). Temporality is cumulative only:
 * the SDK tells a producer nothing about the reader collecting, so a reader that wants delta
 * histograms must use the SDK's instruments (`metricsFromEnv` does so itself).
 */
import { type Attributes, ValueType } from "@opentelemetry/api";
import { emptyResource } from "@opentelemetry/resources";
import type {
  AggregationTemporality,
  CollectionResult,
  DataPoint,
  DataPointType,
  Histogram,
  HistogramMetricData,
  InstrumentType,
  MetricProducer,
} from "@opentelemetry/sdk-metrics";
import type { MetricAttributes } from "./metric-fold.ts";
import { METRIC_SPECS, type MetricName } from "./metric-names.ts";

/** The SDK's enum values, written out: this module must not load the SDK (the package's index imports it). */
const CUMULATIVE = 1 as AggregationTemporality.CUMULATIVE;
const HISTOGRAM_POINTS = 0 as DataPointType.HISTOGRAM;
const HISTOGRAM_INSTRUMENT = "HISTOGRAM" as InstrumentType.HISTOGRAM;

/** The SDK's default cardinality limit: past it, new attribute sets go to one overflow series. */
const CARDINALITY_LIMIT = 2000;
const OVERFLOW: Attributes = Object.freeze({ "otel.metric.overflow": true });

/** Records a value on one histogram: what `MetricsProducer.recorderOf` hands out. */
export type RecordHistogram = (value: number, attributes: MetricAttributes) => void;

/** What a producer is made with. */
export interface MetricsProducerOptions {
  /** The instrumentation scope's name. Default `@sema-agent/otel` (`METER_NAME`), the meter's. */
  scopeName?: string;
  /** The instrumentation scope's version. Default `""`, as `MeterProvider.getMeter(name)` gives. */
  scopeVersion?: string;
  /** Epoch milliseconds, for a series' start time and a collection's end time. Default `performance.timeOrigin + performance.now()`. */
  now?: () => number;
}

/**
 * Sema's histograms, aggregated (cumulative) and read by any SDK `MetricReader` that lists it in
 * `metricProducers`. Give it to `metricsEmit` and `instrumentStore` as `producer`, beside the
 * meter their counters stay on.
 */
export interface MetricsProducer extends MetricProducer {
  /** The function that records on histogram `metric`; `undefined` for a counter or a gauge (those stay on the SDK's meter). */
  recorderOf(metric: MetricName): RecordHistogram | undefined;
  /** Every histogram's series so far, cumulative, as the SDK's readers take them. */
  collect(): Promise<CollectionResult>;
}

/** One attribute set's aggregation. */
interface Series {
  readonly attributes: Attributes;
  readonly start: [number, number];
  readonly counts: number[];
  count: number;
  sum: number;
  min: number;
  max: number;
}

/** One histogram: its series by attribute object (identity), and by their sorted entries. */
interface HistogramState {
  readonly name: MetricName;
  readonly boundaries: readonly number[];
  readonly byObject: WeakMap<object, Series>;
  readonly byKey: Map<string, Series>;
}

/** Epoch milliseconds as the SDK's `HrTime` (`millisToHrTime`). */
function hrTimeOf(ms: number): [number, number] {
  const seconds = Math.trunc(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** A set's stable key: its entries sorted by name, so key order does not matter. */
function keyOf(attributes: Attributes): string {
  return JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Builds a producer (see the module's note). */
export function createMetricsProducer(options: MetricsProducerOptions = {}): MetricsProducer {
  const scope = { name: options.scopeName ?? "@sema-agent/otel", version: options.scopeVersion ?? "" };
  const now = options.now ?? (() => performance.timeOrigin + performance.now());
  const resource = emptyResource();
  // In the order of their first measurement, as the SDK lists instruments in the order they were made.
  const histograms = new Map<MetricName, HistogramState>();
  const recorders = new Map<MetricName, RecordHistogram>();

  /** The series of a set not seen as this object before: found by key, or made. */
  const seriesOf = (state: HistogramState, attributes: MetricAttributes): Series => {
    const key = keyOf(attributes);
    let series = state.byKey.get(key);
    if (series === undefined) {
      if (state.byKey.size >= CARDINALITY_LIMIT - 1) {
        const overflow = keyOf(OVERFLOW);
        series = state.byKey.get(overflow);
        if (series === undefined) {
          series = newSeries(state, OVERFLOW);
          state.byKey.set(overflow, series);
        }
      } else {
        series = newSeries(state, Object.freeze({ ...attributes }));
        state.byKey.set(key, series);
      }
    }
    state.byObject.set(attributes, series);
    return series;
  };
  const newSeries = (state: HistogramState, attributes: Attributes): Series => ({
    attributes,
    start: hrTimeOf(now()),
    counts: new Array<number>(state.boundaries.length + 1).fill(0),
    count: 0,
    sum: 0,
    min: Number.POSITIVE_INFINITY,
    max: Number.NEGATIVE_INFINITY,
  });

  const recorderOf = (metric: MetricName): RecordHistogram | undefined => {
    const known = recorders.get(metric);
    if (known !== undefined) return known;
    const spec = METRIC_SPECS[metric];
    if (spec.kind !== "histogram") return undefined;
    const boundaries = spec.buckets ?? [];
    const state: HistogramState = { name: metric, boundaries, byObject: new WeakMap(), byKey: new Map() };
    const last = boundaries.length;
    let listed = false;
    const record: RecordHistogram = (value, attributes) => {
      // As the SDK's histogram: a negative value is dropped; NaN makes its series but counts nothing.
      if (value < 0) return;
      if (!listed) {
        histograms.set(metric, state);
        listed = true;
      }
      const series = state.byObject.get(attributes) ?? seriesOf(state, attributes);
      if (Number.isNaN(value)) return;
      series.count += 1;
      series.sum += value;
      if (value < series.min) series.min = value;
      if (value > series.max) series.max = value;
      // Inclusive upper bounds, as the SDK's `binarySearchUB`: a dozen boundaries, scanned.
      let bucket = 0;
      while (bucket < last && value > (boundaries[bucket] as number)) bucket++;
      (series.counts[bucket] as number)++;
    };
    recorders.set(metric, record);
    return record;
  };

  const collect = async (): Promise<CollectionResult> => {
    const endTime = hrTimeOf(now());
    const metrics: HistogramMetricData[] = [];
    for (const state of histograms.values()) {
      const spec = METRIC_SPECS[state.name];
      const boundaries = [...state.boundaries];
      const dataPoints: DataPoint<Histogram>[] = [];
      for (const series of state.byKey.values())
        dataPoints.push({
          attributes: series.attributes,
          startTime: series.start,
          endTime,
          // The SDK's fields in the SDK's order; copies, as an exporter may still hold this collection later.
          value: {
            ...(series.count > 0 ? { min: series.min, max: series.max } : {}),
            sum: series.sum,
            buckets: { boundaries, counts: [...series.counts] },
            count: series.count,
          },
        });
      // The SDK's own descriptor fields too (`type`, `advice`), so nothing that reads them tells the two apart.
      const descriptor = {
        name: state.name,
        description: spec.description,
        unit: spec.unit,
        valueType: ValueType.DOUBLE,
        type: HISTOGRAM_INSTRUMENT,
        advice: { explicitBucketBoundaries: [...state.boundaries] },
      };
      metrics.push({ descriptor, aggregationTemporality: CUMULATIVE, dataPointType: HISTOGRAM_POINTS, dataPoints });
    }
    return {
      resourceMetrics: { resource, scopeMetrics: metrics.length === 0 ? [] : [{ scope, metrics }] },
      errors: [],
    };
  };

  return { recorderOf, collect };
}
