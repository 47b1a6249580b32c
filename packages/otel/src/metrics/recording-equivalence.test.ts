// The live sink against per-event recording: on any generated log, `metricsEmit` (attribute sets
// shared, measurements handed straight to the instruments) exports exactly the data points that
// recording each `Measurement` of the fold as it was (test-support-per-event-fold.ts) exported —
// the same metrics, attributes, counts, sums, minima, maxima and buckets. And the producer
// (`createMetricsProducer`, the histograms aggregated outside the SDK's record path) against the
// SDK's instruments: what a reader exports is the same, field for field, whichever records them.

import type { Meter } from "@opentelemetry/api";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import type { StoredEvent, TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { instrumentStore } from "./instrument-store.ts";
import { instrumentsOf } from "./instruments.ts";
import { MetricFold } from "./metric-fold.ts";
import { metricsEmit } from "./metrics-emit.ts";
import { createMetricsProducer, type MetricsProducer } from "./metrics-producer.ts";
import { PerEventMetricFold } from "./test-support-per-event-fold.ts";

const T0 = Date.parse("2026-11-30T10:00:00.000Z");
const DIGEST = "0".repeat(64);

const legId = fc.constantFrom("leg-1", "leg-2");
const callId = fc.constantFrom("c1", "c2", "c3");
const toolName = fc.constantFrom("lookup", "write_file", "made_up", "_OTHER");
const model = fc.option(fc.constantFrom("openai:gpt-4o", "anthropic:claude", "gpt-test", "mystery"), {
  nil: undefined,
});

const anyEvent: fc.Arbitrary<TaskEvent> = fc.oneof(
  fc.tuple(fc.option(fc.constantFrom("planner", "coder"), { nil: undefined }), model).map(([agent, created]) => ({
    ...make.created(),
    ...(agent === undefined ? {} : { agent }),
    ...(created === undefined ? {} : { model: created }),
  })),
  fc
    .tuple(legId, fc.constantFrom("start", "resume", "wake", "recover" as const))
    .map(([id, trigger]) => make.legStarted(id, trigger)),
  fc
    .tuple(
      legId,
      fc.constantFrom("completed", "failed", "cancelled", "parked:approval", "parked:tool", "parked:crash" as const),
    )
    .map(([id, reason]) => make.legEnded(id, reason)),
  fc
    .tuple(
      fc.constantFrom("received", "parked", "applied", "dropped" as const),
      fc.constantFrom("objective", "steer", "nextTurn", "a_host_carrier"),
      fc.constantFrom("in-1", "in-2"),
    )
    .map(([delivery, carrier, inputId]) => make.input(delivery, carrier, inputId)),
  fc
    .tuple(
      fc.nat(20),
      fc.array(fc.tuple(callId, toolName), { maxLength: 2 }),
      legId,
      model,
      fc.nat(5000),
      fc.nat(500),
      fc.constantFrom("stop", "tool-calls", "length", "error" as const),
    )
    .map(([seq, calls, leg, turnModel, input, output, finishReason]) => ({
      ...make.turn(
        seq,
        "text",
        calls.map(([id, name]) => ({ callId: id, name, input: { q: id } })),
        leg,
      ),
      usage: { inputTokens: input, outputTokens: output },
      finishReason,
      ...(turnModel === undefined ? {} : { model: turnModel }),
    })),
  fc
    .tuple(callId, toolName, legId, fc.integer({ min: 1, max: 2 }))
    .map(([id, name, leg, attempt]) => ({ ...make.toolStarted(id, name, leg), attempt })),
  fc
    .tuple(callId, toolName, fc.constantFrom("ok", "error", "denied", "interrupted" as const))
    .map(([id, name, status]) => make.toolResult(id, "done", name, status)),
  fc.tuple(callId, toolName, legId).map(
    ([id, name, leg]): TaskEvent => ({
      type: "approval_requested",
      v: 1,
      legId: leg,
      callId: id,
      name,
      inputJson: "{}",
      digest: DIGEST,
    }),
  ),
  fc.tuple(callId, fc.constantFrom("approve", "deny" as const)).map(
    ([id, decision]): TaskEvent => ({
      type: "approval_decided",
      v: 1,
      callId: id,
      digest: DIGEST,
      decision,
      actor: { id: "ana", verified: true },
    }),
  ),
  fc
    .tuple(fc.constantFrom("judge", "rubric"), fc.integer({ min: 0, max: 10 }))
    .map(([scorer, tenths]): TaskEvent => ({ type: "task_scored", v: 1, scorer, value: tenths / 10 })),
  fc.constant<TaskEvent>({ type: "task_completed", v: 1, result: "r" }),
  fc.constant<TaskEvent>({ type: "task_failed", v: 1, error: { code: "tool_failed", message: "m" } }),
  fc.constant<TaskEvent>({ type: "task_cancelled", v: 1 }),
  callId.map((id): TaskEvent => ({ type: "child_task", v: 1, phase: "spawned", childTaskId: `t1~${id}`, callId: id })),
);

/** A log as a store stamps it: gapless `seq`, times that never go back (often the same millisecond). */
const anyLog: fc.Arbitrary<StoredEvent[]> = fc
  .array(fc.tuple(anyEvent, fc.oneof(fc.constant(0), fc.nat(3), fc.nat(90_000_000))), { maxLength: 60 })
  .map((steps) => {
    let at = T0;
    return steps.map(([event, step], index) => {
      at += step;
      return { ...event, taskId: "t1", seq: index + 1, at: new Date(at).toISOString() } as StoredEvent;
    });
  });

/** A provider read through an in-memory exporter; `points` collects everything recorded so far. */
function reader() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const periodic = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [periodic] });
  return {
    meterProvider,
    /** Every exported point, by metric, its times left out (they are the collection's, not the log's). */
    async points() {
      await periodic.forceFlush();
      const out: unknown[] = [];
      for (const resource of exporter.getMetrics())
        for (const scope of resource.scopeMetrics)
          for (const metric of scope.metrics)
            for (const point of metric.dataPoints as DataPoint<number | Histogram>[])
              out.push([
                scope.scope.name,
                metric.descriptor.name,
                metric.descriptor.unit,
                metric.dataPointType,
                Object.entries(point.attributes).sort(),
                point.value,
              ]);
      await meterProvider.shutdown();
      return out.map((point) => JSON.stringify(point)).sort();
    },
  };
}

