// How a leg groups its events into appends (each append one transaction): the opening deliveries go
// in with leg_started, and a final answer with the task's completion, unless something must come
// between them — which these tests make happen.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { Store } from "../../ports/store.ts";
import type { StoredEvent, TaskEvent } from "../../protocol/task-event.ts";
import { lookupTool } from "../../testing/lookup-tool.ts";
import { ScriptedModel, type ScriptStep } from "../../testing/scripted-model.ts";
import { cancel } from "../tasks/control.ts";
import { sendInput } from "../tasks/send-input.ts";
import { startTask } from "../tasks/start-task.ts";
import { wake } from "../tasks/wake.ts";
import { runLeg } from "./run-leg.ts";

const label = (e: TaskEvent | StoredEvent) => (e.type === "human_input" ? `human_input:${e.delivery}` : e.type);

/** `store`, recording the event types of each append. */
function recording(inner: Store): { store: Store; appends: string[][] } {
  const appends: string[][] = [];
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === "append")
        return async (...args: Parameters<Store["append"]>) => {
          const stored = await target.append(...args);
          appends.push(stored.map(label));
          return stored;
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, appends };
}

async function run(steps: ScriptStep[], act?: (store: Store, taskId: string) => Promise<void>) {
  const memory = new MemoryStore();
  const { store, appends } = recording(memory);
  const taskId = await startTask(memory, { objective: "Look it up" });
  const model = new ScriptedModel(steps, { recordRequests: false });
  const outcome = await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId);
  await act?.(memory, taskId);
  return { outcome, appends, events: (await memory.read(taskId)).map(label), memory, taskId };
}

describe("append grouping", () => {
  it("a 1-turn task takes two appends; a tool call adds one for the call and one for its result", async () => {
    const plain = await run([{ text: "Done." }]);
    expect(plain.outcome.status).toBe("completed");
    expect(plain.appends).toEqual([
      ["leg_started", "human_input:applied", "user_message"],
      ["model_turn", "task_completed", "leg_ended"],
    ]);
    const tool = await run([{ toolCalls: [{ name: "lookup", input: { key: "a" } }] }, { text: "Done." }]);
    expect(tool.appends).toEqual([
      ["leg_started", "human_input:applied", "user_message"],
      ["model_turn", "tool_call_started"],
      ["tool_result"],
      ["model_turn", "task_completed", "leg_ended"],
    ]);
  });

  it("a steer sent during the final model call: the answer goes in alone, the steer is delivered, the task goes on", async () => {
    let memory: Store | undefined;
    let taskId = "";
    const steps: ScriptStep[] = [
      async () => {
        await sendInput(memory as Store, taskId, { text: "Also check b." });
        return { text: "Done." };
      },
      { text: "Checked b too." },
    ];
    const inner = new MemoryStore();
    memory = inner;
    const { store, appends } = recording(inner);
    taskId = await startTask(inner, { objective: "Look it up" });
    const outcome = await runLeg(
      { store, agent: { model: new ScriptedModel(steps, { recordRequests: false }) } },
      taskId,
    );
    expect(outcome).toMatchObject({ status: "completed", result: "Checked b too." });
    expect(appends.slice(1)).toEqual([
      ["model_turn"],
      ["human_input:applied", "user_message"],
      ["model_turn", "task_completed", "leg_ended"],
    ]);
  });

  it("a cancel during the final model call: the answer is recorded and the task ends cancelled, not completed", async () => {
    let memory: Store | undefined;
    let taskId = "";
    const inner = new MemoryStore();
    memory = inner;
    const { store, appends } = recording(inner);
    taskId = await startTask(inner, { objective: "Look it up" });
    const steps: ScriptStep[] = [
      async () => {
        await cancel(memory as Store, taskId);
        return { text: "Done." };
      },
    ];
    const outcome = await runLeg(
      { store, agent: { model: new ScriptedModel(steps, { recordRequests: false }) } },
      taskId,
    );
    expect(outcome.status).toBe("cancelled");
    const events = (await inner.read(taskId)).map(label);
    expect(events).not.toContain("task_completed");
    expect(appends.at(-1)).toEqual(["leg_ended"]);
  });

  it("a wake of a finished task goes in with the new leg's start", async () => {
    const first = await run([{ text: "Done." }, { text: "Woken." }], async (store, taskId) => {
      await wake(store, taskId, { text: "Anything new?", source: "system" });
    });
    const { store, appends } = recording(first.memory);
    const model = new ScriptedModel([{ text: "Nothing new." }], { recordRequests: false });
    const outcome = await runLeg({ store, agent: { model } }, first.taskId);
    expect(outcome.status).toBe("completed");
    expect(appends).toEqual([
      ["leg_started", "human_input:applied", "user_message"],
      ["model_turn", "task_completed", "leg_ended"],
    ]);
  });
});
