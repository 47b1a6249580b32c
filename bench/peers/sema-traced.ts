/**
 * Sema as the `sema` adapter runs it, traced: every leg's `emit` is `traceEmit` of
 * `@sema-agent/otel` (one per store, as a host has one per process), exporting into the SDK's
 * `InMemorySpanExporter`. Side by side with `sema`, its "÷ Sema" column is what tracing costs
 * per turn. The exporter's spans are dropped at the start of each task, as an exporter that sent
 * them would, so memory figures do not grow with every task ever run (concurrent tasks, which all
 * start before any ends, keep theirs until the next batch starts).
 */
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { runLeg, type Store, sendInput, startTask } from "@sema-agent/core";
import { lookupTool, ScriptedModel } from "@sema-agent/core/testing";
import { type TraceEmit, traceEmit } from "@sema-agent/otel";
import { script, semaAdapter } from "./sema.ts";
import { type Adapter, OBJECTIVE, type TaskShape } from "./workloads.ts";

const exporter = new InMemorySpanExporter();
const tracers = new WeakMap<Store, TraceEmit>();

function tracerOf(store: Store): TraceEmit {
  let tracer = tracers.get(store);
  if (tracer === undefined) {
    tracer = traceEmit({ exporter, store, env: {} });
    tracers.set(store, tracer);
  }
  return tracer;
}

async function run(store: Store, shape: TaskShape): Promise<string> {
  exporter.reset();
  const emit = tracerOf(store).emit;
  const taskId = await startTask(store, { objective: OBJECTIVE });
  const model = new ScriptedModel(script(shape), { recordRequests: false });
  const outcome = await runLeg({ store, agent: { model, tools: [lookupTool] }, emit }, taskId);
  if (outcome.status !== "completed") throw new Error(`the task ended ${outcome.status}`);
  if (model.calls !== shape.turns) throw new Error(`${model.calls} model calls for ${shape.turns} turns`);
  // The tracer sends a task's spans as its span ends, so they are exported by now (a count, not a
  // search: this runs inside the timing; concurrent tasks share the exporter).
  const exported = exporter.getFinishedSpans().length;
  if (exported < shape.turns) throw new Error(`${exported} spans exported for ${shape.turns} turns`);
  return taskId;
}

/** Sema's adapter, traced. */
export const adapter: Adapter = semaAdapter({
  name: "Sema traced",
  usage:
    "The `sema` adapter with `emit: traceEmit({ exporter, store }).emit` (`@sema-agent/otel`), one tracer per store, the SDK's `InMemorySpanExporter` reset at each task's start.",
  run,
  async followUp(store, model, taskId) {
    const emit = tracerOf(store).emit;
    await sendInput(store, taskId, { text: "One more thing.", carrier: "wake" });
    return (await runLeg({ store, agent: { model, tools: [lookupTool] }, emit }, taskId)).status;
  },
});