/** What per-event recording exported: each `Measurement` of the fold as it was, recorded as made. */
async function perEvent(log: readonly StoredEvent[]): Promise<string[]> {
  const old = reader();
  const instruments = instrumentsOf(old.meterProvider.getMeter("@sema-agent/otel"));
  const fold = new PerEventMetricFold();
  for (const event of log) for (const measurement of fold.add(event)) instruments.record(measurement);
  return old.points();
}

/** What the live sink exports, given the log as its process appended it. */
async function live(log: readonly StoredEvent[]): Promise<string[]> {
  const now = reader();
  const sink = metricsEmit({ meterProvider: now.meterProvider });
  for (const event of log) sink.emit(event);
  await sink.flush();
  return now.points();
}

describe("the live sink against per-event recording", () => {
  it("exports the same data points on any log", async () => {
    await fc.assert(
      fc.asyncProperty(anyLog, async (log) => {
        expect(await live(log)).toEqual(await perEvent(log));
      }),
      { numRuns: 150 },
    );
  });

  it("MetricFold.add returns what the fold as it was returned, measurement for measurement", () => {
    fc.assert(
      fc.property(anyLog, (log) => {
        const now = new MetricFold();
        const old = new PerEventMetricFold();
        for (const event of log) expect(now.add(event)).toEqual(old.add(event));
      }),
      { numRuns: 300 },
    );
  });

  it("hands the same attribute set out again: a turn's measurements make no attributes of their own", () => {
    const fold = new MetricFold();
    const recorded: Record<string, string>[] = [];
    const record = (_metric: string, _value: number, attributes: Record<string, string>) => recorded.push(attributes);
    const log = [make.created(), make.legStarted(), make.turn(1), make.turn(2)].map(
      (event, index) =>
        ({ ...event, taskId: "t1", seq: index + 1, at: new Date(T0 + index).toISOString() }) as StoredEvent,
    );
    for (const event of log) fold.record(event, record);
    // task started, then each turn: its duration and its two token counts.
    expect(recorded).toHaveLength(7);
    expect(recorded[4]).toBe(recorded[1]);
    expect(recorded[5]).toBe(recorded[2]);
    expect(recorded[6]).toBe(recorded[3]);
    expect(recorded.every((attributes) => Object.isFrozen(attributes))).toBe(true);
  });

  it("a turn on another model gets that model's sets, and the first model's again after it", () => {
    const fold = new MetricFold();
    const recorded: [string, Record<string, string>][] = [];
    const record = (metric: string, _value: number, attributes: Record<string, string>) =>
      recorded.push([metric, attributes]);
    const models = ["openai:gpt-a", "anthropic:claude-b", "openai:gpt-a", "openai:gpt-a", "mystery"];
    const log = [
      make.created(),
      make.legStarted(),
      ...models.map((model, index) => ({ ...make.turn(index + 1), model })),
    ].map(
      (event, index) =>
        ({ ...event, taskId: "t1", seq: index + 1, at: new Date(T0 + index).toISOString() }) as StoredEvent,
    );
    for (const event of log) fold.record(event, record);
    const durations = recorded.filter(([metric]) => metric === "gen_ai.client.operation.duration");
    expect(durations.map(([, attributes]) => attributes["gen_ai.response.model"])).toEqual([
      "gpt-a",
      "claude-b",
      "gpt-a",
      "gpt-a",
      "mystery",
    ]);
    expect(durations.map(([, attributes]) => attributes["gen_ai.provider.name"])).toEqual([
      "openai",
      "anthropic",
      "openai",
      "openai",
      undefined,
    ]);
    // Each model's set is made once and handed out again, whichever model came between.
    expect(durations[2]?.[1]).toBe(durations[0]?.[1]);
    expect(durations[3]?.[1]).toBe(durations[0]?.[1]);
    expect(durations[1]?.[1]).not.toBe(durations[0]?.[1]);
    // And the fold as it was agrees, measurement for measurement.
    const old = new PerEventMetricFold();
    const now = new MetricFold();
    for (const event of log) expect(now.add(event)).toEqual(old.add(event));
  });

  it("a meter that is not the SDK's gets the same calls", () => {
    const calls: unknown[] = [];
    const instrument = (name: string) => ({
      add: (value: number, attributes: object) => calls.push([name, value, attributes]),
      record: (value: number, attributes: object) => calls.push([name, value, attributes]),
    });
    const meter = { createCounter: instrument, createHistogram: instrument } as unknown as Meter;
    const sink = metricsEmit({ meter });
    const log = [make.created(), make.legStarted(), make.turn(1), make.legEnded()].map(
      (event, index) =>
        ({ ...event, taskId: "t1", seq: index + 1, at: new Date(T0 + index * 1000).toISOString() }) as StoredEvent,
    );
    for (const event of log) sink.emit(event);
    expect(calls.map((call) => (call as unknown[])[0])).toEqual([
      "sema.task.started",
      "gen_ai.client.operation.duration",
      "gen_ai.client.token.usage",
      "gen_ai.client.token.usage",
      "sema.leg.ended",
      "sema.leg.duration",
    ]);
  });
});

