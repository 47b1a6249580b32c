// A child run inside its parent's leg (runChildren) emits to the host's childEmit, never to the
// parent's own sink (whose stream is the parent's): a tracer passes its sink as both.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { ModelRequest } from "../../ports/model.ts";
import type { StreamEvent } from "../../protocol/stream-event.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";

function model(): ScriptedModel {
  return new ScriptedModel(
    Array.from({ length: 10 }, () => (request: ModelRequest) => {
      const first = request.transcript[0];
      const parent = first?.role === "user" && first.content === "Parent";
      const turn = request.transcript.filter((e) => e.role === "assistant").length;
      if (parent && turn === 0) return { toolCalls: [{ name: "delegate", input: { objective: "Child" } }] };
      return { text: parent ? "Parent done." : "Child done." };
    }),
    { mode: "sequential" },
  );
}

const tasksOf = (events: StreamEvent[]) => new Set(events.flatMap((event) => ("seq" in event ? [event.taskId] : [])));

describe("childEmit", () => {
  it("receives the events of children run in the parent's leg; emit receives only the parent's", async () => {
    for (const withChildEmit of [true, false]) {
      const store = new MemoryStore();
      const own: StreamEvent[] = [];
      const children: StreamEvent[] = [];
      const taskId = await startTask(store, { objective: "Parent" });
      const outcome = await runLeg(
        {
          store,
          agent: { model: model(), delegation: {} },
          emit: (event) => own.push(event),
          ...(withChildEmit ? { childEmit: (event: StreamEvent) => children.push(event) } : {}),
        },
        taskId,
      );
      expect(outcome.status).toBe("completed");
      const [childId] = (await store.read(taskId)).flatMap((e) => (e.type === "child_task" ? [e.childTaskId] : []));
      expect(tasksOf(own)).toEqual(new Set([taskId]));
      expect(tasksOf(children)).toEqual(withChildEmit ? new Set([childId]) : new Set());
      if (withChildEmit) expect(children.some((e) => e.type === "task_completed")).toBe(true);
    }
  });
});
