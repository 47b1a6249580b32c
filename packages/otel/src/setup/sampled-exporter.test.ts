// Sampling decides per trace from the trace id alone: every span of a task is kept or dropped
// together, and two processes (two samplers) decide alike for any task.
import { InMemorySpanExporter, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace-base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { traceIdOf } from "../export/span-ids.ts";
import { runScriptedTask } from "../trace/test-support.ts";
import { traceTask } from "../trace/trace-task.ts";
import { keepsTrace, SampledExporter, samplerOf } from "./sampled-exporter.ts";

describe("sampling by trace", () => {
  it("keeps about the ratio of tasks, the same ones in every process", () => {
    const ids = Array.from({ length: 2000 }, (_, i) => traceIdOf(`task-${i}`));
    const one = samplerOf({ name: "parentbased_traceidratio", ratio: 0.25 });
    const other = samplerOf({ name: "traceidratio", ratio: 0.25 });
    const kept = ids.filter((id) => keepsTrace(one, id));
    expect(kept.length).toBeGreaterThan(400);
    expect(kept.length).toBeLessThan(600);
    expect(ids.filter((id) => keepsTrace(other, id))).toEqual(kept);
    // The SDK's own ratio sampler, asked directly, agrees: this is its decision, not a copy of it.
    expect(ids.filter((id) => keepsTrace(new TraceIdRatioBasedSampler(0.25), id))).toEqual(kept);
  });

  it("any task: a ratio's decision is monotone (kept at r, kept at every larger r)", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (task, a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          const id = traceIdOf(task);
          if (keepsTrace(samplerOf({ name: "traceidratio", ratio: low }), id))
            expect(keepsTrace(samplerOf({ name: "traceidratio", ratio: high }), id)).toBe(true);
        },
      ),
    );
  });

  it("exports all of a task's spans or none", async () => {
    const { store, taskId } = await runScriptedTask();
    const count = async (name: "always_on" | "always_off") => {
      const inner = new InMemorySpanExporter();
      await traceTask(store, taskId, { exporter: new SampledExporter(inner, samplerOf({ name, ratio: 1 })), env: {} });
      return inner.getFinishedSpans().length;
    };
    expect(await count("always_on")).toBeGreaterThan(5);
    expect(await count("always_off")).toBe(0);
  });
});