/**
 * A provider read by an in-memory exporter, with `producer` listed in its reader when given;
 * `points` is every exported point with everything an exporter reads but the times.
 */
function detailedReader(producer?: MetricsProducer) {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const periodic = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: 3_600_000,
    ...(producer === undefined ? {} : { metricProducers: [producer] }),
  });
  const meterProvider = new MeterProvider({ readers: [periodic] });
  return {
    meterProvider,
    /** The points of the last export, by metric, sorted; each point's start never after its end. */
    async points(): Promise<string[]> {
      await periodic.forceFlush();
      const out: string[] = [];
      const names: string[] = [];
      const last = exporter.getMetrics().at(-1);
      for (const scope of last?.scopeMetrics ?? [])
        for (const metric of scope.metrics) {
          names.push(metric.descriptor.name);
          for (const point of metric.dataPoints as DataPoint<number | Histogram>[]) {
            expect(point.startTime[0] * 1e9 + point.startTime[1]).toBeLessThanOrEqual(
              point.endTime[0] * 1e9 + point.endTime[1],
            );
            const { descriptor } = metric;
            out.push(
              JSON.stringify([
                scope.scope.name,
                scope.scope.version,
                scope.scope.schemaUrl,
                descriptor.name,
                descriptor.unit,
                descriptor.description,
                descriptor.valueType,
                metric.aggregationTemporality,
                metric.dataPointType,
                Object.entries(point.attributes).sort(),
                point.value,
              ]),
            );
          }
        }
      // No metric twice, whichever way its points were recorded.
      expect(new Set(names).size).toBe(names.length);
      return out.sort();
    },
  };
}

/** A host's metrics over `log`: the sink, and a measured store whose appends take `latencies` ms. */
async function record(log: readonly StoredEvent[], latencies: readonly number[], producer?: MetricsProducer) {
  const host = detailedReader(producer);
  const via = producer === undefined ? {} : { producer };
  const sink = metricsEmit({ meterProvider: host.meterProvider, ...via });
  let clock = 0;
  let calls = 0;
  // Each append reads the clock twice: at its start, and at its end some latency later.
  const now = () => {
    if (calls++ % 2 === 1) clock += latencies[(calls >> 1) % latencies.length] ?? 0;
    return clock;
  };
  const fails = (seq: number) => seq % 7 === 3;
  const store = instrumentStore(
    {
      append: async (_taskId: string, events: StoredEvent[]) => {
        const first = events[0];
        if (first !== undefined && fails(first.seq)) throw Object.assign(new Error("x"), { code: "conflict" });
        return events;
      },
    } as unknown as Parameters<typeof instrumentStore>[0],
    { meterProvider: host.meterProvider, now, ...via },
  );
  for (const event of log) {
    await store.append(event.taskId, [event] as never, {} as never).catch(() => {});
    sink.emit(event);
  }
  await sink.flush();
  return host;
}

