// People first in one process (`WorkLane`): a leg's appends ride the person lane from the moment
// it knows a person waits (a new task, a person's input folded, or seen by the step's watcher)
// until the model request that carries what they sent (`attended` once a person's word arrived
// mid-leg), so a store that batches writes runs them ahead of routine legs' writes; afterwards the
// leg's appends are routine again.
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { AppendOptions, ReadOptions, Store } from "../../ports/store.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { lookupTool } from "../../testing/lookup-tool.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { sendInput } from "../tasks/send-input.ts";
import { startTask } from "../tasks/start-task.ts";
import { LegWriter, loadState } from "./event-writer.ts";
import { runLeg } from "./run-leg.ts";
import { ForeignInterrupts } from "./stop-signals.ts";

/** A MemoryStore that records each append's event types and lane, and each read's lane. */
function recordingStore() {
  const appends: Array<{ types: string; lane: string }> = [];
  const reads: string[] = [];
  const inner = new MemoryStore();
  const store: Store = new Proxy(inner, {
    get(target, key) {
      if (key === "append")
        return async (taskId: string, events: TaskEvent[], options: AppendOptions) => {
          const stored = await target.append(taskId, events, options);
          appends.push({ types: events.map((e) => e.type).join(","), lane: options.lane ?? "routine" });
          return stored;
        };
      if (key === "read")
        return async (taskId: string, options?: ReadOptions) => {
          reads.push(options?.lane ?? "routine");
          return target.read(taskId, options);
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, appends, reads };
}

describe("a leg's lane", () => {
  it("is the person lane until the first request of a new task, then routine", async () => {
    const { store, appends } = recordingStore();
    const taskId = await startTask(store, { objective: "Look k0 up" });
    const model = new ScriptedModel([{ toolCalls: [{ name: "lookup", input: { key: "k0" } }] }, { text: "Done." }], {
      mode: "by-transcript",
    });
    await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId);
    expect(appends).toEqual([
      { types: "leg_started,human_input,user_message", lane: "person" },
      { types: "model_turn,tool_call_started", lane: "routine" },
      { types: "tool_result", lane: "routine" },
      { types: "model_turn,task_completed,leg_ended", lane: "routine" },
    ]);
  });

  it("turns to the attended lane when a steer arrives mid-leg, until the request that carries it", async () => {
    const { store, appends, reads } = recordingStore();
    const taskId = await startTask(store, { objective: "Look keys up" });
    let steered = false;
    const model = new ScriptedModel(
      [
        { toolCalls: [{ name: "lookup", input: { key: "k0" } }] },
        // During the second model call a person steers (the leg folds it when its append conflicts).
        async () => {
          await sendInput(store, taskId, { text: "Use k9 instead", inputId: "steer-1" });
          steered = true;
          return { toolCalls: [{ name: "lookup", input: { key: "k1" } }] };
        },
        (request) => ({
          text: request.transcript.some((e) => e.role === "user" && e.content.includes("k9")) ? "k9" : "?",
        }),
      ],
      { mode: "by-transcript" },
    );
    const outcome = await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId);
    expect(steered).toBe(true);
    expect(outcome.status).toBe("completed");
    expect(appends).toEqual([
      { types: "leg_started,human_input,user_message", lane: "person" },
      { types: "model_turn,tool_call_started", lane: "routine" },
      { types: "tool_result", lane: "routine" },
      // The steer itself: the store takes its lane from the event (`laneOfEvents`).
      { types: "human_input", lane: "routine" },
      // From the conflict that folded the steer until the request that carries it: attended (the
      // person lane's front, ahead of new tasks' first steps).
      { types: "model_turn,tool_call_started", lane: "attended" },
      { types: "tool_result", lane: "attended" },
      { types: "human_input,user_message", lane: "attended" },
      { types: "model_turn,task_completed,leg_ended", lane: "routine" },
    ]);
    // The leg learned of the steer from the read that folded it (routine: it did not know yet).
    expect(reads).toEqual(["routine", "routine"]);
  });

  it("reads in the lane it writes in", async () => {
    const { store, reads } = recordingStore();
    const taskId = await startTask(store, { objective: "Look keys up" });
    const { folder } = await loadState(store, taskId);
    const lease = await store.acquireLease(taskId, { holder: { id: "h" }, ttlMs: 60_000 });
    const writer = new LegWriter(
      {
        store,
        taskId,
        leaseToken: lease.token,
        emit: () => undefined,
        snapshotEvery: 1000,
        retry: { maxMs: 1000 },
        foreign: new ForeignInterrupts(),
      },
      folder,
    );
    reads.length = 0;
    // A new task's first step rides the person lane, and its refresh reads there (a store that
    // queues reads runs it ahead of the routine ones); its input still waits after a request.
    await writer.refresh();
    writer.requestSent();
    await writer.refresh();
    // A person's word arrived mid-leg: attended until the request that carries it.
    writer.personArrived();
    await writer.refresh();
    expect(reads).toEqual(["person", "person", "attended"]);
    expect(writer.lane).toBe("person");
  });
});
