/**
 * The tracing benchmark: what `@sema-agent/otel`'s live tracer costs per model turn. The harness
 * benchmark's workload (an instant scripted model, one instant tool call per turn, MemoryStore),
 * run with no `emit`, a no-op `emit`, `traceEmit` into an `InMemorySpanExporter`, and `traceEmit`
 * into an exporter that reads every field of every span as OTLP's transformer does (so the spans'
 * lazily derived ids and times are paid for); then with the metrics a host records
 * (`instrumentStore` feeding `metricsEmit`, the histograms aggregated by `createMetricsProducer`
 * and the counters on an SDK `MeterProvider`, read by an in-memory exporter once per task, as
 * `metricsFromEnv` sets them up), alone and with `traceEmit` beside them, and the same metrics
 * with every one on the SDK's instruments (a host's own `MeterProvider`). Warmed up first (V8 keeps optimizing for tens of
 * thousands of turns), then rounds with the modes in rotating order, so all see the same machine
 * state. Reports CPU and wall time per turn of each and the ratios per round: CPU time is what
 * the ratios are read on, a shared machine's other processes stretch wall time unevenly.
 * Then the sinks alone: one task's appends recorded once and replayed (each batch handed back at
 * once by a store that keeps nothing), through no sink, the metrics (`instrumentStore` feeding
 * `metricsEmit`, collected at the end; with the producer, and on the SDK's instruments) and `traceEmit`, so what they cost per turn is read apart
 * from whatever the harness's own turn costs.
 *
 *   npm run bench:otel                                   # 1,000-turn tasks, 20 rounds
 *   npm run otel -w @sema-agent/bench -- --turns 1000 --rounds 20 --warm-turns 30000
 */
import { parseArgs } from "node:util";
import type { ExportResult } from "@opentelemetry/core";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { type Emit, MemoryStore, runLeg, type Store, type StoredEvent, startTask } from "@sema-agent/core";
import { lookupTool, lookupTurns, ScriptedModel } from "@sema-agent/core/testing";
import { createMetricsProducer, instrumentStore, metricsEmit, traceEmit } from "@sema-agent/otel";
import { describeMachine, formatMachine, formatTable, type ResultRow } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    turns: { type: "string", default: "1000" },
    rounds: { type: "string", default: "20" },
    "warm-turns": { type: "string", default: "30000" },
    save: { type: "boolean", default: false },
  },
});
const machine = describeMachine();
const turns = Number(values.turns);
const rounds = Number(values.rounds);
const warmTurns = Number(values["warm-turns"]);

/**
 * Reads what `@opentelemetry/otlp-transformer` reads of each span (ids, parent, name, kind, times,
 * every attribute, events, status, links, resource, scope, counts) and keeps a count, not the spans.
 */
class ReadingExporter implements SpanExporter {
  fields = 0;
  spans = 0;
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      const own = span.spanContext();
      let n = own.traceId.length + own.spanId.length + (span.parentSpanContext?.spanId.length ?? 0);
      n += span.name.length + span.kind + span.startTime[0] + span.endTime[1] + span.duration[0];
      for (const [key, value] of Object.entries(span.attributes)) n += key.length + (value === undefined ? 0 : 1);
      for (const event of span.events)
        n += event.name.length + event.time[0] + Object.keys(event.attributes ?? {}).length;
      n += span.status.code + span.links.length + span.droppedAttributesCount + span.droppedEventsCount;
      n += span.droppedLinksCount + (span.resource.attributes["service.name"] === undefined ? 0 : 1);
      n += span.instrumentationScope.name.length;
      this.fields += n;
    }
    this.spans += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

const MODES = ["off", "noop", "traced", "read", "metrics", "both", "sdk"] as const;
type Mode = (typeof MODES)[number];

interface Sample {
  cpuMsPerTurn: number;
  wallMsPerTurn: number;
}

/**
 * A host's metrics over `raw`: the measured store feeding the sink, and a collection of what they
 * recorded; the histograms on a producer the reader lists (as `metricsFromEnv` does), or with
 * `sdk` on the SDK's instruments.
 */
function metricsOver(raw: Store, sdk = false) {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const producer = sdk ? undefined : createMetricsProducer();
  const via = producer === undefined ? {} : { producer };
  const reader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: 3_600_000,
    ...(producer === undefined ? {} : { metricProducers: [producer] }),
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const sink = metricsEmit({ meterProvider, store: raw, ...via });
  return {
    store: instrumentStore(raw, { meterProvider, emit: sink.emit, ...via }),
    /** What a periodic export does, once per task: collect every instrument. */
    async collect(): Promise<number> {
      await sink.flush();
      await reader.forceFlush();
      return exporter.getMetrics().reduce((n, resource) => n + resource.scopeMetrics.length, 0);
    },
    close: () => meterProvider.shutdown(),
  };
}