describe("the producer against the SDK's instruments", () => {
  it("exports the same metrics, field for field, on any log and any store latencies", async () => {
    await fc.assert(
      fc.asyncProperty(
        anyLog,
        fc.array(fc.oneof(fc.nat(3), fc.double({ min: 0, max: 9000, noNaN: true })), { minLength: 1, maxLength: 8 }),
        async (log, latencies) => {
          const sdk = await record(log, latencies);
          const producer = createMetricsProducer();
          const ours = await record(log, latencies, producer);
          const expected = await sdk.points();
          expect(await ours.points()).toEqual(expected);
          await sdk.meterProvider.shutdown();
          await ours.meterProvider.shutdown();
        },
      ),
      { numRuns: 120 },
    );
  });

  it("is cumulative: a second collection has the first one's counts and what came after, from the same start", async () => {
    const t0 = Date.parse("2026-12-07T10:00:00.000Z");
    let ms = t0;
    const producer = createMetricsProducer({ now: () => ms });
    const latency = producer.recorderOf("sema.store.append.duration");
    if (latency === undefined) throw new Error("no recorder");
    const append = Object.freeze({ "sema.store.operation": "append" });
    latency(0.001, append);
    ms += 1500;
    latency(0.003, { "sema.store.operation": "append" });
    const first = await producer.collect();
    ms += 2000;
    latency(7, append);
    const second = await producer.collect();
    const point = (result: typeof first) => {
      const metric = result.resourceMetrics.scopeMetrics[0]?.metrics[0];
      expect(metric?.aggregationTemporality).toBe(AggregationTemporality.CUMULATIVE);
      expect(metric?.dataPoints).toHaveLength(1);
      return metric?.dataPoints[0] as DataPoint<Histogram>;
    };
    expect(point(first).value).toEqual({
      buckets: {
        boundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        counts: [0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      },
      sum: 0.004,
      count: 2,
      min: 0.001,
      max: 0.003,
    });
    expect(point(second).value).toMatchObject({ sum: 7.004, count: 3, min: 0.001, max: 7 });
    expect(point(second).value.buckets.counts).toEqual([0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    // The start is the series' first measurement; the end, each collection's time.
    const s0 = t0 / 1000;
    expect(point(first).startTime).toEqual([s0, 0]);
    expect(point(second).startTime).toEqual([s0, 0]);
    expect(point(first).endTime).toEqual([s0 + 1, 500_000_000]);
    expect(point(second).endTime).toEqual([s0 + 3, 500_000_000]);
    // What was exported stays as it was when more is recorded.
    expect(point(first).value.count).toBe(2);
  });

  it("drops a negative value, counts no NaN, and records nothing for a counter or a gauge", async () => {
    const producer = createMetricsProducer();
    expect(producer.recorderOf("sema.task.started")).toBeUndefined();
    expect(producer.recorderOf("sema.tasks")).toBeUndefined();
    const tokens = producer.recorderOf("gen_ai.client.token.usage");
    tokens?.(-1, { "gen_ai.token.type": "input" });
    expect((await producer.collect()).resourceMetrics.scopeMetrics).toEqual([]);
    tokens?.(Number.NaN, { "gen_ai.token.type": "input" });
    tokens?.(4, { "gen_ai.token.type": "input" });
    const [scope] = (await producer.collect()).resourceMetrics.scopeMetrics;
    expect(scope?.scope).toEqual({ name: "@sema-agent/otel", version: "" });
    const value = (scope?.metrics[0]?.dataPoints[0] as DataPoint<Histogram> | undefined)?.value;
    expect(value).toMatchObject({ count: 1, sum: 4, min: 4, max: 4 });
    // 4 is on a boundary: bounds are inclusive upper bounds.
    expect(value?.buckets.counts.slice(0, 3)).toEqual([0, 1, 0]);
  });

  it("a meter takes one choice: its histograms on it, or on one producer", () => {
    const meterProvider = new MeterProvider();
    const producer = createMetricsProducer();
    metricsEmit({ meterProvider, producer });
    instrumentStore({} as never, { meterProvider, producer });
    expect(() => metricsEmit({ meterProvider })).toThrow(TypeError);
    expect(() => instrumentStore({} as never, { meterProvider, producer: createMetricsProducer() })).toThrow(TypeError);
  });
});
