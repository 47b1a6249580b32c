/**
 * The tracing benchmark: what `@sema-agent/otel`'s live tracer costs per model turn. The harness
 * benchmark's workload (an instant scripted model, one instant tool call per turn, MemoryStore),
 * run with no `emit`, a no-op `emit` and `traceEmit` into an `InMemorySpanExporter`, rounds
 * alternating so all see the same machine state. Reports ms per turn of each and the ratios per round.
 *
 *   npm run bench:otel                                   # 1,000-turn tasks, 7 rounds
 *   npm run otel -w @sema-agent/bench -- --turns 1000 --rounds 7
 */
import { parseArgs } from "node:util";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { type Emit, MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { lookupTool, lookupTurns, ScriptedModel } from "@sema-agent/core/testing";
import { traceEmit } from "@sema-agent/otel";
import { describeMachine, formatMachine, formatTable } from "./lib/index.ts";

const { values } = parseArgs({
  options: { turns: { type: "string", default: "1000" }, rounds: { type: "string", default: "7" } },
});
const turns = Number(values.turns);
const rounds = Number(values.rounds);

/** One task of `turns` turns on a fresh store, with no emit, a no-op one or the tracer; ms per turn. */
async function round(mode: "off" | "noop" | "traced"): Promise<number> {
  const traced = mode === "traced";
  const store = new MemoryStore();
  const taskId = await startTask(store, { objective: "Look everything up", agent: "bench" });
  const model = new ScriptedModel(lookupTurns(turns), { recordRequests: false });
  const exporter = new InMemorySpanExporter();
  const tracer = traced ? traceEmit({ exporter, store, env: {} }) : undefined;
  const emit: Emit | undefined = mode === "noop" ? () => {} : tracer?.emit;
  const start = performance.now();
  const outcome = await runLeg(
    emit === undefined
      ? { store, agent: { model, tools: [lookupTool] } }
      : { store, agent: { model, tools: [lookupTool] }, emit },
    taskId,
  );
  await tracer?.flush();
  const ms = performance.now() - start;
  if (outcome.status !== "completed") throw new Error(`the task ended ${outcome.status}`);
  if (traced && exporter.getFinishedSpans().length < turns) throw new Error("the tracer exported too few spans");
  await store.close();
  return ms / turns;
}

for (let i = 0; i < 3; i++) for (const mode of ["off", "noop", "traced"] as const) await round(mode);
const off: number[] = [];
const noop: number[] = [];
const on: number[] = [];
const ratio: number[] = [];
const overEmit: number[] = [];
for (let i = 0; i < rounds; i++) {
  const a = await round("off");
  const n = await round("noop");
  const b = await round("traced");
  off.push(a);
  noop.push(n);
  on.push(b);
  ratio.push(b / a);
  overEmit.push(b / n);
}
console.log(formatMachine(describeMachine()));
console.log(`${turns}-turn tasks on MemoryStore, ${rounds} rounds (off, no-op emit and on alternating)\n`);
console.log(
  formatTable([
    { subject: "no tracing", metric: "time per turn", unit: "ms", samples: off },
    { subject: "a no-op emit", metric: "time per turn", unit: "ms", samples: noop },
    { subject: "traceEmit (in-memory exporter)", metric: "time per turn", unit: "ms", samples: on },
    { subject: "tracing ÷ a no-op emit", metric: "per-turn cost", unit: "ratio", samples: overEmit },
    {
      subject: "tracing on ÷ off",
      metric: "per-turn cost",
      unit: "ratio",
      samples: ratio,
      target: { value: 1.1, higher: false },
    },
  ]),
);
