// When the live tracer exports: in batches, once per turn of the event loop; and without waiting
// for one when a batch is full or a task's span ends, so a leg whose model and tools answer at
// once (the loop never turns) neither holds its whole trace nor leaves a finished task unexported.
// Timers are faked: whatever is exported before they are advanced was sent without one. And when
// it reads the log: a long gap (a task met mid-log) waits a turn, off the leg's path.
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { MemoryStore, runLeg, type Store, sendInput, startTask } from "@sema-agent/core";
import { lookupTool, lookupTurns, ScriptedModel } from "@sema-agent/core/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { shape } from "./test-support.ts";
import { traceEmit } from "./trace-emit.ts";
import { traceTask } from "./trace-task.ts";

/** An exporter that records each call's spans and answers at once. */
function recording() {
  const calls: ReadableSpan[][] = [];
  const exporter: SpanExporter = {
    export: (spans, done) => {
      calls.push(spans);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  return { calls, exporter };
}

async function runTraced(turns: number) {
  const { calls, exporter } = recording();
  const store = new MemoryStore();
  const tracer = traceEmit({ exporter, store, env: {} });
  const taskId = await startTask(store, { objective: "Look everything up", agent: "bench" });
  const model = new ScriptedModel(lookupTurns(turns), { recordRequests: false });
  const outcome = await runLeg({ store, agent: { model, tools: [lookupTool] }, emit: tracer.emit }, taskId);
  expect(outcome.status).toBe("completed");
  return { calls, tracer };
}

describe("the live tracer's exports", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends a finished task's trace when its span ends, in one call, without waiting for a timer", async () => {
    const { calls, tracer } = await runTraced(3);
    expect(calls).toHaveLength(1);
    const names = calls[0]?.map((span) => span.name) ?? [];
    // Two chat spans with a call each, the final chat, the leg and the task.
    expect(names.filter((name) => name.startsWith("chat"))).toHaveLength(3);
    expect(names.filter((name) => name === "execute_tool lookup")).toHaveLength(2);
    expect(names.at(-1)).toBe("invoke_agent bench");
    expect(tracer.tasks).toBe(0);
  });

  it("sends a full batch of 512 spans at once while the leg runs", async () => {
    const { calls } = await runTraced(600);
    // 599 chat and tool spans each, the last chat, the leg and the task: 1,201 spans.
    expect(calls.map((spans) => spans.length)).toEqual([512, 512, 177]);
    expect(new Set(calls.flat().map((span) => span.spanContext().spanId)).size).toBe(1201);
  });

  it("reads a long gap in the log on a later turn of the event loop, then exports what the rebuild has", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Look everything up", agent: "bench" });
    const agent = { model: new ScriptedModel(lookupTurns(100), { recordRequests: false }), tools: [lookupTool] };
    expect((await runLeg({ store, agent }, taskId)).status).toBe("completed");
    // A follow-up wakes the finished task, in a process whose tracer never saw it: 300 events back.
    await sendInput(store, taskId, { text: "One more thing.", carrier: "wake" });
    const { calls, exporter } = recording();
    // The tracer reads through this view of the store, so its reads are counted.
    let reads = 0;
    const read: Store["read"] = (...args) => {
      reads++;
      return store.read(...args);
    };
    const tracer = traceEmit({ exporter, store: Object.assign(Object.create(store) as Store, { read }), env: {} });
    const again = { model: new ScriptedModel([{ text: "Done again." }], { recordRequests: false }), tools: [] };
    expect((await runLeg({ store, agent: again, emit: tracer.emit }, taskId)).status).toBe("completed");
    // The leg ran without waiting for the read: the log was not read yet, nothing is out.
    expect(reads).toBe(0);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(reads).toBe(1);
    await tracer.flush();
    const live = calls.flat();
    expect(live.map((span) => span.name).sort()).toEqual(["chat inline", "sema.leg"]);
    // (The SDK's in-memory exporter answers on a timer, faked here: the recording one answers at once.)
    const rebuilt = recording();
    await traceTask(store, taskId, { exporter: rebuilt.exporter, env: {} });
    const ids = new Set(live.map((span) => span.spanContext().spanId));
    expect(shape(live)).toEqual(shape(rebuilt.calls.flat().filter((span) => ids.has(span.spanContext().spanId))));
  });
});
