// A process's metrics in a test (an SDK provider read through the in-memory exporter), and the
// scripted task of the traces' tests — two tool calls, an approval, a steer sent while it waits,
// a resume — with each writer (first leg, the API, second leg) on a store of its own choosing.

import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { decideApproval, defineTool, MemoryStore, runLeg, type Store, sendInput, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { z } from "zod";
import { instrumentStore } from "./instrument-store.ts";
import { type MetricsEmit, metricsEmit } from "./metrics-emit.ts";

/** One process's metrics: a provider, its sink, and what its reader has collected. */
export interface TestProcess {
  meterProvider: MeterProvider;
  sink: MetricsEmit;
  /** `store` as this process writes it: instrumented, feeding `sink`. */
  wrap(store: Store): Store;
  /** Every data point collected now, by metric name. */
  collect(): Promise<Map<string, DataPoint<number | Histogram>[]>>;
  /** Shuts the provider down. */
  close(): Promise<void>;
}

/** A process with metrics on: the in-memory exporter behind a periodic reader flushed on demand. */
export function testProcess(raw: Store, clock?: () => number): TestProcess {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const sink = metricsEmit({ meterProvider, store: raw });
  return {
    meterProvider,
    sink,
    wrap: (store) =>
      instrumentStore(store, { meterProvider, emit: sink.emit, ...(clock === undefined ? {} : { now: clock }) }),
    async collect() {
      await sink.flush();
      exporter.reset();
      await reader.forceFlush();
      const points = new Map<string, DataPoint<number | Histogram>[]>();
      for (const resource of exporter.getMetrics())
        for (const scope of resource.scopeMetrics)
          for (const metric of scope.metrics)
            points.set(metric.descriptor.name, [
              ...(points.get(metric.descriptor.name) ?? []),
              ...(metric.dataPoints as DataPoint<number | Histogram>[]),
            ]);
      return points;
    },
    close: () => meterProvider.shutdown(),
  };
}

/** The points of `name` whose attributes include `attributes`. */
export function pointsOf(
  points: Map<string, DataPoint<number | Histogram>[]>,
  name: string,
  attributes: Record<string, string> = {},
): DataPoint<number | Histogram>[] {
  return (points.get(name) ?? []).filter((point) =>
    Object.entries(attributes).every(([key, value]) => point.attributes[key] === value),
  );
}

/** The sum of a counter's points, or of a histogram's counts, matching `attributes`. */
export function countOf(
  points: Map<string, DataPoint<number | Histogram>[]>,
  name: string,
  attributes: Record<string, string> = {},
): number {
  return pointsOf(points, name, attributes).reduce(
    (sum, point) => sum + (typeof point.value === "number" ? point.value : point.value.count),
    0,
  );
}

/** The sum of a histogram's recorded values matching `attributes`. */
export function sumOf(
  points: Map<string, DataPoint<number | Histogram>[]>,
  name: string,
  attributes: Record<string, string> = {},
): number {
  return pointsOf(points, name, attributes).reduce(
    (sum, point) => sum + (typeof point.value === "number" ? point.value : (point.value.sum ?? 0)),
    0,
  );
}

const lookup = defineTool({
  name: "lookup",
  description: "look something up",
  inputSchema: z.object({ query: z.string() }),
  execute: () => "TAP flight 1234",
});

const writeFile = defineTool({
  name: "write_file",
  description: "write a file",
  inputSchema: z.object({ path: z.string(), content: z.string() }),
  needsApproval: () => true,
  execute: (input) => `wrote ${input.path}`,
});

/** A store whose clock starts at 2026-11-30T10:00:00Z and steps a second per read. */
export function clockedStore(): MemoryStore {
  let now = Date.parse("2026-11-30T10:00:00.000Z");
  return new MemoryStore({ now: () => (now += 1000) });
}

/** Who writes each part of the task: the first leg, the API (steer, approval), the second leg. */
export type Writer = "leg1" | "api" | "leg2";

/**
 * Runs the scripted task on `raw` (by default a `clockedStore`, so every stored `at` is distinct
 * and known), each writer through the store `storeFor` gives it. Returns the raw store and id.
 */
export async function runScriptedTask(
  storeFor: (raw: MemoryStore, writer: Writer) => Store,
  raw: MemoryStore = clockedStore(),
) {
  const model = new ScriptedModel(
    [
      { text: "Looking up flights", toolCalls: [{ name: "lookup", input: { query: "flights Lisbon" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "plan.txt", content: "itinerary" } }] },
      { text: "Itinerary ready" },
    ],
    { mode: "by-transcript", id: "openai:gpt-test" },
  );
  const agent = { model, tools: [lookup, writeFile] };
  const api = storeFor(raw, "api");
  const taskId = await startTask(api, {
    objective: "Plan the trip",
    agent: "planner",
    principal: "acme",
    model: "openai:gpt-test",
  });
  const first = await runLeg({ store: storeFor(raw, "leg1"), agent }, taskId);
  if (first.parkedReason !== "approval") throw new Error(`expected an approval park, got ${JSON.stringify(first)}`);
  const request = (await raw.read(taskId)).find((event) => event.type === "approval_requested");
  if (request?.type !== "approval_requested") throw new Error("no approval requested");
  await sendInput(api, taskId, { text: "Also book a hotel", actor: { id: "ana", verified: true } });
  await decideApproval(api, taskId, {
    callId: request.callId,
    digest: request.digest,
    decision: "approve",
    actor: { id: "bob", verified: true },
    principal: "acme",
  });
  const second = await runLeg({ store: storeFor(raw, "leg2"), agent }, taskId);
  if (second.status !== "completed") throw new Error(`expected completion, got ${JSON.stringify(second)}`);
  return { raw, taskId };
}