/** One task of `turns` turns on a fresh store, with no emit, a no-op one, the tracer, the metrics or both. */
async function round(mode: Mode): Promise<Sample> {
  const raw = new MemoryStore();
  const metrics =
    mode === "metrics" || mode === "both" ? metricsOver(raw) : mode === "sdk" ? metricsOver(raw, true) : undefined;
  const store: Store = metrics?.store ?? raw;
  // Started through the measured store, as a host does: the sink sees the task from its start.
  const taskId = await startTask(store, { objective: "Look everything up", agent: "bench" });
  const model = new ScriptedModel(lookupTurns(turns), { recordRequests: false });
  const inMemory = new InMemorySpanExporter();
  const reading = new ReadingExporter();
  const exporter = mode === "read" ? reading : inMemory;
  const tracer =
    mode === "traced" || mode === "read" || mode === "both" ? traceEmit({ exporter, store: raw, env: {} }) : undefined;
  const emit: Emit | undefined = mode === "noop" ? () => {} : tracer?.emit;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const outcome = await runLeg(
    emit === undefined
      ? { store, agent: { model, tools: [lookupTool] } }
      : { store, agent: { model, tools: [lookupTool] }, emit },
    taskId,
  );
  // flush() exports what is left at once, inside the timing; what it then waits for is the
  // in-memory exporter's answer, on a timer (at least 1 ms of idle wall time, no work of ours).
  const flushed = tracer?.flush();
  const collected = await metrics?.collect();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  await flushed;
  if (outcome.status !== "completed") throw new Error(`the task ended ${outcome.status}`);
  const exported = mode === "read" ? reading.spans : inMemory.getFinishedSpans().length;
  if (tracer !== undefined && exported < turns) throw new Error("the tracer exported too few spans");
  if (metrics !== undefined && (collected ?? 0) === 0) throw new Error("no metrics were collected");
  await metrics?.close();
  await raw.close();
  return { cpuMsPerTurn: (used.user + used.system) / 1000 / turns, wallMsPerTurn: wall / turns };
}

for (let warmed = 0, task = 0; task < 3 || warmed < warmTurns; task++, warmed += turns)
  for (const mode of MODES) await round(mode);
const samples = new Map<Mode, Sample[]>(MODES.map((mode) => [mode, []]));
for (let i = 0; i < rounds; i++) {
  // Each mode first in turn: none always runs right after another's garbage.
  const order = [...MODES.slice(i % MODES.length), ...MODES.slice(0, i % MODES.length)];
  for (const mode of order) samples.get(mode)?.push(await round(mode));
}
const of = (mode: Mode) => samples.get(mode) ?? [];
const ratio = (mode: Mode, base: Mode, key: keyof Sample) =>
  of(mode).map((sample, i) => sample[key] / ((of(base)[i] as Sample)[key] || Number.NaN));
const SUBJECTS: Record<Mode, string> = {
  off: "no tracing",
  noop: "a no-op emit",
  traced: "traceEmit (in-memory exporter)",
  read: "traceEmit (exporter reading every field)",
  metrics: "metricsEmit + instrumentStore (in-memory reader)",
  both: "traceEmit and metrics",
  sdk: "metrics, histograms on the SDK's instruments",
};
const rows: ResultRow[] = [];
for (const mode of MODES)
  rows.push({
    subject: SUBJECTS[mode],
    metric: "CPU per turn",
    unit: "ms",
    samples: of(mode).map((s) => s.cpuMsPerTurn),
  });
for (const mode of MODES)
  rows.push({
    subject: SUBJECTS[mode],
    metric: "wall per turn",
    unit: "ms",
    samples: of(mode).map((s) => s.wallMsPerTurn),
  });
rows.push(
  {
    subject: "a no-op emit ÷ off",
    metric: "CPU per turn",
    unit: "ratio",
    samples: ratio("noop", "off", "cpuMsPerTurn"),
  },
  {
    subject: "tracing on ÷ off",
    metric: "CPU per turn",
    unit: "ratio",
    samples: ratio("traced", "off", "cpuMsPerTurn"),
    target: { value: 1.1, higher: false },
  },
  {
    subject: "tracing on ÷ off",
    metric: "wall per turn",
    unit: "ratio",
    samples: ratio("traced", "off", "wallMsPerTurn"),
  },
  {
    subject: "tracing, every field read ÷ off",
    metric: "CPU per turn",
    unit: "ratio",
    samples: ratio("read", "off", "cpuMsPerTurn"),
  },
  {
    subject: "metrics on ÷ off",
    metric: "CPU per turn",
    unit: "ratio",
    samples: ratio("metrics", "off", "cpuMsPerTurn"),
    target: { value: 1.1, higher: false },
  },
  {
    subject: "metrics on the SDK's instruments ÷ off",
    metric: "CPU per turn",
    unit: "ratio",
    samples: ratio("sdk", "off", "cpuMsPerTurn"),
  },
  {
    subject: "tracing and metrics ÷ off",
    metric: "CPU per turn",
    unit: "ratio",
    samples: ratio("both", "off", "cpuMsPerTurn"),
  },
);

/** One task's appends, in order, each as the events it stored: what the replayed rounds hand back. */
async function recordAppends(): Promise<{ taskId: string; batches: StoredEvent[][] }> {
  const raw = new MemoryStore();
  const batches: StoredEvent[][] = [];
  const keep = (events: StoredEvent[]) => {
    batches.push(events);
    return events;
  };
  const append = (...args: Parameters<Store["append"]>) => raw.append(...args).then(keep);
  const createTask = (...args: Parameters<Store["createTask"]>) => raw.createTask(...args).then(keep);
  // The store's other methods on the store itself (its private fields), its writes recorded.
  const recording = new Proxy(raw, {
    get(target, property) {
      if (property === "append") return append;
      if (property === "createTask") return createTask;
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const taskId = await startTask(recording, { objective: "Look everything up", agent: "bench" });
  const model = new ScriptedModel(lookupTurns(turns), { recordRequests: false });
  const outcome = await runLeg({ store: recording, agent: { model, tools: [lookupTool] } }, taskId);
  if (outcome.status !== "completed") throw new Error(`the recorded task ended ${outcome.status}`);
  await raw.close();
  return { taskId, batches };
}

const REPLAYS = ["off", "metrics", "traced", "sdk"] as const;
type Replay = (typeof REPLAYS)[number];
const recorded = await recordAppends();

/** The recorded appends again, through no sink, the metrics or the tracer: CPU per turn. */
async function replay(mode: Replay): Promise<number> {
  let next = 0;
  const handBack = async () => recorded.batches[next++] ?? [];
  // A store that stores nothing: each append answers with the next recorded batch.
  const replaying = { append: handBack, createTask: handBack, read: async () => [] } as unknown as Store;
  const metrics =
    mode === "metrics" ? metricsOver(replaying) : mode === "sdk" ? metricsOver(replaying, true) : undefined;
  const inMemory = new InMemorySpanExporter();
  const tracer = mode === "traced" ? traceEmit({ exporter: inMemory, store: replaying, env: {} }) : undefined;
  const store = metrics?.store ?? replaying;
  const cpu = process.cpuUsage();
  for (let index = 0; index < recorded.batches.length; index++) {
    const events =
      index === 0
        ? await store.createTask({ events: [] } as unknown as Parameters<Store["createTask"]>[0])
        : await store.append(recorded.taskId, [], {} as Parameters<Store["append"]>[2]);
    if (tracer !== undefined) for (const event of events) tracer.emit(event);
  }
  const flushed = tracer?.flush();
  const collected = await metrics?.collect();
  const used = process.cpuUsage(cpu);
  await flushed;
  if (tracer !== undefined && inMemory.getFinishedSpans().length < turns) throw new Error("too few spans replayed");
  if (metrics !== undefined && (collected ?? 0) === 0) throw new Error("no metrics were collected");
  await metrics?.close();
  return (used.user + used.system) / 1000 / turns;
}

for (let task = 0; task < Math.max(3, warmTurns / turns); task++) for (const mode of REPLAYS) await replay(mode);
const replayed = new Map<Replay, number[]>(REPLAYS.map((mode) => [mode, []]));
for (let i = 0; i < rounds; i++) {
  const order = [...REPLAYS.slice(i % REPLAYS.length), ...REPLAYS.slice(0, i % REPLAYS.length)];
  for (const mode of order) replayed.get(mode)?.push(await replay(mode));
}
const REPLAY_SUBJECTS: Record<Replay, string> = {
  off: "a replayed log, no sink",
  metrics: "a replayed log, metrics",
  traced: "a replayed log, traceEmit",
  sdk: "a replayed log, metrics on the SDK's instruments",
};
for (const mode of REPLAYS)
  rows.push({
    subject: REPLAY_SUBJECTS[mode],
    metric: "CPU per turn",
    unit: "ms",
    samples: replayed.get(mode) ?? [],
  });

console.log(formatMachine(machine));
console.log(
  `${turns}-turn tasks on MemoryStore, ${warmTurns.toLocaleString("en-US")} warm-up turns per mode, ${rounds} rounds (modes in rotating order)\n`,
);
console.log(formatTable(rows));
saveIfAsked("otel", machine, rows);
